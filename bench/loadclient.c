/*
 * loadclient: the one load client of `make bench`. It drives monkeyd and
 * redis-server over Unix sockets with the same code, so that the client is
 * never the difference between them. Every subcommand prints one line of
 * key=value figures on stdout; bench/bench.py runs it and builds the table.
 *
 *   loadclient ping     SOCKET single|pipeline|conns SECONDS SERVER_PID
 *   loadclient request  SOCKET LINE single|pipeline|conns SECONDS SERVER_PID
 *   loadclient burst    SOCKET LINE COUNT
 *   loadclient latency  SOCKET SESSIONS LINE RATE_HZ SECONDS SERVER_PID
 *   loadclient fsync    DIRECTORY COUNT
 *   loadclient typing   SOCKET SESSIONS SECONDS SERVER_PID [seeded] [journal=PATH]
 *   loadclient fanout   SOCKET monkeyd|redis FOLLOWERS RATE_HZ SECONDS SERVER_PID
 *   loadclient globtail SOCKET monkeyd|redis SESSIONS FOLLOWERS SECONDS SERVER_PID
 *   loadclient waiters  SOCKET WAITERS SECONDS SERVER_PID
 *   loadclient startup  monkeyd|redis SOCKET -- PROGRAM ARGS...
 *   loadclient populate SOCKET SESSIONS ENTRIES
 *   loadclient scrape   SOCKET SESSIONS SECONDS SERVER_PID HTTP_PORT PERIOD_MS
 *
 * Requests are text lines both servers read: monkeyd answers "PING\n" with
 * "OK pong\n", redis answers the inline command "PING\r\n" with "+PONG\r\n";
 * one response is one line for both, so responses are counted by newlines.
 * A LINE is given without its line end, which the client adds in the
 * server's dialect ("\r\n" for redis, "\n" for monkeyd). In `request` and
 * `latency` a "%d" in it becomes a digit cycling 1..9 from one request to the
 * next (so that `SET q monkeys=%d` is a real change every time); in `burst`
 * it becomes the request's index, 0 to COUNT - 1.
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
#include <arpa/inet.h>
#include <netinet/in.h>
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

/* ---- request lines in both dialects ------------------------------------- */

/* Whether the server at `path` speaks redis: both answer "PING"; redis wants nothing else. */
static int is_redis_server(const char *path) {
    int fd = must_connect(path, 0);
    char response[256];
    request_line(fd, "PING\r\n", response, sizeof response);
    close(fd);
    return response[0] == '+';
}

/*
 * A request line and its variants: "%d" in the template becomes each of the
 * digits 1..9 in turn (a template without it has one variant), followed by
 * the dialect's line end. Rendered once, so that sending costs a memcpy.
 */
typedef struct {
    char text[9][512];
    size_t length[9];
    size_t count, next;
} Template;

static void template_init(Template *template, const char *line, int is_redis) {
    const char *hole = strstr(line, "%d");
    const char *end = is_redis ? "\r\n" : "\n";
    template->count = hole ? 9 : 1;
    template->next = 0;
    for (size_t i = 0; i < template->count; i++) {
        int length = hole ? snprintf(template->text[i], sizeof template->text[i], "%.*s%zu%s%s", (int)(hole - line),
                                     line, i + 1, hole + 2, end)
                          : snprintf(template->text[i], sizeof template->text[i], "%s%s", line, end);
        if (length < 0 || (size_t)length >= sizeof template->text[i]) die("request line too long");
        template->length[i] = (size_t)length;
    }
}

/* The next request's bytes. */
static const char *template_next(Template *template, size_t *length) {
    size_t index = template->next++ % template->count;
    *length = template->length[index];
    return template->text[index];
}

/*
 * Counts response lines and, among them, errors (monkeyd's start with
 * "ERR", redis's with "-"), across reads that split lines anywhere; keeps
 * the start of the last error for the message if the server hangs up.
 */
typedef struct {
    int mid_line;
    uint64_t errors;
    char last_error[256];
} Responses;

static void note_error(Responses *responses, const char *line, const char *end) {
    const char *newline = memchr(line, '\n', (size_t)(end - line));
    int length = (int)((newline ? newline : end) - line);
    responses->errors++;
    snprintf(responses->last_error, sizeof responses->last_error, "%.*s", length, line);
}

static size_t count_responses(Responses *responses, const char *bytes, size_t length) {
    size_t lines = 0;
    const char *cursor = bytes, *end = bytes + length, *newline;
    if (length == 0) return 0;
    if (!responses->mid_line && (*cursor == 'E' || *cursor == '-')) note_error(responses, cursor, end);
    while ((newline = memchr(cursor, '\n', (size_t)(end - cursor))) != NULL) {
        lines++;
        cursor = newline + 1;
        if (cursor == end) {
            responses->mid_line = 0;
            return lines;
        }
        if (*cursor == 'E' || *cursor == '-') note_error(responses, cursor, end);
    }
    responses->mid_line = 1;
    return lines;
}

/* Reads until `lines` responses arrived (blocking fd). */
static void read_responses(int fd, size_t lines, Responses *responses) {
    char buffer[65536];
    while (lines > 0) {
        ssize_t count = read(fd, buffer, sizeof buffer);
        if (count < 0 && errno == EINTR) continue;
        if (count <= 0) die("connection closed while waiting for %zu responses", lines);
        size_t seen = count_responses(responses, buffer, (size_t)count);
        lines = seen >= lines ? 0 : lines - seen;
    }
}

