/* blend.c - ffmpeg's blend (vf_blend) of two frames of one size: the top
 * (first input) and the bottom (second) per channel through a mode of
 * blend_modes.c and an opacity (cl/blend.cl has the formula). ffmpeg blends
 * RGBA as gbrap, whose planes c0, c1, c2, c3 are G, B, R and A: c0_mode is
 * green's here too. all_mode and all_opacity (below 1) set every plane's, as
 * vf_blend's config_params does. The expressions (c0_expr .. all_expr) and
 * the interpolate mode (cosf) are not taken. Both depths: E in 64-bit
 * integers (at 16 bits ffmpeg's int products overflow past 2^31, and its
 * multiply128 and geometric go through float: ours are the exact values). */
#include "filters.h"

#include <stdio.h>
#include <string.h>

enum {
    BL_C0_MODE,
    BL_C1_MODE,
    BL_C2_MODE,
    BL_C3_MODE,
    BL_ALL_MODE,
    BL_C0_OPACITY,
    BL_C1_OPACITY,
    BL_C2_OPACITY,
    BL_C3_OPACITY,
    BL_ALL_OPACITY,
    BL_EOF_ACTION,
    BL_SHORTEST,
    BL_REPEATLAST,
    BL_PARAM_COUNT
};

/* BlendMode's numbers (libavfilter/blend.h), as in cl/blend.cl. */
enum {
    M_NORMAL,
    M_ADDITION,
    M_AND,
    M_AVERAGE,
    M_BURN,
    M_DARKEN,
    M_DIFFERENCE,
    M_GRAINEXTRACT,
    M_DIVIDE,
    M_DODGE,
    M_EXCLUSION,
    M_HARDLIGHT,
    M_LIGHTEN,
    M_MULTIPLY,
    M_NEGATION,
    M_OR,
    M_OVERLAY,
    M_PHOENIX,
    M_PINLIGHT,
    M_REFLECT,
    M_SCREEN,
    M_SOFTLIGHT,
    M_SUBTRACT,
    M_VIVIDLIGHT,
    M_XOR,
    M_HARDMIX,
    M_LINEARLIGHT,
    M_GLOW,
    M_GRAINMERGE,
    M_MULTIPLY128,
    M_HEAT,
    M_FREEZE,
    M_EXTREMITY,
    M_SOFTDIFFERENCE,
    M_GEOMETRIC,
    M_HARMONIC,
    M_BLEACH,
    M_STAIN,
};

/* The words, in the order of BlendMode, then ffmpeg's aliases. */
#define BL_MODES                                                                                   \
    "normal|addition|and|average|burn|darken|difference|grainextract|divide|dodge|exclusion|"      \
    "hardlight|lighten|multiply|negation|or|overlay|phoenix|pinlight|reflect|screen|softlight|"    \
    "subtract|vividlight|xor|hardmix|linearlight|glow|grainmerge|multiply128|heat|freeze|"         \
    "extremity|softdifference|geometric|harmonic|bleach|stain|addition128|difference128"
#define BL_MODE_WORDS 40 /* the aliases: addition128 is grainmerge, difference128 grainextract */

static const char *const kernels[] = {"blend", "blend_normal", NULL};

/* A mode parameter's value (an index of BL_MODES) as BlendMode. */
static int mode_of(int64_t index)
{
    return index == 38 ? M_GRAINMERGE : index == 39 ? M_GRAINEXTRACT : (int)index;
}

/* Each RGBA channel's mode and opacity: plane k of gbrap is channel
 * (k + 1) % 3 for k < 3 (G, B, R), alpha 3. */
static void channel_params(const clv_value *v, int modes[4], float ops[4])
{
    static const int channel_of_plane[4] = {1, 2, 0, 3};
    for (int k = 0; k < 4; k++) {
        int mode = mode_of(v[BL_C0_MODE + k].i);
        double op = (double)v[BL_C0_OPACITY + k].i / 1000;
        if (v[BL_ALL_MODE].i > 0)
            mode = mode_of(v[BL_ALL_MODE].i - 1);
        if (v[BL_ALL_OPACITY].i < 1000)
            op = (double)v[BL_ALL_OPACITY].i / 1000;
        modes[channel_of_plane[k]] = mode;
        ops[channel_of_plane[k]] = (float)op; /* FilterParams' float opacity */
    }
}

