/*
 * loadclient: the one load client of `make bench`. It drives monkeyd and
 * redis-server over Unix sockets with the same code, so that the client is
 * never the difference between them. Every subcommand prints one line of
 * key=value figures on stdout; bench/bench.py runs it and builds the table.
 *
 *   loadclient ping     SOCKET single|pipeline|conns SECONDS SERVER_PID
 *   loadclient typing   SOCKET SESSIONS SECONDS SERVER_PID
 *   loadclient fanout   SOCKET monkeyd|redis FOLLOWERS RATE_HZ SECONDS SERVER_PID
 *   loadclient startup  monkeyd|redis SOCKET -- PROGRAM ARGS...
 *   loadclient populate SOCKET SESSIONS ENTRIES
 *
 * Requests are text lines both servers read: monkeyd answers "PING\n" with
 * "OK pong\n", redis answers the inline command "PING\r\n" with "+PONG\r\n";
 * one response is one line for both, so responses are counted by newlines.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void die(const char *format, ...) {
    va_list arguments;
    va_start(arguments, format);
    fprintf(stderr, "loadclient: ");
    vfprintf(stderr, format, arguments);
    if (errno) fprintf(stderr, ": %s", strerror(errno));
    fprintf(stderr, "\n");
    va_end(arguments);
    exit(1);
}

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t deadline) {
    struct timespec ts = {(time_t)(deadline / 1000000000ull), (long)(deadline % 1000000000ull)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
    }
}

/* utime + stime of a process in nanoseconds (from /proc/PID/stat, clock ticks). */
static uint64_t process_cpu_ns(pid_t pid) {
    char path[64], buffer[4096];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t count = read(fd, buffer, sizeof buffer - 1);
    close(fd);
    if (count <= 0) return 0;
    buffer[count] = 0;
    /* Fields after the command name, which is in parentheses and may hold spaces. */
    char *cursor = strrchr(buffer, ')');
    if (!cursor) return 0;
    cursor += 2;
    unsigned long long utime = 0, stime = 0;
    /* state(3) ... utime(14) stime(15): skip 11 fields after state. */
    for (int field = 3; field < 14 && cursor; field++) {
        cursor = strchr(cursor, ' ');
        if (cursor) cursor++;
    }
    if (!cursor || sscanf(cursor, "%llu %llu", &utime, &stime) != 2) return 0;
    long hz = sysconf(_SC_CLK_TCK);
    return (utime + stime) * (1000000000ull / (uint64_t)hz);
}

/* Resident memory in KiB (VmRSS from /proc/PID/status). */
static long process_rss_kib(pid_t pid) {
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *file = fopen(path, "re");
    if (!file) return 0;
    long rss = 0;
    while (fgets(line, sizeof line, file)) {
        if (strncmp(line, "VmRSS:", 6) == 0) {
            rss = strtol(line + 6, NULL, 10);
            break;
        }
    }
    fclose(file);
    return rss;
}

static int connect_unix(const char *path, int nonblocking) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) die("socket");
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    snprintf(address.sun_path, sizeof address.sun_path, "%s", path);
    if (connect(fd, (struct sockaddr *)&address, sizeof address) != 0) {
        close(fd);
        return -1;
    }
    if (nonblocking) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    return fd;
}

static int must_connect(const char *path, int nonblocking) {
    int fd = connect_unix(path, nonblocking);
    if (fd < 0) die("cannot connect to %s", path);
    return fd;
}

static void write_all(int fd, const char *bytes, size_t length) {
    while (length > 0) {
        ssize_t written = write(fd, bytes, length);
        if (written < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN) {
                struct pollfd descriptor = {fd, POLLOUT, 0};
                poll(&descriptor, 1, 1000);
                continue;
            }
            die("write");
        }
        bytes += written;
        length -= (size_t)written;
    }
}

static size_t count_newlines(const char *bytes, size_t length) {
    size_t lines = 0;
    const char *end = bytes + length;
    while ((bytes = memchr(bytes, '\n', (size_t)(end - bytes))) != NULL) {
        lines++;
        bytes++;
    }
    return lines;
}

