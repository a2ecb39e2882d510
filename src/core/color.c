/* color.c - pixel formats, the fixed-point YUV coefficients and the C
 * references of the conversions in cl/color.cl. */
#include "clvid_internal.h"

#include <math.h>
#include <string.h>

const char *clv_pixfmt_name(clv_pixfmt f)
{
    static const char *const names[] = {"rgba",  "bgra",  "rgb0",    "bgr0",
                                        "rgb24", "bgr24", "yuv420p", "nv12"};
    return (unsigned)f < sizeof names / sizeof names[0] ? names[f] : "?";
}

int clv_pixfmt_is_yuv(clv_pixfmt f)
{
    return f == CLV_PIX_YUV420P || f == CLV_PIX_NV12;
}

static int bytes_per_pixel(clv_pixfmt f)
{
    return f == CLV_PIX_RGB24 || f == CLV_PIX_BGR24 ? 3 : 4;
}

size_t clv_pixfmt_size(clv_pixfmt f, int w, int h)
{
    if (clv_pixfmt_is_yuv(f))
        return (size_t)w * h + 2 * (size_t)((w + 1) / 2) * (size_t)((h + 1) / 2);
    return (size_t)w * h * (size_t)bytes_per_pixel(f);
}

static int fixed(double v)
{
    return (int)lround(v * 65536.0);
}

void clv__yuv_coeffs_make(clv_color color, clv__yuv_coeffs *k)
{
    static const double kr_kb[3][2] = {{0.299, 0.114}, {0.2126, 0.0722}, {0.2627, 0.0593}};
    double kr = kr_kb[color.matrix][0], kb = kr_kb[color.matrix][1], kg = 1.0 - kr - kb;
    double sy = color.full_range ? 1.0 : 219.0 / 255.0; /* RGB -> code scales */
    double sc = color.full_range ? 1.0 : 224.0 / 255.0;
    memset(k, 0, sizeof *k);
    k->yoff = color.full_range ? 0 : 16;
    k->ky = fixed(1.0 / sy);
    k->rv = fixed(2.0 * (1.0 - kr) / sc);
    k->bu = fixed(2.0 * (1.0 - kb) / sc);
    k->gu = fixed(2.0 * kb * (1.0 - kb) / kg / sc);
    k->gv = fixed(2.0 * kr * (1.0 - kr) / kg / sc);
    k->yr = fixed(kr * sy);
    k->yg = fixed(kg * sy);
    k->yb = fixed(kb * sy);
    k->ur = fixed(-kr / (2.0 * (1.0 - kb)) * sc);
    k->ug = fixed(-kg / (2.0 * (1.0 - kb)) * sc);
    k->ub = fixed(0.5 * sc);
    k->vr = fixed(0.5 * sc);
    k->vg = fixed(-kg / (2.0 * (1.0 - kr)) * sc);
    k->vb = fixed(-kb / (2.0 * (1.0 - kr)) * sc);
    k->ymin = color.full_range ? 0 : 16;
    k->ymax = color.full_range ? 255 : 235;
    k->cmin = color.full_range ? 0 : 16;
    k->cmax = color.full_range ? 255 : 240;
}

/* As fix16 in cl/color.cl: (v + 2^15) >> 16 for v > -2^24, without a
 * right shift of a negative number. */
static int fix16(int v)
{
    return ((v + 32768 + (256 << 16)) >> 16) - 256;
}

