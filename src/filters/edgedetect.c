/* edgedetect.c - ffmpeg's edgedetect (libavfilter/vf_edgedetect.c and
 * edge_common.c): Canny's edge detector in ffmpeg's four steps (a 5x5
 * Gaussian, Sobel's magnitude and rounded direction, non-maximum
 * suppression, a double threshold), cl/edgedetect.cl's kernels. ffmpeg
 * runs it on planes: mode wires on gray8 (from RGB, swscale's luma:
 * clv__gray_sws, not the gray filter's) and writes the edges as the gray;
 * canny and colormix on gbrp, each plane of `planes` (the others pass),
 * canny writing the edges, colormix their mean with the plane. Here the
 * same on RGBA, alpha kept. The thresholds are ffmpeg's low * 255 + 0.5
 * and high * 255 + 0.5 truncated. ffmpeg has no 16-bit edgedetect: at 16
 * bits the same steps on 0-65535 (the luma the gray filter's), the
 * magnitude clipped to 65535 and the thresholds times 257. The thresholds
 * are kept to 1/1000, as every decimal parameter: ffmpeg's bytes for
 * thresholds of up to three decimals. ffmpeg's y, u, v (its planes 0, 1,
 * 2) select G, B, R here as on its gbrp. */
#include "filters.h"

#include <stdlib.h>
#include <string.h>

enum { ED_HIGH, ED_LOW, ED_MODE, ED_PLANES, ED_PARAM_COUNT };
enum { ED_WIRES, ED_COLORMIX, ED_CANNY };
/* The bits of `planes`, in its choices' order: y, u, v, r, g, b. ffmpeg's
 * values are the planes' (y and g 1, u and b 2, v and r 4). */
enum { P_Y = 1, P_U = 2, P_V = 4, P_R = 8, P_G = 16, P_B = 32 };

typedef struct ed_state {
    cl_kernel luma, blur, grad, nms, out; /* first: the chain creates them (kernels) */
    clv__rows work;                       /* the magnitudes and directions */
} ed_state;

static const char *const kernels[] = {"edgedetect_luma", "edgedetect_blur", "edgedetect_grad",
                                      "edgedetect_nms",  "edgedetect_out",  NULL};

/* The channels (R 1, G 2, B 4) whose gbrp planes `planes` selects; in
 * wires, bit 0: the gray plane. */
static int channels(const clv_value *v)
{
    const int64_t p = v[ED_PLANES].i;
    const int g = (p & (P_Y | P_G)) != 0, b = (p & (P_U | P_B)) != 0, r = (p & (P_V | P_R)) != 0;
    return v[ED_MODE].i == ED_WIRES ? g : r | g << 1 | b << 2;
}

/* ffmpeg's threshold of a value in thousandths: (uint8_t)(t * 255. + .5);
 * at 16 bits times 257. */
static int threshold(int64_t milli, int maxv)
{
    const int t = (int)((double)milli / 1000.0 * 255. + .5);
    return maxv == 65535 ? t * 257 : t;
}

static void uninit(void *state)
{
    ed_state *s = state;
    clv__rows_release(&s->work);
}