/* Reads until `lines` newlines arrived (blocking fd). */
static void read_lines(int fd, size_t lines) {
    char buffer[65536];
    while (lines > 0) {
        ssize_t count = read(fd, buffer, sizeof buffer);
        if (count < 0 && errno == EINTR) continue;
        if (count <= 0) die("connection closed while waiting for %zu responses", lines);
        size_t seen = count_newlines(buffer, (size_t)count);
        lines = seen >= lines ? 0 : lines - seen;
    }
}

/* One blocking request/response line exchange, returning the response line. */
static void request_line(int fd, const char *request, char *response, size_t capacity) {
    write_all(fd, request, strlen(request));
    size_t used = 0;
    while (used + 1 < capacity) {
        ssize_t count = read(fd, response + used, 1);
        if (count <= 0) die("connection closed after %s", request);
        if (response[used] == '\n') break;
        used++;
    }
    response[used] = 0;
}

static int compare_u64(const void *left, const void *right) {
    uint64_t a = *(const uint64_t *)left, b = *(const uint64_t *)right;
    return a < b ? -1 : a > b;
}

static uint64_t percentile(uint64_t *values, size_t count, double fraction) {
    if (count == 0) return 0;
    size_t index = (size_t)(fraction * (double)(count - 1) + 0.5);
    return values[index];
}

/* ---- 1. control plane ---------------------------------------------------- */

static int command_ping(int argc, char **argv) {
    if (argc != 6) die("usage: ping SOCKET single|pipeline|conns SECONDS PID");
    const char *path = argv[2], *mode = argv[3];
    double seconds = atof(argv[4]);
    pid_t pid = (pid_t)atoi(argv[5]);
    int is_redis = 0;
    /* Detect the dialect once: both accept "PING"; redis wants nothing else. */
    {
        int fd = must_connect(path, 0);
        char response[256];
        request_line(fd, "PING\r\n", response, sizeof response);
        is_redis = response[0] == '+';
        close(fd);
    }
    const char *ping = is_redis ? "PING\r\n" : "PING\n";
    size_t ping_length = strlen(ping);
    uint64_t warm_up = 250000000ull, duration = (uint64_t)(seconds * 1e9);
    uint64_t requests = 0, cpu_start = 0, measure_start = 0, start = now_ns();
    int measuring = 0;
#define CHECK_PHASE()                                                                                                  \
    do {                                                                                                               \
        uint64_t t = now_ns();                                                                                         \
        if (!measuring && t - start >= warm_up) {                                                                      \
            measuring = 1;                                                                                             \
            requests = 0;                                                                                              \
            cpu_start = process_cpu_ns(pid);                                                                           \
            measure_start = t;                                                                                         \
        } else if (measuring && t - measure_start >= duration) {                                                       \
            goto done;                                                                                                 \
        }                                                                                                              \
    } while (0)

    if (strcmp(mode, "single") == 0 || strcmp(mode, "pipeline") == 0) {
        size_t depth = strcmp(mode, "single") == 0 ? 1 : 100;
        char batch[100 * 8];
        for (size_t i = 0; i < depth; i++) memcpy(batch + i * ping_length, ping, ping_length);
        int fd = must_connect(path, 0);
        for (;;) {
            for (int round = 0; round < 64; round++) {
                write_all(fd, batch, depth * ping_length);
                read_lines(fd, depth);
                requests += depth;
            }
            CHECK_PHASE();
        }
    } else if (strcmp(mode, "conns") == 0) {
        enum { CONNECTIONS = 50 };
        int epoll = epoll_create1(EPOLL_CLOEXEC);
        int fds[CONNECTIONS];
        for (int i = 0; i < CONNECTIONS; i++) {
            fds[i] = must_connect(path, 1);
            struct epoll_event event = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
            epoll_ctl(epoll, EPOLL_CTL_ADD, fds[i], &event);
            write_all(fds[i], ping, ping_length);
        }
        struct epoll_event events[CONNECTIONS];
        char buffer[4096];
        for (;;) {
            for (int round = 0; round < 64; round++) {
                int ready = epoll_wait(epoll, events, CONNECTIONS, 1000);
                if (ready < 0 && errno == EINTR) continue;
                if (ready <= 0) die("no response within a second");
                for (int i = 0; i < ready; i++) {
                    int fd = fds[events[i].data.u32];
                    ssize_t count = read(fd, buffer, sizeof buffer);
                    if (count < 0 && errno == EAGAIN) continue;
                    if (count <= 0) die("connection closed");
                    size_t lines = count_newlines(buffer, (size_t)count);
                    requests += lines;
                    /* Exactly one request in flight per connection. */
                    for (size_t line = 0; line < lines; line++) write_all(fd, ping, ping_length);
                }
            }
            CHECK_PHASE();
        }
    } else {
        die("unknown mode %s", mode);
    }
done:;
    uint64_t elapsed = now_ns() - measure_start;
    uint64_t cpu = process_cpu_ns(pid) - cpu_start;
    printf("rps=%.0f cpu_us_per_request=%.4f server_cpu_percent=%.1f\n", (double)requests * 1e9 / (double)elapsed,
           requests ? (double)cpu / 1000.0 / (double)requests : 0.0, 100.0 * (double)cpu / (double)elapsed);
    return 0;
}

