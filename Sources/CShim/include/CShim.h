#ifndef MONKEYD_CSHIM_H
#define MONKEYD_CSHIM_H

#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/types.h>

/// Makes stdout and stderr line-buffered, so nothing is lost when the daemon
/// runs with a pipe or a journal stream as its output.
void monkey_line_buffer_stdio(void);

/// The peer's credentials (SO_PEERCRED); returns 0 or -1 with errno set.
int monkey_peer_credentials(int fd, pid_t *pid, uid_t *uid, gid_t *gid);

/// The peer's supplementary groups (SO_PEERGROUPS); returns the count, or -1.
int monkey_peer_groups(int fd, gid_t *groups, int capacity);

/// accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC); Glibc's module hides it.
int monkey_accept_nonblocking(int fd);

/// getrandom(buffer, length, 0); Glibc's module hides it.
long monkey_getrandom(void *buffer, unsigned long length);

/// syncfs(fd); Glibc's module hides it.
int monkey_syncfs(int fd);

#endif
