/* feed.c - decoded frames into the GPU stage's layouts: the formats the
 * stage takes as they are, the others through swscale; inputs of more than
 * 8 bits at 16 bits when the chain runs there; and the colour facts
 * (matrix, range, transfer, primaries) that both sides of the stage need. */
#include "io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>

int clv_native_pixfmt(enum AVPixelFormat f)
{
    switch (f) {
    case AV_PIX_FMT_YUV420P:
    case AV_PIX_FMT_YUVJ420P:
        return CLV_PIX_YUV420P;
    case AV_PIX_FMT_NV12:
        return CLV_PIX_NV12;
    case AV_PIX_FMT_RGBA:
        return CLV_PIX_RGBA;
    case AV_PIX_FMT_BGRA:
        return CLV_PIX_BGRA;
    case AV_PIX_FMT_RGB0:
        return CLV_PIX_RGB0;
    case AV_PIX_FMT_BGR0:
        return CLV_PIX_BGR0;
    case AV_PIX_FMT_RGB24:
        return CLV_PIX_RGB24;
    case AV_PIX_FMT_BGR24:
        return CLV_PIX_BGR24;
    default:
        return -1;
    }
}

int clv_native_pixfmt_deep(enum AVPixelFormat f, int out)
{
    switch (f) {
    case AV_PIX_FMT_YUV420P10LE:
        return CLV_PIX_YUV420P10;
    case AV_PIX_FMT_P010LE:
        return CLV_PIX_P010;
    case AV_PIX_FMT_P016LE: /* the stage writes P010's 10 bits: p016 goes out through swscale */
        return out ? -1 : CLV_PIX_P010;
    case AV_PIX_FMT_YUV444P16LE:
        return CLV_PIX_YUV444P16;
    case AV_PIX_FMT_RGBA64LE:
        return CLV_PIX_RGBA64;
    default:
        return -1;
    }
}

enum AVPixelFormat clv_av_pixfmt(clv_pixfmt f)
{
    static const enum AVPixelFormat map[] = {
        AV_PIX_FMT_RGBA,        AV_PIX_FMT_BGRA,   AV_PIX_FMT_RGB0,        AV_PIX_FMT_BGR0,
        AV_PIX_FMT_RGB24,       AV_PIX_FMT_BGR24,  AV_PIX_FMT_YUV420P,     AV_PIX_FMT_NV12,
        AV_PIX_FMT_YUV420P10LE, AV_PIX_FMT_P010LE, AV_PIX_FMT_YUV444P16LE, AV_PIX_FMT_RGBA64LE};
    return map[f];
}

int clv_av_pixfmt_bits(enum AVPixelFormat f)
{
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(f);
    return d && d->nb_components > 0 && d->comp[0].depth > 8 ? d->comp[0].depth : 8;
}

int clv_av_pixfmt_is_rgb(enum AVPixelFormat f)
{
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(f);
    return d && (d->flags & (AV_PIX_FMT_FLAG_RGB | AV_PIX_FMT_FLAG_PAL));
}

int clv_av_pixfmt_has_alpha(enum AVPixelFormat f)
{
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(f);
    return d && (d->flags & (AV_PIX_FMT_FLAG_ALPHA | AV_PIX_FMT_FLAG_PAL));
}

clv_color clv_default_color(int height)
{
    return (clv_color){height >= 720 ? CLV_MATRIX_BT709 : CLV_MATRIX_BT601, 0};
}

clv_color clv_stream_color(const AVCodecContext *c)
{
    clv_color col = {CLV_MATRIX_BT601, 0};
    switch (c->colorspace) {
    case AVCOL_SPC_BT709:
        col.matrix = CLV_MATRIX_BT709;
        break;
    case AVCOL_SPC_BT2020_NCL:
    case AVCOL_SPC_BT2020_CL:
        col.matrix = CLV_MATRIX_BT2020;
        break;
    case AVCOL_SPC_BT470BG:
    case AVCOL_SPC_SMPTE170M:
    case AVCOL_SPC_FCC:
    case AVCOL_SPC_SMPTE240M:
        col.matrix = CLV_MATRIX_BT601;
        break;
    default:
        col = clv_default_color(c->height);
    }
    col.full_range = c->color_range == AVCOL_RANGE_JPEG || c->pix_fmt == AV_PIX_FMT_YUVJ420P;
    return col;
}

const char *clv_matrix_name(clv_matrix m)
{
    return m == CLV_MATRIX_BT709 ? "bt709" : m == CLV_MATRIX_BT2020 ? "bt2020" : "bt601";
}