/* ---- followers: entry lines from TAIL or from redis pub/sub --------------- */

/*
 * A follower collects (id, arrival time) of every `entry ... id=N ...` line it
 * receives. monkeyd sends them as TAIL lines; the redis publisher sends the
 * very same text as the message payload, which arrives as one RESP line.
 */
typedef struct {
    int fd;
    char partial[8192];
    size_t used;
    uint64_t *ids, *times;
    size_t count, capacity;
    uint64_t lost_reported;
    int closed;
} Follower;

static void follower_record(Follower *follower, uint64_t id, uint64_t time) {
    if (follower->count == follower->capacity) {
        follower->capacity = follower->capacity ? follower->capacity * 2 : 1024;
        follower->ids = realloc(follower->ids, follower->capacity * sizeof(uint64_t));
        follower->times = realloc(follower->times, follower->capacity * sizeof(uint64_t));
        if (!follower->ids || !follower->times) die("out of memory");
    }
    follower->ids[follower->count] = id;
    follower->times[follower->count] = time;
    follower->count++;
}

static void follower_line(Follower *follower, const char *line, size_t length, uint64_t time) {
    if (length > 6 && memcmp(line, "entry ", 6) == 0) {
        const char *id = memmem(line, length, " id=", 4);
        if (id) follower_record(follower, strtoull(id + 4, NULL, 10), time);
    } else if (length > 10 && memcmp(line, "lost count=", 11) == 0) {
        follower->lost_reported += strtoull(line + 11, NULL, 10);
    }
}

/* Reads what is there; returns 0 when the connection closed. */
static int follower_read(Follower *follower) {
    uint64_t time = now_ns();
    for (;;) {
        ssize_t count = read(follower->fd, follower->partial + follower->used, sizeof follower->partial - follower->used);
        if (count < 0 && errno == EINTR) continue;
        if (count < 0 && errno == EAGAIN) return 1;
        if (count <= 0) {
            follower->closed = 1;
            return 0;
        }
        follower->used += (size_t)count;
        char *start = follower->partial, *end = follower->partial + follower->used, *newline;
        while ((newline = memchr(start, '\n', (size_t)(end - start))) != NULL) {
            follower_line(follower, start, (size_t)(newline - start), time);
            start = newline + 1;
        }
        follower->used = (size_t)(end - start);
        memmove(follower->partial, start, follower->used);
        if (follower->used == sizeof follower->partial) follower->used = 0;
    }
}

/*
 * Lateness of each arrival against an ideal clock: entry k is due at
 * base + k * interval, base being the earliest phase seen. A tick that runs
 * late, or is delivered late, shows up as the distance to that clock.
 */
