/* xfade.c - ffmpeg's xfade (vf_xfade): the first input's frames until
 * `offset`, then for `duration` seconds a transition from them to the
 * second input's (whose time 0 lies at offset), then the second's. ffmpeg
 * runs RGBA through gbrap, its planes G, B, R, A (distance and fadegrays sum
 * over them in that order); black is (0, 0, 0, MAX), white all MAX.
 *
 * progress = clip(1 - (t - offset) / duration, 0, 1) in float, t the output
 * frame's time (ffmpeg's pts over its time base), 1 at the start. The
 * reference below is vf_xfade's per-pixel float code, transcribed; the
 * kernel (cl/xfade.cl) computes the same bits: whatever ffmpeg evaluates
 * with a library function or a division (hypotf, sinf, atan2f, powf, x / w)
 * is evaluated here on the host, in the same C expression, into tables of
 * columns, rows, pixels or levels, and the kernel does only the float
 * additions, subtractions and multiplications after them (correctly rounded
 * in OpenCL, without contraction) and the comparisons. Every transition of
 * 5.1 but hblur (running float sums), which is refused; radial subtracts a
 * double (vf_xfade's M_PI term) and needs a device with cl_khr_fp64 (else
 * an error); custom's expressions are not taken. fadegrays:
 * ffmpeg 5.1 sums R, G, B into an uninitialized int (a bug); here from 0.
 * circleopen/close on a 1x1 frame: ffmpeg's distance is 0 / 0; here 0.
 * slideleft and slideup at progress 1 (their first frame): ffmpeg reads
 * one row or column past the frame for its first; here the frame's first.
 * At 16 bits the same code on 0-65535, as vf_xfade's 16-bit functions. */
#include "filters.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { XF_TRANSITION, XF_DURATION, XF_OFFSET, XF_PARAM_COUNT };

/* vf_xfade's XFadeTransitions (without custom), the order of `choices`. */
enum {
    FADE,
    WIPELEFT,
    WIPERIGHT,
    WIPEUP,
    WIPEDOWN,
    SLIDELEFT,
    SLIDERIGHT,
    SLIDEUP,
    SLIDEDOWN,
    CIRCLECROP,
    RECTCROP,
    DISTANCE,
    FADEBLACK,
    FADEWHITE,
    RADIAL,
    SMOOTHLEFT,
    SMOOTHRIGHT,
    SMOOTHUP,
    SMOOTHDOWN,
    CIRCLEOPEN,
    CIRCLECLOSE,
    VERTOPEN,
    VERTCLOSE,
    HORZOPEN,
    HORZCLOSE,
    DISSOLVE,
    PIXELIZE,
    DIAGTL,
    DIAGTR,
    DIAGBL,
    DIAGBR,
    HLSLICE,
    HRSLICE,
    VUSLICE,
    VDSLICE,
    HBLUR,
    FADEGRAYS,
    WIPETL,
    WIPETR,
    WIPEBL,
    WIPEBR,
    SQUEEZEH,
    SQUEEZEV,
    ZOOMIN,
    FADEFAST,
    FADESLOW,
};
#define XF_TRANSITIONS                                                                             \
    "fade|wipeleft|wiperight|wipeup|wipedown|slideleft|slideright|slideup|slidedown|circlecrop|"   \
    "rectcrop|distance|fadeblack|fadewhite|radial|smoothleft|smoothright|smoothup|smoothdown|"     \
    "circleopen|circleclose|vertopen|vertclose|horzopen|horzclose|dissolve|pixelize|diagtl|"       \
    "diagtr|diagbl|diagbr|hlslice|hrslice|vuslice|vdslice|hblur|fadegrays|wipetl|wipetr|wipebl|"   \
    "wipebr|squeezeh|squeezev|zoomin|fadefast|fadeslow"

/* ---- vf_xfade's helpers ---------------------------------------------- */

static float mix(float a, float b, float m)
{
    float x = a * m, y = b * (1.f - m);
    return x + y;
}

static float fract(float a)
{
    return a - floorf(a);
}

