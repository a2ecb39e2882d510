/* outfile.c - how clvid writes a path the user named. A regular file (or a
 * name with nothing there yet) is written as a hidden partial beside it and
 * renamed over it only when complete, so a failed run never leaves half a
 * file and never touches what was there; a FIFO or a socket at the path
 * is written in place and never removed, as ffmpeg does (a device node is
 * refused: a virtual camera is -f v4l2's, below); a symbolic link is
 * followed, so it stays a link to the new file. A partial is locked
 * (flock) while its process lives: a later run that finds the partial of a
 * process that died (SIGKILL, a crash) removes it. Also the checks made
 * before a run writes anything: what exists, and what is also an input,
 * for single files and numbered sequences ("out_%04d.png"). */
#define _GNU_SOURCE /* renameat2 */
#include "io.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/videodev2.h>

#include <libavutil/avstring.h>

struct clv_outfile {
    char target[PATH_MAX];  /* the file the output becomes (links followed) */
    char partial[PATH_MAX]; /* "" when the target is written in place */
    int lock;               /* an fd of the partial holding its flock, or -1 */
    int replace;            /* -y: the commit may replace a file at target */
    int committed;
};

/* Splits path into its folder ("" for the current one, else ending in '/')
 * and its last name. */
static void split(const char *path, char *dir, size_t dir_size, const char **base)
{
    const char *slash = strrchr(path, '/');
    int n = slash ? (int)(slash - path + 1) : 0;
    snprintf(dir, dir_size, "%.*s", n, path);
    *base = path + n;
}

/* Follows symbolic links from path, even to a target that does not exist
 * yet: *out is the path the data lands in. 0, or CLV_EIO for a loop. */
static int follow_links(const char *path, char *out, size_t size, clv_msg *msg)
{
    char cur[PATH_MAX], link[PATH_MAX], dir[PATH_MAX];
    snprintf(cur, sizeof cur, "%s", path);
    for (int hops = 0; hops < 40; hops++) {
        struct stat st;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) {
            snprintf(out, size, "%s", cur);
            return 0;
        }
        ssize_t n = readlink(cur, link, sizeof link - 1);
        if (n < 0)
            return clv_io_fail(msg, CLV_EIO, "'%.900s': cannot read the link: %s", path,
                               strerror(errno));
        link[n] = 0;
        const char *base;
        split(cur, dir, sizeof dir, &base);
        if (link[0] == '/' || !dir[0])
            snprintf(cur, sizeof cur, "%s", link);
        else if (snprintf(cur, sizeof cur, "%s%s", dir, link) >= (int)sizeof cur)
            return clv_io_fail(msg, CLV_EIO, "'%.900s': the link's target is too long", path);
    }
    return clv_io_fail(msg, CLV_EIO, "'%.900s': too many levels of symbolic links", path);
}

/* A partial's name: ".NAME.partial-PID" beside NAME (NAME shortened where
 * the whole would pass NAME_MAX bytes). */
static const char partial_mark[] = ".partial-";

/* Removes the partials of `base` (NULL: of every name matching `pattern`,
 * a sequence's file name) in dir that no live process writes: their lock
 * is free and their process is gone. A partial of a running clvid is
 * locked; one of a process that died is not. */
