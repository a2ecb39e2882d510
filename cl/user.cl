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
 * Lines of the user's file keep their numbers in compiler messages.
 *
 * A chain of 16 bits a channel builds the file with CLV_DEPTH=16: frames
 * are RGBA16 (ushort4, 0-65535) and the helpers below work on them. A file
 * written with clv_pixel, CLV_MAX and the helpers only (no uchar) runs at
 * either depth; opencl_file.c decides which files are such. */

#define CLVID_USER_KERNEL 1

#ifndef CLV_DEPTH
#define CLV_DEPTH 8
#endif

/* A pixel of the chain's frames and its channels' largest value. */
#if CLV_DEPTH == 16
typedef ushort4 clv_pixel;
#define CLV_MAX 65535
/* Any 4-vector (int, long, float...) to a pixel, each channel clamped to
 * 0..CLV_MAX (floats rounded toward zero, as convert_*_sat does). */
#define clv_sat(v) convert_ushort4_sat(v)
#else
typedef uchar4 clv_pixel;
#define CLV_MAX 255
#define clv_sat(v) convert_uchar4_sat(v)
#endif

/* The five arguments every kernel starts with. */
#define CLV_ARGS                                                                                   \
    __global const clv_pixel *src, __global clv_pixel *dst, int width, int height, int stride

/* This work-item's pixel. */
#define CLV_X ((int)get_global_id(0))
#define CLV_Y ((int)get_global_id(1))

/* The pixel at (x, y) of a frame, borders repeated (clamp to edge). */
inline clv_pixel clv_read(__global const clv_pixel *img, int x, int y, int width, int height,
                          int stride)
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

/* BT.601 luma 0..CLV_MAX, the `gray` filter's (and OpenCV's BGR2GRAY)
 * formula. The weights sum to 2^15, so 65535 * 2^15 + 2^14 fits an int. */
inline int clv_gray(clv_pixel p)
{
    return (9798 * p.x + 19235 * p.y + 3735 * p.z + 16384) >> 15;
}

/* Channels to floats in [0, 1] (CLV_MAX is 1) and back (rounded to
 * nearest, saturated). */
inline float4 clv_unpack(clv_pixel p)
{
    return convert_float4(p) * (1.0f / (float)CLV_MAX);
}
#if CLV_DEPTH == 16
inline clv_pixel clv_pack(float4 v)
{
    return convert_ushort4_sat_rte(v * 65535.0f);
}
#else
inline clv_pixel clv_pack(float4 v)
{
    return convert_uchar4_sat_rte(v * 255.0f);
}
#endif
