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
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/resource.h>

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

int monkey_malloc_trim(void) {
    return malloc_trim(0);
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

int monkey_sync_file_range(int fd, long long offset, long long count, int wait) {
    unsigned int flags = SYNC_FILE_RANGE_WRITE;
    if (wait) flags |= SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WAIT_AFTER;
    return sync_file_range(fd, (off64_t)offset, (off64_t)count, flags);
}

int monkey_pipe_cloexec(int ends[2]) {
    return pipe2(ends, O_CLOEXEC);
}

int monkey_use_one_malloc_arena(void) {
    return mallopt(M_ARENA_MAX, 1);
}

/* The terminal guard: what a dying process puts back. Set before the
   handlers are installed and read only by them. */
static const int guarded_signals[] = { SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGFPE, SIGABRT };
#define GUARDED_COUNT (sizeof guarded_signals / sizeof guarded_signals[0])
static struct sigaction guard_previous[GUARDED_COUNT];
static struct termios guard_termios;
static int guard_fd = -1, guard_output = -1;
static char guard_reset[256];
static size_t guard_reset_length;
static volatile sig_atomic_t guard_is_installed;

static void guard_handler(int signal, siginfo_t *info, void *context) {
    (void)context;
    /* Only async-signal-safe calls: tcsetattr, write, sigaction, raise. */
    if (guard_fd >= 0) {
        tcsetattr(guard_fd, TCSANOW, &guard_termios);
        ssize_t written = write(guard_output, guard_reset, guard_reset_length);
        (void)written;
        guard_fd = -1;
    }
    for (size_t i = 0; i < GUARDED_COUNT; i++) {
        if (guarded_signals[i] != signal) continue;
        sigaction(signal, &guard_previous[i], NULL);
        /* A fault happens again when the handler returns, and reaches the
           previous action; a signal that was sent must be sent again. */
        if (info == NULL || info->si_code <= 0) raise(signal);
        return;
    }
}

int monkey_guard_terminal(int fd, const void *saved, int output, const char *reset, unsigned long length) {
    memcpy(&guard_termios, saved, sizeof guard_termios);
    if (length > sizeof guard_reset) length = sizeof guard_reset;
    memcpy(guard_reset, reset, length);
    guard_reset_length = length;
    guard_output = output;
    guard_fd = fd;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = guard_handler;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    for (size_t i = 0; i < GUARDED_COUNT; i++) sigaction(guarded_signals[i], &action, &guard_previous[i]);
    guard_is_installed = 1;
    return 0;
}

int monkey_unguard_terminal(void) {
    if (!guard_is_installed) return 0;
    for (size_t i = 0; i < GUARDED_COUNT; i++) sigaction(guarded_signals[i], &guard_previous[i], NULL);
    guard_is_installed = 0;
    guard_fd = -1;
    return 0;
}

int monkey_window_size(int fd, unsigned short *rows, unsigned short *columns) {
    struct winsize size;
    if (ioctl(fd, TIOCGWINSZ, &size) != 0) return -1;
    *rows = size.ws_row;
    *columns = size.ws_col;
    return 0;
}

unsigned long monkey_termios_size(void) {
    return sizeof(struct termios);
}

int monkey_terminal_attributes(int fd, void *saved) {
    return tcgetattr(fd, (struct termios *)saved);
}

int monkey_set_terminal_attributes(int fd, const void *saved) {
    for (;;) {
        int result = tcsetattr(fd, TCSADRAIN, (const struct termios *)saved);
        if (result == 0 || errno != EINTR) return result;
    }
}

int monkey_set_raw_terminal(int fd, const void *saved) {
    struct termios raw;
    memcpy(&raw, saved, sizeof raw);
    raw.c_iflag &= ~(tcflag_t)(BRKINT | ICRNL | INLCR | IGNCR | INPCK | ISTRIP | IXON);
    raw.c_lflag &= ~(tcflag_t)(ECHO | ECHONL | ICANON | ISIG | IEXTEN);
    raw.c_cflag |= CS8;
    raw.c_cc[VMIN] = 1;
    raw.c_cc[VTIME] = 0;
    return monkey_set_terminal_attributes(fd, &raw);
}

int monkey_lower_thread_priority(int nice) {
    if (setpriority(PRIO_PROCESS, (id_t)gettid(), nice) != 0) return -1;
    struct sched_param param = {.sched_priority = 0};
    return sched_setscheduler(0, SCHED_BATCH, &param);
}

int monkey_affinity_cpu_count(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) return -1;
    return CPU_COUNT(&set);
}

int monkey_name_thread(const char *name) {
    char cut[16];
    strncpy(cut, name, sizeof cut - 1);
    cut[sizeof cut - 1] = 0;
    return pthread_setname_np(pthread_self(), cut);
}