static void sweep(const char *dir, const char *base, const char *pattern)
{
    DIR *d = opendir(dir[0] ? dir : ".");
    if (!d)
        return;
    struct dirent *e;
    char name[NAME_MAX + 1], path[PATH_MAX];
    while ((e = readdir(d))) {
        const char *mark = e->d_name[0] == '.' ? strstr(e->d_name, partial_mark) : NULL;
        if (!mark)
            continue;
        int len = (int)(mark - e->d_name - 1);
        snprintf(name, sizeof name, "%.*s", len, e->d_name + 1);
        /* base's own partial, or one with base shortened (its name at the
         * longest, clv_outfile_open) */
        int of_base = base && !strncmp(name, base, (size_t)len) &&
                      (!base[len] || strlen(e->d_name) == NAME_MAX);
        if (base ? !of_base : !clv_sequence_match(pattern, name, NULL))
            continue;
        char *end;
        long pid = strtol(mark + strlen(partial_mark), &end, 10);
        if (pid > 0 && pid != (long)getpid() && kill((pid_t)pid, 0) == 0)
            continue; /* its process runs (perhaps an older clvid that takes no lock) */
        if (snprintf(path, sizeof path, "%s%s", dir, e->d_name) >= (int)sizeof path)
            continue;
        int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0)
            continue;
        struct stat held, named;
        if (flock(fd, LOCK_EX | LOCK_NB) == 0 && fstat(fd, &held) == 0 &&
            lstat(path, &named) == 0 && S_ISREG(held.st_mode) && held.st_ino == named.st_ino &&
            held.st_dev == named.st_dev)
            unlink(path);
        close(fd);
    }
    closedir(d);
}

