/* torchdeck-follow: follows files on a cluster's login node for the torchdeck agent (docs/agent.md, "The login-node
 * follower"). Uploaded as source and built once per cluster with the site's C compiler; torchdeck-follow.sh is its
 * fallback where there is none. It reads commands on stdin and writes frames on stdout, over one SSH channel:
 *
 *   in:  A <id> <offset> <from-end> <once> <growing-ms> <quiet-ms> <path>   follow (replaces one of the same id)
 *        P <id> <growing-ms> <quiet-ms>                                     its pace
 *        D <id>                                                             no more
 *   out: v 1                                     ready, protocol 1
 *        d <id> <offset> <length>\n<bytes>       new bytes at offset
 *        t <id> <old-size> <new-size>            truncated: it starts over at 0
 *        r <id>                                  replaced by another file: it starts over at 0
 *        e <id>                                  a once read reached the end (or the file is missing)
 *        f <id> <errno>                          cannot be read: no more
 *        h <looks> <bytes>                       alive, every 10 s (argv[1] ms where given), with what it did
 *
 * Files written on compute nodes reach the login node over NFS or Lustre, where inotify sees nothing and attributes
 * are cached: each look opens the file (close-to-open consistency shows its growth), fstats it and reads what is
 * new. On a local file system (ext4, xfs, btrfs, tmpfs, zfs) a stat by path is as fresh, so a look that finds
 * nothing new costs one system call there. A file quiet for T is looked at every T/8, between the pace's bounds:
 * a line comes at most an eighth of the gap before it late, and a quiet file costs little. It exits when stdin closes
 * (the agent's connection went) or stdout does. Plain POSIX C, no dependencies. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#ifdef __linux__
#include <sys/vfs.h>
#endif
#include <time.h>
#include <unistd.h>

enum { MAX_FILES = 4096, HEAD_BYTES = 64, CHUNK_BYTES = 256 * 1024, LINE_BYTES = 8192, GAPS = 8 };
static long heartbeat_ms = 10000; /* argv[1] where given */

struct followed {
    int used;
    unsigned long long id;
    char *path;
    long long offset;
    long long from_end; /* until the first look: start this many bytes before the end */
    int once;
    long growing_ms, quiet_ms;
    long long next_ms, last_data_ms;
    long long wait_ms; /* how long next_ms was set after the look before */
    int seen_data;
    long long gaps[GAPS]; /* between the looks that found new bytes, the latest GAPS */
    int gap_count;
    dev_t dev;
    ino_t ino; /* 0: not seen yet */
    int local; /* on a local file system: a stat by path shows its growth */
    char head[HEAD_BYTES];
    int head_len;
};

static struct followed files[MAX_FILES];
static int slots; /* files[slots..] are all unused: the loops stop there */
static char chunk[CHUNK_BYTES];
static unsigned long long looks, sent_bytes;