static void lateness(Follower *followers, size_t count, uint64_t interval, uint64_t from, uint64_t to, uint64_t **out,
                     size_t *out_count) {
    size_t total = 0;
    for (size_t f = 0; f < count; f++) total += followers[f].count;
    uint64_t *values = malloc((total + 1) * sizeof(uint64_t));
    size_t used = 0;
    for (size_t f = 0; f < count; f++) {
        Follower *follower = &followers[f];
        if (follower->count == 0) continue;
        uint64_t first = follower->ids[0];
        int64_t base = INT64_MAX;
        for (size_t i = 0; i < follower->count; i++) {
            int64_t phase = (int64_t)follower->times[i] - (int64_t)((follower->ids[i] - first) * interval);
            if (phase < base) base = phase;
        }
        for (size_t i = 0; i < follower->count; i++) {
            if (follower->times[i] < from || follower->times[i] > to) continue;
            int64_t due = base + (int64_t)((follower->ids[i] - first) * interval);
            values[used++] = (uint64_t)((int64_t)follower->times[i] - due);
        }
    }
    qsort(values, used, sizeof(uint64_t), compare_u64);
    *out = values;
    *out_count = used;
}

/*
 * Pumps followers until `deadline`. With a `tick`, a timerfd in the same
 * epoll set calls it at every `interval`, so that arrivals are stamped as
 * they come rather than after a sleep.
 */
static void pump(int epoll, Follower *followers, uint64_t deadline, void (*tick)(void *), void *context,
                 uint64_t interval) {
    enum { TIMER = 0xFFFFFFFFu };
    int timer = -1;
    if (tick) {
        timer = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
        struct itimerspec spec = {{(time_t)(interval / 1000000000ull), (long)(interval % 1000000000ull)},
                                  {0, 1}};
        timerfd_settime(timer, 0, &spec, NULL);
        struct epoll_event event = {.events = EPOLLIN, .data.u32 = TIMER};
        epoll_ctl(epoll, EPOLL_CTL_ADD, timer, &event);
    }
    struct epoll_event events[256];
    for (;;) {
        uint64_t now = now_ns();
        if (now >= deadline) break;
        int ready = epoll_wait(epoll, events, 256, (int)((deadline - now + 999999) / 1000000));
        for (int i = 0; i < ready; i++) {
            if (events[i].data.u32 == TIMER) {
                uint64_t expirations = 0;
                if (read(timer, &expirations, sizeof expirations) == sizeof expirations)
                    while (expirations--) tick(context);
            } else {
                follower_read(&followers[events[i].data.u32]);
            }
        }
    }
    if (timer >= 0) close(timer);
}

/* ---- 2. typing capacity --------------------------------------------------- */