int clv_outfile_open(const char *path, const char *pattern, int overwrite, clv_outfile **out,
                     clv_msg *msg)
{
    *out = NULL;
    clv_outfile *f = calloc(1, sizeof *f);
    if (!f)
        return clv_io_fail(msg, CLV_ENOMEM, "out of memory");
    f->lock = -1;
    f->replace = overwrite;
    int err = follow_links(path, f->target, sizeof f->target, msg);
    if (err) {
        free(f);
        return err;
    }
    struct stat st;
    int exists = stat(f->target, &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) {
        free(f);
        return clv_io_fail(msg, CLV_EIO, "'%.900s' is a folder; name a file in it", path);
    }
    if (exists && !S_ISREG(st.st_mode)) { /* FIFO, device, socket: in place */
        *out = f;
        return 0;
    }
    char dir[PATH_MAX];
    const char *base;
    split(f->target, dir, sizeof dir, &base);
    if (!pattern || pattern[0]) /* "": the caller swept already */
        sweep(dir, pattern ? NULL : base, pattern);
    for (int n = 0; n < 100; n++) {
        char tail[48];
        snprintf(tail, sizeof tail, n ? "%s%ld-%d" : "%s%ld", partial_mark, (long)getpid(), n);
        /* A name near the longest a folder takes keeps only as much of it
         * as leaves room for the dot and the tail (sweep matches the
         * shortened name). */
        const int room = NAME_MAX - 1 - (int)strlen(tail), len = (int)strlen(base);
        if (snprintf(f->partial, sizeof f->partial, "%s.%.*s%s", dir, len < room ? len : room, base,
                     tail) >= (int)sizeof f->partial) {
            free(f);
            return clv_io_fail(msg, CLV_EIO, "'%.900s': the name is too long", path);
        }
        f->lock = open(f->partial, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
        if (f->lock >= 0 || errno != EEXIST)
            break;
    }
    if (f->lock < 0) {
        err = errno;
        free(f);
        return clv_io_fail(msg, CLV_EIO, "cannot write '%.900s': %s", path, strerror(err));
    }
    flock(f->lock, LOCK_EX);
    /* The new file takes the old one's permissions (and owner, where this
     * process may give it). */
    if (exists) {
        int ignored = fchown(f->lock, st.st_uid, st.st_gid);
        ignored |= fchmod(f->lock, st.st_mode & 07777);
        (void)ignored; /* a file system without owners or modes keeps its own */
    }
    *out = f;
    return 0;
}

const char *clv_outfile_write_path(const clv_outfile *f)
{
    return f->partial[0] ? f->partial : f->target;
}

const char *clv_outfile_target(const clv_outfile *f)
{
    return f->target;
}

const char *clv_outfile_partial(const clv_outfile *f)
{
    return f && f->partial[0] ? f->partial : NULL;
}

/* Puts the partial at the target without replacing what is there: the
 * check before the run saw nothing, but a file made since (by the user,
 * or by another run into the same path) is as much the user's. 0 or an
 * errno, EEXIST for such a file. */
static int move_no_replace(const clv_outfile *f)
{
    if (renameat2(AT_FDCWD, f->partial, AT_FDCWD, f->target, RENAME_NOREPLACE) == 0)
        return 0;
    if (errno != EINVAL && errno != ENOSYS)
        return errno;
    /* A file system without RENAME_NOREPLACE: link() refuses an existing
     * name as well, and the partial's name goes after. */
    if (link(f->partial, f->target) == 0) {
        unlink(f->partial);
        return 0;
    }
    if (errno != EPERM && errno != EOPNOTSUPP && errno != ENOSYS)
        return errno;
    /* Nor hard links (some FUSE and shared folders): a look, then the
     * rename, the nearest this file system allows. */
    struct stat st;
    if (lstat(f->target, &st) == 0)
        return EEXIST;
    return rename(f->partial, f->target) ? errno : 0;
}

int clv_outfile_commit(clv_outfile *f, clv_msg *msg)
{
    if (!f->partial[0] || f->committed)
        return 0;
    int err = f->replace ? (rename(f->partial, f->target) ? errno : 0) : move_no_replace(f);
    if (err == EEXIST)
        return clv_io_fail(msg, CLV_EEXIST,
                           "'%.900s' appeared while the run wrote it (another program or run); it "
                           "is left as it is and this run's output is dropped (use -y to "
                           "overwrite it)",
                           f->target);
    if (err)
        return clv_io_fail(msg, CLV_EIO, "cannot move the finished file to '%.900s': %s", f->target,
                           strerror(err));
    f->committed = 1;
    return 0;
}

void clv_outfile_close(clv_outfile *f)
{
    if (!f)
        return;
    if (f->partial[0] && !f->committed)
        unlink(f->partial);
    if (f->lock >= 0)
        close(f->lock);
    free(f);
}

/* ---- Sequences and the checks before a run ----------------------------- */

int clv_sequence_pattern(const char *path)
{
    char probe[PATH_MAX];
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    /* One %d (with a width) and %% escapes, as FFmpeg's image2 takes. */
    return strchr(base, '%') && av_get_frame_filename(probe, sizeof probe, base, 1) == 0;
}

int clv_sequence_match(const char *pattern, const char *name, long *number)
{
    const char *p = pattern, *s = name;
    int numbers = 0;
    long value = 0;
    while (*p) {
        if (p[0] == '%' && p[1] == '%') {
            if (*s++ != '%')
                return 0;
            p += 2;
            continue;
        }
        if (*p == '%') {
            p++;
            int width = 0;
            while (*p >= '0' && *p <= '9')
                width = width * 10 + (*p++ - '0');
            if (*p++ != 'd' || numbers++)
                return 0;
            int digits = 0;
            value = 0;
            while (*s >= '0' && *s <= '9' && value < 100000000L) {
                value = value * 10 + (*s++ - '0');
                digits++;
            }
            if (!digits || digits < width)
                return 0;
            continue;
        }
        if (*p++ != *s++)
            return 0;
    }
    if (*s || !numbers)
        return 0;
    if (number)
        *number = value;
    return 1;
}

/* Calls visit for each existing file the path names: the file itself, or
 * every file of the sequence. Stops at a nonzero answer and returns it. */
static int each_file(const char *path,
                     int (*visit)(const char *file, const struct stat *st, void *user), void *user)
{
    struct stat st;
    if (!clv_sequence_pattern(path))
        return stat(path, &st) == 0 ? visit(path, &st, user) : 0;
    char dir[PATH_MAX], file[PATH_MAX];
    const char *base;
    split(path, dir, sizeof dir, &base);
    DIR *d = opendir(dir[0] ? dir : ".");
    if (!d)
        return 0;
    struct dirent *e;
    int r = 0;
    while (!r && (e = readdir(d))) {
        if (!clv_sequence_match(base, e->d_name, NULL))
            continue;
        if (snprintf(file, sizeof file, "%s%s", dir, e->d_name) >= (int)sizeof file)
            continue;
        if (stat(file, &st) == 0 && !S_ISDIR(st.st_mode))
            r = visit(file, &st, user);
    }
    closedir(d);
    return r;
}

typedef struct file_ids {
    struct {
        dev_t dev;
        ino_t ino;
        char name[256];
    } * list;
    int count, capacity;
    const char *found;     /* the output file that is an input, or exists */
    const char *found_in;  /* the input file it is */
    char found_name[1024]; /* storage for found */
} file_ids;

static int add_input(const char *file, const struct stat *st, void *user)
{
    file_ids *ids = user;
    if (ids->count == ids->capacity) {
        int capacity = ids->capacity ? 2 * ids->capacity : 64;
        void *grown = realloc(ids->list, (size_t)capacity * sizeof *ids->list);
        if (!grown)
            return -1;
        ids->list = grown;
        ids->capacity = capacity;
    }
    ids->list[ids->count].dev = st->st_dev;
    ids->list[ids->count].ino = st->st_ino;
    snprintf(ids->list[ids->count].name, sizeof ids->list[ids->count].name, "%s", file);
    ids->count++;
    return 0;
}

static int add_input_files(const char *input, file_ids *ids, int depth);

/* Adds the files a concat demuxer's list names ("file 'a.mp4'" lines,
 * relative to the list's folder) when path is such a list; anything else
 * (a video) is left alone: a list is short text that starts with
 * "ffconcat version" or a "file" line. */
static int add_concat_list(const char *path, const struct stat *st, file_ids *ids, int depth)
{
    if (!S_ISREG(st->st_mode) || st->st_size > (1 << 20))
        return 0;
    FILE *list = fopen(path, "r");
    if (!list)
        return 0;
    char dir[PATH_MAX], line[PATH_MAX + 64], name[PATH_MAX], file[PATH_MAX];
    const char *base;
    split(path, dir, sizeof dir, &base);
    int r = 0, lines = 0;
    while (!r && fgets(line, sizeof line, list)) {
        char *s = line + strspn(line, " \t\r\n");
        if (!*s || *s == '#')
            continue;
        if (!lines++ && strncmp(s, "ffconcat version", 16) && strncmp(s, "file", 4))
            break; /* not a list */
        if (strncmp(s, "file", 4) || !strchr(" \t", s[4]))
            continue;
        s += 4 + strspn(s + 4, " \t");
        /* The demuxer's quoting: '...' with '\'' inside, or a bare word with \ escapes. */
        size_t n = 0;
        for (char quote = 0; *s && n + 1 < sizeof name; s++) {
            if (*s == '\'') {
                quote = !quote;
                continue;
            }
            if (!quote && strchr(" \t\r\n#", *s))
                break;
            if (!quote && *s == '\\' && s[1])
                s++;
            name[n++] = *s;
        }
        name[n] = 0;
        if (!n || snprintf(file, sizeof file, "%s%s", name[0] == '/' ? "" : dir, name) >=
                      (int)sizeof file)
            continue;
        r = add_input_files(file, ids, depth + 1);
    }
    fclose(list);
    return r;
}

/* Adds the local files input names as FFmpeg reads it: a path (or a
 * sequence), standard input ("-"), the protocols over a file (file:,
 * cache:, async:, subfile, concat:), a concat demuxer's list, a lavfi
 * graph's movie= and amovie= sources. Each is compared by device and
 * inode with the output: -y must never write over any of them. 0, or -1
 * out of memory. */
static int add_input_files(const char *input, file_ids *ids, int depth)
{
    static const char *const wrappers[] = {"file://", "file:", "cache:", "async:"};
    struct stat st;
    if (depth > 8)
        return 0; /* a list naming itself */
    if (!strcmp(input, "-") || !strcmp(input, "pipe:") || !strcmp(input, "pipe:0"))
        return fstat(0, &st) == 0 && S_ISREG(st.st_mode) ? add_input("standard input", &st, ids)
                                                         : 0;
    for (size_t i = 0; i < sizeof wrappers / sizeof wrappers[0]; i++)
        if (!strncmp(input, wrappers[i], strlen(wrappers[i])))
            return add_input_files(input + strlen(wrappers[i]), ids, depth + 1);
    const char *options_end = strstr(input, ",:");
    if (!strncmp(input, "subfile,", 8) && options_end)
        return add_input_files(options_end + 2, ids, depth + 1);
    if (!strncmp(input, "concat:", 7)) {
        char part[PATH_MAX];
        for (const char *s = input + 7; *s;) {
            size_t n = strcspn(s, "|");
            snprintf(part, sizeof part, "%.*s", (int)n, s);
            if (add_input_files(part, ids, depth + 1))
                return -1;
            s += n + (s[n] == '|');
        }
        return 0;
    }
    if (stat(input, &st) != 0) {
        if (clv_sequence_pattern(input)) /* "in_%04d.png" */
            return each_file(input, add_input, ids) < 0 ? -1 : 0;
        /* Not a file: a lavfi graph's sources, "movie=in.mkv[v]" or
         * "movie=filename=in.mkv:loop=0" (filename is movie's first option). */
        char name[PATH_MAX];
        for (const char *s = strstr(input, "movie="); s; s = strstr(s + 1, "movie=")) {
            const char *v = s + 6;
            if (!strncmp(v, "filename=", 9))
                v += 9;
            char quote = *v == '\'' ? *v++ : 0;
            size_t n = quote ? strcspn(v, "'") : strcspn(v, ":,;[");
            snprintf(name, sizeof name, "%.*s", (int)n, v);
            if (n && add_input_files(name, ids, depth + 1))
                return -1;
        }
        return 0;
    }
    if (each_file(input, add_input, ids) < 0)
        return -1;
    return add_concat_list(input, &st, ids, depth);
}

static int find_input(const char *file, const struct stat *st, void *user)
{
    file_ids *ids = user;
    for (int i = 0; i < ids->count; i++)
        if (ids->list[i].dev == st->st_dev && ids->list[i].ino == st->st_ino) {
            snprintf(ids->found_name, sizeof ids->found_name, "%s", file);
            ids->found = ids->found_name;
            ids->found_in = ids->list[i].name;
            return 1;
        }
    return 0;
}

static int first_existing(const char *file, const struct stat *st, void *user)
{
    file_ids *ids = user;
    if (S_ISREG(st->st_mode) || S_ISLNK(st->st_mode)) {
        snprintf(ids->found_name, sizeof ids->found_name, "%s", file);
        ids->found = ids->found_name;
        return 1;
    }
    return 0; /* a FIFO or device is written, not overwritten: still needs -y below */
}

/* ---- Network and HLS outputs -------------------------------------------- */

/* The scheme of "SCHEME://...", lower case, into out; 0 when path has none. */
static int url_scheme(const char *path, char *out, size_t size)
{
    const char *colon = strstr(path, "://");
    size_t n = colon ? (size_t)(colon - path) : 0;
    if (!n || n >= size)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = path[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '+' || c == '-' || c == '.'))
            return 0;
        out[i] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    }
    out[n] = 0;
    return 1;
}

