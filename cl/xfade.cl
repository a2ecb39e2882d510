/* xfade.cl - ffmpeg's xfade transitions (src/filters/xfade.c has the
 * reference, vf_xfade's code). What vf_xfade computes with a library
 * function or a division comes from the host's tables: tab (a value per
 * pixel: circlecrop's distance, circleopen/close's distance over the
 * half-diagonal, dissolve's noise, diag*'s 1 + x/w*y/h), ctab and rtab (per
 * column and row: the smooth family's base, the slices' coordinate and its
 * fract(10 * coordinate) after them), cidx and ridx (pixelize's, squeeze's
 * and zoomin's source columns and rows, -1: the second input), ltab (per
 * level: distance's v / MAX, fadefast's and fadeslow's weights); radial's
 * angle (atan2f) is in tab and its turn a double's bits (cl_khr_fp64: the
 * host refuses radial on a device without it). Here are
 * only float additions, subtractions and multiplications, correctly rounded
 * and not contracted, in vf_xfade's order: the bits of its C code. kind -1
 * and -2 copy the first and the second input. */
#pragma OPENCL FP_CONTRACT OFF
#ifdef cl_khr_fp64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif

enum {
    FADE,
    WIPELEFT,
    WIPERIGHT,
    WIPEUP,
    WIPEDOWN,
    SLIDELEFT,
    SLIDERIGHT,
    SLIDEUP,
    SLIDEDOWN,
    CIRCLECROP,
    RECTCROP,
    DISTANCE,
    FADEBLACK,
    FADEWHITE,
    RADIAL,
    SMOOTHLEFT,
    SMOOTHRIGHT,
    SMOOTHUP,
    SMOOTHDOWN,
    CIRCLEOPEN,
    CIRCLECLOSE,
    VERTOPEN,
    VERTCLOSE,
    HORZOPEN,
    HORZCLOSE,
    DISSOLVE,
    PIXELIZE,
    DIAGTL,
    DIAGTR,
    DIAGBL,
    DIAGBR,
    HLSLICE,
    HRSLICE,
    VUSLICE,
    VDSLICE,
    HBLUR,
    FADEGRAYS,
    WIPETL,
    WIPETR,
    WIPEBL,
    WIPEBR,
    SQUEEZEH,
    SQUEEZEV,
    ZOOMIN,
    FADEFAST,
    FADESLOW,
};

inline float xf_mix(float a, float b, float m)
{
    const float x = a * m, y = b * (1.f - m);
    return x + y;
}

/* smoothstep(0, 1, v): (v - 0) / (1 - 0) is v. */
inline float xf_smooth01(float v)
{
    const float t = v < 0.f ? 0.f : v > 1.f ? 1.f : v;
    const float t2 = t * t;
    return t2 * (3.f - 2.f * t);
}

inline float4 xf_f4(clv_px p)
{
    return (float4)((float)p.x, (float)p.y, (float)p.z, (float)p.w);
}

inline float4 xf_mix4(float4 a, float4 b, float m)
{
    return (float4)(xf_mix(a.x, b.x, m), xf_mix(a.y, b.y, m), xf_mix(a.z, b.z, m),
                    xf_mix(a.w, b.w, m));
}

inline float4 xf_mix4v(float4 a, float4 b, float4 m)
{
    return (float4)(xf_mix(a.x, b.x, m.x), xf_mix(a.y, b.y, m.y), xf_mix(a.z, b.z, m.z),
                    xf_mix(a.w, b.w, m.w));
}

inline clv_px xf_px(float4 v)
{
    return (clv_px)((clv_ch)(int)v.x, (clv_ch)(int)v.y, (clv_ch)(int)v.z, (clv_ch)(int)v.w);
}

/* Pixel (x, y) of the transition between a and b, whose pixels there are
 * pa and pb, t the table tab's value there (xf_uses_tab); both frames
 * w x h. */