int clv_transfer_of(enum AVColorTransferCharacteristic t)
{
    switch (t) {
    case AVCOL_TRC_SMPTE2084:
        return CLV_TRC_PQ;
    case AVCOL_TRC_ARIB_STD_B67:
        return CLV_TRC_HLG;
    case AVCOL_TRC_LINEAR:
        return CLV_TRC_LINEAR;
    case AVCOL_TRC_UNSPECIFIED:
    case AVCOL_TRC_RESERVED0:
    case AVCOL_TRC_RESERVED:
        return CLV_TRC_UNKNOWN;
    default: /* BT.709, BT.601, sRGB, BT.2020's SDR curves, the gammas */
        return t > AVCOL_TRC_RESERVED0 && t < AVCOL_TRC_NB ? CLV_TRC_BT709 : CLV_TRC_UNKNOWN;
    }
}

int clv_primaries_of(enum AVColorPrimaries p)
{
    return p == AVCOL_PRI_BT709    ? CLV_PRIM_BT709
           : p == AVCOL_PRI_BT2020 ? CLV_PRIM_BT2020
                                   : CLV_PRIM_UNKNOWN;
}

enum AVColorTransferCharacteristic clv_av_transfer(int transfer)
{
    switch (transfer) {
    case CLV_TRC_BT709:
        return AVCOL_TRC_BT709;
    case CLV_TRC_PQ:
        return AVCOL_TRC_SMPTE2084;
    case CLV_TRC_HLG:
        return AVCOL_TRC_ARIB_STD_B67;
    case CLV_TRC_LINEAR:
        return AVCOL_TRC_LINEAR;
    default:
        return AVCOL_TRC_UNSPECIFIED;
    }
}

enum AVColorPrimaries clv_av_primaries(int primaries)
{
    return primaries == CLV_PRIM_BT709    ? AVCOL_PRI_BT709
           : primaries == CLV_PRIM_BT2020 ? AVCOL_PRI_BT2020
                                          : AVCOL_PRI_UNSPECIFIED;
}

static int sws_matrix(clv_matrix m)
{
    return m == CLV_MATRIX_BT709    ? SWS_CS_ITU709
           : m == CLV_MATRIX_BT2020 ? SWS_CS_BT2020
                                    : SWS_CS_ITU601;
}

void clv_sws_colors(struct SwsContext *sws, clv_color src, int src_rgb, clv_color dst, int dst_rgb)
{
    sws_setColorspaceDetails(sws, sws_getCoefficients(sws_matrix(src.matrix)),
                             src_rgb ? 1 : src.full_range,
                             sws_getCoefficients(sws_matrix(dst.matrix)),
                             dst_rgb ? 1 : dst.full_range, 0, 1 << 16, 1 << 16);
}

int clv_packed_planes(clv_pixfmt f, int w, int h, const uint8_t *packed, const uint8_t *data[4],
                      int bytes[4], int rows[4])
{
    int b = clv_pixfmt_depth(f) == 16 ? 2 : 1; /* bytes a sample */
    int cw = (w + 1) / 2, ch = (h + 1) / 2, planes = 1;
    int semi = f == CLV_PIX_NV12 || f == CLV_PIX_P010;
    if (f == CLV_PIX_YUV444P16)
        cw = w, ch = h;
    for (int i = 0; i < 4; i++)
        data[i] = NULL, bytes[i] = rows[i] = 0;
    if (clv_pixfmt_is_yuv(f)) {
        planes = semi ? 2 : 3;
        rows[0] = h, bytes[0] = b * w;
        rows[1] = rows[2] = ch;
        bytes[1] = b * (semi ? 2 * cw : cw);
        bytes[2] = semi ? 0 : b * cw;
    } else {
        rows[0] = h;
        bytes[0] = (int)(clv_pixfmt_size(f, w, 1));
    }
    const uint8_t *p = packed;
    for (int i = 0; i < planes; i++) {
        data[i] = p;
        p += (size_t)bytes[i] * (size_t)rows[i];
    }
    return planes;
}

void clv_copy_planes(clv_pixfmt f, int w, int h, uint8_t *packed, AVFrame *frame, int to_frame)
{
    const uint8_t *data[4];
    int rows[4], bytes[4];
    int planes = clv_packed_planes(f, w, h, packed, data, bytes, rows);
    for (int i = 0; i < planes; i++) {
        uint8_t *p = (uint8_t *)data[i];
        for (int y = 0; y < rows[i]; y++, p += bytes[i]) {
            uint8_t *line = frame->data[i] + (size_t)y * (size_t)frame->linesize[i];
            if (to_frame)
                memcpy(line, p, (size_t)bytes[i]);
            else
                memcpy(p, line, (size_t)bytes[i]);
        }
    }
}