static long long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void write_all(const char *data, size_t size)
{
    while (size > 0) {
        const ssize_t n = write(STDOUT_FILENO, data, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            exit(0); /* the agent's end is gone */
        data += n;
        size -= (size_t)n;
    }
}

/* What one turn of the loop sends, written at its end in one go: one SSH packet for the frames of many files,
 * not one each (each costs the login node's sshd a wake-up). */
static char out[64 * 1024];
static size_t out_len;

static void flush(void)
{
    write_all(out, out_len);
    out_len = 0;
}

static void send_bytes(const char *data, size_t size)
{
    if (out_len + size > sizeof out)
        flush();
    if (size > sizeof out)
        write_all(data, size);
    else {
        memcpy(out + out_len, data, size);
        out_len += size;
    }
}

static void frame(const char *text)
{
    send_bytes(text, strlen(text));
}

static struct followed *find(unsigned long long id)
{
    for (int i = 0; i < slots; ++i)
        if (files[i].used && files[i].id == id)
            return &files[i];
    return NULL;
}

static void drop(struct followed *f)
{
    free(f->path);
    memset(f, 0, sizeof *f);
    while (slots > 0 && !files[slots - 1].used)
        --slots;
}

/* Local file systems, whose attributes are never stale (network ones, NFS, Lustre, GPFS, are opened each look). */
static int on_local_file_system(int fd)
{
#ifdef __linux__
    struct statfs fs;
    if (fstatfs(fd, &fs) != 0)
        return 0;
    switch ((unsigned long)fs.f_type) {
    case 0xEF53UL:     /* ext2, ext3, ext4 */
    case 0x58465342UL: /* xfs */
    case 0x9123683EUL: /* btrfs */
    case 0x01021994UL: /* tmpfs */
    case 0x2FC12FC1UL: /* zfs */
        return 1;
    default:
        return 0;
    }
#else
    (void)fd;
    return 0;
#endif
}

static void note_data(struct followed *f, long long now)
{
    if (f->seen_data)
        f->gaps[f->gap_count++ % GAPS] = now - f->last_data_ms;
    f->seen_data = 1;
    f->last_data_ms = now;
}

/* The shortest of the latest gaps between new bytes, once there are a few; 0: no rhythm known. */
static long long rhythm(const struct followed *f)
{
    if (f->gap_count < 4)
        return 0;
    long long shortest = f->gaps[0];
    for (int i = 1; i < (f->gap_count < GAPS ? f->gap_count : GAPS); ++i)
        if (f->gaps[i] < shortest)
            shortest = f->gaps[i];
    return shortest;
}

/* The next look: a file quiet for T, in T/8, within the pace's bounds. A job that writes in a rhythm (a line a
 * step, an epoch) is looked at no more often than the pace's slowest before three quarters of its shortest recent
 * gap have passed: a line a second costs a few looks, not forty, and one that comes early is still seen within the
 * slowest wait. */
static void schedule(struct followed *f, long long now)
{
    long long wait = (now - f->last_data_ms) / 8;
    if (wait < f->growing_ms)
        wait = f->growing_ms;
    const long long next_line = f->last_data_ms + rhythm(f) * 3 / 4;
    if (now + wait < next_line)
        wait = next_line - now;
    if (wait > f->quiet_ms)
        wait = f->quiet_ms;
    /* Slow looks (the runs nobody shows) on a common grid: their frames leave together. */
    f->next_ms = wait >= 1000 ? (now + wait) / wait * wait : now + wait;
    f->wait_ms = wait;
}

/* Due now, or soon enough to be looked at with the files that are: a quarter of its wait early is never late, and
 * files that grow together (a job's log and metrics file) then cost the login node one wake-up, not two. */
static int due(const struct followed *f, long long now)
{
    return f->used && f->next_ms - f->wait_ms / 4 <= now;
}

static void restart(struct followed *f, long long now)
{
    f->offset = 0;
    f->head_len = 0;
    f->ino = 0;
    f->next_ms = now;
    f->seen_data = 0; /* a new file: its rhythm is learnt again */
    f->gap_count = 0;
}

/* One look at a file: what is new is sent; a truncated or replaced file starts over. */
static void look(struct followed *f, long long now)
{
    char line[128];
    ++looks;
    if (f->local && f->ino != 0 && !f->once) {
        struct stat quick;
        if (stat(f->path, &quick) == 0 && quick.st_ino == f->ino && quick.st_dev == f->dev &&
            (long long)quick.st_size == f->offset) {
            schedule(f, now); /* nothing new */
            return;
        }
    }
    const int fd = open(f->path, O_RDONLY);
    if (fd < 0) {
        if ((errno == ENOENT && !f->once) || errno == EMFILE || errno == ENFILE || errno == EINTR) {
            /* not there yet, or no descriptor free now (a login node's limits, its peers): looked at again later */
            f->next_ms = now + f->quiet_ms;
            f->wait_ms = f->quiet_ms;
            return;
        }
        if (errno == ENOENT)
            snprintf(line, sizeof line, "e %llu\n", f->id);
        else
            snprintf(line, sizeof line, "f %llu %d\n", f->id, errno);
        frame(line);
        drop(f);
        return;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        snprintf(line, sizeof line, "f %llu %d\n", f->id, errno);
        frame(line);
        close(fd);
        drop(f);
        return;
    }
    const long long size = (long long)st.st_size;
    if (f->from_end > 0) {
        f->offset = size > f->from_end ? size - f->from_end : 0;
        f->from_end = 0;
    }
    if (f->ino != 0 && (st.st_ino != f->ino || st.st_dev != f->dev)) {
        snprintf(line, sizeof line, "r %llu\n", f->id);
        frame(line);
        restart(f, now);
    } else if (size < f->offset) {
        snprintf(line, sizeof line, "t %llu %lld %lld\n", f->id, f->offset, size);
        frame(line);
        restart(f, now);
    } else if (f->head_len > 0 && size > f->offset) { /* rewritten in place: its first bytes differ */
        char head[HEAD_BYTES];
        if (pread(fd, head, (size_t)f->head_len, 0) != f->head_len || memcmp(head, f->head, (size_t)f->head_len) != 0) {
            snprintf(line, sizeof line, "r %llu\n", f->id);
            frame(line);
            restart(f, now);
        }
    }
    if (f->ino == 0)
        f->local = on_local_file_system(fd);
    f->dev = st.st_dev;
    f->ino = st.st_ino;
    long long got = 0;
    if (size > f->offset) {
        const long long want = size - f->offset < CHUNK_BYTES ? size - f->offset : CHUNK_BYTES;
        const ssize_t n = pread(fd, chunk, (size_t)want, (off_t)f->offset);
        if (n > 0) {
            got = n;
            snprintf(line, sizeof line, "d %llu %lld %lld\n", f->id, f->offset, got);
            frame(line);
            send_bytes(chunk, (size_t)got);
            sent_bytes += (unsigned long long)got;
            if (f->offset < HEAD_BYTES && f->head_len < HEAD_BYTES) {
                const long long keep = f->offset + got < HEAD_BYTES ? f->offset + got : HEAD_BYTES;
                if (pread(fd, f->head, (size_t)keep, 0) == keep)
                    f->head_len = (int)keep;
            }
            f->offset += got;
            note_data(f, now);
        }
    }
    close(fd);
    if (f->once && f->offset >= size && got < CHUNK_BYTES) {
        snprintf(line, sizeof line, "e %llu\n", f->id);
        frame(line);
        drop(f);
        return;
    }
    if (got == CHUNK_BYTES)
        f->next_ms = now; /* more is waiting */
    else
        schedule(f, now);
}

static void command(char *text, long long now)
{
    unsigned long long id = 0;
    long long offset = 0, from_end = 0;
    int once = 0, consumed = 0;
    long growing = 0, quiet = 0;
    if (text[0] == 'A' &&
        sscanf(text, "A %llu %lld %lld %d %ld %ld %n", &id, &offset, &from_end, &once, &growing, &quiet, &consumed) ==
            6 &&
        consumed > 0 && text[consumed] != '\0') {
        struct followed *f = find(id);
        if (f)
            drop(f);
        for (int i = 0; i < slots && !f; ++i)
            if (!files[i].used)
                f = &files[i];
        if (!f && slots < MAX_FILES)
            f = &files[slots++];
        if (!f) {
            char line[64];
            snprintf(line, sizeof line, "f %llu %d\n", id, EMFILE);
            frame(line);
            return;
        }
        f->used = 1;
        f->id = id;
        f->path = strdup(text + consumed);
        f->offset = offset < 0 ? 0 : offset;
        f->from_end = from_end;
        f->once = once;
        f->growing_ms = growing < 1 ? 1 : growing;
        f->quiet_ms = quiet < 1 ? 1 : quiet;
        f->next_ms = now;
        f->wait_ms = 0;
        f->last_data_ms = now;
    } else if (text[0] == 'P' && sscanf(text, "P %llu %ld %ld", &id, &growing, &quiet) == 3) {
        struct followed *f = find(id);
        if (f) {
            f->growing_ms = growing < 1 ? 1 : growing;
            f->quiet_ms = quiet < 1 ? 1 : quiet;
            if (f->next_ms > now + f->growing_ms) {
                f->next_ms = now + f->growing_ms; /* faster now: not a slow wait */
                f->wait_ms = f->growing_ms;
            }
        }
    } else if (text[0] == 'D' && sscanf(text, "D %llu", &id) == 1) {
        struct followed *f = find(id);
        if (f)
            drop(f);
    } /* anything else: a newer agent's word, ignored */
}

int main(int argc, char **argv)
{
    static char input[LINE_BYTES * 4];
    size_t buffered = 0;
    long long last_heartbeat = now_ms();
    if (argc > 1 && atol(argv[1]) > 0)
        heartbeat_ms = atol(argv[1]);
    signal(SIGPIPE, SIG_IGN); /* a closed stdout is seen as a write error */
    frame("v 1\n");
    flush();
    for (;;) {
        long long now = now_ms();
        long long wake = last_heartbeat + heartbeat_ms;
        for (int i = 0; i < slots; ++i)
            if (files[i].used && files[i].next_ms < wake)
                wake = files[i].next_ms;
        struct pollfd in = {STDIN_FILENO, POLLIN, 0};
        const int ready = poll(&in, 1, wake > now ? (int)(wake - now) : 0);
        if (ready < 0 && errno != EINTR)
            return 1;
        if (ready > 0) {
            const ssize_t n = read(STDIN_FILENO, input + buffered, sizeof input - buffered);
            if (n <= 0 && !(n < 0 && errno == EINTR))
                return 0; /* the agent closed the channel */
            if (n > 0)
                buffered += (size_t)n;
            char *start = input;
            char *end;
            while ((end = memchr(start, '\n', buffered - (size_t)(start - input))) != NULL) {
                *end = '\0';
                command(start, now_ms());
                start = end + 1;
            }
            buffered -= (size_t)(start - input);
            memmove(input, start, buffered);
            if (buffered == sizeof input)
                buffered = 0; /* a line longer than any command: dropped */
        }
        now = now_ms();
        for (int i = 0; i < slots; ++i)
            if (due(&files[i], now))
                look(&files[i], now);
        if (now - last_heartbeat >= heartbeat_ms) {
            char line[96];
            snprintf(line, sizeof line, "h %llu %llu\n", looks, sent_bytes);
            frame(line);
            last_heartbeat = now;
        }
        flush();
    }
}