static int run(void *state, const clv_launch *l)
{
    const cl_kernel *kernels_made = state; /* blend, blend_normal (kernels) */
    if (l->input_count < 2 || !l->inputs)
        return CLV_EINVAL;
    const clv_frame *bot = &l->inputs[1];
    int modes[4];
    float ops[4];
    channel_params(l->values, modes, ops);
    cl_int4 m = {{modes[0], modes[1], modes[2], modes[3]}};
    cl_float4 o = {{ops[0], ops[1], ops[2], ops[3]}};
    if (!bot->buffer) { /* absent (pass): the top frame, as normal at opacity 1 */
        for (int c = 0; c < 4; c++) {
            m.s[c] = M_NORMAL;
            o.s[c] = 1.0f;
        }
    }
    int normal = 1;
    for (int c = 0; c < 4; c++)
        normal &= m.s[c] == M_NORMAL;
    cl_kernel kernel = kernels_made[normal]; /* blend_normal: the GPU shape's faster path */
    cl_int ds = l->out_stride, bs = bot->buffer ? bot->stride : l->stride;
    int err = clv__kernel_frame_args(kernel, l);
    if (!err)
        err = clv__kernel_args(kernel, 5, 1, CLV__ARG(ds));
    if (!err && clv__kernel_mem_arg(kernel, 6, bot->buffer ? bot->buffer : l->src, NULL))
        err = CLV_ECL;
    if (!err)
        err = clv__kernel_args(kernel, 7, 3, CLV__ARG(bs), CLV__ARG(m), CLV__ARG(o));
    return err ? err : clv__launch_pixels(l, kernel, l->width, l->height);
}

/* ---- The reference: blend_modes.c's expressions, plainly --------------- */

static int64_t clip(int64_t v, int64_t max)
{
    return v < 0 ? 0 : v > max ? max : v;
}

static int64_t burn(int64_t a, int64_t b, int64_t max, int bits)
{
    if (a == 0)
        return a;
    int64_t v = max - ((max - b) << bits) / a;
    return v > 0 ? v : 0;
}

static int64_t dodge(int64_t a, int64_t b, int64_t max, int bits)
{
    if (a == max)
        return a;
    int64_t v = (b << bits) / (max - a);
    return v < max ? v : max;
}