static int command_typing(int argc, char **argv) {
    if (argc != 6) die("usage: typing SOCKET SESSIONS SECONDS PID");
    const char *path = argv[2];
    int sessions = atoi(argv[3]);
    double seconds = atof(argv[4]);
    pid_t pid = (pid_t)atoi(argv[5]);
    const uint64_t interval = 100000000ull;
    int samples = sessions < 50 ? sessions : 50;
    int stride = sessions / samples;
    int control = must_connect(path, 0);
    int epoll = epoll_create1(EPOLL_CLOEXEC);
    Follower *followers = calloc((size_t)samples, sizeof(Follower));

    /* Sessions start in 20 batches over one interval, so their phases spread
       as if independent clients had started them. */
    const int batches = 20;
    uint64_t start = now_ns();
    char *request = malloc(128 * (size_t)sessions + 1);
    int started = 0, sample = 0;
    for (int batch = 0; batch < batches; batch++) {
        sleep_until(start + (uint64_t)batch * (interval / batches));
        int until = (int)((long)sessions * (batch + 1) / batches);
        size_t used = 0;
        int first = started;
        for (; started < until; started++)
            used += (size_t)sprintf(request + used, "START s%d monkeys=5 interval=100ms\n", started);
        write_all(control, request, used);
        read_lines(control, (size_t)(until - first));
        for (int name = first; name < until; name++) {
            if (name % stride != 0 || sample >= samples) continue;
            Follower *follower = &followers[sample];
            follower->fd = must_connect(path, 0);
            char tail[64];
            int length = sprintf(tail, "TAIL s%d last=0\n", name);
            write_all(follower->fd, tail, (size_t)length);
            fcntl(follower->fd, F_SETFL, fcntl(follower->fd, F_GETFL) | O_NONBLOCK);
            struct epoll_event event = {.events = EPOLLIN, .data.u32 = (uint32_t)sample};
            epoll_ctl(epoll, EPOLL_CTL_ADD, follower->fd, &event);
            sample++;
        }
    }
    /* One second to settle, then the measured window. */
    pump(epoll, followers, now_ns() + 1000000000ull, NULL, NULL, 0);
    uint64_t cpu_start = process_cpu_ns(pid), window_start = now_ns();
    pump(epoll, followers, window_start + (uint64_t)(seconds * 1e9), NULL, NULL, 0);
    uint64_t window_end = now_ns(), cpu = process_cpu_ns(pid) - cpu_start;
    long rss = process_rss_kib(pid);
    uint64_t *late;
    size_t late_count;
    lateness(followers, (size_t)sample, interval, window_start, window_end, &late, &late_count);
    uint64_t expected = (uint64_t)((double)(window_end - window_start) / (double)interval * sample);
    printf("cpu_percent=%.2f rss_kib=%ld late_p50_ms=%.3f late_p99_ms=%.3f late_max_ms=%.3f ticks_seen=%zu "
           "ticks_expected=%llu samples=%d\n",
           100.0 * (double)cpu / (double)(window_end - window_start), rss,
           (double)percentile(late, late_count, 0.50) / 1e6, (double)percentile(late, late_count, 0.99) / 1e6,
           late_count ? (double)late[late_count - 1] / 1e6 : 0.0, late_count, (unsigned long long)expected, sample);
    return 0;
}

/* ---- 3. tail fan-out ------------------------------------------------------ */

typedef struct {
    int fd;
    uint64_t next_id;
    size_t text_length;
} Publisher;

/* Publishes the same bytes monkeyd would send a follower, as a redis message. */
static void publish(void *context) {
    Publisher *publisher = context;
    char payload[256], command[512];
    uint64_t id = publisher->next_id++;
    int length = snprintf(payload, sizeof payload, "entry session=fan id=%llu number=%llu text=%.*s",
                          (unsigned long long)id, (unsigned long long)id, (int)publisher->text_length, "qwertyuiop");
    int total = snprintf(command, sizeof command, "*3\r\n$7\r\nPUBLISH\r\n$3\r\nfan\r\n$%d\r\n%s\r\n", length, payload);
    write_all(publisher->fd, command, (size_t)total);
    /* Drain the integer replies now and then so they never fill the socket. */
    char sink[65536];
    while (read(publisher->fd, sink, sizeof sink) > 0) {
    }
}

