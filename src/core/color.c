/* color.c - pixel formats, the fixed-point YUV coefficients and the C
 * references of the conversions in cl/color.cl. */
#include "clvid_internal.h"

#include <math.h>
#include <string.h>

const char *clv_pixfmt_name(clv_pixfmt f)
{
    static const char *const names[] = {"rgba",        "bgra",   "rgb0",        "bgr0",
                                        "rgb24",       "bgr24",  "yuv420p",     "nv12",
                                        "yuv420p10le", "p010le", "yuv444p16le", "rgba64le"};
    return (unsigned)f < sizeof names / sizeof names[0] ? names[f] : "?";
}

int clv_pixfmt_is_yuv(clv_pixfmt f)
{
    return f == CLV_PIX_YUV420P || f == CLV_PIX_NV12 || f == CLV_PIX_YUV420P10 ||
           f == CLV_PIX_P010 || f == CLV_PIX_YUV444P16;
}

int clv_pixfmt_depth(clv_pixfmt f)
{
    return f >= CLV_PIX_YUV420P10 && f <= CLV_PIX_RGBA64 ? 16 : 8;
}

static int bytes_per_pixel(clv_pixfmt f)
{
    return f == CLV_PIX_RGB24 || f == CLV_PIX_BGR24 ? 3 : f == CLV_PIX_RGBA64 ? 8 : 4;
}

size_t clv_pixfmt_size(clv_pixfmt f, int w, int h)
{
    size_t chroma = 2 * (size_t)((w + 1) / 2) * (size_t)((h + 1) / 2);
    if (f == CLV_PIX_YUV444P16)
        return 6 * (size_t)w * (size_t)h;
    if (f == CLV_PIX_YUV420P10 || f == CLV_PIX_P010)
        return 2 * ((size_t)w * h + chroma);
    if (clv_pixfmt_is_yuv(f))
        return (size_t)w * h + chroma;
    return (size_t)w * h * (size_t)bytes_per_pixel(f);
}

static int fixed(double v)
{
    return (int)lround(v * 65536.0);
}

/* The coefficients for codes of `depth` bits' scale: limited range is
 * 16-235 (240 for chroma) times one = 1 at 8 bits, 256 at 16 (full range
 * 0-max); chroma centres on 128 * one. */
static void coeffs_make(clv_color color, int one, int max, clv__yuv_coeffs *k)
{
    static const double kr_kb[3][2] = {{0.299, 0.114}, {0.2126, 0.0722}, {0.2627, 0.0593}};
    double kr = kr_kb[color.matrix][0], kb = kr_kb[color.matrix][1], kg = 1.0 - kr - kb;
    int full = color.full_range;
    double sy = full ? 1.0 : 219.0 * one / max; /* RGB -> code scales */
    double sc = full ? 1.0 : 224.0 * one / max;
    memset(k, 0, sizeof *k);
    k->yoff = full ? 0 : 16 * one;
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
    k->ymin = full ? 0 : 16 * one;
    k->ymax = full ? max : 235 * one;
    k->cmin = full ? 0 : 16 * one;
    k->cmax = full ? max : 240 * one;
}

void clv__yuv_coeffs_make(clv_color color, clv__yuv_coeffs *k)
{
    coeffs_make(color, 1, 255, k);
}

void clv__yuv_coeffs_make16(clv_color color, clv__yuv_coeffs *k)
{
    coeffs_make(color, 256, 65535, k);
}

/* (v + 2^15) >> 16 for |v| < 2^47 without shifting a negative number (the
 * 16-bit conversions' fix16, in 64 bits). */
static int64_t fix16l(int64_t v)
{
    return ((v + 32768 + ((int64_t)65536 << 16)) >> 16) - 65536;
}

static int clampl(int64_t v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : (int)v;
}

/* The 8x8 ordered-dither (Bayer) thresholds: a 16-bit chain's 8-bit
 * output adds bayer * 4 + 2 (2..254) to the value in 1/256 codes and
 * drops the low byte. cl/color.cl has the same table. */