static int64_t min64(int64_t a, int64_t b)
{
    return a < b ? a : b;
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

static int64_t abs64(int64_t a)
{
    return a < 0 ? -a : a;
}

/* E(A, B) of blend_modes.c at `bits` (8 or 16). */
static int64_t mode_value(int mode, int64_t A, int64_t B, int bits)
{
    const int64_t MAX = (1 << bits) - 1, HALF = 1 << (bits - 1), MDIV = (MAX + 1) / 8;
    switch (mode) {
    case M_ADDITION:
        return min64(MAX, A + B);
    case M_AND:
        return A & B;
    case M_AVERAGE:
        return (A + B) / 2;
    case M_BURN:
        return burn(A, B, MAX, bits);
    case M_DARKEN:
        return min64(A, B);
    case M_DIFFERENCE:
        return abs64(A - B);
    case M_GRAINEXTRACT:
        return clip(HALF + A - B, MAX);
    case M_DIVIDE:
        return clip(B == 0 ? MAX : MAX * A / B, MAX);
    case M_DODGE:
        return dodge(A, B, MAX, bits);
    case M_EXCLUSION:
        return A + B - 2 * A * B / MAX;
    case M_HARDLIGHT:
        return B < HALF ? 2 * (B * A / MAX) : MAX - 2 * ((MAX - B) * (MAX - A) / MAX);
    case M_LIGHTEN:
        return max64(A, B);
    case M_MULTIPLY:
        return A * B / MAX;
    case M_NEGATION:
        return MAX - abs64(MAX - A - B);
    case M_OR:
        return A | B;
    case M_OVERLAY:
        return A < HALF ? 2 * (A * B / MAX) : MAX - 2 * ((MAX - A) * (MAX - B) / MAX);
    case M_PHOENIX:
        return min64(A, B) - max64(A, B) + MAX;
    case M_PINLIGHT:
        return B < HALF ? min64(A, 2 * B) : max64(A, 2 * (B - HALF));
    case M_REFLECT:
        return B == MAX ? B : min64(MAX, A * A / (MAX - B));
    case M_SCREEN:
        return MAX - (MAX - A) * (MAX - B) / MAX;
    case M_SOFTLIGHT:
        return clip(A * A / MAX + (2 * (B * ((A * (MAX - A)) / MAX) / MAX)), MAX);
    case M_SUBTRACT:
        return max64(0, A - B);
    case M_VIVIDLIGHT:
        return A < HALF ? burn(2 * A, B, MAX, bits) : dodge(2 * (A - HALF), B, MAX, bits);
    case M_XOR:
        return A ^ B;
    case M_HARDMIX:
        return A < MAX - B ? 0 : MAX;
    case M_LINEARLIGHT:
        return clip(B < HALF ? B + 2 * A - MAX : B + 2 * (A - HALF), MAX);
    case M_GLOW:
        return A == MAX ? A : min64(MAX, B * B / (MAX - A));
    case M_GRAINMERGE:
        return clip(A + B - HALF, MAX);
    case M_MULTIPLY128: /* (A - HALF) * B / MDIV + HALF, truncated: exact in ffmpeg's float at 8 */
        return clip(((A - HALF) * B + HALF * MDIV) / MDIV, MAX);
    case M_HEAT:
        return A == 0 ? 0 : MAX - min64(((MAX - B) * (MAX - B)) / A, MAX);
    case M_FREEZE:
        return B == 0 ? 0 : MAX - min64(((MAX - A) * (MAX - A)) / B, MAX);
    case M_EXTREMITY:
        return abs64(MAX - A - B);
    case M_SOFTDIFFERENCE:
        return clip(A > B ? (B == MAX ? 0 : (A - B) * MAX / (MAX - B))
                          : (B == 0 ? 0 : (B - A) * MAX / B),
                    MAX);
    case M_GEOMETRIC: { /* lrintf(sqrtf(A * B)) at 8 bits: sqrt rounded to nearest */
        int64_t r = (int64_t)clv__isqrt64((uint64_t)(A * B));
        return A * B - r * r > r ? r + 1 : r;
    }
    case M_HARMONIC:
        return A == 0 && B == 0 ? 0 : 2 * A * B / (A + B);
    case M_BLEACH:
        return (MAX - B) + (MAX - A) - MAX;
    case M_STAIN:
        return 2 * MAX - A - B;
    default:
        return A;
    }
}

/* One channel: vf_blend's float step (no contraction in this file's
 * arithmetic: each product and sum is rounded to float, as the kernel's),
 * then the store into the channel (truncation, low bits kept). */
static int channel(int mode, float op, int a, int b, int bits)
{
    float r;
    if (mode == M_NORMAL) {
        float x = (float)a * op, y = (float)b * (1.0f - op);
        r = x + y;
    } else {
        float d = (float)(mode_value(mode, a, b, bits) - a) * op;
        r = (float)a + d;
    }
    return (int)r & ((1 << bits) - 1);
}

static int reference_n(void *ref_state, const clv_value *v, const clv_image *src, int n,
                       clv_image *dst, uint64_t frame_index, double time)
{
    (void)ref_state;
    (void)frame_index;
    (void)time;
    int modes[4];
    float ops[4];
    channel_params(v, modes, ops);
    const clv_image *bot = n > 1 && src[1].pixels ? &src[1] : NULL;
    const int bits = clv__depth(dst);
    for (int y = 0; y < dst->height; y++)
        for (int x = 0; x < dst->width; x++)
            for (int c = 0; c < 4; c++) {
                int a = clv__get(&src[0], x, y, c);
                clv__put(dst, x, y, c,
                         bot ? channel(modes[c], ops[c], a, clv__get(bot, x, y, c), bits) : a);
            }
    return 0;
}

static int output_size_n(const clv_value *v, const clv_size *in, int n, clv_size *out, clv_msg *msg)
{
    (void)v;
    return clv__same_size2("blend", "bottom", "top", in, n, out, msg);
}

static clv_eof_action eof_action(const clv_value *v)
{
    return clv__framesync_eof((int)v[BL_EOF_ACTION].i, (int)v[BL_SHORTEST].i,
                              (int)v[BL_REPEATLAST].i);
}

#define MODE_PARAM(name, help)                                                                     \
    {                                                                                              \
        name, CLV_PARAM_ENUM, "normal", 0, 37, BL_MODES, help, 1                                   \
    }
#define OPACITY_PARAM(name, help)                                                                  \
    {                                                                                              \
        name, CLV_PARAM_REAL, "1", 0, 1, NULL, help, 0.05                                          \
    }

static const clv_param params[] = {
    MODE_PARAM("c0_mode", "green's mode (ffmpeg's plane 0 of gbrap)"),
    MODE_PARAM("c1_mode", "blue's mode (plane 1)"),
    MODE_PARAM("c2_mode", "red's mode (plane 2)"),
    MODE_PARAM("c3_mode", "alpha's mode (plane 3)"),
    {"all_mode", CLV_PARAM_ENUM, "unset", -1, 37, "unset|" BL_MODES,
     "every channel's mode (unset: each its own)", 1},
    OPACITY_PARAM("c0_opacity", "green's opacity"),
    OPACITY_PARAM("c1_opacity", "blue's opacity"),
    OPACITY_PARAM("c2_opacity", "red's opacity"),
    OPACITY_PARAM("c3_opacity", "alpha's opacity"),
    OPACITY_PARAM("all_opacity", "every channel's opacity, when below 1"),
    {"eof_action", CLV_PARAM_ENUM, "repeat", 0, 2, "repeat|endall|pass",
     "when the bottom ends: keep its last frame, end the output, or pass the top", 1},
    {"shortest", CLV_PARAM_INT, "0", 0, 1, NULL, "1: end when the bottom ends (endall)", 1},
    {"repeatlast", CLV_PARAM_INT, "1", 0, 1, NULL, "0: pass the top after the bottom ends", 1},
};
_Static_assert(sizeof params / sizeof params[0] == BL_PARAM_COUNT,
               "blend: the enum and the params table differ");

const clv_filter clv__filter_blend = {
    .timeline = 1, /* ffmpeg's enable= */
    .name = "blend",
    .help = "two frames blended per channel by a mode (ffmpeg's blend)",
    .params = params,
    .param_count = BL_PARAM_COUNT,
    .program = "blend",
    .kernels = kernels,
    .deep = 1,
    .run = run,
    .inputs = 2,
    .output_size_n = output_size_n,
    .reference_n = reference_n,
    .eof_action = eof_action,
    .wait_first = 0,
};