/* Sends one request of the template and dies unless the answer is a success. */
static void check_template(const char *path, Template *template) {
    int fd = must_connect(path, 0);
    size_t length;
    const char *request = template_next(template, &length);
    char response[512];
    write_all(fd, request, length);
    request_line(fd, "", response, sizeof response);
    close(fd);
    if (response[0] == 'E' || response[0] == '-') die("%.*s answered with %s", (int)length - 1, request, response);
}

/* ---- 1. control plane ---------------------------------------------------- */

/*
 * One request line, sent in one of three shapes for SECONDS after a 0.25 s
 * warm-up: one connection, one request in flight (single); one connection,
 * 100 requests written at once and then their 100 responses read
 * (pipeline); 50 connections with one request in flight each (conns).
 */
static int run_requests(const char *path, const char *line, const char *mode, double seconds, pid_t pid) {
    int is_redis = is_redis_server(path);
    Template template;
    template_init(&template, line, is_redis);
    check_template(path, &template);
    uint64_t warm_up = 250000000ull, duration = (uint64_t)(seconds * 1e9);
    uint64_t requests = 0, cpu_start = 0, measure_start = 0, start = now_ns();
    Responses responses = {0};
    uint64_t errors_at_start = 0;
    int measuring = 0;
    /* The clock is read every `rounds` rounds, fewer when rounds are slow (a
       durable request may take milliseconds), at most 64 when they are fast. */
    int rounds = 1;
    uint64_t last_check = start;
#define CHECK_PHASE()                                                                                                  \
    do {                                                                                                               \
        uint64_t t = now_ns();                                                                                         \
        if (t - last_check < 1000000ull && rounds < 64) rounds *= 2;                                                   \
        last_check = t;                                                                                                \
        if (!measuring && t - start >= warm_up) {                                                                      \
            measuring = 1;                                                                                             \
            requests = 0;                                                                                              \
            errors_at_start = responses.errors;                                                                        \
            cpu_start = process_cpu_ns(pid);                                                                           \
            measure_start = t;                                                                                         \
        } else if (measuring && t - measure_start >= duration) {                                                       \
            goto done;                                                                                                 \
        }                                                                                                              \
    } while (0)

    if (strcmp(mode, "single") == 0 || strcmp(mode, "pipeline") == 0) {
        size_t depth = strcmp(mode, "single") == 0 ? 1 : 100;
        char *batch = malloc(depth * sizeof template.text[0]);
        size_t batch_length = 0;
        /* A template without "%d" makes the same batch every time: built once. */
        for (size_t i = 0; i < depth; i++) {
            size_t length;
            const char *request = template_next(&template, &length);
            memcpy(batch + batch_length, request, length);
            batch_length += length;
        }
        int fd = must_connect(path, 0);
        for (;;) {
            for (int round = 0; round < rounds; round++) {
                write_all(fd, batch, batch_length);
                read_responses(fd, depth, &responses);
                requests += depth;
                if (template.count > 1) {
                    batch_length = 0;
                    for (size_t i = 0; i < depth; i++) {
                        size_t length;
                        const char *request = template_next(&template, &length);
                        memcpy(batch + batch_length, request, length);
                        batch_length += length;
                    }
                }
            }
            CHECK_PHASE();
        }
    } else if (strcmp(mode, "conns") == 0) {
        enum { CONNECTIONS = 50 };
        int epoll = epoll_create1(EPOLL_CLOEXEC);
        int fds[CONNECTIONS];
        Responses each[CONNECTIONS];
        for (int i = 0; i < CONNECTIONS; i++) {
            fds[i] = must_connect(path, 1);
            each[i] = (Responses){0};
            struct epoll_event event = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
            epoll_ctl(epoll, EPOLL_CTL_ADD, fds[i], &event);
            size_t length;
            const char *request = template_next(&template, &length);
            write_all(fds[i], request, length);
        }
        struct epoll_event events[CONNECTIONS];
        char buffer[4096];
        for (;;) {
            for (int round = 0; round < rounds; round++) {
                int ready = epoll_wait(epoll, events, CONNECTIONS, 10000);
                if (ready < 0 && errno == EINTR) continue;
                if (ready <= 0) die("no response within 10 s");
                for (int i = 0; i < ready; i++) {
                    int index = (int)events[i].data.u32, fd = fds[index];
                    ssize_t count = read(fd, buffer, sizeof buffer);
                    if (count < 0 && errno == EAGAIN) continue;
                    if (count <= 0) die("connection closed");
                    uint64_t errors = each[index].errors;
                    size_t lines = count_responses(&each[index], buffer, (size_t)count);
                    responses.errors += each[index].errors - errors;
                    requests += lines;
                    /* Exactly one request in flight per connection. */
                    for (size_t line = 0; line < lines; line++) {
                        size_t length;
                        const char *request = template_next(&template, &length);
                        write_all(fd, request, length);
                    }
                }
            }
            CHECK_PHASE();
        }
    } else {
        die("unknown mode %s", mode);
    }
done:;
#undef CHECK_PHASE
    uint64_t elapsed = now_ns() - measure_start;
    uint64_t cpu = process_cpu_ns(pid) - cpu_start;
    printf("rps=%.0f cpu_us_per_request=%.4f server_cpu_percent=%.1f errors=%llu\n",
           (double)requests * 1e9 / (double)elapsed, requests ? (double)cpu / 1000.0 / (double)requests : 0.0,
           100.0 * (double)cpu / (double)elapsed, (unsigned long long)(responses.errors - errors_at_start));
    return 0;
}

static int command_ping(int argc, char **argv) {
    if (argc != 6) die("usage: ping SOCKET single|pipeline|conns SECONDS PID");
    return run_requests(argv[2], "PING", argv[3], atof(argv[4]), (pid_t)atoi(argv[5]));
}