static float clipf(float v, float lo, float hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static float smoothstep(float edge0, float edge1, float x)
{
    float t = clipf((x - edge0) / (edge1 - edge0), 0.f, 1.f);
    float t2 = t * t;
    return t2 * (3.f - 2.f * t);
}

static float frand(int x, int y)
{
    float u = x * 12.9898f, v = y * 78.233f;
    const float r = sinf(u + v) * 43758.545f;
    return r - floorf(r);
}

/* radial's turn, (progress - 0.5f) * (M_PI * 2.5f): a double, which
 * vf_xfade subtracts from a float angle in double. */
static double radial_turn(float progress)
{
    return (progress - 0.5f) * (3.14159265358979323846 * 2.5f);
}

/* The progress at time t of an xfade with these values. */
static float progress_at(const clv_value *v, double t)
{
    double offset = (double)v[XF_OFFSET].i / 1000, duration = (double)v[XF_DURATION].i / 1000;
    return clipf(1.f - (float)((t - offset) / duration), 0.f, 1.f);
}

/* ---- The reference: vf_xfade's per-pixel code -------------------------- */

/* Channel c of an image (x, y), and the gbrap plane order of channels. */
#define GET(img, x, y, c) ((float)clv__get((img), (x), (y), (c)))
static const int plane_channel[4] = {1, 2, 0, 3};

/* The smooth* family's value at (x, y) before "- progress * 2.f" (or with
 * circleopen/close's "+ p"): what the kernel reads from its tables. */
static float smooth_base(int tr, int x, int y, int w, int h)
{
    const float fw = (float)w, fh = (float)h;
    switch (tr) {
    case SMOOTHLEFT:
        return 1.f + x / fw;
    case SMOOTHRIGHT:
        return 1.f + (fw - 1 - x) / fw;
    case SMOOTHUP:
        return 1.f + y / fh;
    case SMOOTHDOWN:
        return 1.f + (fh - 1 - y) / fh;
    case CIRCLEOPEN:
    case CIRCLECLOSE: {
        const float z = hypotf(w / 2, h / 2);
        return z > 0.f ? hypotf(x - w / 2, y - h / 2) / z : 0.f; /* 1x1: 0 / 0 in ffmpeg */
    }
    case VERTOPEN: {
        const float w2 = (float)(w / 2.0);
        return 2.f - fabsf((x - w2) / w2);
    }
    case VERTCLOSE: {
        const float w2 = (float)(w / 2.0);
        return 1.f + fabsf((x - w2) / w2);
    }
    case HORZOPEN: {
        const float h2 = (float)(h / 2.0);
        return 2.f - fabsf((y - h2) / h2);
    }
    case HORZCLOSE: {
        const float h2 = (float)(h / 2.0);
        return 1.f + fabsf((y - h2) / h2);
    }
    case DIAGTL:
        return 1.f + x / fw * y / fh;
    case DIAGTR:
        return 1.f + (fw - 1 - x) / fw * y / fh;
    case DIAGBL:
        return 1.f + x / fw * (fh - 1 - y) / fh;
    default: /* DIAGBR */
        return 1.f + (fw - 1 - x) / fw * (fh - 1 - y) / fh;
    }
}

/* The slices' coordinate and its fract(10 * coordinate) at x or y. */
static void slice_base(int tr, int x, int y, int w, int h, float *u, float *fr)
{
    const float fw = (float)w, fh = (float)h;
    switch (tr) {
    case HLSLICE:
        *u = x / fw;
        *fr = fract(10.f * x / fw);
        break;
    case HRSLICE:
        *u = (fw - 1 - x) / fw;
        *fr = fract(10.f * *u);
        break;
    case VUSLICE:
        *u = y / fh;
        *fr = fract(10.f * y / fh);
        break;
    default: /* VDSLICE */
        *u = (fh - 1 - y) / fh;
        *fr = fract(10.f * *u);
        break;
    }
}

/* pixelize's source column or row of coordinate x in a side of n. */
static int pixelize_at(int x, int n, float dist, float sq)
{
    if (!(dist > 0.f))
        return x;
    float v = (floorf(x / sq) + .5f) * sq;
    return (int)(v > (float)(n - 1) ? (float)(n - 1) : v);
}

/* squeezeh's source row of y (squeezev's column): -1 for the second input. */
static int squeeze_at(int y, int n, float progress)
{
    const float fn = (float)n;
    const float z = .5f + (y / fn - .5f) / progress;
    if (z < 0.f || z > 1.f || isnan(z))
        return -1; /* NaN (progress 0 at the middle): ffmpeg reads out of bounds */
    long r = lrintf(z * (fn - 1.f));
    return (int)(r < 0 ? 0 : r > n - 1 ? n - 1 : r);
}

/* zoomin's source column (of x in w) */
static int zoom_at(int x, int n, float zf)
{
    const float fn = (float)n;
    float u = x / fn;
    u = 0.5f + ((u - 0.5f) * zf);
    int i = (int)ceilf(u * (fn - 1));
    return i < 0 ? 0 : i > n - 1 ? n - 1 : i;
}

/* fadefast's (slow 0) or fadeslow's weight of a difference d. */
static float fade_weight(int slow, float progress, int d, int maxv)
{
    const float imax = 1.f / maxv;
    return slow ? powf(progress, 1.f + logf(2.f - d * imax))
                : powf(progress, 1.f + logf(1.f + d * imax));
}

/* distance's threshold: the largest float D with sqrtf(D) <= progress (the
 * kernel compares its sum with D). */
static float distance_limit(float progress)
{
    float d = progress * progress;
    while (sqrtf(d) > progress)
        d = nextafterf(d, 0.f);
    while (sqrtf(nextafterf(d, INFINITY)) <= progress)
        d = nextafterf(d, INFINITY);
    return d;
}

static int ch_out(float v)
{
    return (int)v;
}

static void transition(int tr, float progress, const clv_image *a, const clv_image *b,
                       clv_image *dst)
{
    const int w = dst->width, h = dst->height, maxv = clv__maxv(dst);
    const float black[4] = {0, 0, 0, (float)maxv},
                white[4] = {(float)maxv, (float)maxv, (float)maxv, (float)maxv};
    const float p2 = progress * 2.f;
    /* per-frame values as vf_xfade computes them */
    const int zw = (int)(w * progress), zh = (int)(h * progress);
    const int zw1 = (int)(w * (1.f - progress)), zh1 = (int)(h * (1.f - progress));
    const float s1 = smoothstep(1.f - 0.2f, 1.f, progress), s2 = smoothstep(0.2f, 1.f, progress);
    const float pd = fminf(progress, 1.f - progress);
    const float pdist = ceilf(pd * 50.f) / 50.f;
    const float sq = 2.f * pdist * (w < h ? w : h) / 20.f;
    const float zf = smoothstep(0.5f, 1.f, progress), zs = smoothstep(0.f, 0.5f, progress);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            float out[4];
            int from_b = 0, sx = x, sy = y, mode = 0; /* 0: out[] set; 1: copy (sx, sy) */
            switch (tr) {
            case FADE:
                for (int c = 0; c < 4; c++)
                    out[c] = mix(GET(a, x, y, c), GET(b, x, y, c), progress);
                break;
            case WIPELEFT:
                mode = 1, from_b = x > zw;
                break;
            case WIPERIGHT:
                mode = 1, from_b = !(x > zw1);
                break;
            case WIPEUP:
                mode = 1, from_b = y > zh;
                break;
            case WIPEDOWN:
                mode = 1, from_b = !(y > zh1);
                break;
            case SLIDELEFT:
            case SLIDERIGHT: {
                const int z = tr == SLIDELEFT ? (int)(-progress * w) : (int)(progress * w);
                const int zx = z + x;
                sx = zx % w + w * (zx < 0);
                sx = sx == w ? 0 : sx; /* zx = -w: ffmpeg reads past the row */
                mode = 1, from_b = zx >= 0 && zx < w;
                break;
            }
            case SLIDEUP:
            case SLIDEDOWN: {
                const int z = tr == SLIDEUP ? (int)(-progress * h) : (int)(progress * h);
                const int zy = z + y;
                sy = zy % h + h * (zy < 0);
                sy = sy == h ? 0 : sy; /* zy = -h: ffmpeg reads past the frame */
                mode = 1, from_b = zy >= 0 && zy < h;
                break;
            }
            case CIRCLECROP: {
                float z = powf(2.f * fabsf(progress - 0.5f), 3.f) * hypotf(w / 2, h / 2);
                float dist = hypotf(x - w / 2, y - h / 2);
                for (int c = 0; c < 4; c++)
                    out[c] =
                        z < dist ? black[c] : (progress < 0.5f ? GET(b, x, y, c) : GET(a, x, y, c));
                break;
            }
            case RECTCROP: {
                int rh = (int)(fabsf(progress - 0.5f) * h), rw = (int)(fabsf(progress - 0.5f) * w);
                int in = abs(x - w / 2) < rw && abs(y - h / 2) < rh;
                for (int c = 0; c < 4; c++)
                    out[c] = !in ? black[c] : (progress < 0.5f ? GET(b, x, y, c) : GET(a, x, y, c));
                break;
            }
            case DISTANCE: {
                const float fmax = (float)maxv;
                float dist = 0.f;
                for (int p = 0; p < 4; p++) {
                    int c = plane_channel[p];
                    float d = GET(a, x, y, c) / fmax - GET(b, x, y, c) / fmax;
                    float dd = d * d;
                    dist += dd;
                }
                float m = sqrtf(dist) <= progress;
                for (int c = 0; c < 4; c++)
                    out[c] =
                        mix(mix(GET(a, x, y, c), GET(b, x, y, c), m), GET(b, x, y, c), progress);
                break;
            }
            case FADEBLACK:
            case FADEWHITE: {
                const float *bg = tr == FADEBLACK ? black : white;
                for (int c = 0; c < 4; c++)
                    out[c] = mix(mix(GET(a, x, y, c), bg[c], s1), mix(bg[c], GET(b, x, y, c), s2),
                                 progress);
                break;
            }
            case SMOOTHLEFT:
            case SMOOTHRIGHT:
            case SMOOTHUP:
            case SMOOTHDOWN:
            case VERTOPEN:
            case VERTCLOSE:
            case HORZOPEN:
            case HORZCLOSE:
            case DIAGTL:
            case DIAGTR:
            case DIAGBL:
            case DIAGBR:
            case CIRCLEOPEN:
            case CIRCLECLOSE: {
                float base = smooth_base(tr, x, y, w, h), smooth;
                if (tr == CIRCLEOPEN)
                    smooth = base + (progress - 0.5f) * 3.f;
                else if (tr == CIRCLECLOSE)
                    smooth = base + (1.f - progress - 0.5f) * 3.f;
                else
                    smooth = base - p2;
                float s = smoothstep(0.f, 1.f, smooth);
                for (int c = 0; c < 4; c++)
                    out[c] = tr == CIRCLEOPEN ? mix(GET(a, x, y, c), GET(b, x, y, c), s)
                                              : mix(GET(b, x, y, c), GET(a, x, y, c), s);
                break;
            }
            case RADIAL: {
                const float ang = atan2f(x - w / 2, y - h / 2);
                const float smooth = (float)(ang - radial_turn(progress));
                const float s = smoothstep(0.f, 1.f, smooth);
                for (int c = 0; c < 4; c++)
                    out[c] = mix(GET(b, x, y, c), GET(a, x, y, c), s);
                break;
            }
            case DISSOLVE: {
                float r2 = frand(x, y) * 2.f;
                const float smooth = r2 + progress * 2.f - 1.5f;
                mode = 1, from_b = !(smooth >= 0.5f);
                break;
            }
            case PIXELIZE:
                sx = pixelize_at(x, w, pdist, sq);
                sy = pixelize_at(y, h, pdist, sq);
                for (int c = 0; c < 4; c++)
                    out[c] = mix(GET(a, sx, sy, c), GET(b, sx, sy, c), progress);
                break;
            case HLSLICE:
            case HRSLICE:
            case VUSLICE:
            case VDSLICE: {
                float u, fr;
                slice_base(tr, x, y, w, h, &u, &fr);
                const float smooth = smoothstep(-0.5f, 0.f, u - progress * 1.5f);
                const float ss = smooth <= fr ? 0.f : 1.f;
                for (int c = 0; c < 4; c++)
                    out[c] = mix(GET(b, x, y, c), GET(a, x, y, c), ss);
                break;
            }
            case FADEGRAYS: {
                int g0 = 0, g1 = 0;
                for (int c = 0; c < 3; c++) {
                    g0 += clv__get(a, x, y, c);
                    g1 += clv__get(b, x, y, c);
                }
                float bg0[4] = {(float)(g0 / 3), (float)(g0 / 3), (float)(g0 / 3), GET(a, x, y, 3)};
                float bg1[4] = {(float)(g1 / 3), (float)(g1 / 3), (float)(g1 / 3), GET(b, x, y, 3)};
                for (int c = 0; c < 4; c++)
                    out[c] = mix(mix(GET(a, x, y, c), bg0[c], s1), mix(bg1[c], GET(b, x, y, c), s2),
                                 progress);
                break;
            }
            case WIPETL:
                mode = 1, from_b = !(y <= zh && x <= zw);
                break;
            case WIPETR:
                mode = 1, from_b = !(y <= zh && x > zw1);
                break;
            case WIPEBL:
                mode = 1, from_b = !(y > zh1 && x <= zw);
                break;
            case WIPEBR:
                mode = 1, from_b = !(y > zh1 && x > zw1);
                break;
            case SQUEEZEH:
                sy = squeeze_at(y, h, progress);
                mode = 1, from_b = sy < 0;
                sy = sy < 0 ? y : sy;
                break;
            case SQUEEZEV:
                sx = squeeze_at(x, w, progress);
                mode = 1, from_b = sx < 0;
                sx = sx < 0 ? x : sx;
                break;
            case ZOOMIN:
                sx = zoom_at(x, w, zf);
                sy = zoom_at(y, h, zf);
                for (int c = 0; c < 4; c++)
                    out[c] = mix(GET(a, sx, sy, c), GET(b, x, y, c), zs);
                break;
            default: /* FADEFAST, FADESLOW */
                for (int c = 0; c < 4; c++) {
                    int d = abs(clv__get(a, x, y, c) - clv__get(b, x, y, c));
                    out[c] = mix(GET(a, x, y, c), GET(b, x, y, c),
                                 fade_weight(tr == FADESLOW, progress, d, maxv));
                }
                break;
            }
            for (int c = 0; c < 4; c++)
                clv__put(dst, x, y, c, mode ? clv__get(from_b ? b : a, sx, sy, c) : ch_out(out[c]));
        }
}

