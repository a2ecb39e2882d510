/* vignette.cl - ffmpeg's vignette on RGB (src/filters/vignette.c defines
 * it): each channel times the host's factor of its pixel, in 16.16 fixed
 * point (map, w entries a row), plus ffmpeg's dither, truncated:
 *   out = min((c * f + d) >> 16, CLV_MAXV)
 * A factor with bit 31 set is one past 32767 (where ffmpeg's mode=backward
 * divides by a vanishing factor): its low bits are the smallest channel
 * value whose product passes 2^31 (on the 8-bit scale: 2^31 * 257 at 16
 * bits), which ffmpeg's conversion to int makes 0; a channel of 0 gives 0
 * too, the rest CLV_MAXV.
 *
 * The dither is ffmpeg's: a linear congruential generator,
 * x' = 1664525 x + 1013904223 (mod 2^32), from 0 at the first frame, drawn
 * for red, green and blue of every pixel in order, frame after frame: draw
 * k is x_k, d its top 16 bits. A work-item jumps to the draws it needs in
 * log steps (vig_jump: x_k, and vig_jump_mul: the multiplier of k steps). */

#define VIG_A 1664525u
#define VIG_C 1013904223u

/* x_k: the generator after k draws from 0. */
inline uint vig_jump(uint k)
{
    uint mul = 1, add = 0, cur_mul = VIG_A, cur_add = VIG_C;
    while (k) {
        if (k & 1u) {
            mul *= cur_mul;
            add = add * cur_mul + cur_add;
        }
        cur_add = (cur_mul + 1u) * cur_add;
        cur_mul *= cur_mul;
        k >>= 1;
    }
    return add;
}

/* A^k: k draws from x give A^k x + x_k. */
inline uint vig_jump_mul(uint k)
{
    uint mul = 1, cur_mul = VIG_A;
    while (k) {
        if (k & 1u)
            mul *= cur_mul;
        cur_mul *= cur_mul;
        k >>= 1;
    }
    return mul;
}

/* A channel c with factor f and dither d (selects: the row shape's loops
 * vectorize it). */
inline uint vig_channel(uint f, uint c, uint d)
{
    const uint scaled = (uint)min(((ulong)c * f + d) >> 16, (ulong)CLV_MAXV);
    const uint past = c == 0 || c >= (f & 0x7FFFFFFFu) ? 0 : CLV_MAXV;
    return (f & 0x80000000u) ? past : scaled;
}

/* Pixel x of a row (in, out: its channels; fm: its factors) with the draws
 * s0, s1, s2 of its red, green and blue. */
inline void vig_pixel(__global const clv_ch *in, __global clv_ch *out, __global const uint *fm,
                      int x, uint s0, uint s1, uint s2)
{
    const uint f = fm[x];
    out[4 * x] = (clv_ch)vig_channel(f, in[4 * x], s0 >> 16);
    out[4 * x + 1] = (clv_ch)vig_channel(f, in[4 * x + 1], s1 >> 16);
    out[4 * x + 2] = (clv_ch)vig_channel(f, in[4 * x + 2], s2 >> 16);
    out[4 * x + 3] = in[4 * x + 3];
}

#if CLV_ROW
/* The row shape walks the row in VIG_LANES interleaved streams of draws
 * (lane i: pixels i, i + VIG_LANES, ..., 3 VIG_LANES draws a step) so that
 * the lanes are independent and the loop vectorizes; one stream through
 * the row took seven times as long. */
#define VIG_LANES 8

__kernel void vignette(CLV_FRAME_ARGS, __global const uint *map, int dither, uint base)
{
    CLV_ROW_Y(y);
    __global const clv_ch *in = (__global const clv_ch *)(src + y * stride);
    __global clv_ch *out = (__global clv_ch *)(dst + y * stride);
    __global const uint *fm = map + y * w;
    if (!dither) {
        for (int x = 0; x < w; x++)
            vig_pixel(in, out, fm, x, 0, 0, 0);
        return;
    }
    const uint step_mul = vig_jump_mul(3 * VIG_LANES), step_add = vig_jump(3 * VIG_LANES);
    uint lane[VIG_LANES];
    for (int i = 0; i < VIG_LANES; i++)
        lane[i] = vig_jump(base + 3u * (uint)(y * w + i));
    int x0 = 0;
    for (; x0 + VIG_LANES <= w; x0 += VIG_LANES)
        for (int i = 0; i < VIG_LANES; i++) {
            const uint s0 = lane[i], s1 = VIG_A * s0 + VIG_C, s2 = VIG_A * s1 + VIG_C;
            vig_pixel(in, out, fm, x0 + i, s0, s1, s2);
            lane[i] = step_mul * s0 + step_add;
        }
    for (int i = 0; x0 + i < w; i++) {
        const uint s0 = lane[i], s1 = VIG_A * s0 + VIG_C, s2 = VIG_A * s1 + VIG_C;
        vig_pixel(in, out, fm, x0 + i, s0, s1, s2);
    }
}
#else
__kernel void vignette(CLV_FRAME_ARGS, __global const uint *map, int dither, uint base)
{
    const int y = (int)get_global_id(1), x0 = (int)get_global_id(0) * CLV_PX;
    if (y >= h || x0 >= w)
        return;
    __global const clv_ch *in = (__global const clv_ch *)(src + y * stride);
    __global clv_ch *out = (__global clv_ch *)(dst + y * stride);
    uint s = dither ? vig_jump(base + 3u * (uint)(y * w + x0)) : 0u;
    for (int x = x0; x < min(x0 + CLV_PX, w); x++) {
        const uint s0 = s, s1 = VIG_A * s0 + VIG_C, s2 = VIG_A * s1 + VIG_C;
        if (dither)
            vig_pixel(in, out, map + y * w, x, s0, s1, s2);
        else
            vig_pixel(in, out, map + y * w, x, 0, 0, 0);
        s = VIG_A * s2 + VIG_C;
    }
}
#endif