static int command_request(int argc, char **argv) {
    if (argc != 7) die("usage: request SOCKET LINE single|pipeline|conns SECONDS PID");
    return run_requests(argv[2], argv[3], argv[4], atof(argv[5]), (pid_t)atoi(argv[6]));
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
    /* Following many sessions (globtail): the last id seen of each session
       s0..s(sessions-1), and the ids missing between them. */
    uint64_t *last_ids;
    int sessions;
    uint64_t gaps;
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
        if (!id) return;
        uint64_t value = strtoull(id + 4, NULL, 10);
        follower_record(follower, value, time);
        const char *session = follower->last_ids ? memmem(line, length, " session=s", 10) : NULL;
        if (session) {
            long index = strtol(session + 10, NULL, 10);
            if (index < 0 || index >= follower->sessions) return;
            uint64_t last = follower->last_ids[index];
            if (last && value > last + 1) follower->gaps += value - last - 1;
            follower->last_ids[index] = value;
        }
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

/*
 * Connects `count` followers that each send `subscribe`, then watches them,
 * non-blocking, in `epoll` under their index. A redis subscription is
 * confirmed in 6 lines (*3 $9 subscribe $3 fan :1, or *3 $10 psubscribe $2
 * s* :1), read here so that only messages reach `follower_read`.
 */
static void follow_all(const char *path, Follower *followers, int count, const char *subscribe, int is_redis,
                       int epoll) {
    for (int i = 0; i < count; i++) {
        Follower *follower = &followers[i];
        follower->fd = must_connect(path, 0);
        write_all(follower->fd, subscribe, strlen(subscribe));
        if (is_redis) read_lines(follower->fd, 6);
        fcntl(follower->fd, F_SETFL, fcntl(follower->fd, F_GETFL) | O_NONBLOCK);
        struct epoll_event event = {.events = EPOLLIN, .data.u32 = (uint32_t)i};
        epoll_ctl(epoll, EPOLL_CTL_ADD, follower->fd, &event);
    }
}

/*
 * Lets the daemon settle after `sessions` STARTs, pumping followers (with
 * `tick` as `pump`) or sleeping when `epoll` < 0, before a measured window:
 * the window is the steady state, not the start-up. On a disk the daemon
 * creates each new session's files in the first seconds after its START
 * (about 0.25 ms of CPU a session on ext4), which in a window opened a
 * second after 10,000 STARTs counted four to eight times the steady cost,
 * and varied with how far it had got. So: one second, plus half a
 * millisecond a session, then on until two half-second slices in a row
 * cost the daemon about the same CPU (within 25 % and 1 ms), at most 30 s.
 */
static void settle(pid_t pid, int sessions, int epoll, Follower *followers, void (*tick)(void *), void *context,
                   uint64_t interval) {
    uint64_t start = now_ns();
    uint64_t least = start + 1000000000ull + (uint64_t)sessions * 500000ull, most = start + 30000000000ull;
    uint64_t previous = UINT64_MAX;
    for (;;) {
        uint64_t cpu = process_cpu_ns(pid), slice_end = now_ns() + 500000000ull;
        if (epoll >= 0)
            pump(epoll, followers, slice_end, tick, context, interval);
        else
            sleep_until(slice_end);
        uint64_t used = process_cpu_ns(pid) - cpu, now = now_ns();
        if (now >= most) return;
        if (now >= least && previous != UINT64_MAX) {
            uint64_t high = used > previous ? used : previous, low = used > previous ? previous : used;
            if (high - low <= high / 4 + 1000000ull) return;
        }
        previous = used;
    }
}

/* ---- 2. typing capacity --------------------------------------------------- */

/*
 * Starts sessions s0..s(SESSIONS-1) of 5 monkeys every `interval` in 20
 * batches over one interval, so their phases spread as if independent
 * clients had started them. With followers, every `stride`th session gets
 * one (`TAIL name last=0`, in `epoll`), up to `samples`; returns how many.
 */
static int seeded_sessions = 0; /* `typing ... seeded`: each session gets seed=its index */

static int start_typing_sessions(const char *path, int control, int sessions, uint64_t interval, Follower *followers,
                                 int samples, int stride, int epoll) {
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
            used += (size_t)sprintf(request + used, seeded_sessions ? "START s%d monkeys=5 interval=%llums seed=%d\n"
                                                                    : "START s%d monkeys=5 interval=%llums\n",
                                    started, (unsigned long long)(interval / 1000000), started);
        write_all(control, request, used);
        read_lines(control, (size_t)(until - first));
        if (!followers) continue;
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
    free(request);
    return sample;
}

/*
 * The identity of the entries journal at `path`: its inode and size, both 0
 * when there is none. A fold ends by removing the journal; the next sync
 * starts a new one: either way the inode changes or the size falls.
 */
typedef struct {
    uint64_t inode, size;
} JournalMark;

static JournalMark journal_mark(const char *path) {
    struct stat status;
    if (stat(path, &status) != 0) return (JournalMark){0, 0};
    return (JournalMark){(uint64_t)status.st_ino, (uint64_t)status.st_size};
}

/*
 * Pumps the followers until a fold of the journal at `path` has ended (or
 * `deadline`); returns whether one did. Polled every 50 ms: a fold comes
 * every half minute or more.
 */
static int pump_until_fold(int epoll, Follower *followers, const char *path, uint64_t deadline) {
    JournalMark last = journal_mark(path);
    for (;;) {
        uint64_t now = now_ns();
        if (now >= deadline) return 0;
        pump(epoll, followers, now + 50000000ull < deadline ? now + 50000000ull : deadline, NULL, NULL, 0);
        JournalMark mark = journal_mark(path);
        /* A journal appearing where there was none is the next one starting. */
        if (last.inode != 0 && (mark.inode != last.inode || mark.size < last.size)) return 1;
        last = mark;
    }
}

static int command_typing(int argc, char **argv) {
    if (argc < 6) die("usage: typing SOCKET SESSIONS SECONDS PID [seeded] [journal=PATH]");
    const char *journal = NULL;
    seeded_sessions = 0;
    for (int i = 6; i < argc; i++) {
        if (strcmp(argv[i], "seeded") == 0)
            seeded_sessions = 1;
        else if (strncmp(argv[i], "journal=", 8) == 0)
            journal = argv[i] + 8;
        else
            die("usage: typing SOCKET SESSIONS SECONDS PID [seeded] [journal=PATH]");
    }
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
    int sample = start_typing_sessions(path, control, sessions, interval, followers, samples, stride, epoll);
    settle(pid, sessions, epoll, followers, NULL, NULL, 0);
    /* With the journal: the window runs from the end of one fold to the end
     * of the first fold after SECONDS, whole cycles of typing and folding,
     * if a fold comes within 120 s; the daemon's cost includes its folds. */
    int folds = -1;
    if (journal && pump_until_fold(epoll, followers, journal, now_ns() + 120000000000ull)) folds = 0;
    uint64_t cpu_start = process_cpu_ns(pid), window_start = now_ns();
    uint64_t seconds_end = window_start + (uint64_t)(seconds * 1e9);
    if (folds < 0) {
        pump(epoll, followers, seconds_end, NULL, NULL, 0);
    } else {
        while (pump_until_fold(epoll, followers, journal, seconds_end)) folds++;
        if (!pump_until_fold(epoll, followers, journal, now_ns() + 120000000000ull))
            die("typing: no fold of %s within 120 s after the window", journal);
        folds++;
    }
    uint64_t window_end = now_ns(), cpu = process_cpu_ns(pid) - cpu_start;
    long rss = process_rss_kib(pid);
    uint64_t *late;
    size_t late_count;
    lateness(followers, (size_t)sample, interval, window_start, window_end, &late, &late_count);
    uint64_t expected = (uint64_t)((double)(window_end - window_start) / (double)interval * sample);
    printf("cpu_percent=%.2f rss_kib=%ld late_p50_ms=%.3f late_p99_ms=%.3f late_max_ms=%.3f ticks_seen=%zu "
           "ticks_expected=%llu samples=%d folds_in_window=%d window_s=%.1f\n",
           100.0 * (double)cpu / (double)(window_end - window_start), rss,
           (double)percentile(late, late_count, 0.50) / 1e6, (double)percentile(late, late_count, 0.99) / 1e6,
           late_count ? (double)late[late_count - 1] / 1e6 : 0.0, late_count, (unsigned long long)expected, sample,
           folds < 0 ? 0 : folds, (double)(window_end - window_start) / 1e9);
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
    follow_all(path, followers, count, is_redis ? "SUBSCRIBE fan\r\n" : "TAIL fan last=0\n", is_redis, epoll);
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

/* ---- 3b. following many sessions, and idle waiters ----------------------- */

typedef struct {
    int fd;
    int sessions;
    int next;
    uint64_t *next_ids;
} GlobPublisher;

/* One tick a millisecond publishes a hundredth of the sessions' entries, so
   each session publishes every 100 ms, as a session typing at 10 Hz. */
static void glob_publish(void *context) {
    GlobPublisher *publisher = context;
    int batch = publisher->sessions / 100 > 0 ? publisher->sessions / 100 : 1;
    char payload[256], command[65536];
    size_t used = 0;
    for (int i = 0; i < batch; i++) {
        int session = publisher->next;
        publisher->next = (publisher->next + 1) % publisher->sessions;
        uint64_t id = ++publisher->next_ids[session];
        char channel[32];
        int channel_length = snprintf(channel, sizeof channel, "s%d", session);
        int length = snprintf(payload, sizeof payload, "entry session=%s id=%llu number=%llu text=%.*s", channel,
                              (unsigned long long)id, (unsigned long long)id, 5, "qwert");
        used += (size_t)snprintf(command + used, sizeof command - used,
                                 "*3\r\n$7\r\nPUBLISH\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", channel_length, channel, length,
                                 payload);
    }
    write_all(publisher->fd, command, used);
    char sink[65536];
    while (read(publisher->fd, sink, sizeof sink) > 0) {
    }
}

/*
 * SESSIONS sessions typing 5 characters at 10 Hz, followed by FOLLOWERS
 * clients each of all of them: monkeyd with `TAIL "*"`, redis with
 * `PSUBSCRIBE s*` while this client publishes the same lines to channels
 * s0..s(SESSIONS-1) at the same rate. Nothing may be lost.
 */
static int command_globtail(int argc, char **argv) {
    if (argc != 8) die("usage: globtail SOCKET monkeyd|redis SESSIONS FOLLOWERS SECONDS PID");
    const char *path = argv[2];
    int is_redis = strcmp(argv[3], "redis") == 0;
    int sessions = atoi(argv[4]), count = atoi(argv[5]);
    double seconds = atof(argv[6]);
    pid_t pid = (pid_t)atoi(argv[7]);
    int epoll = epoll_create1(EPOLL_CLOEXEC);
    Follower *followers = calloc((size_t)count, sizeof(Follower));
    int control = must_connect(path, 0);
    for (int i = 0; i < count; i++) {
        followers[i].sessions = sessions;
        followers[i].last_ids = calloc((size_t)sessions, sizeof(uint64_t));
    }
    follow_all(path, followers, count, is_redis ? "PSUBSCRIBE s*\r\n" : "TAIL \"*\" last=0\n", is_redis, epoll);
    GlobPublisher publisher = {.fd = control, .sessions = sessions, .next_ids = calloc((size_t)sessions, 8)};
    void (*tick)(void *) = NULL;
    if (is_redis) {
        fcntl(control, F_SETFL, fcntl(control, F_GETFL) | O_NONBLOCK);
        tick = glob_publish;
    } else {
        /* The followers pick the sessions up as they start. */
        start_typing_sessions(path, control, sessions, 100000000ull, NULL, 0, 1, epoll);
    }
    settle(pid, is_redis ? 0 : sessions, epoll, followers, tick, &publisher, 1000000ull);
    uint64_t *before = calloc((size_t)count, sizeof(uint64_t));
    for (int i = 0; i < count; i++) before[i] = followers[i].count;
    uint64_t cpu_start = process_cpu_ns(pid), window_start = now_ns();
    pump(epoll, followers, window_start + (uint64_t)(seconds * 1e9), tick, &publisher, 1000000ull);
    uint64_t window_end = now_ns(), cpu = process_cpu_ns(pid) - cpu_start;
    uint64_t delivered = 0, gaps = 0, lost_reported = 0, closed = 0;
    for (int i = 0; i < count; i++) {
        delivered += followers[i].count - before[i];
        gaps += followers[i].gaps;
        lost_reported += followers[i].lost_reported;
        closed += (uint64_t)followers[i].closed;
    }
    printf("delivered_per_s=%.0f lost=%llu lost_reported=%llu closed=%llu cpu_percent=%.2f\n",
           (double)delivered * 1e9 / (double)(window_end - window_start), (unsigned long long)gaps,
           (unsigned long long)lost_reported, (unsigned long long)closed,
           100.0 * (double)cpu / (double)(window_end - window_start));
    return 0;
}

/*
 * The daemon's CPU while one session types 5 characters at 1 kHz with
 * WAITERS clients blocked in `WAIT w for=hit` (a hit is not expected in
 * hours): waiting should cost nothing per tick.
 */
static int command_waiters(int argc, char **argv) {
    if (argc != 6) die("usage: waiters SOCKET WAITERS SECONDS PID");
    const char *path = argv[2];
    int count = atoi(argv[3]);
    double seconds = atof(argv[4]);
    pid_t pid = (pid_t)atoi(argv[5]);
    int control = must_connect(path, 0);
    const char *start = "START w monkeys=5 interval=1ms target=zzzzz\n";
    write_all(control, start, strlen(start));
    read_lines(control, 1);
    int *waiters = calloc((size_t)count + 1, sizeof(int));
    for (int i = 0; i < count; i++) {
        waiters[i] = must_connect(path, 0);
        write_all(waiters[i], "WAIT w for=hit\n", 15);
    }
    /* Half a second for the daemon to read every WAIT and settle. */
    char response[256];
    request_line(control, "PING\n", response, sizeof response);
    sleep_until(now_ns() + 500000000ull);
    uint64_t cpu_start = process_cpu_ns(pid), window_start = now_ns();
    sleep_until(window_start + (uint64_t)(seconds * 1e9));
    uint64_t window_end = now_ns(), cpu = process_cpu_ns(pid) - cpu_start;
    int answered = 0;
    for (int i = 0; i < count; i++) {
        struct pollfd descriptor = {waiters[i], POLLIN, 0};
        if (poll(&descriptor, 1, 0) > 0) answered++;
    }
    printf("cpu_percent=%.3f answered=%d waiters=%d\n", 100.0 * (double)cpu / (double)(window_end - window_start),
           answered, count);
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

/* ---- 5. durable control --------------------------------------------------- */

/*
 * COUNT requests from one connection, "%d" in LINE being each one's index
 * (0 .. COUNT - 1), all written as fast as the socket takes them while the
 * responses are read, so that neither side can wait for the other for
 * ever. Times the first byte sent to the last response received.
 */
static int command_burst(int argc, char **argv) {
    if (argc != 5) die("usage: burst SOCKET LINE COUNT");
    const char *path = argv[2], *line = argv[3];
    long count = atol(argv[4]);
    const char *end = is_redis_server(path) ? "\r\n" : "\n";
    const char *hole = strstr(line, "%d");
    size_t capacity = (size_t)count * (strlen(line) + 24) + 1, used = 0;
    char *requests = malloc(capacity);
    for (long i = 0; i < count; i++) {
        int length = hole ? snprintf(requests + used, capacity - used, "%.*s%ld%s%s", (int)(hole - line), line, i,
                                     hole + 2, end)
                          : snprintf(requests + used, capacity - used, "%s%s", line, end);
        used += (size_t)length;
    }
    int fd = must_connect(path, 1);
    Responses responses = {0};
    size_t sent = 0, received = 0;
    char buffer[65536];
    uint64_t start = now_ns(), finish = 0;
    while (received < (size_t)count) {
        struct pollfd descriptor = {fd, POLLIN | (sent < used ? POLLOUT : 0), 0};
        int ready = poll(&descriptor, 1, 60000);
        if (ready < 0 && errno == EINTR) continue;
        if (ready <= 0) die("no progress within 60 s (%zu of %ld answered)", received, count);
        if ((descriptor.revents & POLLOUT) && sent < used) {
            ssize_t written = write(fd, requests + sent, used - sent);
            /* The server hung up: stop writing, read what it said. */
            if (written < 0 && errno == EPIPE) sent = used;
            else if (written < 0 && errno != EAGAIN && errno != EINTR) die("write");
            if (written > 0) sent += (size_t)written;
        }
        if (descriptor.revents & (POLLIN | POLLHUP | POLLERR)) {
            ssize_t got = read(fd, buffer, sizeof buffer);
            if (got < 0 && (errno == EAGAIN || errno == EINTR)) continue;
            if (got <= 0)
                die("connection closed after %zu of %ld responses (%llu errors, the last: %s)", received, count,
                    (unsigned long long)responses.errors, responses.errors ? responses.last_error : "none");
            received += count_responses(&responses, buffer, (size_t)got);
            finish = now_ns();
        }
    }
    close(fd);
    free(requests);
    printf("ms=%.3f requests=%ld errors=%llu\n", (double)(finish - start) / 1e6, count,
           (unsigned long long)responses.errors);
    return 0;
}

/*
 * Round-trip latency of LINE sent at RATE_HZ, one at a time from a
 * connection of its own, while SESSIONS sessions of 5 monkeys type at
 * 10 Hz (started as `typing` starts them, then `settle`). Each
 * request is timed from its send to its response; a request due while the
 * one before is still unanswered goes out as soon as that one is answered.
 * `late_sends` counts requests sent more than 1 ms after they were due
 * (behind an answer, or the client itself woken late).
 */
static int command_latency(int argc, char **argv) {
    if (argc != 8) die("usage: latency SOCKET SESSIONS LINE RATE_HZ SECONDS PID");
    const char *path = argv[2], *line = argv[4];
    int sessions = atoi(argv[3]);
    double rate = atof(argv[5]), seconds = atof(argv[6]);
    pid_t pid = (pid_t)atoi(argv[7]);
    Template template;
    template_init(&template, line, is_redis_server(path));
    check_template(path, &template);
    int control = must_connect(path, 0);
    start_typing_sessions(path, control, sessions, 100000000ull, NULL, 0, 1, -1);
    settle(pid, sessions, -1, NULL, NULL, NULL, 0);
    int fd = must_connect(path, 0);
    size_t total = (size_t)(rate * seconds);
    uint64_t *latencies = malloc((total + 1) * sizeof(uint64_t));
    uint64_t period = (uint64_t)(1e9 / rate), late_sends = 0;
    Responses responses = {0};
    uint64_t cpu_start = process_cpu_ns(pid), window_start = now_ns();
    for (size_t i = 0; i < total; i++) {
        uint64_t due = window_start + i * period;
        sleep_until(due);
        size_t length;
        const char *request = template_next(&template, &length);
        uint64_t sent = now_ns();
        if (sent > due + 1000000ull) late_sends++;
        write_all(fd, request, length);
        read_responses(fd, 1, &responses);
        latencies[i] = now_ns() - sent;
    }
    uint64_t window_end = now_ns(), cpu = process_cpu_ns(pid) - cpu_start;
    qsort(latencies, total, sizeof(uint64_t), compare_u64);
    printf("p50_ms=%.3f p99_ms=%.3f max_ms=%.3f requests=%zu errors=%llu late_sends=%llu cpu_percent=%.2f\n",
           (double)percentile(latencies, total, 0.50) / 1e6, (double)percentile(latencies, total, 0.99) / 1e6,
           total ? (double)latencies[total - 1] / 1e6 : 0.0, total, (unsigned long long)responses.errors,
           (unsigned long long)late_sends, 100.0 * (double)cpu / (double)(window_end - window_start));
    return 0;
}

/*
 * The floor under every durable request: COUNT appends of 40 bytes to a
 * new file in DIRECTORY, each followed by `fdatasync`, each timed.
 */
static int command_fsync(int argc, char **argv) {
    if (argc != 4) die("usage: fsync DIRECTORY COUNT");
    char path[4096];
    snprintf(path, sizeof path, "%s/fsync-floor.%d", argv[2], (int)getpid());
    size_t count = (size_t)atol(argv[3]);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
    if (fd < 0) die("open %s", path);
    const char record[] = "0123456789012345678901234567890123456789";
    uint64_t *latencies = malloc((count + 1) * sizeof(uint64_t));
    uint64_t start = now_ns();
    for (size_t i = 0; i < count; i++) {
        uint64_t before = now_ns();
        if (write(fd, record, 40) != 40) die("write %s", path);
        if (fdatasync(fd) != 0) die("fdatasync %s", path);
        latencies[i] = now_ns() - before;
    }
    uint64_t elapsed = now_ns() - start;
    close(fd);
    unlink(path);
    qsort(latencies, count, sizeof(uint64_t), compare_u64);
    printf("p50_us=%.1f p99_us=%.1f max_us=%.1f per_s=%.0f count=%zu\n",
           (double)percentile(latencies, count, 0.50) / 1e3, (double)percentile(latencies, count, 0.99) / 1e3,
           count ? (double)latencies[count - 1] / 1e3 : 0.0, (double)count * 1e9 / (double)elapsed, count);
    return 0;
}

/* ---- 6. metrics scrapes while typing ---------------------------------------- */

/*
 * `typing`'s workload (SESSIONS sessions of 5 monkeys at 10 Hz, 50 of them
 * followed) while an HTTP client scrapes the daemon's metrics_listen every
 * PERIOD_MS (0: never, the baseline), as Prometheus would: a fresh
 * connection, GET /metrics, read to the end. Everything runs in one epoll
 * loop, so that follower arrivals are stamped as they come even while a
 * scrape is read. Each scrape is timed from connect to its last byte.
 */
typedef struct {
    int fd;            /* -1 when no scrape is in progress */
    int sent;
    uint64_t started;
    size_t bytes;
    char tail[5];      /* the last bytes read, to see the last chunk */
    uint64_t *times;
    size_t count, capacity, skipped, incomplete, bytes_last;
    int port;
} Scraper;

enum { SCRAPE_TIMER = 0xFFFFFFFFu, SCRAPE_SOCKET = 0xFFFFFFFEu };

static void scrape_start(Scraper *scraper, int epoll) {
    if (scraper->fd >= 0) {
        scraper->skipped++;
        return;
    }
    scraper->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (scraper->fd < 0) die("socket");
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)scraper->port)};
    inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
    scraper->started = now_ns();
    if (connect(scraper->fd, (struct sockaddr *)&address, sizeof address) != 0 && errno != EINPROGRESS)
        die("connect to the metrics port %d", scraper->port);
    scraper->sent = 0;
    scraper->bytes = 0;
    memset(scraper->tail, 0, sizeof scraper->tail);
    struct epoll_event event = {.events = EPOLLOUT | EPOLLIN, .data.u32 = SCRAPE_SOCKET};
    epoll_ctl(epoll, EPOLL_CTL_ADD, scraper->fd, &event);
}