static void copy_image(const clv_image *src, clv_image *dst)
{
    const size_t px_bytes = (size_t)clv__depth(dst) / 2;
    for (int y = 0; y < dst->height; y++)
        memcpy(dst->pixels + (size_t)y * dst->stride, clv__px_at(src, 0, y),
               (size_t)dst->width * px_bytes);
}

/* Which frame the output is at time t: 0 input 0's, 1 input 1's, 2 the
 * transition (from offset on, both present). Past offset + duration the
 * transition runs at progress 0 as long as input 0 is given, as ffmpeg's
 * mixes its first frame past the end there (wipeleft keeps input 0's
 * column 0); a run that hands over leaves input 0 out after that frame. */
static int phase_at(const clv_value *v, double t, int have_a, int have_b)
{
    double offset = (double)v[XF_OFFSET].i / 1000;
    if (!have_b || (have_a && t < offset))
        return 0;
    if (!have_a)
        return 1;
    return 2;
}

static int reference_n(void *ref_state, const clv_value *v, const clv_image *src, int n,
                       clv_image *dst, uint64_t frame_index, double time)
{
    (void)ref_state;
    (void)frame_index;
    int have_a = src[0].pixels != NULL, have_b = n > 1 && src[1].pixels != NULL;
    if (!have_a && !have_b)
        return CLV_EINVAL;
    int ph = phase_at(v, time, have_a, have_b);
    if (ph < 2)
        copy_image(&src[ph], dst);
    else
        transition((int)v[XF_TRANSITION].i, progress_at(v, time), &src[0], &src[1], dst);
    return 0;
}

