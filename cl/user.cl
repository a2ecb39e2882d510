/* user.cl - what clvid puts before a user kernel (the `opencl` filter), so
 * that a kernel of three lines works. The plain form needs none of it:
 *
 *   kernel void NAME(global const uchar4 *src, global uchar4 *dst,
 *                    int width, int height, int stride, ...parameters)
 *
 * runs once per pixel (x, y) = (get_global_id(0), get_global_id(1)) over
 * exactly width x height; rows are `stride` pixels apart; RGBA order.
 * Arguments after the first five are bound by name: each `// @param` of the
 * file (int or float), and, when the kernel asks for them,
 *   int frame                      the frame's index (0, 1, 2, ...)
 *   float time                     frame / frame rate, in seconds
 *   global const uchar4 *prev      the previous frame that entered this
 *                                  filter (the first frame: itself)
 * Lines of the user's file keep their numbers in compiler messages. */

#define CLVID_USER_KERNEL 1

/* The five arguments every kernel starts with. */
#define CLV_ARGS __global const uchar4 *src, __global uchar4 *dst, int width, int height, int stride

/* This work-item's pixel. */
#define CLV_X ((int)get_global_id(0))
#define CLV_Y ((int)get_global_id(1))

/* The pixel at (x, y) of a frame, borders repeated (clamp to edge). */
inline uchar4 clv_read(__global const uchar4 *img, int x, int y, int width, int height, int stride)
{
    x = clamp(x, 0, width - 1);
    y = clamp(y, 0, height - 1);
    return img[y * stride + x];
}

/* The same with the kernel's own arguments: READ for src, PREV for prev. */
#define READ(x, y) clv_read(src, (x), (y), width, height, stride)
#define PREV(x, y) clv_read(prev, (x), (y), width, height, stride)
/* Writes this work-item's output pixel. */
#define WRITE(v) (dst[CLV_Y * stride + CLV_X] = (v))

/* BT.601 luma 0-255, the `gray` filter's (and OpenCV's BGR2GRAY) formula. */
inline int clv_gray(uchar4 p)
{
    return (9798 * p.x + 19235 * p.y + 3735 * p.z + 16384) >> 15;
}

/* Bytes to floats in [0, 1] and back (rounded to nearest, saturated). */
inline float4 clv_unpack(uchar4 p)
{
    return convert_float4(p) * (1.0f / 255.0f);
}
inline uchar4 clv_pack(float4 v)
{
    return convert_uchar4_sat_rte(v * 255.0f);
}