struct clv_feed {
    char path[512];
    int width, height;
    enum AVPixelFormat source; /* the decoder's format */
    int native;                /* the stage takes `source` as it is */
    int depth;                 /* of the stage's frames: 8, or 16 (clv_pixfmt_depth(format)) */
    clv_pixfmt format;
    clv_color color;
    struct SwsContext *sws; /* when not native */
    AVFrame *converted;     /* in `target` (format's FFmpeg name, or p016le for P010) */
    enum AVPixelFormat target;
};

clv_color clv_feed_output_color(const clv_feed *feed)
{
    return clv_pixfmt_is_yuv(feed->format) ? feed->color : clv_default_color(feed->height);
}

void clv_feed_destroy(clv_feed *feed)
{
    if (!feed)
        return;
    sws_freeContext(feed->sws);
    av_frame_free(&feed->converted);
    free(feed);
}

/* 1 for formats of one or two components that are not RGB (gray, gray +
 * alpha). */
static int is_gray(enum AVPixelFormat f)
{
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(f);
    return d && d->nb_components <= 2 && !(d->flags & AV_PIX_FMT_FLAG_RGB);
}

/* swscale from the decoder's format into feed->target, and the frame it
 * converts into. */
static int feed_converter(clv_feed *feed, const clv_media_desc *in, clv_msg *msg)
{
    int w = in->width, h = in->height;
    feed->sws =
        sws_getContext(w, h, in->pix_fmt, w, h, feed->target,
                       SWS_BICUBIC | SWS_ACCURATE_RND | SWS_FULL_CHR_H_INT, NULL, NULL, NULL);
    feed->converted = av_frame_alloc();
    if (!feed->sws || !feed->converted)
        return clv_io_fail(msg, CLV_EINVAL, "'%s': cannot convert %s frames to %s", in->path,
                           av_get_pix_fmt_name(in->pix_fmt), av_get_pix_fmt_name(feed->target));
    clv_sws_colors(feed->sws, feed->color, in->rgb, feed->color, !clv_pixfmt_is_yuv(feed->format));
    feed->converted->format = feed->target;
    feed->converted->width = w;
    feed->converted->height = h;
    if (av_frame_get_buffer(feed->converted, 0) < 0)
        return clv_io_fail(msg, CLV_ENOMEM, "out of memory");
    return 0;
}

/* The stage's layout for the input at 16 bits: yuv420p10le, p010le and
 * p016le, yuv444p16le and rgba64le as they are (native); other Y'CbCr of
 * 4:2:0 to p016le (its chroma as it is, every depth up to 16 held); the
 * other Y'CbCr and gray to yuv444p16le (gray as the luma of neutral chroma,
 * which swscale widens exactly, as the 8-bit path takes gray as yuv420p);
 * RGB and anything with alpha to rgba64le. */
static void deep_format(clv_feed *feed, const clv_media_desc *in)
{
    int native = clv_native_pixfmt_deep(in->pix_fmt, 0);
    const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(in->pix_fmt);
    feed->native = native >= 0;
    if (native >= 0)
        feed->format = (clv_pixfmt)native;
    else if (in->rgb || in->alpha || !d)
        feed->format = CLV_PIX_RGBA64;
    else if (d->log2_chroma_w == 1 && d->log2_chroma_h == 1 && !is_gray(in->pix_fmt))
        feed->format = CLV_PIX_P010;
    else
        feed->format = CLV_PIX_YUV444P16;
    feed->target = feed->format == CLV_PIX_P010 ? AV_PIX_FMT_P016LE : clv_av_pixfmt(feed->format);
}

/* wide: 8-bit RGB-like sources and those with alpha enter at 16 bits too
 * (clv_feed_create_deep). */