static int run(void *state, const clv_launch *l)
{
    ed_state *s = state;
    const int maxv = l->depth == 16 ? 65535 : 255, wires = l->values[ED_MODE].i == ED_WIRES;
    cl_int mix = l->values[ED_MODE].i == ED_COLORMIX, sel = wires ? 7 : channels(l->values),
           low = threshold(l->values[ED_LOW].i, maxv), high = threshold(l->values[ED_HIGH].i, maxv),
           w = l->width, h = l->height, stride = l->stride, top = maxv;
    /* wires: the luma (R = G = B) into scratch, the steps on it; without
     * its plane, the luma is the output (ffmpeg passes the gray on) */
    int err = 0;
    if (wires) {
        const int plane = channels(l->values);
        cl_mem to = plane ? l->scratch : l->dst;
        err = clv__kernel_args(s->luma, 0, 5, CLV__ARG(l->src), CLV__ARG(to), CLV__ARG(w),
                               CLV__ARG(h), CLV__ARG(stride));
        if (!err)
            err = clv__launch_pixels(l, s->luma, w, h);
        if (err || !plane)
            return err;
    }
    /* blur: src (scratch) to dst; gradients: dst to work; suppression:
     * work to scratch; the threshold and the mode: scratch and src to dst */
    /* the gradients: a ushort4 a pixel (uint4 at 16 bits) */
    err = clv__rows_reserve(l->ctx, &s->work,
                            (size_t)l->stride * (size_t)l->height * (l->depth == 16 ? 16 : 8),
                            "edgedetect");
    if (err)
        return err;
    cl_mem from = wires ? l->scratch : l->src;
    err = clv__kernel_args(s->blur, 0, 5, CLV__ARG(from), CLV__ARG(l->dst), CLV__ARG(w),
                           CLV__ARG(h), CLV__ARG(stride));
    if (!err)
        err = clv__launch_pixels(l, s->blur, w, h);
    if (!err)
        err = clv__kernel_args(s->grad, 0, 5, CLV__ARG(l->dst), CLV__ARG(s->work.mem), CLV__ARG(w),
                               CLV__ARG(h), CLV__ARG(stride));
    if (!err)
        err = clv__launch_pixels(l, s->grad, w, h);
    if (!err)
        err = clv__kernel_args(s->nms, 0, 6, CLV__ARG(s->work.mem), CLV__ARG(l->scratch),
                               CLV__ARG(w), CLV__ARG(h), CLV__ARG(stride), CLV__ARG(top));
    if (!err)
        err = clv__launch_pixels(l, s->nms, w, h);
    if (!err)
        err = clv__kernel_frame_args(s->out, l);
    if (!err)
        err = clv__kernel_args(s->out, 5, 5, CLV__ARG(l->scratch), CLV__ARG(mix), CLV__ARG(sel),
                               CLV__ARG(low), CLV__ARG(high));
    return err ? err : clv__launch_pixels(l, s->out, w, h);
}

/* ---- The reference: ffmpeg's steps on one plane at a time ------------- */

/* ffmpeg's get_rounded_direction (0 45 up, 1 45 down, 2 horizontal, 3
 * vertical), in 64 bits. */
static int direction(int64_t gx, int64_t gy)
{
    if (!gx)
        return 3;
    if (gx < 0) {
        gx = -gx;
        gy = -gy;
    }
    gy *= 65536;
    const int64_t t1 = 27146 * gx, t3 = 158218 * gx;
    if (gy > -t3 && gy < -t1)
        return 0;
    if (gy > -t1 && gy < t1)
        return 2;
    if (gy > t1 && gy < t3)
        return 1;
    return 3;
}

/* The edges of plane in (w x h) into out: ff_gaussian_blur, ff_sobel,
 * ff_non_maximum_suppression and ff_double_threshold. tmp: w h ints, grad
 * and dir: w h each, zeroed by the caller. */
static void canny(const int *in, int *out, int w, int h, int maxv, int low, int high, int *tmp,
                  int *grad, int *dir)
{
    static const int k[5][5] = {
        {2, 4, 5, 4, 2}, {4, 9, 12, 9, 4}, {5, 12, 15, 12, 5}, {4, 9, 12, 9, 4}, {2, 4, 5, 4, 2}};
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            if (x < 2 || y < 2 || x >= w - 2 || y >= h - 2) {
                tmp[y * w + x] = in[y * w + x];
                continue;
            }
            int s = 0;
            for (int j = -2; j <= 2; j++)
                for (int i = -2; i <= 2; i++)
                    s += k[j + 2][i + 2] * in[(y + j) * w + x + i];
            tmp[y * w + x] = s / 159;
        }
    for (int y = 1; y < h - 1; y++)
        for (int x = 1; x < w - 1; x++) {
            const int *t = tmp + y * w + x;
            const int64_t gx = -t[-w - 1] + t[-w + 1] - 2 * t[-1] + 2 * t[1] - t[w - 1] + t[w + 1];
            const int64_t gy = -t[-w - 1] + t[w - 1] - 2 * t[-w] + 2 * t[w] - t[-w + 1] + t[w + 1];
            grad[y * w + x] = (int)(llabs(gx) + llabs(gy));
            dir[y * w + x] = direction(gx, gy);
        }
    memset(tmp, 0, (size_t)w * (size_t)h * sizeof *tmp);
    for (int y = 1; y < h - 1; y++)
        for (int x = 1; x < w - 1; x++) {
            static const int along[4][4] = {
                {1, -1, -1, 1}, {-1, -1, 1, 1}, {0, -1, 0, 1}, {-1, 0, 1, 0}};
            const int *a = along[dir[y * w + x]], g = grad[y * w + x];
            if (g > grad[(y + a[0]) * w + x + a[1]] && g > grad[(y + a[2]) * w + x + a[3]])
                tmp[y * w + x] = g < maxv ? g : maxv;
        }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const int v = tmp[y * w + x];
            int keep = v > high;
            if (!keep && x > 0 && y > 0 && x < w - 1 && y < h - 1 && v > low)
                for (int j = -1; j <= 1; j++)
                    for (int i = -1; i <= 1; i++)
                        keep |= (j || i) && tmp[(y + j) * w + x + i] > high;
            out[y * w + x] = keep ? v : 0;
        }
}

