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

/// The peer's supplementary groups (SO_PEERGROUPS); returns how many the
/// peer has (more than `capacity`: call again with room for them), or -1.
int monkey_peer_groups(int fd, gid_t *groups, int capacity);

/// accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC); Glibc's module hides it.
int monkey_accept_nonblocking(int fd);

/// malloc_trim(0): freed heap pages go back to the system; Glibc's module hides it.
int monkey_malloc_trim(void);

/// getrandom(buffer, length, 0); Glibc's module hides it.
long monkey_getrandom(void *buffer, unsigned long length);

/// Waits until fd is readable with SIGINT unblocked for the wait only
/// (ppoll), so that a Ctrl-C pending before the wait is never missed.
/// Returns 1 when readable, -1 with errno EINTR when a signal came.
int monkey_wait_readable_unblocking_sigint(int fd);

/// Runs the SIGINT handler now if a SIGINT is pending (blocked); returns 1 if so.
int monkey_deliver_pending_sigint(void);

/// Blocks SIGINT in the calling thread (pthread_sigmask); returns 0 or -1.
int monkey_block_sigint(int block);

/// signalfd(-1, {signals}, SFD_NONBLOCK | SFD_CLOEXEC); returns the fd, or -1.
int monkey_signalfd(const int *signals, int count);

/// Reads one signal from a signalfd: its number, 0 when none is pending, or -1.
int monkey_read_signal(int fd);

/// syncfs(fd); Glibc's module hides it.
int monkey_syncfs(int fd);

/// sync_file_range(fd, offset, count, WRITE), and with WAIT_BEFORE and
/// WAIT_AFTER when `wait` is non-zero; Glibc's module hides it.
int monkey_sync_file_range(int fd, long long offset, long long count, int wait);

/// pipe2(ends, O_CLOEXEC); Glibc's module hides it. Returns 0 or -1.
int monkey_pipe_cloexec(int ends[2]);

/// mallopt(M_ARENA_MAX, 1): threads created from now on allocate from the
/// main heap. Returns 1 on success.
int monkey_use_one_malloc_arena(void);

/// Puts the terminal on `fd` back as `saved` (tcsetattr) and writes
/// `reset` to `output` when the process dies of SIGSEGV, SIGBUS, SIGILL,
/// SIGTRAP, SIGFPE or SIGABRT (a Swift runtime trap is SIGILL or SIGTRAP),
/// then lets the signal do what it did before (the previous handler, such
/// as Swift's backtracer, or the default). `reset` is copied. Returns 0.
int monkey_guard_terminal(int fd, const void *saved, int output, const char *reset, unsigned long length);

/// Removes what monkey_guard_terminal installed. Returns 0.
int monkey_unguard_terminal(void);

/// The terminal's size (TIOCGWINSZ): 0 with rows and columns set, or -1.
int monkey_window_size(int fd, unsigned short *rows, unsigned short *columns);

/// The size of struct termios, for a Swift buffer that holds one.
unsigned long monkey_termios_size(void);

/// tcgetattr(fd) into `saved` (monkey_termios_size bytes); 0 or -1.
int monkey_terminal_attributes(int fd, void *saved);

/// tcsetattr(fd, TCSADRAIN) of `saved`; 0 or -1.
int monkey_set_terminal_attributes(int fd, const void *saved);

/// tcsetattr(fd, TCSADRAIN) of `saved` made raw for a full-screen view: no
/// echo, no line editing, no signals from keys (Ctrl-C arrives as a byte),
/// no CR/LF translation of input, no flow control; reads return what is
/// there (VMIN 1, VTIME 0). Output processing stays as it was. 0 or -1.
int monkey_set_raw_terminal(int fd, const void *saved);

/// For the calling thread only: setpriority(PRIO_PROCESS, gettid(), nice),
/// then sched_setscheduler(0, SCHED_BATCH). 0, or -1 with errno.
int monkey_lower_thread_priority(int nice);

/// sched_getaffinity(0): how many CPUs the process may run on; -1 on failure.
int monkey_affinity_cpu_count(void);

/// pthread_setname_np(pthread_self(), name): the kernel keeps 15 bytes.
int monkey_name_thread(const char *name);

#endif