int clv_output_is_network(const char *path)
{
    char scheme[32];
    return path && url_scheme(path, scheme, sizeof scheme) && strcmp(scheme, "file");
}

const char *clv_output_network_format(const char *path)
{
    static const struct {
        const char *scheme, *format;
    } table[] = {{"udp", "mpegts"},  {"srt", "mpegts"},     {"tcp", "mpegts"},
                 {"rist", "mpegts"}, {"rtp", "rtp_mpegts"}, {"rtmp", "flv"},
                 {"rtmps", "flv"},   {"rtmpt", "flv"},      {"rtsp", "rtsp"}};
    char scheme[32];
    if (!path || !url_scheme(path, scheme, sizeof scheme))
        return NULL;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (!strcmp(scheme, table[i].scheme))
            return table[i].format;
    return NULL;
}

void clv_output_hls_segments(const char *playlist, char *out, size_t size)
{
    const char *base = strrchr(playlist, '/');
    const char *dot = strrchr(base ? base : playlist, '.');
    int n = dot ? (int)(dot - playlist) : (int)strlen(playlist);
    snprintf(out, size, "%.*s%%d.ts", n, playlist);
}

/* ---- A virtual camera (-f v4l2) ------------------------------------------ */

/* The checks of -f v4l2 that need no more than the path: a character
 * device is there (it is written in place, never created, replaced or
 * removed, so -y does not apply). */