/* ---- The device ------------------------------------------------------- */

static const char *const kernels[] = {"xfade", NULL};

typedef struct xf_state {
    cl_kernel kernel; /* first: the chain creates it (kernels) */
    clv_context *ctx;
    /* tables (see cl/xfade.cl): pixels (w * h), columns (2 * w), rows
     * (2 * h), column and row indices, levels (MAX + 1) */
    cl_mem tab, ctab, rtab, cidx, ridx, ltab;
    float *h_tab, *h_ctab, *h_rtab, *h_ltab;
    cl_int *h_cidx, *h_ridx;
    int w, h, depth, tr; /* what the per-size tables were made for (w 0: none) */
} xf_state;

static void release(xf_state *s)
{
    clv__mem_release(&s->tab);
    clv__mem_release(&s->ctab);
    clv__mem_release(&s->rtab);
    clv__mem_release(&s->cidx);
    clv__mem_release(&s->ridx);
    clv__mem_release(&s->ltab);
    free(s->h_tab);
    free(s->h_ctab);
    free(s->h_rtab);
    free(s->h_ltab);
    free(s->h_cidx);
    free(s->h_ridx);
    s->h_tab = s->h_ctab = s->h_rtab = s->h_ltab = NULL;
    s->h_cidx = s->h_ridx = NULL;
    s->w = 0;
}

