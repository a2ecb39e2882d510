/* orientation.c - which way up a picture is meant to be shown: a video's
 * display matrix (phones), or a JPEG photo's EXIF Orientation tag (read
 * from the file: FFmpeg's decoder only reports it as metadata). */
#include "io.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <libavutil/display.h>

/* EXIF Orientation 1-8 as mirror-then-rotate-clockwise. */
static void from_exif(int tag, int *rotation, int *hflip)
{
    static const int rot[9] = {0, 0, 0, 180, 180, 270, 90, 90, 270};
    static const int flip[9] = {0, 0, 1, 0, 1, 1, 0, 1, 0};
    *rotation = tag >= 1 && tag <= 8 ? rot[tag] : 0;
    *hflip = tag >= 1 && tag <= 8 ? flip[tag] : 0;
}

static unsigned get16(const uint8_t *p, int le)
{
    return le ? (unsigned)(p[0] | p[1] << 8) : (unsigned)(p[0] << 8 | p[1]);
}

static unsigned get32(const uint8_t *p, int le)
{
    return le ? (unsigned)p[0] | (unsigned)p[1] << 8 | (unsigned)p[2] << 16 | (unsigned)p[3] << 24
              : (unsigned)p[0] << 24 | (unsigned)p[1] << 16 | (unsigned)p[2] << 8 | (unsigned)p[3];
}

/* The Orientation tag of a JPEG file's APP1 Exif segment, or 0. Reads the
 * markers before the image data only. */
static int exif_orientation(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    uint8_t buf[65536 + 4];
    int tag = 0;
    if (fread(buf, 1, 2, f) == 2 && buf[0] == 0xFF && buf[1] == 0xD8) {
        for (int markers = 0; markers < 64 && fread(buf, 1, 4, f) == 4 && buf[0] == 0xFF;
             markers++) {
            unsigned marker = buf[1], len = get16(buf + 2, 0);
            if (marker == 0xDA || len < 2) /* start of scan: no EXIF before the image */
                break;
            if (fread(buf, 1, len - 2, f) != len - 2)
                break;
            if (marker != 0xE1 || len < 2 + 14 || memcmp(buf, "Exif\0\0", 6))
                continue;
            const uint8_t *tiff = buf + 6;
            size_t size = len - 2 - 6;
            int le = tiff[0] == 'I';
            unsigned ifd = get32(tiff + 4, le);
            if (ifd + 2 > size)
                break;
            unsigned n = get16(tiff + ifd, le);
            for (unsigned i = 0; i < n && ifd + 2 + 12 * (i + 1) <= size; i++) {
                const uint8_t *e = tiff + ifd + 2 + 12 * i;
                if (get16(e, le) == 0x0112) /* Orientation, SHORT */
                    tag = (int)get16(e + 8, le);
            }
            break;
        }
    }
    fclose(f);
    return tag >= 1 && tag <= 8 ? tag : 0;
}

void clv_orientation_probe(const AVStream *st, enum AVCodecID codec_id, const char *url,
                           int *rotation, int *hflip)
{
    *rotation = 0;
    *hflip = 0;
    const int32_t *m =
        (const int32_t *)av_stream_get_side_data(st, AV_PKT_DATA_DISPLAYMATRIX, NULL);
    if (m) {
        int32_t upright[9];
        memcpy(upright, m, sizeof upright);
        /* A negative determinant is a mirror: undo it, then read the turn. */
        double det = (double)m[0] * m[4] - (double)m[1] * m[3];
        if (det < 0) {
            *hflip = 1;
            av_display_matrix_flip(upright, 1, 0);
        }
        double theta = -round(av_display_rotation_get(upright));
        if (!isfinite(theta)) /* a degenerate matrix (all zero): no turn */
            return;
        theta -= 360 * floor(theta / 360 + 0.9 / 360);
        int r = (int)theta;
        *rotation = r == 90 || r == 180 || r == 270 ? r : 0;
        return;
    }
    if (codec_id == AV_CODEC_ID_MJPEG && url) /* a file: EXIF read from it */
        from_exif(exif_orientation(url), rotation, hflip);
}