int clv_ref_to_rgba(clv_pixfmt f, clv_color color, const uint8_t *in, clv_image *rgba)
{
    int w = rgba->width, h = rgba->height, cw = (w + 1) / 2, ch = (h + 1) / 2;
    clv__yuv_coeffs k;
    clv__yuv_coeffs_make(color, &k);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            uint8_t *o = clv__px_mut(rgba, x, y);
            if (clv_pixfmt_is_yuv(f)) {
                const uint8_t *pu = in + (size_t)w * h, *pv = pu + (size_t)cw * ch;
                size_t c = (size_t)(y / 2) * cw + (size_t)(x / 2);
                int u = f == CLV_PIX_NV12 ? pu[2 * c] : pu[c];
                int v = f == CLV_PIX_NV12 ? pu[2 * c + 1] : pv[c];
                int yy = k.ky * (in[(size_t)y * w + x] - k.yoff);
                u -= 128;
                v -= 128;
                o[0] = (uint8_t)clv__clamp(fix16(yy + k.rv * v), 0, 255);
                o[1] = (uint8_t)clv__clamp(fix16(yy - k.gu * u - k.gv * v), 0, 255);
                o[2] = (uint8_t)clv__clamp(fix16(yy + k.bu * u), 0, 255);
                o[3] = 255;
            } else {
                int bpp = bytes_per_pixel(f);
                int bgr = f == CLV_PIX_BGRA || f == CLV_PIX_BGR0 || f == CLV_PIX_BGR24;
                const uint8_t *p = in + ((size_t)y * w + x) * (size_t)bpp;
                o[0] = bgr ? p[2] : p[0];
                o[1] = p[1];
                o[2] = bgr ? p[0] : p[2];
                o[3] = f == CLV_PIX_RGBA || f == CLV_PIX_BGRA ? p[3] : 255;
            }
        }
    }
    return 0;
}

int clv_ref_from_rgba(clv_pixfmt f, clv_color color, const clv_image *rgba, uint8_t *out)
{
    int w = rgba->width, h = rgba->height, cw = (w + 1) / 2, ch = (h + 1) / 2;
    if (!clv_pixfmt_is_yuv(f)) {
        int bpp = bytes_per_pixel(f);
        int bgr = f == CLV_PIX_BGRA || f == CLV_PIX_BGR0 || f == CLV_PIX_BGR24;
        int alpha = f == CLV_PIX_RGBA || f == CLV_PIX_BGRA;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                const uint8_t *s = clv__px(rgba, x, y);
                uint8_t *p = out + ((size_t)y * w + x) * (size_t)bpp;
                p[0] = bgr ? s[2] : s[0];
                p[1] = s[1];
                p[2] = bgr ? s[0] : s[2];
                if (bpp == 4)
                    p[3] = alpha ? s[3] : 255;
            }
        return 0;
    }
    clv__yuv_coeffs k;
    clv__yuv_coeffs_make(color, &k);
    uint8_t *pu = out + (size_t)w * h, *pv = pu + (size_t)cw * ch;
    for (int cy = 0; cy < ch; cy++) {
        for (int cx = 0; cx < cw; cx++) {
            int sr = 0, sg = 0, sb = 0, n = 0;
            for (int y = 2 * cy; y < 2 * cy + 2 && y < h; y++)
                for (int x = 2 * cx; x < 2 * cx + 2 && x < w; x++) {
                    const uint8_t *p = clv__px(rgba, x, y);
                    int yv = fix16(k.yr * p[0] + k.yg * p[1] + k.yb * p[2] + (k.yoff << 16));
                    out[(size_t)y * w + x] = (uint8_t)clv__clamp(yv, k.ymin, k.ymax);
                    sr += p[0];
                    sg += p[1];
                    sb += p[2];
                    n++;
                }
            int shift = 16 + (n == 4 ? 2 : n == 2 ? 1 : 0), half = 1 << (shift - 1);
            int u = (k.ur * sr + k.ug * sg + k.ub * sb + (n << 23) + half) >> shift;
            int v = (k.vr * sr + k.vg * sg + k.vb * sb + (n << 23) + half) >> shift;
            size_t c = (size_t)cy * cw + (size_t)cx;
            uint8_t uu = (uint8_t)clv__clamp(u, k.cmin, k.cmax);
            uint8_t vv = (uint8_t)clv__clamp(v, k.cmin, k.cmax);
            if (f == CLV_PIX_NV12) {
                pu[2 * c] = uu;
                pu[2 * c + 1] = vv;
            } else {
                pu[c] = uu;
                pv[c] = vv;
            }
        }
    }
    return 0;
}