static int v4l2_device_there(const char *output, clv_msg *msg)
{
    struct stat st;
    if (stat(output, &st) != 0)
        return clv_io_fail(msg, CLV_EIO,
                           "-f v4l2: '%.900s': %s (a virtual camera is a v4l2loopback device: "
                           "modprobe v4l2loopback video_nr=10 card_label=clvid exclusive_caps=1 "
                           "makes /dev/video10)",
                           output, strerror(errno));
    if (!S_ISCHR(st.st_mode))
        return clv_io_fail(msg, CLV_EOPTION,
                           "-f v4l2: '%.900s' is not a video device; -f v4l2 writes frames to a "
                           "virtual camera (/dev/videoN of v4l2loopback)",
                           output);
    return 0;
}

int clv_output_v4l2_check(const char *output, clv_msg *msg)
{
    int err = v4l2_device_there(output, msg);
    if (err)
        return err;
    /* Opened without blocking and closed at once: asking a device what it
     * is neither writes to it nor claims it. */
    int fd = open(output, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return clv_io_fail(msg, CLV_EIO, "-f v4l2: cannot open '%.900s': %s", output,
                           strerror(errno));
    struct v4l2_capability cap;
    memset(&cap, 0, sizeof cap);
    int queried = ioctl(fd, VIDIOC_QUERYCAP, &cap) == 0;
    int error = errno;
    close(fd);
    if (!queried)
        return clv_io_fail(msg, CLV_EOPTION,
                           "-f v4l2: '%.900s' is not a V4L2 device (VIDIOC_QUERYCAP: %s); a "
                           "virtual camera is a v4l2loopback device (/dev/videoN)",
                           output, strerror(error));
    uint32_t caps = cap.capabilities & V4L2_CAP_DEVICE_CAPS ? cap.device_caps : cap.capabilities;
    if (!(caps & V4L2_CAP_VIDEO_OUTPUT))
        /* v4l2loopback with exclusive_caps=1 says "capture" once a writer
         * feeds it: another program's virtual camera looks like a camera. */
        return clv_io_fail(msg, CLV_EOPTION,
                           "-f v4l2: '%.900s' (%.100s) is not a video output: it is a camera, or a "
                           "v4l2loopback device another program already feeds",
                           output, (const char *)cap.card);
    return 0;
}

int clv_output_check(const char *const *inputs, int input_count, const char *output,
                     const char *format, int overwrite, clv_msg *msg)
{
    if (output && clv_output_is_tee(format)) {
        /* Each output as if it were the only one, all before anything is
         * written. */
        clv_tee_output *list;
        int count;
        int err = clv_tee_parse(output, &list, &count, msg);
        for (int i = 0; !err && i < count; i++)
            err = clv_output_check(inputs, input_count, list[i].path,
                                   list[i].format[0] ? list[i].format : NULL, overwrite, msg);
        clv_tee_free(list, count);
        return err;
    }
    if (output && format && av_match_name(format, "v4l2,video4linux2"))
        return v4l2_device_there(output, msg);
    if (!output || !strcmp(output, "-") || clv_output_is_network(output))
        return 0; /* a stream is sent, not a file left behind */
    const AVOutputFormat *of =
        format ? av_guess_format(format, NULL, NULL) : av_guess_format(NULL, output, NULL);
    int image2 = of && (!strcmp(of->name, "image2"));
    struct stat dev;
    if ((!of || !(of->flags & AVFMT_NOFILE) || image2) && stat(output, &dev) == 0 &&
        (S_ISCHR(dev.st_mode) || S_ISBLK(dev.st_mode)))
        /* A container written into a camera, a virtual camera, a terminal
         * or a disk garbles or destroys what is there. */
        return clv_io_fail(msg, CLV_EOPTION,
                           "'%.900s' is a device; clvid writes no file into a device node (a "
                           "virtual camera: -f v4l2 -o %.900s; no output at all: -f null)",
                           output, output);
    if (of && !strcmp(of->name, "hls")) {
        /* The playlist and its segments ("live%d.ts" beside it): none is
         * replaced without overwrite. */
        char segments[PATH_MAX + 8];
        clv_output_hls_segments(output, segments, sizeof segments);
        int err = clv_output_check(inputs, input_count, segments, "image2", overwrite, msg);
        if (!err && !overwrite && access(output, F_OK) == 0)
            err = clv_io_fail(msg, CLV_EEXIST, "'%.900s' already exists; use -y to overwrite it",
                              output);
        return err;
    }
    if (of && (of->flags & AVFMT_NOFILE) && !image2)
        return 0; /* -f null and its kind write no file */
    int sequence = image2 && clv_sequence_pattern(output);
    struct stat st;
    if (!sequence && stat(output, &st) == 0 && S_ISDIR(st.st_mode))
        return clv_io_fail(msg, CLV_EOPTION, "'%.900s' is a folder; name a file in it", output);
    file_ids ids = {0};
    int err = 0;
    for (int i = 0; i < input_count && !err; i++)
        if (inputs[i])
            err = add_input_files(inputs[i], &ids, 0) < 0 ? CLV_ENOMEM : 0;
    if (!err && ids.count && (sequence ? each_file(output, find_input, &ids) : 0)) {
        err =
            clv_io_fail(msg, CLV_EOPTION,
                        "'%.600s' (of the sequence '%.300s') is an input as well; write the output "
                        "elsewhere",
                        ids.found, output);
    } else if (!err && ids.count && !sequence && stat(output, &st) == 0 &&
               find_input(output, &st, &ids)) {
        err = clv_io_fail(
            msg, CLV_EOPTION,
            strcmp(ids.found_in, output)
                ? "'%.450s' is the input '%.450s' as well as the output; write to another "
                  "file"
                : "'%.450s' is the input as well as the output; write to another file%.0s",
            output, ids.found_in);
    } else if (!err && !overwrite) {
        if (sequence && each_file(output, first_existing, &ids))
            err = clv_io_fail(
                msg, CLV_EEXIST,
                "'%.600s' (of the sequence '%.300s') already exists; use -y to overwrite "
                "the sequence's files",
                ids.found, output);
        else if (!sequence && lstat(output, &st) == 0)
            err = clv_io_fail(msg, CLV_EEXIST, "'%.900s' already exists; use -y to overwrite it",
                              output);
    }
    free(ids.list);
    return err;
}

/* 1 when a and b name the same file to be made: the same last name in the
 * same folder. */
static int same_new_file(const char *a, const char *b)
{
    char dir_a[PATH_MAX], dir_b[PATH_MAX];
    const char *base_a, *base_b;
    struct stat st_a, st_b;
    split(a, dir_a, sizeof dir_a, &base_a);
    split(b, dir_b, sizeof dir_b, &base_b);
    return !strcmp(base_a, base_b) && stat(dir_a[0] ? dir_a : ".", &st_a) == 0 &&
           stat(dir_b[0] ? dir_b : ".", &st_b) == 0 && st_a.st_dev == st_b.st_dev &&
           st_a.st_ino == st_b.st_ino;
}

/* 1 when path (not there yet) would be one of output's files: the same
 * name in the same folder, or a name of output's sequence
 * ("out_%03d.png" and "out_001.png"). */
static int new_file_of_output(const char *path, const char *output)
{
    if (same_new_file(path, output))
        return 1;
    if (!clv_sequence_pattern(output))
        return 0;
    char dir_p[PATH_MAX], dir_o[PATH_MAX];
    const char *base_p, *base_o;
    struct stat st_p, st_o;
    split(path, dir_p, sizeof dir_p, &base_p);
    split(output, dir_o, sizeof dir_o, &base_o);
    return clv_sequence_match(base_o, base_p, NULL) && stat(dir_p[0] ? dir_p : ".", &st_p) == 0 &&
           stat(dir_o[0] ? dir_o : ".", &st_o) == 0 && st_p.st_dev == st_o.st_dev &&
           st_p.st_ino == st_o.st_ino;
}

int clv_output_same_file(const char *a, const char *b)
{
    struct stat st_a, st_b;
    if (stat(a, &st_a) == 0 && stat(b, &st_b) == 0)
        return st_a.st_dev == st_b.st_dev && st_a.st_ino == st_b.st_ino;
    return same_new_file(a, b);
}

int clv_own_stream(const struct stat *st)
{
    struct stat own;
    for (int fd = 1; fd <= 2; fd++)
        if (fstat(fd, &own) == 0 && own.st_dev == st->st_dev && own.st_ino == st->st_ino)
            return fd;
    return 0;
}

int clv_side_file_folder_check(const char *path, const char *what, clv_msg *msg)
{
    struct stat st;
    if (stat(path, &st) == 0)
        return S_ISDIR(st.st_mode) || access(path, W_OK) == 0
                   ? 0 /* a folder: clv_side_file_check's to name */
                   : clv_io_fail(msg, CLV_EIO, "%s: cannot write '%.900s': %s", what, path,
                                 strerror(errno));
    char dir[PATH_MAX];
    const char *base;
    split(path, dir, sizeof dir, &base);
    if (access(dir[0] ? dir : ".", W_OK | X_OK) != 0)
        return clv_io_fail(msg, CLV_EIO, "%s: cannot write '%.900s' in its folder: %s", what, path,
                           strerror(errno));
    return 0;
}

int clv_side_file_check(const char *const *inputs, int input_count, const char *output,
                        const char *format, const char *path, const char *what, int overwrite,
                        clv_msg *msg)
{
    /* The outputs count as inputs here: the side file replaces none. */
    clv_tee_output *list = NULL;
    int count = 1, err = 0;
    if (clv_output_is_tee(format) && (err = clv_tee_parse(output, &list, &count, msg)))
        return err;
    file_ids ids = {0};
    struct stat st;
    int exists = stat(path, &st) == 0;
    for (int i = 0; i < input_count + count && !err; i++) {
        const char *file = i < input_count ? inputs[i] : list ? list[i - input_count].path : output;
        if (!file)
            continue;
        if (add_input_files(file, &ids, 0) < 0)
            err = CLV_ENOMEM;
        else if (!exists && i >= input_count && new_file_of_output(path, file))
            err = clv_io_fail(msg, CLV_EOPTION,
                              "%s: '%.900s' is the run's output; write it to another file", what,
                              path);
    }
    clv_tee_free(list, count);
    if (!err && exists && S_ISDIR(st.st_mode))
        err = clv_io_fail(msg, CLV_EOPTION, "%s: '%.900s' is a folder; name a file in it", what,
                          path);
    else if (!err && exists && S_ISREG(st.st_mode) && find_input(path, &st, &ids))
        err = clv_io_fail(msg, CLV_EOPTION,
                          strcmp(ids.found_in, path)
                              ? "%s: '%.450s' is the run's input or output '%.450s'; write it "
                                "to another file"
                              : "%s: '%.450s' is the run's input or output; write it to another "
                                "file%.0s",
                          what, path, ids.found_in);
    else if (!err && exists && S_ISREG(st.st_mode) && !overwrite && !clv_own_stream(&st))
        err = clv_io_fail(msg, CLV_EEXIST, "%s: '%.900s' already exists; use -y to overwrite it",
                          what, path);
    free(ids.list);
    return err; /* a FIFO, a device, a socket or this process's own output is written in place */
}