static int command_fanout(int argc, char **argv) {
    if (argc != 8) die("usage: fanout SOCKET monkeyd|redis FOLLOWERS RATE_HZ SECONDS PID");
    const char *path = argv[2];
    int is_redis = strcmp(argv[3], "redis") == 0;
    int count = atoi(argv[4]);
    double rate = atof(argv[5]), seconds = atof(argv[6]);
    pid_t pid = (pid_t)atoi(argv[7]);
    uint64_t interval = (uint64_t)(1e9 / rate);
    const size_t monkeys = 5;
    int epoll = epoll_create1(EPOLL_CLOEXEC);
    Follower *followers = calloc((size_t)count, sizeof(Follower));
    int control = must_connect(path, 0);
    char line[512];
    if (!is_redis) {
        snprintf(line, sizeof line, "START fan monkeys=%zu interval=%llums\nSTOP fan\n", monkeys,
                 (unsigned long long)(interval / 1000000));
        if (interval % 1000000) die("monkeyd intervals are whole milliseconds here");
        write_all(control, line, strlen(line));
        read_lines(control, 2);
    }
    for (int i = 0; i < count; i++) {
        Follower *follower = &followers[i];
        follower->fd = must_connect(path, 0);
        const char *subscribe = is_redis ? "SUBSCRIBE fan\r\n" : "TAIL fan last=0\n";
        write_all(follower->fd, subscribe, strlen(subscribe));
        /* The subscription is confirmed in 6 lines (*3 $9 subscribe $3 fan :1). */
        if (is_redis) read_lines(follower->fd, 6);
        fcntl(follower->fd, F_SETFL, fcntl(follower->fd, F_GETFL) | O_NONBLOCK);
        struct epoll_event event = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
        epoll_ctl(epoll, EPOLL_CTL_ADD, follower->fd, &event);
    }
    Publisher publisher = {.fd = control, .next_id = 1, .text_length = monkeys};
    void (*tick)(void *) = NULL;
    if (is_redis) {
        fcntl(control, F_SETFL, fcntl(control, F_GETFL) | O_NONBLOCK);
        tick = publish;
    } else {
        /* Let the TAILs reach the daemon before typing starts. */
        pump(epoll, followers, now_ns() + 100000000ull, NULL, NULL, 0);
        write_all(control, "START fan\n", 10);
        read_lines(control, 1);
    }
    pump(epoll, followers, now_ns() + 500000000ull, tick, &publisher, interval);
    for (int i = 0; i < count; i++) followers[i].count = 0;
    uint64_t cpu_start = process_cpu_ns(pid), window_start = now_ns();
    pump(epoll, followers, window_start + (uint64_t)(seconds * 1e9), tick, &publisher, interval);
    uint64_t window_end = now_ns(), cpu = process_cpu_ns(pid) - cpu_start;
    /* Stop producing, then collect what is still in flight. */
    if (!is_redis) {
        write_all(control, "STOP fan\n", 9);
        read_lines(control, 1);
    }
    pump(epoll, followers, now_ns() + 300000000ull, NULL, NULL, 0);
    uint64_t delivered = 0, lost = 0, lost_reported = 0, closed = 0;
    for (int i = 0; i < count; i++) {
        Follower *follower = &followers[i];
        lost_reported += follower->lost_reported;
        closed += (uint64_t)follower->closed;
        if (follower->count == 0) continue;
        uint64_t first = follower->ids[0], last = follower->ids[follower->count - 1];
        lost += (last - first + 1) - follower->count;
        for (size_t j = 0; j < follower->count; j++)
            if (follower->times[j] <= window_end) delivered++;
    }
    uint64_t *lag;
    size_t lag_count;
    lateness(followers, (size_t)count, interval, window_start, window_end + 300000000ull, &lag, &lag_count);
    printf("delivered_per_s=%.0f lost=%llu lost_reported=%llu closed=%llu lag_p50_ms=%.3f lag_p99_ms=%.3f "
           "cpu_percent=%.2f\n",
           (double)delivered * 1e9 / (double)(window_end - window_start), (unsigned long long)lost,
           (unsigned long long)lost_reported, (unsigned long long)closed,
           (double)percentile(lag, lag_count, 0.50) / 1e6, (double)percentile(lag, lag_count, 0.99) / 1e6,
           100.0 * (double)cpu / (double)(window_end - window_start));
    return 0;
}

/* ---- 4. start-up ---------------------------------------------------------- */