static void scrape_ready(Scraper *scraper, int epoll) {
    if (!scraper->sent) {
        static const char request[] = "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
        if (write(scraper->fd, request, sizeof request - 1) != (ssize_t)(sizeof request - 1)) die("send a scrape");
        scraper->sent = 1;
        struct epoll_event event = {.events = EPOLLIN, .data.u32 = SCRAPE_SOCKET};
        epoll_ctl(epoll, EPOLL_CTL_MOD, scraper->fd, &event);
        return;
    }
    /* One read per readiness: a loop to EAGAIN would read for as long as
       the daemon keeps up, and follower arrivals would be stamped late. */
    static char buffer[1 << 16];
    for (;;) {
        ssize_t count = read(scraper->fd, buffer, sizeof buffer);
        if (count < 0 && errno == EINTR) continue;
        if (count < 0 && errno == EAGAIN) return;
        if (count > 0) {
            scraper->bytes += (size_t)count;
            size_t keep = count >= 5 ? 5 : (size_t)count;
            memmove(scraper->tail, scraper->tail + keep, 5 - keep);
            memcpy(scraper->tail + 5 - keep, buffer + count - keep, keep);
            return;
        }
        /* The end (or an error): the scrape is over. */
        uint64_t elapsed = now_ns() - scraper->started;
        if (memcmp(scraper->tail, "0\r\n\r\n", 5) != 0) scraper->incomplete++;
        if (scraper->count == scraper->capacity) {
            scraper->capacity = scraper->capacity ? scraper->capacity * 2 : 64;
            scraper->times = realloc(scraper->times, scraper->capacity * sizeof(uint64_t));
        }
        scraper->times[scraper->count++] = elapsed;
        scraper->bytes_last = scraper->bytes;
        epoll_ctl(epoll, EPOLL_CTL_DEL, scraper->fd, NULL);
        close(scraper->fd);
        scraper->fd = -1;
        return;
    }
}

