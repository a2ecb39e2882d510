/* alphamerge.cl - ffmpeg's alphamerge on RGBA frames: the first input's
 * colours with the second's luma as alpha. ffmpeg takes the alpha input as
 * gray8, swscale's conversion of RGB: clv_gray_sws, ffmpeg's bytes. At 16
 * bits clv_gray, (9798 R + 19235 G + 3735 B + 16384) >> 15 on 0-65535. */

/* present 0: the alpha input is absent (pass): a copy of the first. */
__kernel void alphamerge(CLV_FRAME_ARGS, int dstride, __global const clv_px *alpha, int astride,
                         int present)
{
    /* absent, the second input is the first again (src: the host passes it) */
    CLV_PIXELS2(x, y, p, q, o, alpha, astride, dst, dstride, {
        o = p;
        if (present)
            o.w = (clv_ch)(CLV_DEPTH == 16 ? clv_gray(q) : clv_gray_sws(q.x, q.y, q.z));
    });
}
