// @help what moved since the previous frame, in red over a dimmed picture
// @param int threshold = 12 [0, 255] step 2 smallest luma change that counts (of 255)
kernel void motion(CLV_ARGS, global const clv_pixel *prev, int threshold)
{
    clv_pixel p = READ(CLV_X, CLV_Y);
    int g = clv_gray(p), d = abs(g - clv_gray(PREV(CLV_X, CLV_Y)));
    // The threshold is on the 8-bit scale: 257 times it at 16 bits.
    if (d > threshold * (CLV_MAX / 255))
        WRITE((clv_pixel)(CLV_MAX, g / 4, g / 4, p.w));
    else
        WRITE((clv_pixel)(g / 3, g / 3, g / 3, p.w));
}