static const uint8_t bayer8[8][8] = {
    {0, 32, 8, 40, 2, 34, 10, 42},  {48, 16, 56, 24, 50, 18, 58, 26},
    {12, 44, 4, 36, 14, 46, 6, 38}, {60, 28, 52, 20, 62, 30, 54, 22},
    {3, 35, 11, 43, 1, 33, 9, 41},  {51, 19, 59, 27, 49, 17, 57, 25},
    {15, 47, 7, 39, 13, 45, 5, 37}, {63, 31, 55, 23, 61, 29, 53, 21}};

/* A 16-bit value to 8 bits, dithered at (x, y): `limited` values are codes
 * times 256 (limited-range Y'CbCr), the others 0-65535 for 0-255. */
static int dither8(int v, int limited, int x, int y)
{
    int q = limited ? v : (int)(((int64_t)v * 65280 + 32767) / 65535);
    int o = (q + bayer8[y & 7][x & 7] * 4 + 2) >> 8;
    return o > 255 ? 255 : o;
}

static uint16_t rd16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static void wr16(uint8_t *p, int v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

/* Row y's chroma rows in an interlaced 4:2:0 frame of h rows: its own
 * field's two nearest, near and far, blended (near * (8 - wf) + far * wf +
 * 4) >> 3 (cl/color.cl's clv_field_rows says why). */
static void field_rows(int y, int h, int *near, int *far, int *wf)
{
    const int ch = (h + 1) / 2, phase = y & 3;
    int n = (y >> 2) << 1 | (y & 1);
    if (n >= ch)
        n -= 2;
    n = n > 0 ? n : 0;
    const int f = n + (phase <= 1 ? -2 : 2);
    *near = n;
    *far = f < 0 || f >= ch ? n : f;
    *wf = phase == 0 || phase == 3 ? 1 : 3;
}

static int field_blend(int near, int far, int wf)
{
    return (near * (8 - wf) + far * wf + 4) >> 3;
}

/* Chroma sample x / 2 of row y of the 4:2:0 plane `plane` (cw samples a
 * row, `step` apart: 2 in nv12's and p010's UV plane; bits 10: yuv420p10's
 * low bits, taken to 16): the frame's row y / 2, or with fields a blend of
 * y's own field's (field_rows). */
static int chroma_at(const uint8_t *plane, int cw, int step, int bytes, int x, int y, int h,
                     int fields)
{
    int n = y / 2, f = n, wf = 0;
    if (fields)
        field_rows(y, h, &n, &f, &wf);
    const size_t a = ((size_t)n * cw + (size_t)(x / 2)) * (size_t)step,
                 b = ((size_t)f * cw + (size_t)(x / 2)) * (size_t)step;
    int va, vb;
    if (bytes == 1)
        va = plane[a], vb = plane[b];
    else if (bytes == 2)
        va = rd16(plane + 2 * a), vb = rd16(plane + 2 * b);
    else /* yuv420p10 */
        va = (rd16(plane + 2 * a) & 1023) << 6, vb = (rd16(plane + 2 * b) & 1023) << 6;
    return fields ? field_blend(va, vb, wf) : va;
}

/* A deep format (clv_pixfmt_depth 16) into an RGBA16 image: samples
 * normalized to 16 bits (yuv420p10 shifted up by 6), then the 8-bit
 * definition at 16 bits in 64-bit arithmetic. */
static int ref_deep_to_rgba(clv_pixfmt f, clv_color color, int fields, const uint8_t *in,
                            clv_image *rgba)
{
    int w = rgba->width, h = rgba->height, cw = (w + 1) / 2, ch = (h + 1) / 2;
    clv__yuv_coeffs k;
    clv__yuv_coeffs_make16(color, &k);
    size_t plane = 2 * (size_t)w * h;
    for (int y = 0; y < h; y++) {
        uint16_t *o = (uint16_t *)(void *)(rgba->pixels + (size_t)y * rgba->stride);
        for (int x = 0; x < w; x++, o += 4) {
            if (f == CLV_PIX_RGBA64) {
                const uint8_t *p = in + 8 * ((size_t)y * w + x);
                for (int c = 0; c < 4; c++)
                    o[c] = rd16(p + 2 * c);
                continue;
            }
            int yy, u, v;
            size_t i = (size_t)y * w + x;
            if (f == CLV_PIX_YUV444P16) {
                yy = rd16(in + 2 * i);
                u = rd16(in + plane + 2 * i);
                v = rd16(in + 2 * plane + 2 * i);
            } else if (f == CLV_PIX_P010) {
                yy = rd16(in + 2 * i);
                u = chroma_at(in + plane, cw, 2, 2, x, y, h, fields);
                v = chroma_at(in + plane + 2, cw, 2, 2, x, y, h, fields);
            } else {
                yy = (rd16(in + 2 * i) & 1023) << 6;
                u = chroma_at(in + plane, cw, 1, 10, x, y, h, fields);
                v = chroma_at(in + plane + 2 * (size_t)cw * ch, cw, 1, 10, x, y, h, fields);
            }
            int64_t l = (int64_t)k.ky * (yy - k.yoff);
            u -= 32768;
            v -= 32768;
            o[0] = (uint16_t)clampl(fix16l(l + (int64_t)k.rv * v), 0, 65535);
            o[1] = (uint16_t)clampl(fix16l(l - (int64_t)k.gu * u - (int64_t)k.gv * v), 0, 65535);
            o[2] = (uint16_t)clampl(fix16l(l + (int64_t)k.bu * u), 0, 65535);
            o[3] = 65535;
        }
    }
    return 0;
}

static const uint16_t *px16(const clv_image *img, int x, int y)
{
    return (const uint16_t *)(const void *)(img->pixels + (size_t)y * img->stride) + 4 * x;
}

/* An RGBA16 image out: to a deep format (rounded to its bits), or to an
 * 8-bit one dithered (dither8). */
static int ref_rgba16_from(clv_pixfmt f, clv_color color, const clv_image *rgba, uint8_t *out)
{
    int w = rgba->width, h = rgba->height, cw = (w + 1) / 2, ch = (h + 1) / 2;
    if (!clv_pixfmt_is_yuv(f)) {
        int bpp = bytes_per_pixel(f);
        int bgr = f == CLV_PIX_BGRA || f == CLV_PIX_BGR0 || f == CLV_PIX_BGR24;
        int alpha = f == CLV_PIX_RGBA || f == CLV_PIX_BGRA || f == CLV_PIX_RGBA64;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                const uint16_t *s = px16(rgba, x, y);
                uint8_t *p = out + ((size_t)y * w + x) * (size_t)bpp;
                if (f == CLV_PIX_RGBA64) {
                    for (int c = 0; c < 4; c++)
                        wr16(p + 2 * c, s[c]);
                    continue;
                }
                p[0] = (uint8_t)dither8(bgr ? s[2] : s[0], 0, x, y);
                p[1] = (uint8_t)dither8(s[1], 0, x, y);
                p[2] = (uint8_t)dither8(bgr ? s[0] : s[2], 0, x, y);
                if (bpp == 4)
                    p[3] = alpha ? (uint8_t)dither8(s[3], 0, x, y) : 255;
            }
        return 0;
    }
    clv__yuv_coeffs k;
    clv__yuv_coeffs_make16(color, &k);
    int deep = clv_pixfmt_depth(f) == 16, full444 = f == CLV_PIX_YUV444P16;
    int limited = !color.full_range;
    size_t plane = (deep ? 2 : 1) * (size_t)w * h;
    for (int cy = 0; cy < ch; cy++) {
        for (int cx = 0; cx < cw; cx++) {
            int64_t sr = 0, sg = 0, sb = 0;
            int n = 0;
            for (int y = 2 * cy; y < 2 * cy + 2 && y < h; y++)
                for (int x = 2 * cx; x < 2 * cx + 2 && x < w; x++) {
                    const uint16_t *p = px16(rgba, x, y);
                    int yv = clampl(fix16l((int64_t)k.yr * p[0] + (int64_t)k.yg * p[1] +
                                           (int64_t)k.yb * p[2] + ((int64_t)k.yoff << 16)),
                                    k.ymin, k.ymax);
                    size_t i = (size_t)y * w + x;
                    if (f == CLV_PIX_YUV444P16) {
                        wr16(out + 2 * i, yv);
                        int u = clampl(fix16l((int64_t)k.ur * p[0] + (int64_t)k.ug * p[1] +
                                              (int64_t)k.ub * p[2] + ((int64_t)32768 << 16)),
                                       k.cmin, k.cmax);
                        int v = clampl(fix16l((int64_t)k.vr * p[0] + (int64_t)k.vg * p[1] +
                                              (int64_t)k.vb * p[2] + ((int64_t)32768 << 16)),
                                       k.cmin, k.cmax);
                        wr16(out + plane + 2 * i, u);
                        wr16(out + 2 * plane + 2 * i, v);
                    } else if (f == CLV_PIX_YUV420P10) {
                        wr16(out + 2 * i, (yv + 32) >> 6 > 1023 ? 1023 : (yv + 32) >> 6);
                    } else if (f == CLV_PIX_P010) {
                        int t = (yv + 32) >> 6 > 1023 ? 1023 : (yv + 32) >> 6;
                        wr16(out + 2 * i, t << 6);
                    } else {
                        out[i] = (uint8_t)dither8(yv, limited, x, y);
                    }
                    sr += p[0];
                    sg += p[1];
                    sb += p[2];
                    n++;
                }
            if (full444)
                continue;
            int shift = 16 + (n == 4 ? 2 : n == 2 ? 1 : 0);
            int64_t half = (int64_t)1 << (shift - 1);
            int u = clampl((k.ur * sr + k.ug * sg + k.ub * sb + ((int64_t)n << 31) + half) >> shift,
                           k.cmin, k.cmax);
            int v = clampl((k.vr * sr + k.vg * sg + k.vb * sb + ((int64_t)n << 31) + half) >> shift,
                           k.cmin, k.cmax);
            size_t c = (size_t)cy * cw + (size_t)cx;
            if (deep) {
                int u10 = (u + 32) >> 6 > 1023 ? 1023 : (u + 32) >> 6;
                int v10 = (v + 32) >> 6 > 1023 ? 1023 : (v + 32) >> 6;
                if (f == CLV_PIX_P010) {
                    wr16(out + plane + 4 * c, u10 << 6);
                    wr16(out + plane + 4 * c + 2, v10 << 6);
                } else {
                    wr16(out + plane + 2 * c, u10);
                    wr16(out + plane + 2 * (size_t)cw * ch + 2 * c, v10);
                }
            } else {
                /* 8-bit chroma dithered at the block's top-left pixel. */
                uint8_t uu = (uint8_t)dither8(u, limited, 2 * cx, 2 * cy);
                uint8_t vv = (uint8_t)dither8(v, limited, 2 * cx + 1, 2 * cy);
                uint8_t *pu = out + plane, *pv = pu + (size_t)cw * ch;
                if (f == CLV_PIX_NV12) {
                    pu[2 * c] = uu;
                    pu[2 * c + 1] = vv;
                } else {
                    pu[c] = uu;
                    pv[c] = vv;
                }
            }
        }
    }
    return 0;
}

