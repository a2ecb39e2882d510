/* curves.cl - ffmpeg's curves (src/filters/curves.c): each of R, G, B
 * through its own table of the depth's codes (256 entries at 8 bits, 65536
 * at 16), built on the host as vf_curves builds its graphs; alpha kept. */

__kernel void curves(CLV_FRAME_ARGS, __global const clv_ch *lut, int n)
{
    CLV_POINT_PIXELS(x, y, r, g, b, a, {
        r = lut[r];
        g = lut[n + g];
        b = lut[2 * n + b];
    });
}