static void pump_scraping(int epoll, Follower *followers, uint64_t deadline, Scraper *scraper, uint64_t period) {
    int timer = -1;
    if (period) {
        timer = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
        struct itimerspec spec = {{(time_t)(period / 1000000000ull), (long)(period % 1000000000ull)}, {0, 1}};
        timerfd_settime(timer, 0, &spec, NULL);
        struct epoll_event event = {.events = EPOLLIN, .data.u32 = SCRAPE_TIMER};
        epoll_ctl(epoll, EPOLL_CTL_ADD, timer, &event);
    }
    struct epoll_event events[256];
    for (;;) {
        uint64_t now = now_ns();
        if (now >= deadline) break;
        int ready = epoll_wait(epoll, events, 256, (int)((deadline - now + 999999) / 1000000));
        for (int i = 0; i < ready; i++) {
            if (events[i].data.u32 == SCRAPE_TIMER) {
                uint64_t expirations = 0;
                if (read(timer, &expirations, sizeof expirations) == sizeof expirations) scrape_start(scraper, epoll);
            } else if (events[i].data.u32 == SCRAPE_SOCKET) {
                scrape_ready(scraper, epoll);
            } else {
                follower_read(&followers[events[i].data.u32]);
            }
        }
    }
    if (timer >= 0) {
        epoll_ctl(epoll, EPOLL_CTL_DEL, timer, NULL);
        close(timer);
    }
}

