/* colorbalance.c - ffmpeg's colorbalance (libavfilter/vf_colorbalance.c):
 * each of red, green and blue moved towards itself or its opposite (cyan,
 * magenta, yellow) by an amount for the shadows, one for the midtones and
 * one for the highlights, on RGB as ffmpeg does it; cl/colorbalance.cl.
 *
 * vf_colorbalance works in float per pixel: with r, g, b in 0-1 and
 * L = max + min of them, each channel gets v + s ws(L) + m wm(L) + h wh(L),
 * clamped to 0-1 and rounded to the depth (lrintf). The weights depend on L
 * alone, so the shift of each channel is a table over L (0 to 2 * maxv)
 * built here in float as vf_colorbalance computes it, in fixed point with
 * 8 fractional bits; the kernel adds and clamps in integers:
 *   c' = clamp((c << 8) + delta_c[L], 0, maxv << 8),  out = (c' + 128) >> 8
 * (ffmpeg's float sums give the same but for a rare rounding of one).
 *
 * pl (preserve lightness): vf_colorbalance turns the shifted colour into
 * hue and saturation and back with the lightness it had before, which is
 * each channel plus (L - max' - min') / 2, clamped; this computes that
 * directly: out = clamp(round(c' + ((L << 8) - max' - min') / 2)), with
 * ffmpeg's corner cases: where max' is white or min' is black (which it
 * takes for saturation 0) the pixel becomes the gray L / 2 (at 8 bits as
 * ffmpeg's float arithmetic rounds it, which goes either way at the
 * halves: a table by the pixel's max and min; at 16 bits half to even),
 * and black or white pixels otherwise become black (its saturation is a
 * division by 0 there, and the NAN converts to 0).
 *
 * At 16 bits the same tables over L of 0 to 131070, as vf_colorbalance's
 * 16-bit path computes on RGB48 and RGBA64. */
#include "filters.h"

#include <math.h>
#include <stdlib.h>

enum { CB_RS, CB_GS, CB_BS, CB_RM, CB_GM, CB_BM, CB_RH, CB_GH, CB_BH, CB_PL, CB_PARAM_COUNT };

