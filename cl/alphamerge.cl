/* alphamerge.cl - ffmpeg's alphamerge on RGBA frames: the first input's
 * colours with the second's luma as alpha. ffmpeg takes the alpha input as
 * gray8, which its RGB conversion makes full-range BT.601 luma: clv_gray,
 * (9798 R + 19235 G + 3735 B + 16384) >> 15, the same at 16 bits. */

/* present 0: the alpha input is absent (pass): a copy of the first. */
__kernel void alphamerge(CLV_FRAME_ARGS, int dstride, __global const clv_px *alpha, int astride,
                         int present)
{
    /* absent, the second input is the first again (src: the host passes it) */
    CLV_PIXELS2(x, y, p, q, o, alpha, astride, dst, dstride, {
        o = p;
        if (present)
            o.w = (clv_ch)clv_gray(q);
    });
}