static void uninit(void *state)
{
    release(state);
}

/* 1 when the device has cl_khr_fp64 (radial's kernel subtracts in double). */
static int has_fp64(const clv_context *ctx)
{
    char ext[8192] = "";
    if (clGetDeviceInfo((cl_device_id)ctx->dev.device_id, CL_DEVICE_EXTENSIONS, sizeof ext - 1, ext,
                        NULL) != CL_SUCCESS)
        return 0;
    return strstr(ext, "cl_khr_fp64") != NULL;
}

static int configure(void *state, clv_context *ctx, const clv_value *v, clv_msg *msg)
{
    xf_state *s = state;
    s->ctx = ctx;
    s->w = 0; /* tables made again */
    int tr = (int)v[XF_TRANSITION].i;
    if (tr == HBLUR)
        return clv__fail(msg, CLV_EPARSE,
                         "xfade: transition 'hblur' is not supported (every other of ffmpeg 5.1's "
                         "is)");
    if (tr == RADIAL && !has_fp64(ctx))
        return clv__fail(msg, CLV_ENODEVICE,
                         "xfade: transition 'radial' needs a device with double precision "
                         "(cl_khr_fp64): ffmpeg's angle term is a double; %s has none",
                         ctx->dev.name);
    return 0;
}

static int make_buffer(clv_context *ctx, size_t bytes, cl_mem *out)
{
    cl_int st;
    *out = clCreateBuffer(ctx->cl, CL_MEM_READ_ONLY, bytes ? bytes : 4, NULL, &st);
    if (st == CL_SUCCESS)
        return 0;
    clv__log(ctx, CLV__LOG_ERROR, "xfade: clCreateBuffer of its tables (%zu bytes): %s", bytes,
             clv__cl_strerror(st));
    return CLV_ENOMEM;
}

