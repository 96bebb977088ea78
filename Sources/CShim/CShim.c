#define _GNU_SOURCE
#include "CShim.h"
#include <stdio.h>
#include <errno.h>
#include <sys/random.h>
#include <unistd.h>

void monkey_line_buffer_stdio(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    setvbuf(stderr, NULL, _IOLBF, 0);
}

int monkey_peer_credentials(int fd, pid_t *pid, uid_t *uid, gid_t *gid) {
    struct ucred cred;
    socklen_t length = sizeof(cred);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &length) != 0) return -1;
    *pid = cred.pid;
    *uid = cred.uid;
    *gid = cred.gid;
    return 0;
}

int monkey_peer_groups(int fd, gid_t *groups, int capacity) {
#ifdef SO_PEERGROUPS
    socklen_t length = (socklen_t)(sizeof(gid_t) * (size_t)capacity);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &length) != 0) return -1;
    return (int)(length / sizeof(gid_t));
#else
    errno = ENOPROTOOPT;
    return -1;
#endif
}

int monkey_accept_nonblocking(int fd) {
    return accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
}

long monkey_getrandom(void *buffer, unsigned long length) {
    return (long)getrandom(buffer, length, 0);
}

int monkey_syncfs(int fd) {
    return syncfs(fd);
}