static float clipf(float v, float lo, float hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/* vf_colorbalance's get_component less the channel: the shift of a channel
 * with amounts s, m, h at lightness l (0 to 2). */
static float shift(float l, float s, float m, float h)
{
    const float a = 4.f, b = 0.333f, scale = 0.7f;
    s *= clipf((b - l) * a + 0.5f, 0.f, 1.f) * scale;
    m *= clipf((l - b) * a + 0.5f, 0.f, 1.f) * clipf((1.f - l - b) * a + 0.5f, 0.f, 1.f) * scale;
    h *= clipf((l + b - 1) * a + 0.5f, 0.f, 1.f) * scale;
    float d = s;
    d += m;
    d += h;
    return d;
}

/* The three tables of 2 * maxv + 1 shifts (red's, green's, blue's). */
static void tables(const clv_value *v, int maxv, int32_t *delta)
{
    const int span = 2 * maxv + 1;
    for (int c = 0; c < 3; c++) {
        float s = (float)(v[CB_RS + c].i / 1000.0), m = (float)(v[CB_RM + c].i / 1000.0);
        float h = (float)(v[CB_RH + c].i / 1000.0);
        for (int l = 0; l < span; l++) {
            float d = shift((float)l / (float)maxv, s, m, h);
            delta[c * span + l] = (int32_t)lrint((double)d * maxv * 256);
        }
    }
}

/* At 8 bits, ffmpeg's gray of preservel where it takes the saturation as 0:
 * lrintf of the lightness (max / 255 + min / 255) / 2 in float, by max
 * (rows) and min (columns). */
static void gray_table(uint8_t *gray)
{
    const float maxv = 255;
    for (int hi = 0; hi < 256; hi++)
        for (int lo = 0; lo < 256; lo++) {
            float l = (float)hi / maxv + (float)lo / maxv;
            l *= 0.5f;
            gray[hi * 256 + lo] = (uint8_t)lrintf(l * maxv);
        }
}

static size_t table_count(int depth)
{
    return 3 * (size_t)(2 * (depth == 16 ? 65535 : 255) + 1);
}

typedef struct cb_state {
    cl_kernel kernel; /* first: the chain creates it (kernels) */
    cl_mem delta, gray;
    int depth;
} cb_state;

static const char *const kernels[] = {"colorbalance", NULL};

static int init(void *state, clv_context *ctx, cl_program prog, clv_msg *msg)
{
    (void)prog;
    cb_state *s = state;
    s->depth = ctx->build_depth == 16 ? 16 : 8;
    cl_int st = CL_SUCCESS;
    s->delta = clCreateBuffer(ctx->cl, CL_MEM_READ_ONLY, table_count(s->depth) * sizeof(cl_int),
                              NULL, &st);
    uint8_t gray[256 * 256];
    gray_table(gray);
    if (st == CL_SUCCESS)
        s->gray = clCreateBuffer(ctx->cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof gray,
                                 gray, &st);
    if (st != CL_SUCCESS)
        return clv__fail(msg, CLV_ENOMEM, "colorbalance: cannot allocate its tables: %s",
                         clv__cl_strerror(st));
    return 0;
}

static void uninit(void *state)
{
    cb_state *s = state;
    clv__mem_release(&s->delta);
    clv__mem_release(&s->gray);
}

static int configure(void *state, clv_context *ctx, const clv_value *values, clv_msg *msg)
{
    cb_state *s = state;
    size_t count = table_count(s->depth);
    int32_t *delta = malloc(count * sizeof *delta);
    if (!delta)
        return clv__fail(msg, CLV_ENOMEM, "colorbalance: out of memory");
    tables(values, s->depth == 16 ? 65535 : 255, delta);
    cl_int st = clEnqueueWriteBuffer(ctx->queue, s->delta, CL_TRUE, 0, count * sizeof(cl_int),
                                     delta, 0, NULL, NULL);
    free(delta);
    if (st != CL_SUCCESS)
        return clv__fail(msg, CLV_ECL, "colorbalance: cannot upload its tables: %s",
                         clv__cl_strerror(st));
    return 0;
}

static int run(void *state, const clv_launch *l)
{
    cb_state *s = state;
    cl_int pl = (cl_int)l->values[CB_PL].i;
    int err = clv__kernel_frame_args(s->kernel, l);
    if (!err)
        err =
            clv__kernel_args(s->kernel, 5, 3, CLV__ARG(s->delta), CLV__ARG(s->gray), CLV__ARG(pl));
    return err ? err : clv__launch_pixels(l, s->kernel, l->width, l->height);
}

static int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static int reference(void *ref_state, const clv_value *v, const clv_image *src, clv_image *dst,
                     uint64_t frame_index)
{
    (void)ref_state;
    (void)frame_index;
    const int maxv = clv__maxv(src), span = 2 * maxv + 1, top = maxv << 8;
    int32_t *delta = malloc(table_count(clv__depth(src)) * sizeof *delta);
    uint8_t *gray = malloc(256 * 256);
    if (!delta || !gray) {
        free(delta);
        free(gray);
        return CLV_ENOMEM;
    }
    tables(v, maxv, delta);
    gray_table(gray);
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < src->width; x++) {
            int in[3], c[3], out[3];
            for (int i = 0; i < 3; i++)
                in[i] = clv__get(src, x, y, i);
            int mx = in[0] > in[1] ? in[0] : in[1], mn = in[0] < in[1] ? in[0] : in[1];
            mx = mx > in[2] ? mx : in[2];
            mn = mn < in[2] ? mn : in[2];
            const int l = mx + mn,
                      half = maxv == 255 ? gray[mx * 256 + mn] : (l >> 1) + (l & (l >> 1) & 1);
            for (int i = 0; i < 3; i++)
                c[i] = clampi((in[i] << 8) + delta[i * span + l], 0, top);
            mx = c[0] > c[1] ? c[0] : c[1];
            mn = c[0] < c[1] ? c[0] : c[1];
            mx = mx > c[2] ? mx : c[2];
            mn = mn < c[2] ? mn : c[2];
            for (int i = 0; i < 3; i++) {
                if (!v[CB_PL].i)
                    out[i] = (c[i] + 128) >> 8;
                else if (mx == top || mn == 0)
                    out[i] = half;
                else if (l == 0 || l == 2 * maxv)
                    out[i] = 0;
                else
                    out[i] = clampi((2 * c[i] + (l << 8) - mx - mn + 256) >> 9, 0, maxv);
                clv__put(dst, x, y, i, out[i]);
            }
            clv__put(dst, x, y, 3, clv__get(src, x, y, 3));
        }
    free(delta);
    free(gray);
    return 0;
}

#define AMOUNT(name, help)                                                                         \
    {                                                                                              \
        name, CLV_PARAM_REAL, "0", -1, 1, NULL, help, 0.05                                         \
    }

static const clv_param params[] = {
    AMOUNT("rs", "red shadows: -1 (cyan) to 1 (red)"),
    AMOUNT("gs", "green shadows: -1 (magenta) to 1 (green)"),
    AMOUNT("bs", "blue shadows: -1 (yellow) to 1 (blue)"),
    AMOUNT("rm", "red midtones"),
    AMOUNT("gm", "green midtones"),
    AMOUNT("bm", "blue midtones"),
    AMOUNT("rh", "red highlights"),
    AMOUNT("gh", "green highlights"),
    AMOUNT("bh", "blue highlights"),
    {"pl", CLV_PARAM_INT, "0", 0, 1, NULL, "1: preserve the lightness", 1},
};
_Static_assert(sizeof params / sizeof params[0] == CB_PARAM_COUNT,
               "colorbalance: the enum and the params table differ");

const clv_filter clv__filter_colorbalance = {
    .name = "colorbalance",
    .help = "move red, green and blue in the shadows, midtones and highlights (ffmpeg's "
            "colorbalance)",
    .params = params,
    .param_count = CB_PARAM_COUNT,
    .program = "colorbalance",
    .kernels = kernels,
    .deep = 1,
    .state_size = sizeof(cb_state),
    .init = init,
    .configure = configure,
    .uninit = uninit,
    .run = run,
    .reference = reference,
};