/* As fix16 in cl/color.cl: (v + 2^15) >> 16 for v > -2^24, without a
 * right shift of a negative number. */
static int fix16(int v)
{
    return ((v + 32768 + (256 << 16)) >> 16) - 256;
}

int clv_ref_to_rgba(clv_pixfmt f, clv_color color, const uint8_t *in, clv_image *rgba)
{
    return clv_ref_to_rgba_fields(f, color, 0, in, rgba);
}

int clv_ref_to_rgba_fields(clv_pixfmt f, clv_color color, int fields, const uint8_t *in,
                           clv_image *rgba)
{
    if (clv_pixfmt_depth(f) != clv__depth(rgba))
        return CLV_EINVAL;
    if (clv_pixfmt_depth(f) == 16)
        return ref_deep_to_rgba(f, color, fields, in, rgba);
    int w = rgba->width, h = rgba->height, cw = (w + 1) / 2, ch = (h + 1) / 2;
    clv__yuv_coeffs k;
    clv__yuv_coeffs_make(color, &k);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            uint8_t *o = clv__px_mut(rgba, x, y);
            if (clv_pixfmt_is_yuv(f)) {
                const uint8_t *pu = in + (size_t)w * h, *pv = pu + (size_t)cw * ch;
                const int nv12 = f == CLV_PIX_NV12;
                int u = chroma_at(pu, cw, nv12 ? 2 : 1, 1, x, y, h, fields);
                int v = chroma_at(nv12 ? pu + 1 : pv, cw, nv12 ? 2 : 1, 1, x, y, h, fields);
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
    if (clv__depth(rgba) == 16)
        return ref_rgba16_from(f, color, rgba, out);
    if (clv_pixfmt_depth(f) == 16)
        return CLV_EINVAL;
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
