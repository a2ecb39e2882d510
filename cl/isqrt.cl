/* isqrt.cl - exact integer square roots, floor(sqrt(m)), for the gradient
 * magnitudes of prewitt (16 bits), sobel and roberts (edge.cl): the
 * device's floating-point root corrected to the exact integer, so every
 * device, whatever its sqrt's error, gives the C reference's number. */

#if CLV_DEPTH == 8
typedef int clv_isqrt_m; /* m fits 31 bits at 8 bits: int arithmetic, no 64-bit code */
#else
typedef long clv_isqrt_m;
#endif

/* floor(sqrt(m)) for 0 <= m < 2^37: the float root is within 0.11 of
 * sqrt(m) (OpenCL's sqrt is within 3 ulp: 0.094 at 2^18, and m's rounding
 * to a float 0.01 more), so one correction each way. */
inline int clv_isqrt(clv_isqrt_m m)
{
    clv_isqrt_m r = (clv_isqrt_m)sqrt((float)m);
    r -= r * r > m;
    r += (r + 1) * (r + 1) <= m;
    return (int)r;
}

/* Doubles where they are fast: CPUs, and NVIDIA's data-centre GPUs (sm_80
 * A100, sm_90 H100/H200: FP64 at half the FP32 rate; the others' is 1/64). */
#if (CLV_ROW || CLV_NV_SM == 80 || CLV_NV_SM == 90) && defined(cl_khr_fp64)
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
/* floor(sqrt(x)) for x < 2^54: the double of x is within 2 of it and its
 * root within 1e-7 of sqrt(x) (a double's root is correctly rounded), so
 * one correction each way, no loop, and it vectorizes. */
inline ulong clv_isqrt64(ulong x)
{
    ulong r = (ulong)sqrt((double)x);
    r -= r * r > x;
    r += (r + 1) * (r + 1) <= x;
    return r;
}
#else
/* floor(sqrt(x)) for x < 2^54: the float root is within about 30 of
 * sqrt(x), one Newton step on the exact residual (in float) within one,
 * and the loops make it exact whatever the device's sqrt. */
inline ulong clv_isqrt64(ulong x)
{
    ulong r = (ulong)sqrt((float)x);
    if (r) {
        const long e = (long)(x - r * r);
        r = (ulong)((long)r + (long)floor((float)e / (float)(2 * r)));
    }
    while (r * r > x)
        --r;
    while ((r + 1) * (r + 1) <= x)
        ++r;
    return r;
}
#endif
