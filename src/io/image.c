/* image.c - writes one RGBA picture as a PNG file (screenshots), through
 * FFmpeg's PNG encoder; the file appears complete or not at all (a
 * clv_outfile). */
#include "io.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int clv_png_write(const char *path, const uint8_t *rgba, int w, int h, int overwrite, clv_msg *msg)
{
    int err = CLV_EIO;
    const AVCodec *png = avcodec_find_encoder(AV_CODEC_ID_PNG);
    AVCodecContext *c = png ? avcodec_alloc_context3(png) : NULL;
    AVFrame *f = av_frame_alloc();
    AVPacket *pkt = av_packet_alloc();
    clv_outfile *out = NULL;
    FILE *file = NULL;
    if (!c || !f || !pkt) {
        err = clv_io_fail(msg, CLV_EIO, "'%.900s': no PNG encoder in this FFmpeg", path);
        goto done;
    }
    c->width = w;
    c->height = h;
    c->pix_fmt = AV_PIX_FMT_RGBA;
    c->time_base = (AVRational){1, 1};
    if (avcodec_open2(c, png, NULL) < 0) {
        err = clv_io_fail(msg, CLV_EIO, "'%.900s': cannot open the PNG encoder", path);
        goto done;
    }
    f->format = AV_PIX_FMT_RGBA;
    f->width = w;
    f->height = h;
    f->data[0] = (uint8_t *)rgba;
    f->linesize[0] = w * 4;
    if (avcodec_send_frame(c, f) < 0 || avcodec_send_frame(c, NULL) < 0 ||
        avcodec_receive_packet(c, pkt) < 0) {
        err = clv_io_fail(msg, CLV_EIO, "'%.900s': PNG encoding failed", path);
        goto done;
    }
    if ((err = clv_outfile_open(path, NULL, overwrite, &out, msg)))
        goto done;
    err = CLV_EIO;
    file = fopen(clv_outfile_write_path(out), "wb");
    if (!file || fwrite(pkt->data, 1, (size_t)pkt->size, file) != (size_t)pkt->size ||
        fclose(file) != 0) {
        err = clv_io_fail(msg, CLV_EIO, "cannot write '%.900s': %s", path, strerror(errno));
        goto done;
    }
    if (clv_outfile_commit(out, msg))
        goto done;
    err = 0;
done:
    clv_outfile_close(out);
    avcodec_free_context(&c);
    av_frame_free(&f);
    av_packet_free(&pkt);
    return err;
}
