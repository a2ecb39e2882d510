/* geometry.c - the size of each link of a chain: what every filter makes of
 * the size and aspect it gets (clv_filter's output_size), checked. */
#include "clvid_internal.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>

/* ffmpeg's av_reduce for the small ratios of frame sizes: num/den in lowest
 * terms (halved while beyond 31 bits, which frame sizes never reach). */
static void reduce(int64_t num, int64_t den, int *out_num, int *out_den)
{
    if (num <= 0 || den <= 0) {
        *out_num = 0;
        *out_den = 1;
        return;
    }
    int64_t a = num, b = den;
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    num /= a;
    den /= a;
    while (num > 0x7FFFFFFF || den > 0x7FFFFFFF) {
        num >>= 1;
        den >>= 1;
    }
    *out_num = (int)num;
    *out_den = den ? (int)den : 1;
}

void clv__sar_mul(const clv_size *in, int64_t num, int64_t den, clv_size *out)
{
    if (in->sar_num <= 0 || in->sar_den <= 0) {
        out->sar_num = in->sar_num;
        out->sar_den = in->sar_den;
        return;
    }
    reduce((int64_t)in->sar_num * num, (int64_t)in->sar_den * den, &out->sar_num, &out->sar_den);
}

int clv__reduce(int *out_num, int *out_den, int64_t num, int64_t den, int64_t max)
{
    int64_t a0n = 0, a0d = 1, a1n = 1, a1d = 0;
    int sign = (num < 0) ^ (den < 0);
    uint64_t un = num < 0 ? 0 - (uint64_t)num : (uint64_t)num;
    uint64_t ud = den < 0 ? 0 - (uint64_t)den : (uint64_t)den;
    uint64_t a = un, b = ud;
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    if (a) {
        un /= a;
        ud /= a;
    }
    int64_t n = (int64_t)un, d = (int64_t)ud;
    if (n <= max && d <= max) {
        a1n = n;
        a1d = d;
        d = 0;
    }
    while (d) {
        uint64_t x = (uint64_t)(n / d);
        int64_t next_d = n - d * (int64_t)x;
        int64_t a2n = (int64_t)x * a1n + a0n, a2d = (int64_t)x * a1d + a0d;
        if (a2n > max || a2d > max) {
            if (a1n)
                x = (uint64_t)((max - a0n) / a1n);
            if (a1d && (uint64_t)((max - a0d) / a1d) < x)
                x = (uint64_t)((max - a0d) / a1d);
            if (d * (2 * (int64_t)x * a1d + a0d) > n * a1d) {
                a1n = (int64_t)x * a1n + a0n;
                a1d = (int64_t)x * a1d + a0d;
            }
            break;
        }
        a0n = a1n;
        a0d = a1d;
        a1n = a2n;
        a1d = a2d;
        n = d;
        d = next_d;
    }
    *out_num = (int)(sign ? -a1n : a1n);
    *out_den = (int)a1d;
    return d == 0;
}

void clv__d2q(double d, int max, int *out_num, int *out_den)
{
    if (isnan(d)) {
        *out_num = *out_den = 0;
        return;
    }
    if (fabs(d) > INT_MAX + 3LL) {
        *out_num = d < 0 ? -1 : 1;
        *out_den = 0;
        return;
    }
    int exponent;
    frexp(d, &exponent);
    exponent = exponent - 1 > 0 ? exponent - 1 : 0;
    int64_t den = (int64_t)1 << (61 - exponent);
    double num = floor(d * (double)den + 0.5);
    clv__reduce(out_num, out_den, (int64_t)num, den, max);
    if ((!*out_num || !*out_den) && d != 0 && max > 0 && max < INT_MAX)
        clv__reduce(out_num, out_den, (int64_t)num, den, INT_MAX);
}

int clv__filter_output_size_in(const clv_filter *f, const clv_value *values, int place,
                               const char *where, const clv_size *in, clv_size *out, clv_msg *msg)
{
    *out = *in;
    if (!f->output_size)
        return 0;
    clv_msg why = {{0}};
    int err = f->output_size(values, in, out, &why);
    if (err)
        return clv__fail(msg, err, "filter '%s' (#%d in the %s) on %dx%d frames: %s", f->name,
                         place + 1, where, in->width, in->height, why.text);
    if (out->width < 1 || out->height < 1 || out->width > CLV__SIDE_MAX ||
        out->height > CLV__SIDE_MAX)
        return clv__fail(msg, CLV_ERANGE,
                         "filter '%s' (#%d in the %s) makes %dx%d frames of %dx%d ones: each "
                         "side must be from 1 to %d",
                         f->name, place + 1, where, out->width, out->height, in->width, in->height,
                         CLV__SIDE_MAX);
    return 0;
}

int clv__filter_output_size(const clv_filter *f, const clv_value *values, int place,
                            const clv_size *in, clv_size *out, clv_msg *msg)
{
    return clv__filter_output_size_in(f, values, place, "chain", in, out, msg);
}

int clv_chain_desc_output_size(const clv_chain_desc *desc, const clv_size *in, clv_size *out,
                               clv_msg *msg)
{
    clv_size at = *in;
    if (in->width < 1 || in->height < 1)
        return clv__fail(msg, CLV_EINVAL, "frames of %dx%d: each side must be at least 1",
                         in->width, in->height);
    for (int i = 0; i < desc->count; i++) {
        clv_size next;
        int err =
            clv__filter_output_size(desc->item[i].filter, desc->item[i].values, i, &at, &next, msg);
        if (err)
            return err;
        at = next;
    }
    *out = at;
    return 0;
}