/* A blocking write of a table (the host's copy is written again next frame). */
static int upload(xf_state *s, cl_mem m, const void *p, size_t bytes)
{
    cl_int st = clEnqueueWriteBuffer(s->ctx->queue, m, CL_TRUE, 0, bytes, p, 0, NULL, NULL);
    if (st == CL_SUCCESS)
        return 0;
    clv__log(s->ctx, CLV__LOG_ERROR, "xfade: clEnqueueWriteBuffer of its tables: %s",
             clv__cl_strerror(st));
    return CLV_ECL;
}

/* The per-size tables of transition tr for w x h at depth. */
static int size_tables(xf_state *s, int tr, int w, int h, int depth)
{
    if (s->w == w && s->h == h && s->depth == depth && s->tr == tr)
        return 0;
    release(s);
    const size_t levels = depth == 16 ? 65536 : 256;
    s->h_tab = calloc((size_t)w * h, sizeof(float));
    s->h_ctab = calloc(2 * (size_t)w, sizeof(float));
    s->h_rtab = calloc(2 * (size_t)h, sizeof(float));
    s->h_ltab = calloc(levels, sizeof(float));
    s->h_cidx = calloc((size_t)w, sizeof(cl_int));
    s->h_ridx = calloc((size_t)h, sizeof(cl_int));
    if (!s->h_tab || !s->h_ctab || !s->h_rtab || !s->h_ltab || !s->h_cidx || !s->h_ridx)
        return CLV_ENOMEM;
    int pixel_table = tr == CIRCLECROP || tr == CIRCLEOPEN || tr == CIRCLECLOSE || tr == DISSOLVE ||
                      tr == RADIAL || (tr >= DIAGTL && tr <= DIAGBR);
    int err = make_buffer(s->ctx, pixel_table ? (size_t)w * h * sizeof(float) : 0, &s->tab);
    if (!err)
        err = make_buffer(s->ctx, 2 * (size_t)w * sizeof(float), &s->ctab);
    if (!err)
        err = make_buffer(s->ctx, 2 * (size_t)h * sizeof(float), &s->rtab);
    if (!err)
        err = make_buffer(s->ctx, levels * sizeof(float), &s->ltab);
    if (!err)
        err = make_buffer(s->ctx, (size_t)w * sizeof(cl_int), &s->cidx);
    if (!err)
        err = make_buffer(s->ctx, (size_t)h * sizeof(cl_int), &s->ridx);
    if (err)
        return err;
    if (pixel_table) {
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                s->h_tab[(size_t)y * w + x] = tr == CIRCLECROP ? hypotf(x - w / 2, y - h / 2)
                                              : tr == DISSOLVE ? frand(x, y)
                                              : tr == RADIAL   ? atan2f(x - w / 2, y - h / 2)
                                                               : smooth_base(tr, x, y, w, h);
        err = upload(s, s->tab, s->h_tab, (size_t)w * h * sizeof(float));
    }
    if (!err && tr >= SMOOTHLEFT && tr <= HORZCLOSE) {
        for (int x = 0; x < w; x++)
            s->h_ctab[x] = smooth_base(tr, x, 0, w, h);
        for (int y = 0; y < h; y++)
            s->h_rtab[y] = smooth_base(tr, 0, y, w, h);
    }
    if (!err && tr >= HLSLICE && tr <= VDSLICE) {
        for (int x = 0; x < w; x++)
            slice_base(tr, x, 0, w, h, &s->h_ctab[x], &s->h_ctab[w + x]);
        for (int y = 0; y < h; y++)
            slice_base(tr, 0, y, w, h, &s->h_rtab[y], &s->h_rtab[h + y]);
    }
    if (!err && tr == DISTANCE) {
        const float fmax = depth == 16 ? 65535.f : 255.f;
        for (size_t i = 0; i < levels; i++)
            s->h_ltab[i] = (float)i / fmax;
    }
    if (!err)
        err = upload(s, s->ctab, s->h_ctab, 2 * (size_t)w * sizeof(float));
    if (!err)
        err = upload(s, s->rtab, s->h_rtab, 2 * (size_t)h * sizeof(float));
    if (!err && tr == DISTANCE)
        err = upload(s, s->ltab, s->h_ltab, levels * sizeof(float));
    if (err)
        return err;
    s->w = w;
    s->h = h;
    s->depth = depth;
    s->tr = tr;
    return 0;
}