inline clv_px xf_pixel(int x, int y, clv_px pa, clv_px pb, float t, __global const clv_px *a,
                       int stride, __global const clv_px *b, int bstride, int w, int h, int kind,
                       float p, int z0, int z1, int z2, float f0, float f1,
                       __global const float *ctab, __global const float *rtab,
                       __global const int *cidx, __global const int *ridx,
                       __global const float *ltab, long turn)
{
    const float4 black = (float4)(0.f, 0.f, 0.f, (float)CLV_MAXV);
    const float4 white = (float4)((float)CLV_MAXV);
    clv_px o;
    switch (kind) {
    case -1:
        o = pa;
        break;
    case -2:
        o = pb;
        break;
    case FADE:
        o = xf_px(xf_mix4(xf_f4(pa), xf_f4(pb), p));
        break;
    case WIPELEFT:
        o = x > z0 ? pb : pa;
        break;
    case WIPERIGHT:
        o = x > z0 ? pa : pb;
        break;
    case WIPEUP:
        o = y > z0 ? pb : pa;
        break;
    case WIPEDOWN:
        o = y > z0 ? pa : pb;
        break;
    case SLIDELEFT:
    case SLIDERIGHT: {
        const int zx = z0 + x, zm = zx % w + w * (zx < 0), zz = zm == w ? 0 : zm;
        o = zx >= 0 && zx < w ? b[y * bstride + zz] : a[y * stride + zz];
        break;
    }
    case SLIDEUP:
    case SLIDEDOWN: {
        const int zy = z0 + y, zm = zy % h + h * (zy < 0), zz = zm == h ? 0 : zm;
        o = zy >= 0 && zy < h ? b[zz * bstride + x] : a[zz * stride + x];
        break;
    }
    case CIRCLECROP:
        o = f0 < t ? xf_px(black) : z2 ? pb : pa;
        break;
    case RECTCROP:
        o = !(abs(x - w / 2) < z0 && abs(y - h / 2) < z1) ? xf_px(black) : z2 ? pb : pa;
        break;
    case DISTANCE: {
        /* gbrap's planes in order: G, B, R, A */
        float dist = 0.f, d;
        d = ltab[pa.y] - ltab[pb.y];
        dist = dist + d * d;
        d = ltab[pa.z] - ltab[pb.z];
        dist = dist + d * d;
        d = ltab[pa.x] - ltab[pb.x];
        dist = dist + d * d;
        d = ltab[pa.w] - ltab[pb.w];
        dist = dist + d * d;
        const float m = dist <= f0 ? 1.f : 0.f;
        o = xf_px(xf_mix4(xf_mix4(xf_f4(pa), xf_f4(pb), m), xf_f4(pb), p));
        break;
    }
    case FADEBLACK:
    case FADEWHITE: {
        const float4 bg = z0 ? white : black;
        o = xf_px(xf_mix4(xf_mix4(xf_f4(pa), bg, f0), xf_mix4(bg, xf_f4(pb), f1), p));
        break;
    }
    case FADEGRAYS: {
        const int g0 = ((int)pa.x + (int)pa.y + (int)pa.z) / 3;
        const int g1 = ((int)pb.x + (int)pb.y + (int)pb.z) / 3;
        const float4 bg0 = (float4)((float)g0, (float)g0, (float)g0, (float)pa.w);
        const float4 bg1 = (float4)((float)g1, (float)g1, (float)g1, (float)pb.w);
        o = xf_px(xf_mix4(xf_mix4(xf_f4(pa), bg0, f0), xf_mix4(bg1, xf_f4(pb), f1), p));
        break;
    }
    case SMOOTHLEFT:
    case SMOOTHRIGHT:
    case VERTOPEN:
    case VERTCLOSE:
        o = xf_px(xf_mix4(xf_f4(pb), xf_f4(pa), xf_smooth01(ctab[x] - f0)));
        break;
    case SMOOTHUP:
    case SMOOTHDOWN:
    case HORZOPEN:
    case HORZCLOSE:
        o = xf_px(xf_mix4(xf_f4(pb), xf_f4(pa), xf_smooth01(rtab[y] - f0)));
        break;
    case DIAGTL:
    case DIAGTR:
    case DIAGBL:
    case DIAGBR:
    case CIRCLECLOSE:
        o = xf_px(xf_mix4(xf_f4(pb), xf_f4(pa), xf_smooth01(t - f0)));
        break;
    case CIRCLEOPEN:
        o = xf_px(xf_mix4(xf_f4(pa), xf_f4(pb), xf_smooth01(t - f0)));
        break;
#ifdef cl_khr_fp64
    case RADIAL: { /* (float)(atan2f(...) - turn) in double, as vf_xfade */
        const float smooth = (float)((double)t - as_double(turn));
        o = xf_px(xf_mix4(xf_f4(pb), xf_f4(pa), xf_smooth01(smooth)));
        break;
    }
#endif
    case DISSOLVE: {
        const float r2 = t * 2.f, s = r2 + f0;
        o = s - 1.5f >= 0.5f ? pa : pb;
        break;
    }
    case PIXELIZE: {
        const int sx = cidx[x], sy = ridx[y];
        o = xf_px(xf_mix4(xf_f4(a[sy * stride + sx]), xf_f4(b[sy * bstride + sx]), p));
        break;
    }
    case HLSLICE:
    case HRSLICE:
    case VUSLICE:
    case VDSLICE: {
        const int row = kind >= VUSLICE;
        const float u = (row ? rtab[y] : ctab[x]) - f0;
        const float fr = row ? rtab[h + y] : ctab[w + x];
        float t = (u + 0.5f) * 2.f; /* (u - -0.5) / (0 - -0.5) */
        t = t < 0.f ? 0.f : t > 1.f ? 1.f : t;
        const float t2 = t * t, smooth = t2 * (3.f - 2.f * t);
        o = smooth <= fr ? pa : pb; /* mix(b, a, ss): ss 0 is a */
        break;
    }
    case WIPETL:
        o = y <= z1 && x <= z0 ? pa : pb;
        break;
    case WIPETR:
        o = y <= z1 && x > z0 ? pa : pb;
        break;
    case WIPEBL:
        o = y > z1 && x <= z0 ? pa : pb;
        break;
    case WIPEBR:
        o = y > z1 && x > z0 ? pa : pb;
        break;
    case SQUEEZEH:
        o = ridx[y] < 0 ? pb : a[ridx[y] * stride + x];
        break;
    case SQUEEZEV:
        o = cidx[x] < 0 ? pb : a[y * stride + cidx[x]];
        break;
    case ZOOMIN:
        o = xf_px(xf_mix4(xf_f4(a[ridx[y] * stride + cidx[x]]), xf_f4(pb), f0));
        break;
    default: { /* FADEFAST, FADESLOW: the weight of each channel's difference */
        const float4 m =
            (float4)(ltab[abs((int)pa.x - (int)pb.x)], ltab[abs((int)pa.y - (int)pb.y)],
                     ltab[abs((int)pa.z - (int)pb.z)], ltab[abs((int)pa.w - (int)pb.w)]);
        o = xf_px(xf_mix4v(xf_f4(pa), xf_f4(pb), m));
        break;
    }
    }
    return o;
}