static int command_startup(int argc, char **argv) {
    if (argc < 6 || strcmp(argv[4], "--") != 0) die("usage: startup monkeyd|redis SOCKET -- PROGRAM ARGS...");
    int is_redis = strcmp(argv[2], "redis") == 0;
    const char *path = argv[3];
    char notify_path[sizeof(((struct sockaddr_un *)0)->sun_path) - 8];
    if (snprintf(notify_path, sizeof notify_path, "%s.notify", path) >= (int)sizeof notify_path) die("socket path too long");
    unlink(notify_path);
    int notify = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    snprintf(address.sun_path, sizeof address.sun_path, "%s", notify_path);
    if (bind(notify, (struct sockaddr *)&address, sizeof address) != 0) die("bind %s", notify_path);
    if (!is_redis) setenv("NOTIFY_SOCKET", notify_path, 1);
    else unsetenv("NOTIFY_SOCKET");

    uint64_t start = now_ns();
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_WRONLY);
        dup2(null, 1);
        dup2(null, 2);
        execvp(argv[5], argv + 5);
        _exit(127);
    }
    uint64_t ready = 0;
    uint64_t give_up = start + 60000000000ull;
    if (!is_redis) {
        char message[4096];
        while (!ready) {
            struct pollfd descriptor = {notify, POLLIN, 0};
            if (poll(&descriptor, 1, 100) == 1) {
                ssize_t count = recv(notify, message, sizeof message - 1, 0);
                if (count > 0) {
                    message[count] = 0;
                    if (strstr(message, "READY=1")) ready = now_ns();
                }
            }
            if (!ready && (now_ns() > give_up || waitpid(pid, NULL, WNOHANG) == pid)) die("no READY=1");
        }
    } else {
        /* redis has no READY=1 outside systemd supervision: the first PONG. */
        char response[64];
        while (!ready) {
            int fd = connect_unix(path, 0);
            if (fd >= 0) {
                request_line(fd, "PING\r\n", response, sizeof response);
                close(fd);
                if (response[0] == '+') ready = now_ns();
            } else {
                usleep(100);
            }
            if (!ready && (now_ns() > give_up || waitpid(pid, NULL, WNOHANG) == pid)) die("redis did not start");
        }
    }
    /* Idle footprint: after start-up settles. */
    usleep(300000);
    long rss = process_rss_kib(pid);
    kill(pid, SIGTERM);
    waitpid(pid, NULL, 0);
    close(notify);
    unlink(notify_path);
    printf("ready_ms=%.3f idle_rss_kib=%ld\n", (double)(ready - start) / 1e6, rss);
    return 0;
}

/* ---- saved state for the start-up row ------------------------------------- */

/* Makes SESSIONS sessions of at least ENTRIES entries each, then stops them. */
static int command_populate(int argc, char **argv) {
    if (argc != 5) die("usage: populate SOCKET SESSIONS ENTRIES");
    const char *path = argv[2];
    int sessions = atoi(argv[3]);
    long entries = atol(argv[4]);
    int fd = must_connect(path, 0);
    char line[256];
    for (int i = 0; i < sessions; i++) {
        snprintf(line, sizeof line, "START saved%d monkeys=5 interval=1ms\n", i);
        write_all(fd, line, strlen(line));
    }
    read_lines(fd, (size_t)sessions);
    /* Poll the slowest session's count: all started within milliseconds. */
    for (;;) {
        usleep(200000);
        snprintf(line, sizeof line, "STATUS saved%d\n", sessions - 1);
        write_all(fd, line, strlen(line));
        char response[4096];
        request_line(fd, "", response, sizeof response);
        char status[64];
        request_line(fd, "", status, sizeof status);
        const char *typed = strstr(response, " typed=");
        if (typed && atol(typed + 7) >= entries) break;
    }
    for (int i = 0; i < sessions; i++) {
        snprintf(line, sizeof line, "STOP saved%d\n", i);
        write_all(fd, line, strlen(line));
    }
    read_lines(fd, (size_t)sessions);
    printf("populated=%d\n", sessions);
    return 0;
}

int main(int argc, char **argv) {
    signal(SIGPIPE, SIG_IGN);
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 2) die("usage: loadclient ping|typing|fanout|startup|populate ...");
    errno = 0;
    if (strcmp(argv[1], "ping") == 0) return command_ping(argc, argv);
    if (strcmp(argv[1], "typing") == 0) return command_typing(argc, argv);
    if (strcmp(argv[1], "fanout") == 0) return command_fanout(argc, argv);
    if (strcmp(argv[1], "startup") == 0) return command_startup(argc, argv);
    if (strcmp(argv[1], "populate") == 0) return command_populate(argc, argv);
    die("unknown command %s", argv[1]);
    return 2;
}
