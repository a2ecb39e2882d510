/* pictures.c - the files of an image output (one picture a file, or a
 * numbered sequence): the image2 muxer opens and closes each through
 * these hooks, each picture going through a clv_outfile of its own, so a
 * picture is in place whole or not at all, and a sequence's partials left
 * by a dead run are swept. */
#include "io.h"

#include <stdio.h>
#include <string.h>

static int open_picture(AVFormatContext *s, AVIOContext **pb, const char *url, int flags,
                        AVDictionary **options)
{
    clv_pictures *p = s->opaque;
    if (!(flags & AVIO_FLAG_WRITE))
        return avio_open2(pb, url, flags, &s->interrupt_callback, options);
    int slot = 0;
    while (slot < 4 && p->open[slot].pb)
        slot++;
    clv_msg msg;
    clv_outfile *file = NULL;
    /* The folder is swept of dead runs' partials at the first picture only
     * (a sweep reads the whole folder; a long sequence fills it). */
    const char *sweep = p->swept ? "" : p->pattern[0] ? p->pattern : NULL;
    if (slot == 4 || clv_outfile_open(url, sweep, p->overwrite, &file, &msg)) {
        if (slot < 4)
            av_log(NULL, AV_LOG_ERROR, "%s\n", msg.text);
        return AVERROR(EIO);
    }
    int r = avio_open2(pb, clv_outfile_write_path(file), flags, &s->interrupt_callback, options);
    if (r < 0) {
        clv_outfile_close(file);
        return r;
    }
    p->swept = 1;
    p->open[slot].pb = *pb;
    p->open[slot].file = file;
    return 0;
}

/* Closes a picture's file: in place when it was written whole; a write
 * error (a full disk) removes it and is kept in p->error, which the
 * encoder thread reads after each packet (the muxer does not check). */
static int close_picture(AVFormatContext *s, AVIOContext *pb)
{
    clv_pictures *p = s->opaque;
    int r = avio_close(pb);
    for (int i = 0; i < 4; i++) {
        if (p->open[i].pb != pb)
            continue;
        clv_outfile *file = p->open[i].file;
        clv_msg msg;
        if (r < 0 && !p->error)
            snprintf(p->path, sizeof p->path, "%s", clv_outfile_target(file));
        if (r >= 0 && clv_outfile_commit(file, &msg)) {
            av_log(NULL, AV_LOG_ERROR, "%s\n", msg.text);
            r = AVERROR(EIO);
        }
        /* One picture (no pattern) is written again each frame: once this
         * run has put its first in place, the next replace it. */
        if (r >= 0 && !p->pattern[0])
            p->overwrite = 1;
        clv_outfile_close(file);
        p->open[i].pb = NULL;
        p->open[i].file = NULL;
    }
    if (r < 0 && !p->error)
        p->error = r;
    return r;
}

void clv_pictures_attach(clv_pictures *p, AVFormatContext *oc, const char *path, int overwrite)
{
    memset(p, 0, sizeof *p);
    p->overwrite = overwrite;
    const char *slash = strrchr(path, '/');
    if (clv_sequence_pattern(path))
        snprintf(p->pattern, sizeof p->pattern, "%s", slash ? slash + 1 : path);
    oc->opaque = p;
    oc->io_open = open_picture;
    oc->io_close2 = close_picture;
}

void clv_pictures_close(clv_pictures *p)
{
    for (int i = 0; i < 4; i++) {
        clv_outfile_close(p->open[i].file);
        p->open[i].file = NULL;
        p->open[i].pb = NULL;
    }
}
