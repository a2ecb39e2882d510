/* blend.cl - ffmpeg's blend (vf_blend, blend_modes.c) on RGBA frames: each
 * channel of the top frame (src, the first input) and the bottom one (bot,
 * the second) through its mode E(A, B) and opacity op,
 *   out = (clv_ch)(A + (E(A, B) - A) * op)         (normal: A*op + B*(1-op))
 * in float as ffmpeg writes it (no contraction: the products and sums are
 * correctly rounded, so the host's C computes the same), the conversion to
 * a channel truncating and keeping the low bits as ffmpeg's scalar code
 * does. E is blend_modes.c's integer expression at the frame's depth
 * (MAX 255 or 65535), in 64-bit arithmetic (ffmpeg's int overflows at 16
 * bits where products pass 2^31); src/filters/blend.c has the reference. */
#pragma OPENCL FP_CONTRACT OFF

/* BlendMode's numbers (libavfilter/blend.h). */
enum {
    BL_NORMAL,
    BL_ADDITION,
    BL_AND,
    BL_AVERAGE,
    BL_BURN,
    BL_DARKEN,
    BL_DIFFERENCE,
    BL_GRAINEXTRACT,
    BL_DIVIDE,
    BL_DODGE,
    BL_EXCLUSION,
    BL_HARDLIGHT,
    BL_LIGHTEN,
    BL_MULTIPLY,
    BL_NEGATION,
    BL_OR,
    BL_OVERLAY,
    BL_PHOENIX,
    BL_PINLIGHT,
    BL_REFLECT,
    BL_SCREEN,
    BL_SOFTLIGHT,
    BL_SUBTRACT,
    BL_VIVIDLIGHT,
    BL_XOR,
    BL_HARDMIX,
    BL_LINEARLIGHT,
    BL_GLOW,
    BL_GRAINMERGE,
    BL_MULTIPLY128,
    BL_HEAT,
    BL_FREEZE,
    BL_EXTREMITY,
    BL_SOFTDIFFERENCE,
    BL_GEOMETRIC,
    BL_HARMONIC,
    BL_BLEACH,
    BL_STAIN,
};

#define BL_MAX ((long)CLV_MAXV)
#define BL_HALF ((long)(CLV_MAXV / 2 + 1))
#define BL_BITS ((long)CLV_DEPTH)

inline long bl_clip(long v)
{
    return v < 0 ? 0 : v > BL_MAX ? BL_MAX : v;
}

inline long bl_burn(long a, long b)
{
    return a == 0 ? a : max(0L, BL_MAX - ((BL_MAX - b) << BL_BITS) / a);
}

inline long bl_dodge(long a, long b)
{
    return a == BL_MAX ? a : min(BL_MAX, (b << BL_BITS) / (BL_MAX - a));
}

/* sqrt(n) rounded to nearest (n < 2^32): lrintf(sqrtf(n)) at 8 bits. */
inline long bl_sqrt_round(long n)
{
    long lo = 0, hi = 65536;
    while (hi - lo > 1) {
        long mid = (lo + hi) / 2;
        if (mid * mid <= n)
            lo = mid;
        else
            hi = mid;
    }
    return n - lo * lo > lo ? lo + 1 : lo;
}