/* The luma of wires: ffmpeg's gray8 of RGB at 8 bits, the gray filter's at 16. */
static int luma(const clv_image *img, int x, int y)
{
    return clv__depth(img) == 16 ? clv__luma_at(img, x, y)
                                 : clv__gray_sws(clv__get(img, x, y, 0), clv__get(img, x, y, 1),
                                                 clv__get(img, x, y, 2));
}

static int reference(void *ref_state, const clv_value *v, const clv_image *src, clv_image *dst,
                     uint64_t frame_index)
{
    (void)ref_state;
    (void)frame_index;
    const int w = src->width, h = src->height, maxv = clv__maxv(src), sel = channels(v);
    const int mode = (int)v[ED_MODE].i, low = threshold(v[ED_LOW].i, maxv),
              high = threshold(v[ED_HIGH].i, maxv);
    const size_t n = (size_t)w * (size_t)h;
    int *plane = malloc(n * sizeof *plane), *edges = malloc(n * sizeof *edges),
        *tmp = malloc(n * sizeof *tmp), *grad = calloc(n, sizeof *grad),
        *dir = calloc(n, sizeof *dir);
    int err = !plane || !edges || !tmp || !grad || !dir ? CLV_ENOMEM : 0;
    for (int y = 0; !err && y < h; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < 4; c++)
                clv__put(dst, x, y, c,
                         mode == ED_WIRES && c < 3 ? luma(src, x, y) : clv__get(src, x, y, c));
    for (int c = 0; !err && c < (mode == ED_WIRES ? 1 : 3); c++) {
        if (!(sel >> c & 1))
            continue;
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                plane[y * w + x] = mode == ED_WIRES ? luma(src, x, y) : clv__get(src, x, y, c);
        canny(plane, edges, w, h, maxv, low, high, tmp, grad, dir);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                const int e = edges[y * w + x];
                if (mode == ED_WIRES)
                    for (int k = 0; k < 3; k++)
                        clv__put(dst, x, y, k, e);
                else
                    clv__put(dst, x, y, c, mode == ED_CANNY ? e : (e + plane[y * w + x]) >> 1);
            }
    }
    free(plane);
    free(edges);
    free(tmp);
    free(grad);
    free(dir);
    return err;
}

static const clv_param params[] = {
    {"high", CLV_PARAM_REAL, "0.196", 0, 1, NULL,
     "high threshold, of the maximum (ffmpeg's default 50/255; to 1/1000)", 0.01},
    {"low", CLV_PARAM_REAL, "0.078", 0, 1, NULL,
     "low threshold, of the maximum (ffmpeg's default 20/255; to 1/1000)", 0.01},
    {"mode", CLV_PARAM_ENUM, "wires", 0, 2, "wires|colormix|canny",
     "wires: the luma's edges, white on black; colormix: each plane's edges mixed with it; "
     "canny: each plane's edges",
     1},
    {"planes", CLV_PARAM_FLAGS, "y+u+v+r+g+b", 1, 7, "y|u|v|r|g|b",
     "the planes to take edges of, joined by +: r, g, b (y the gray of wires; u, v planes of "
     "Y'CbCr frames, here g, b, r as on ffmpeg's gbrp; ffmpeg's numbers: 1 g, 2 b, 4 r)",
     0},
};
_Static_assert(sizeof params / sizeof params[0] == ED_PARAM_COUNT,
               "edgedetect: the enum and the params table differ");

const clv_filter clv__filter_edgedetect = {
    .name = "edgedetect",
    .help = "Canny edges as ffmpeg's edgedetect: wires (the luma's), canny or colormix (each "
            "channel's)",
    .params = params,
    .param_count = ED_PARAM_COUNT,
    .program = "edgedetect",
    .kernels = kernels,
    .needs_scratch = 1,
    .deep = 1,
    .state_size = sizeof(ed_state),
    .uninit = uninit,
    .run = run,
    .reference = reference,
};
