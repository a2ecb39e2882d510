/* colorkey.cl - ffmpeg's colorkey (src/filters/colorkey.c): alpha from the
 * squared distance of R, G, B to the key, d = sum (m c - n key)^2 (m = n =
 * 1 at 8 bits; 255 and 65535 at 16, ffmpeg's c * 255 / 65535 - key times
 * 65535), through the host's table of levels (keys.cl). R, G and B pass
 * unchanged. */
#include "keys.cl"

#if CLV_DEPTH == 16
#define CK_M 255L
#define CK_N 65535L
#else
#define CK_M 1L
#define CK_N 1L
#endif

inline long colorkey_distance(clv_ch r, clv_ch g, clv_ch b, int kr, int kg, int kb)
{
    const long dr = CK_M * r - CK_N * kr, dg = CK_M * g - CK_N * kg, db = CK_M * b - CK_N * kb;
    return dr * dr + dg * dg + db * db;
}

__kernel void colorkey(CLV_FRAME_ARGS, __global const long *t, int kr, int kg, int kb)
{
    CLV_POINT_PIXELS(x, y, r, g, b, a, a = key_level(t, colorkey_distance(r, g, b, kr, kg, kb)));
}