inline long bl_mode(int mode, long A, long B)
{
    switch (mode) {
    case BL_ADDITION:
        return min(BL_MAX, A + B);
    case BL_AND:
        return A & B;
    case BL_AVERAGE:
        return (A + B) / 2;
    case BL_BURN:
        return bl_burn(A, B);
    case BL_DARKEN:
        return min(A, B);
    case BL_DIFFERENCE:
        return A > B ? A - B : B - A;
    case BL_GRAINEXTRACT:
        return bl_clip(BL_HALF + A - B);
    case BL_DIVIDE:
        return bl_clip(B == 0 ? BL_MAX : BL_MAX * A / B);
    case BL_DODGE:
        return bl_dodge(A, B);
    case BL_EXCLUSION:
        return A + B - 2 * A * B / BL_MAX;
    case BL_HARDLIGHT:
        return B < BL_HALF ? 2 * (B * A / BL_MAX)
                           : BL_MAX - 2 * ((BL_MAX - B) * (BL_MAX - A) / BL_MAX);
    case BL_LIGHTEN:
        return max(A, B);
    case BL_MULTIPLY:
        return A * B / BL_MAX;
    case BL_NEGATION: {
        long d = BL_MAX - A - B;
        return BL_MAX - (d < 0 ? -d : d);
    }
    case BL_OR:
        return A | B;
    case BL_OVERLAY:
        return A < BL_HALF ? 2 * (A * B / BL_MAX)
                           : BL_MAX - 2 * ((BL_MAX - A) * (BL_MAX - B) / BL_MAX);
    case BL_PHOENIX:
        return min(A, B) - max(A, B) + BL_MAX;
    case BL_PINLIGHT:
        return B < BL_HALF ? min(A, 2 * B) : max(A, 2 * (B - BL_HALF));
    case BL_REFLECT:
        return B == BL_MAX ? B : min(BL_MAX, A * A / (BL_MAX - B));
    case BL_SCREEN:
        return BL_MAX - (BL_MAX - A) * (BL_MAX - B) / BL_MAX;
    case BL_SOFTLIGHT:
        return bl_clip(A * A / BL_MAX + (2 * (B * ((A * (BL_MAX - A)) / BL_MAX) / BL_MAX)));
    case BL_SUBTRACT:
        return max(0L, A - B);
    case BL_VIVIDLIGHT:
        return A < BL_HALF ? bl_burn(2 * A, B) : bl_dodge(2 * (A - BL_HALF), B);
    case BL_XOR:
        return A ^ B;
    case BL_HARDMIX:
        return A < BL_MAX - B ? 0 : BL_MAX;
    case BL_LINEARLIGHT:
        return bl_clip(B < BL_HALF ? B + 2 * A - BL_MAX : B + 2 * (A - BL_HALF));
    case BL_GLOW:
        return A == BL_MAX ? A : min(BL_MAX, B * B / (BL_MAX - A));
    case BL_GRAINMERGE:
        return bl_clip(A + B - BL_HALF);
    case BL_MULTIPLY128: /* (A - HALF) * B / (MAX + 1) * 8 + HALF, truncated */
        return bl_clip(((A - BL_HALF) * B + BL_HALF * ((BL_MAX + 1) / 8)) / ((BL_MAX + 1) / 8));
    case BL_HEAT:
        return A == 0 ? 0 : BL_MAX - min(((BL_MAX - B) * (BL_MAX - B)) / A, BL_MAX);
    case BL_FREEZE:
        return B == 0 ? 0 : BL_MAX - min(((BL_MAX - A) * (BL_MAX - A)) / B, BL_MAX);
    case BL_EXTREMITY: {
        long d = BL_MAX - A - B;
        return d < 0 ? -d : d;
    }
    case BL_SOFTDIFFERENCE:
        return bl_clip(A > B ? (B == BL_MAX ? 0 : (A - B) * BL_MAX / (BL_MAX - B))
                             : (B == 0 ? 0 : (B - A) * BL_MAX / B));
    case BL_GEOMETRIC:
        return bl_sqrt_round(A * B);
    case BL_HARMONIC:
        return A == 0 && B == 0 ? 0 : 2 * A * B / (A + B);
    case BL_BLEACH:
        return (BL_MAX - B) + (BL_MAX - A) - BL_MAX;
    case BL_STAIN:
        return 2 * BL_MAX - A - B;
    default:
        return A;
    }
}

inline int bl_normal(float op, int a, int b)
{
    return (int)((float)a * op + (float)b * (1.0f - op)) & CLV_MAXV;
}

inline int bl_channel(int mode, float op, int a, int b)
{
    if (mode == BL_NORMAL)
        return bl_normal(op, a, b);
    return (int)((float)a + (float)(bl_mode(mode, a, b) - a) * op) & CLV_MAXV;
}

/* modes and ops in RGBA order (the host maps ffmpeg's G, B, R, A planes). */
__kernel void blend(CLV_FRAME_ARGS, int dstride, __global const clv_px *bot, int bstride,
                    int4 modes, float4 ops)
{
    CLV_PIXEL_LOOP(w, h, x, y)
    {
        const clv_px p = src[y * stride + x], q = bot[y * bstride + x];
        const int r = bl_channel(modes.x, ops.x, p.x, q.x);
        const int g = bl_channel(modes.y, ops.y, p.y, q.y);
        const int b = bl_channel(modes.z, ops.z, p.z, q.z);
        const int a = bl_channel(modes.w, ops.w, p.w, q.w);
        dst[y * dstride + x] = (clv_px)((clv_ch)r, (clv_ch)g, (clv_ch)b, (clv_ch)a);
    }
}

/* Every channel normal (the default, and an absent bottom frame): the
 * host's choice, the GPU shape's four pixels at a time (CLV_PIXELS2). A
 * kernel of its own: beside the modes' switch in one kernel the normal path
 * stayed well below the copy speed, and the other modes ran slower four
 * pixels at a time than one (so blend keeps its loop). */
__kernel void blend_normal(CLV_FRAME_ARGS, int dstride, __global const clv_px *bot, int bstride,
                           int4 modes, float4 ops)
{
    CLV_PIXELS2(x, y, p, q, o, bot, bstride, dst, dstride,
                o = (clv_px)((clv_ch)bl_normal(ops.x, p.x, q.x), (clv_ch)bl_normal(ops.y, p.y, q.y),
                             (clv_ch)bl_normal(ops.z, p.z, q.z),
                             (clv_ch)bl_normal(ops.w, p.w, q.w)));
}
