#define _GNU_SOURCE
#include <sys/signalfd.h>
#include <signal.h>
#include <unistd.h>
#include "CShim.h"
#include <stdio.h>
#include <errno.h>
#include <malloc.h>
#include <sys/random.h>
#include <poll.h>
#include <signal.h>
#include <pthread.h>
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
    if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &length) != 0) {
        /* Too small: the kernel says how much is needed; the caller retries. */
        if (errno == ERANGE) return (int)(length / sizeof(gid_t));
        return -1;
    }
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

int monkey_deliver_pending_sigint(void) {
    sigset_t pending;
    if (sigpending(&pending) != 0 || !sigismember(&pending, SIGINT)) return 0;
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);  /* the handler runs here */
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    return 1;
}

int monkey_wait_readable_unblocking_sigint(int fd) {
    /* ppoll delivers a pending signal only when it would otherwise wait:
       with data always ready, a Ctrl-C would stay pending for good. */
    if (monkey_deliver_pending_sigint()) {
        errno = EINTR;
        return -1;
    }
    sigset_t during;
    pthread_sigmask(SIG_SETMASK, NULL, &during);
    sigdelset(&during, SIGINT);
    struct pollfd descriptor = { .fd = fd, .events = POLLIN, .revents = 0 };
    int result = ppoll(&descriptor, 1, NULL, &during);
    return result > 0 ? 1 : result;
}

int monkey_block_sigint(int block) {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    return pthread_sigmask(block ? SIG_BLOCK : SIG_UNBLOCK, &set, NULL);
}

int monkey_signalfd(const int *signals, int count) {
    sigset_t set;
    sigemptyset(&set);
    for (int i = 0; i < count; i++) sigaddset(&set, signals[i]);
    return signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
}

int monkey_read_signal(int fd) {
    struct signalfd_siginfo info;
    for (;;) {
        ssize_t count = read(fd, &info, sizeof info);
        if (count == (ssize_t)sizeof info) return (int)info.ssi_signo;
        if (count < 0 && errno == EINTR) continue;
        if (count < 0 && errno == EAGAIN) return 0;
        return -1;
    }
}

int monkey_syncfs(int fd) {
    return syncfs(fd);
}

int monkey_use_one_malloc_arena(void) {
    return mallopt(M_ARENA_MAX, 1);
}