/*
 * The daemon's own histogram of tick lateness (monkeyd_tick_lateness_seconds,
 * asked with METRICS on `control`): cumulative counts by bucket bound.
 */
enum { LATENESS_BUCKETS = 32 };
typedef struct {
    double bound[LATENESS_BUCKETS];
    double count[LATENESS_BUCKETS];
    int used;
} Lateness;

static Lateness daemon_lateness(int control) {
    static const char prefix[] = "monkeyd_tick_lateness_seconds_bucket{le=\"";
    Lateness lateness = {.used = 0};
    write_all(control, "METRICS\n", 8);
    static char buffer[1 << 16];
    char line[512];
    size_t used = 0;
    for (;;) {
        ssize_t count = read(control, buffer, sizeof buffer);
        if (count <= 0) die("METRICS: the connection ended");
        for (ssize_t i = 0; i < count; i++) {
            if (buffer[i] != '\n') {
                if (used < sizeof line - 1) line[used++] = buffer[i];
                continue;
            }
            line[used] = 0;
            used = 0;
            if (strncmp(line, "OK", 2) == 0) return lateness;
            if (strncmp(line, "ERR", 3) == 0) die("METRICS: %s", line);
            if (strncmp(line, prefix, sizeof prefix - 1) != 0 || lateness.used == LATENESS_BUCKETS) continue;
            const char *bound = line + sizeof prefix - 1;
            const char *value = strrchr(line, ' ');
            if (!value) continue;
            lateness.bound[lateness.used] = strncmp(bound, "+Inf", 4) == 0 ? 1e9 : strtod(bound, NULL);
            lateness.count[lateness.used] = strtod(value + 1, NULL);
            lateness.used++;
        }
    }
}