/* The per-frame tables: pixelize's, squeeze's and zoomin's indices,
 * fadefast's and fadeslow's weights. */
static int frame_tables(xf_state *s, int tr, float progress, int w, int h, int depth)
{
    const int maxv = depth == 16 ? 65535 : 255;
    if (tr == PIXELIZE || tr == SQUEEZEH || tr == SQUEEZEV || tr == ZOOMIN) {
        const float pd = fminf(progress, 1.f - progress);
        const float pdist = ceilf(pd * 50.f) / 50.f;
        const float sq = 2.f * pdist * (w < h ? w : h) / 20.f;
        const float zf = smoothstep(0.5f, 1.f, progress);
        for (int x = 0; x < w; x++)
            s->h_cidx[x] = tr == PIXELIZE   ? pixelize_at(x, w, pdist, sq)
                           : tr == SQUEEZEV ? squeeze_at(x, w, progress)
                           : tr == ZOOMIN   ? zoom_at(x, w, zf)
                                            : x;
        for (int y = 0; y < h; y++)
            s->h_ridx[y] = tr == PIXELIZE   ? pixelize_at(y, h, pdist, sq)
                           : tr == SQUEEZEH ? squeeze_at(y, h, progress)
                           : tr == ZOOMIN   ? zoom_at(y, h, zf)
                                            : y;
        int err = upload(s, s->cidx, s->h_cidx, (size_t)w * sizeof(cl_int));
        return err ? err : upload(s, s->ridx, s->h_ridx, (size_t)h * sizeof(cl_int));
    }
    if (tr == FADEFAST || tr == FADESLOW) {
        for (int d = 0; d <= maxv; d++)
            s->h_ltab[d] = fade_weight(tr == FADESLOW, progress, d, maxv);
        return upload(s, s->ltab, s->h_ltab, (size_t)(maxv + 1) * sizeof(float));
    }
    return 0;
}

static int run(void *state, const clv_launch *l)
{
    xf_state *s = state;
    if (l->input_count < 2 || !l->inputs)
        return CLV_EINVAL;
    const clv_frame *fa = &l->inputs[0], *fb = &l->inputs[1];
    int ph = phase_at(l->values, l->time, fa->buffer != NULL, fb->buffer != NULL);
    if (!fa->buffer && !fb->buffer)
        return CLV_EINVAL;
    int tr = (int)l->values[XF_TRANSITION].i, w = l->out_width, h = l->out_height;
    const float progress = progress_at(l->values, l->time);
    int err = size_tables(s, tr, w, h, l->depth);
    if (!err && ph == 2)
        err = frame_tables(s, tr, progress, w, h, l->depth);
    if (err)
        return err;
    /* per-frame values (cl/xfade.cl says which transition reads which) */
    cl_int z0 = 0, z1 = 0, z2 = 0, kind = ph == 2 ? tr : ph == 0 ? -1 : -2;
    cl_float f0 = 0, f1 = 0;
    cl_long turn = 0; /* radial's, a double's bits */
    switch (tr) {
    case WIPELEFT:
    case WIPEUP:
        z0 = (int)((tr == WIPELEFT ? w : h) * progress);
        break;
    case WIPERIGHT:
    case WIPEDOWN:
        z0 = (int)((tr == WIPERIGHT ? w : h) * (1.f - progress));
        break;
    case SLIDELEFT:
        z0 = (int)(-progress * w);
        break;
    case SLIDERIGHT:
        z0 = (int)(progress * w);
        break;
    case SLIDEUP:
        z0 = (int)(-progress * h);
        break;
    case SLIDEDOWN:
        z0 = (int)(progress * h);
        break;
    case CIRCLECROP:
        f0 = powf(2.f * fabsf(progress - 0.5f), 3.f) * hypotf(w / 2, h / 2);
        z2 = progress < 0.5f;
        break;
    case RECTCROP:
        z0 = (int)(fabsf(progress - 0.5f) * w);
        z1 = (int)(fabsf(progress - 0.5f) * h);
        z2 = progress < 0.5f;
        break;
    case DISTANCE:
        f0 = distance_limit(progress);
        break;
    case FADEBLACK:
    case FADEWHITE:
    case FADEGRAYS:
        f0 = smoothstep(1.f - 0.2f, 1.f, progress);
        f1 = smoothstep(0.2f, 1.f, progress);
        z0 = tr == FADEWHITE;
        break;
    case CIRCLEOPEN:
        f0 = -((progress - 0.5f) * 3.f); /* the kernel's T - f0 is T + p */
        break;
    case CIRCLECLOSE:
        f0 = -((1.f - progress - 0.5f) * 3.f);
        break;
    case HLSLICE:
    case HRSLICE:
    case VUSLICE:
    case VDSLICE:
        f0 = progress * 1.5f;
        break;
    case WIPETL:
    case WIPETR:
    case WIPEBL:
    case WIPEBR:
        z0 = (int)(w * (tr == WIPETL || tr == WIPEBL ? progress : 1.f - progress));
        z1 = (int)(h * (tr == WIPETL || tr == WIPETR ? progress : 1.f - progress));
        break;
    case ZOOMIN:
        f0 = smoothstep(0.f, 0.5f, progress);
        break;
    case RADIAL: {
        double t = radial_turn(progress);
        memcpy(&turn, &t, sizeof turn);
        break;
    }
    default: /* the smooth family and dissolve */
        f0 = progress * 2.f;
        break;
    }
    cl_int ds = l->out_stride, as = fa->buffer ? fa->stride : fb->stride,
           bs = fb->buffer ? fb->stride : fa->stride;
    cl_mem am = fa->buffer ? fa->buffer : fb->buffer, bm = fb->buffer ? fb->buffer : fa->buffer;
    cl_float p = progress;
    cl_kernel k = s->kernel;
    clv_launch one = *l;
    one.src = am;
    one.stride = as;
    one.width = w;
    one.height = h;
    err = clv__kernel_frame_args(k, &one);
    if (!err)
        err = clv__kernel_args(k, 5, 1, CLV__ARG(ds));
    if (!err && clv__kernel_mem_arg(k, 6, bm, NULL))
        err = CLV_ECL;
    if (!err)
        err = clv__kernel_args(k, 7, 8, CLV__ARG(bs), CLV__ARG(kind), CLV__ARG(p), CLV__ARG(z0),
                               CLV__ARG(z1), CLV__ARG(z2), CLV__ARG(f0), CLV__ARG(f1));
    cl_mem mems[6] = {s->tab, s->ctab, s->rtab, s->cidx, s->ridx, s->ltab};
    for (int i = 0; i < 6 && !err; i++)
        if (clv__kernel_mem_arg(k, (cl_uint)(15 + i), mems[i], NULL))
            err = CLV_ECL;
    if (!err)
        err = clv__kernel_args(k, 21, 1, CLV__ARG(turn));
    return err ? err : clv__launch_pixels(&one, k, w, h);
}

