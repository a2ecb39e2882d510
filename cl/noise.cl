/* noise.cl - deterministic noise from an integer hash.
 *
 * fmix32 is murmur3's finalizer. For a frame with index f (mod 2^32):
 *   key     = fmix32(seed ^ fmix32(f ^ 0x243F6A88))          (on the host)
 *   row     = fmix32(key + y * 0x9E3779B9)
 *   h       = fmix32(row ^ (x * 0xC2B2AE35 + 0x27D4EB2F))
 * salt and pepper: black when h < T, white when T <= h < 2T, where
 *   T = floor(amount * 2^31) (amount in thousandths, so exact);
 * gaussian: per channel c in 1..3, hc = fmix32(h + c * 0x9E3779B9); the sum
 *   S of hc's four bytes gives z = 2S - 1020 (mean 0, sd 295.6, an
 *   Irwin-Hall approximation of a normal); noise = floor((z * mul + 2^15) /
 *   2^16) with mul = round(sigma * 2^16 / 295.6), added to the channel.
 * At 16 bits (CLV_DEPTH=16) the same hash and the same draws: white is
 * 65535 and the gaussian noise is 257 times the 8-bit noise (sigma stays
 * in 8-bit levels), added and clamped to 0-65535. On a 16-bit frame of
 * 8-bit values (v * 257) the output is exactly 257 times the 8-bit output:
 * clamping 257 (v + n) to 0-65535 is 257 times clamping v + n to 0-255. */

inline uint noise_hash(uint key, int x, int y)
{
    const uint row = clv_fmix32(key + (uint)y * 0x9E3779B9u);
    return clv_fmix32(row ^ ((uint)x * 0xC2B2AE35u + 0x27D4EB2Fu));
}

inline int noise_gauss(uint h, uint c, int mul)
{
    const uint v = clv_fmix32(h + c * 0x9E3779B9u);
    const int s =
        (int)(v & 255u) + (int)((v >> 8) & 255u) + (int)((v >> 16) & 255u) + (int)(v >> 24);
    const int z = 2 * s - 1020;
    return ((z * mul + 32768 + (512 << 16)) >> 16) - 512; /* floor, kept non-negative */
}

#if CLV_DEPTH == 8
__kernel void noise(CLV_FRAME_ARGS, uint key, int gaussian, ulong thr, int mul)
{
    CLV_POINT_PIXELS(x, y, r, g, b, a, {
        const uint hs = noise_hash(key, x, y);
        if (gaussian) {
            r = convert_uchar_sat(r + noise_gauss(hs, 1u, mul));
            g = convert_uchar_sat(g + noise_gauss(hs, 2u, mul));
            b = convert_uchar_sat(b + noise_gauss(hs, 3u, mul));
        } else if ((ulong)hs < thr) {
            r = g = b = 0;
        } else if ((ulong)hs < 2 * thr) {
            r = g = b = 255;
        }
    });
}
#else
__kernel void noise(CLV_FRAME_ARGS, uint key, int gaussian, ulong thr, int mul)
{
    CLV_POINT_PIXELS(x, y, r, g, b, a, {
        const uint hs = noise_hash(key, x, y);
        if (gaussian) {
            r = clv_ch_sat(r + 257 * noise_gauss(hs, 1u, mul));
            g = clv_ch_sat(g + 257 * noise_gauss(hs, 2u, mul));
            b = clv_ch_sat(b + 257 * noise_gauss(hs, 3u, mul));
        } else if ((ulong)hs < thr) {
            r = g = b = 0;
        } else if ((ulong)hs < 2 * thr) {
            r = g = b = CLV_MAXV;
        }
    });
}
#endif