static int feed_create(const clv_media_desc *in, int depth, int wide, clv_feed **out, clv_msg *msg)
{
    *out = NULL;
    clv_feed *feed = calloc(1, sizeof *feed);
    if (!feed)
        return clv_io_fail(msg, CLV_ENOMEM, "out of memory");
    snprintf(feed->path, sizeof feed->path, "%s", in->path);
    feed->width = in->width;
    feed->height = in->height;
    feed->source = in->pix_fmt;
    int native8 = clv_native_pixfmt(in->pix_fmt);
    int yuv8 = native8 == CLV_PIX_YUV420P || native8 == CLV_PIX_NV12 ||
               (native8 < 0 && !in->rgb && !in->alpha);
    feed->depth = depth == 16 && (clv_av_pixfmt_bits(in->pix_fmt) > 8 || (wide && !yuv8)) ? 16 : 8;
    if (feed->depth == 16) {
        deep_format(feed, in);
    } else {
        int native = clv_native_pixfmt(in->pix_fmt);
        const AVPixFmtDescriptor *d = av_pix_fmt_desc_get(in->pix_fmt);
        feed->native = native >= 0;
        /* RGB-like sources and any with alpha (gray + alpha PNG, yuva420p)
         * enter as RGBA, so that alpha passes through the chain; so does
         * Y'CbCr with more chroma than 4:2:0 (4:2:2 cameras, yuvj422p
         * MJPEG, 4:4:4), which yuv420p would halve; gray and other 4:2:0
         * as yuv420p. */
        int more_chroma =
            d && !is_gray(in->pix_fmt) && (d->log2_chroma_w != 1 || d->log2_chroma_h != 1);
        feed->format = native >= 0                           ? (clv_pixfmt)native
                       : in->rgb || in->alpha || more_chroma ? CLV_PIX_RGBA
                                                             : CLV_PIX_YUV420P;
        feed->target = clv_av_pixfmt(feed->format);
    }
    feed->color = in->color;
    int err = 0;
    if (!feed->native && in->pix_fmt == AV_PIX_FMT_NONE)
        err = clv_io_fail(msg, CLV_EINVAL,
                          "'%s': the video stream's pixel format is not known: it has no frame "
                          "that decodes (an empty or damaged stream)",
                          in->path);
    else if (!feed->native && !sws_isSupportedInput(in->pix_fmt))
        /* swscale asserts on formats it does not know (found by fuzzing). */
        err = clv_io_fail(msg, CLV_EINVAL,
                          "'%s': the video's pixel format (%s) cannot be converted; is the "
                          "stream damaged?",
                          in->path, av_get_pix_fmt_name(in->pix_fmt));
    else if (!feed->native)
        err = feed_converter(feed, in, msg);
    if (err) {
        clv_feed_destroy(feed);
        return err;
    }
    *out = feed;
    return 0;
}

int clv_feed_create(const clv_media_desc *in, int depth, clv_feed **out, clv_msg *msg)
{
    return feed_create(in, depth, 0, out, msg);
}

int clv_feed_create_deep(const clv_media_desc *in, clv_feed **out, clv_msg *msg)
{
    return feed_create(in, 16, 1, out, msg);
}

clv_pixfmt clv_feed_format(const clv_feed *feed)
{
    return feed->format;
}

clv_color clv_feed_color(const clv_feed *feed)
{
    return feed->color;
}

int clv_feed_native(const clv_feed *feed)
{
    return feed->native;
}

int clv_feed_check(const clv_feed *feed, const AVFrame *f, clv_msg *msg)
{
    int w = feed->width, h = feed->height;
    if (f->width != w || f->height != h ||
        (feed->native && f->format != feed->source &&
         (feed->depth == 16 ? clv_native_pixfmt_deep(f->format, 0)
                            : clv_native_pixfmt(f->format)) != (int)feed->format) ||
        (!feed->native && f->format != feed->source)) {
        return clv_io_fail(msg, CLV_EINVAL,
                           "'%s': the video changes from %dx%d %s to %dx%d %s mid-stream; clvid "
                           "does not follow such changes yet",
                           feed->path, w, h, av_get_pix_fmt_name(feed->source), f->width, f->height,
                           av_get_pix_fmt_name(f->format));
    }
    return 0;
}

int clv_feed_write(clv_feed *feed, const AVFrame *f, uint8_t *slot, clv_msg *msg)
{
    int w = feed->width, h = feed->height;
    int err = clv_feed_check(feed, f, msg);
    if (err)
        return err;
    if (feed->sws) {
        sws_scale(feed->sws, (const uint8_t *const *)f->data, f->linesize, 0, h,
                  feed->converted->data, feed->converted->linesize);
        clv_copy_planes(feed->format, w, h, slot, feed->converted, 0);
    } else {
        clv_copy_planes(feed->format, w, h, slot, (AVFrame *)f, 0);
    }
    return 0;
}