/* ---- Sizes and timing -------------------------------------------------- */

static int output_size_n(const clv_value *v, const clv_size *in, int n, clv_size *out, clv_msg *msg)
{
    int tr = (int)v[XF_TRANSITION].i;
    if (tr == HBLUR)
        return clv__fail(msg, CLV_EPARSE,
                         "xfade: transition 'hblur' is not supported (every other of ffmpeg 5.1's "
                         "is)");
    return clv__same_size2("xfade", "second", "first", in, n, out, msg);
}

/* Input 0 drives and is read until offset + duration (the transition's
 * last frame, progress 0, included); input 1, whose time 0 lies at offset,
 * is read from offset and drives after the transition. */
static void timing(const clv_value *v, int input, double *offset, double *drive_from,
                   double *drive_until, double *from, double *until)
{
    double off = (double)v[XF_OFFSET].i / 1000, end = off + (double)v[XF_DURATION].i / 1000;
    if (input == 0) {
        *offset = 0;
        *drive_from = 0;
        *drive_until = end;
        *from = 0;
        *until = end;
    } else {
        *offset = off;
        *drive_from = end;
        *drive_until = INFINITY;
        *from = off;
        *until = INFINITY;
    }
}

static const clv_param params[] = {
    {"transition", CLV_PARAM_ENUM, "fade", 0, 45, XF_TRANSITIONS,
     "the transition (every one of ffmpeg 5.1's but hblur; radial needs fp64)", 1},
    {"duration", CLV_PARAM_REAL, "1", 0.001, 60, NULL, "the transition's length in seconds", 0.1},
    {"offset", CLV_PARAM_REAL, "0", 0, 86400, NULL,
     "seconds of the first input before the transition starts", 0.1},
};
_Static_assert(sizeof params / sizeof params[0] == XF_PARAM_COUNT,
               "xfade: the enum and the params table differ");

const clv_filter clv__filter_xfade = {
    .name = "xfade",
    .help = "a transition from the first input to the second (ffmpeg's xfade)",
    .params = params,
    .param_count = XF_PARAM_COUNT,
    .program = "xfade",
    .state_size = sizeof(xf_state),
    .kernels = kernels,
    .deep = 1,
    .configure = configure,
    .uninit = uninit,
    .run = run,
    .inputs = 2,
    .output_size_n = output_size_n,
    .reference_n = reference_n,
    .timing = timing,
    .wait_first = 1,
};