/* The bound of the first bucket holding `fraction` of the ticks between two readings, in ms. */
static double lateness_bound_ms(const Lateness *before, const Lateness *after, double fraction) {
    int last = after->used - 1;
    if (last < 0 || before->used != after->used) return -1;
    double total = after->count[last] - before->count[last];
    for (int i = 0; i < after->used; i++)
        if (after->count[i] - before->count[i] >= fraction * total) return after->bound[i] * 1e3;
    return -1;
}

static int command_scrape(int argc, char **argv) {
    if (argc != 8) die("usage: scrape SOCKET SESSIONS SECONDS PID HTTP_PORT PERIOD_MS");
    const char *path = argv[2];
    int sessions = atoi(argv[3]);
    double seconds = atof(argv[4]);
    pid_t pid = (pid_t)atoi(argv[5]);
    Scraper scraper = {.fd = -1, .port = atoi(argv[6])};
    uint64_t period = (uint64_t)atoll(argv[7]) * 1000000ull;
    const uint64_t interval = 100000000ull;
    int samples = sessions < 50 ? sessions : 50;
    int stride = sessions / samples;
    int control = must_connect(path, 0);
    int epoll = epoll_create1(EPOLL_CLOEXEC);
    Follower *followers = calloc((size_t)samples, sizeof(Follower));
    int sample = start_typing_sessions(path, control, sessions, interval, followers, samples, stride, epoll);
    settle(pid, sessions, epoll, followers, NULL, NULL, 0);
    Lateness before = daemon_lateness(control);
    /* Entries held up while that was read arrive before the window opens. */
    pump(epoll, followers, now_ns() + 200000000ull, NULL, NULL, 0);
    uint64_t cpu_start = process_cpu_ns(pid), window_start = now_ns();
    pump_scraping(epoll, followers, window_start + (uint64_t)(seconds * 1e9), &scraper, period);
    uint64_t window_end = now_ns(), cpu = process_cpu_ns(pid) - cpu_start;
    long rss = process_rss_kib(pid);
    Lateness after = daemon_lateness(control);
    /* A scrape still in progress is finished, untimed by the window. */
    while (scraper.fd >= 0) pump_scraping(epoll, followers, now_ns() + 100000000ull, &scraper, 0);
    uint64_t *late;
    size_t late_count;
    lateness(followers, (size_t)sample, interval, window_start, window_end, &late, &late_count);
    qsort(scraper.times, scraper.count, sizeof(uint64_t), compare_u64);
    printf("cpu_percent=%.2f rss_kib=%ld late_p50_ms=%.3f late_p99_ms=%.3f late_max_ms=%.3f ticks_seen=%zu "
           "daemon_late_p50_ms_at_most=%g daemon_late_p99_ms_at_most=%g "
           "scrapes=%zu scrape_p50_ms=%.2f scrape_max_ms=%.2f scrape_bytes=%zu skipped=%zu incomplete=%zu\n",
           100.0 * (double)cpu / (double)(window_end - window_start), rss,
           (double)percentile(late, late_count, 0.50) / 1e6, (double)percentile(late, late_count, 0.99) / 1e6,
           late_count ? (double)late[late_count - 1] / 1e6 : 0.0, late_count,
           lateness_bound_ms(&before, &after, 0.50), lateness_bound_ms(&before, &after, 0.99), scraper.count,
           (double)percentile(scraper.times, scraper.count, 0.50) / 1e6,
           scraper.count ? (double)scraper.times[scraper.count - 1] / 1e6 : 0.0, scraper.bytes_last,
           scraper.skipped, scraper.incomplete);
    return 0;
}