/* The transitions that read the w x h table tab (src/filters/xfade.c's
 * pixel_table). */
inline int xf_uses_tab(int kind)
{
    return kind == CIRCLECROP || kind == DIAGTL || kind == DIAGTR || kind == DIAGBL ||
           kind == DIAGBR || kind == CIRCLECLOSE || kind == CIRCLEOPEN || kind == RADIAL ||
           kind == DISSOLVE;
}

/* The second input at time 0 lies at the first's; both frames w x h. */
__kernel void xfade(CLV_FRAME_ARGS, int dstride, __global const clv_px *b, int bstride, int kind,
                    float p, int z0, int z1, int z2, float f0, float f1, __global const float *tab,
                    __global const float *ctab, __global const float *rtab,
                    __global const int *cidx, __global const int *ridx, __global const float *ltab,
                    long turn)
{
    const int uses_tab = xf_uses_tab(kind);
#if CLV_ROW
    CLV_PIXEL_LOOP(w, h, x, y)
    {
        const float t = uses_tab ? tab[y * w + x] : 0.f;
        dst[y * dstride + x] =
            xf_pixel(x, y, src[y * stride + x], b[y * bstride + x], t, src, stride, b, bstride, w,
                     h, kind, p, z0, z1, z2, f0, f1, ctab, rtab, cidx, ridx, ltab, turn);
    }
#else
    /* The table's four values with one access too where its rows (w
     * floats) keep them aligned. */
    const int y = (int)get_global_id(1), x0 = (int)get_global_id(0) * 4;
    if (y >= h || x0 >= w)
        return;
    const int n = min(4, w - x0);
    clv_px pa[4], pb[4], o[4];
    float t[4] = {0.f, 0.f, 0.f, 0.f};
    clv_get4(pa, src, y * stride + x0, n);
    clv_get4(pb, b, y * bstride + x0, n);
    if (uses_tab) {
        if (n == 4 && (w & 3) == 0)
            vstore4(*(__global const float4 *)(tab + y * w + x0), 0, t);
        else
            for (int k = 0; k < n; ++k)
                t[k] = tab[y * w + x0 + k];
    }
#pragma unroll
    for (int k = 0; k < 4; ++k)
        if (k < n)
            o[k] = xf_pixel(x0 + k, y, pa[k], pb[k], t[k], src, stride, b, bstride, w, h, kind, p,
                            z0, z1, z2, f0, f1, ctab, rtab, cidx, ridx, ltab, turn);
    clv_put4(dst, y * dstride + x0, n, o);
#endif
}
