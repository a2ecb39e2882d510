// @help what moved since the previous frame, in red over a dimmed picture
// @param int threshold = 12 [0, 255] step 2 smallest luma change that counts
kernel void motion(CLV_ARGS, global const uchar4 *prev, int threshold)
{
    uchar4 p = READ(CLV_X, CLV_Y);
    int g = clv_gray(p), d = abs(g - clv_gray(PREV(CLV_X, CLV_Y)));
    if (d > threshold)
        WRITE((uchar4)(255, g / 4, g / 4, p.w));
    else
        WRITE((uchar4)(g / 3, g / 3, g / 3, p.w));
}