int main(int argc, char **argv) {
    signal(SIGPIPE, SIG_IGN);
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 2)
        die("usage: loadclient ping|request|typing|fanout|globtail|waiters|startup|populate|burst|latency|fsync|scrape ...");
    errno = 0;
    if (strcmp(argv[1], "ping") == 0) return command_ping(argc, argv);
    if (strcmp(argv[1], "request") == 0) return command_request(argc, argv);
    if (strcmp(argv[1], "typing") == 0) return command_typing(argc, argv);
    if (strcmp(argv[1], "fanout") == 0) return command_fanout(argc, argv);
    if (strcmp(argv[1], "globtail") == 0) return command_globtail(argc, argv);
    if (strcmp(argv[1], "waiters") == 0) return command_waiters(argc, argv);
    if (strcmp(argv[1], "startup") == 0) return command_startup(argc, argv);
    if (strcmp(argv[1], "populate") == 0) return command_populate(argc, argv);
    if (strcmp(argv[1], "burst") == 0) return command_burst(argc, argv);
    if (strcmp(argv[1], "latency") == 0) return command_latency(argc, argv);
    if (strcmp(argv[1], "fsync") == 0) return command_fsync(argc, argv);
    if (strcmp(argv[1], "scrape") == 0) return command_scrape(argc, argv);
    die("unknown command %s", argv[1]);
    return 2;
}
