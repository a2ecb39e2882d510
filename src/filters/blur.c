/* blur.c - the passes the blur family shares (filters.h: clv__sep,
 * clv__blur; cl/blur.cl): their kernels, buffers and launches, and their C
 * references. gblur.c, boxblur.c and unsharp.c say what each filter's passes
 * are. */
#include "filters.h"

#include <stdlib.h>
#include <string.h>

int clv__blur_init(clv__blur *b, clv_context *ctx, cl_program prog, int box, clv_msg *msg)
{
    b->box = box;
    if (ctx->row_shape)
        return clv__kernel_create(prog, box ? "box_rows" : "sep_rows", &b->rows, msg);
    int err = clv__kernel_create(prog, box ? "box_h" : "sep_v", &b->first, msg);
    if (!err)
        err = clv__kernel_create(prog, box ? "box_tile" : "sep_tile", &b->tile, msg);
    if (!err && box && ctx->build_depth != 16)
        err = clv__kernel_create(prog, "box_small", &b->small, msg);
    if (!err && box && ctx->build_depth != 16)
        err = clv__kernel_create(prog, "box_strip", &b->strip, msg);
    /* box_cols and box_across (16-bit halves) at 8 bits only; the others
     * at both depths. */
    static const char *const two[5] = {"box_cols", "box_cols32", "box_across", "box_across32",
                                       "box_across_row"};
    for (int k = 0; k < 5 && !err && box; ++k)
        if (ctx->build_depth != 16 || (k != 0 && k != 2))
            err = clv__kernel_create(prog, two[k], k < 2 ? &b->cols[k] : &b->across[k - 2], msg);
    return err ? err : clv__kernel_create(prog, box ? "box_v" : "sep_h", &b->second, msg);
}

void clv__blur_uninit(clv__blur *b)
{
    clv__kernel_release(&b->rows);
    clv__kernel_release(&b->first);
    clv__kernel_release(&b->second);
    clv__kernel_release(&b->tile);
    for (int k = 0; k < 2; ++k)
        clv__kernel_release(&b->cols[k]);
    for (int k = 0; k < 3; ++k)
        clv__kernel_release(&b->across[k]);
    clv__kernel_release(&b->small);
    clv__kernel_release(&b->strip);
    clv__mem_release(&b->work);
    b->work_bytes = 0;
}

int clv__sep_alloc(clv__sep *s, int rv, int rh)
{
    free(s->wv);
    free(s->wh);
    s->rv = rv;
    s->rh = rh;
    s->wv = calloc((size_t)rv + 1, sizeof *s->wv);
    s->wh = calloc((size_t)rh + 1, sizeof *s->wh);
    return s->wv && s->wh ? 0 : CLV_ENOMEM;
}

void clv__sep_release(clv__sep *s)
{
    free(s->wv);
    free(s->wh);
    s->wv = s->wh = NULL;
    clv__mem_release(&s->mv);
    clv__mem_release(&s->mh);
}

/* The device copy of weights w[0 .. r]: r + 1 ints, then where narrow (the
 * weights fit 16 bits) the same as r + 2 shorts, a zero last, so that a CPU
 * kernel reads the pair w[j], w[j + 1] as one 32-bit load (cl/blur.cl's
 * sep_row_narrow). */
static cl_mem weights_buffer(clv_context *ctx, const int *w, int r, int narrow, cl_int *st)
{
    const size_t ints = (size_t)r + 1, shorts = narrow ? (size_t)r + 2 : 0;
    const size_t bytes = ints * sizeof(cl_int) + (shorts + 1) / 2 * sizeof(cl_int);
    cl_int *copy = calloc(bytes / sizeof(cl_int), sizeof(cl_int));
    if (!copy) {
        *st = CL_OUT_OF_HOST_MEMORY;
        return NULL;
    }
    memcpy(copy, w, ints * sizeof(cl_int));
    int16_t *pairs = (int16_t *)(copy + ints);
    for (size_t j = 0; j < shorts; ++j)
        pairs[j] = j < ints ? (int16_t)w[j] : 0;
    cl_mem m = clCreateBuffer(ctx->cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, copy, st);
    free(copy);
    return m;
}

int clv__sep_upload(clv__sep *s, clv_context *ctx, clv_msg *msg)
{
    clv__mem_release(&s->mv);
    clv__mem_release(&s->mh);
    cl_int st;
    s->mv = weights_buffer(ctx, s->wv, s->rv, s->narrow, &st);
    if (st == CL_SUCCESS)
        s->mh = weights_buffer(ctx, s->wh, s->rh, s->narrow, &st);
    if (st != CL_SUCCESS)
        return clv__fail(msg, CLV_ENOMEM, "blur: no device memory for the weights: %s",
                         clv__cl_strerror(st));
    return 0;
}

/* At least need bytes of work (the queue keeps an old buffer while it is
 * still in use). */
static int work_reserve(clv__blur *b, const clv_launch *l, size_t need)
{
    if (b->work && b->work_bytes >= need)
        return 0;
    clv__mem_release(&b->work);
    b->work_bytes = 0;
    cl_int st;
    b->work = clCreateBuffer(l->ctx->cl, CL_MEM_READ_WRITE, need, NULL, &st);
    if (st != CL_SUCCESS) {
        clv__log(l->ctx, CLV__LOG_ERROR, "blur: %zu bytes of sums: %s", need, clv__cl_strerror(st));
        return CLV_ENOMEM;
    }
    b->work_bytes = need;
    return 0;
}

/* The local memory a tile may take: the device's, at most 48 KiB (what
 * NVIDIA's OpenCL gives a work-group), so that every device, PoCL in the
 * tests too, chooses the same tiles. */
static size_t tile_room(const clv_launch *l)
{
    size_t have = (size_t)l->ctx->dev.local_mem;
    have = have < 48 * 1024 ? have : 48 * 1024;
    return have > 1024 ? have - 1024 : 0; /* 1 KiB left for the kernel's own */
}

/* sep_tile's local memory for tiles tw pixels wide: BLUR_TH (16) rows of
 * tw + 2 rh column sums of four uints, the pitch odd (cl/blur.cl). */
static size_t tile_bytes(int tw, int rh)
{
    return (size_t)16 * (size_t)((tw + 2 * rh) | 1) * 4 * sizeof(cl_uint);
}

/* CPUs: a band of rows a work-item, a few bands a compute unit. */
static int band_rows(const clv_launch *l, int *bands)
{
    int units = l->ctx->dev.compute_units ? (int)l->ctx->dev.compute_units : 1;
    int band = (l->height + units * 4 - 1) / (units * 4);
    band = band < 8 ? 8 : band;
    *bands = (l->height + band - 1) / band;
    return band;
}

int clv__sep_run(clv__blur *b, const clv_launch *l, const clv__sep *s, cl_mem in, cl_mem out)
{
    const size_t acc = l->depth == 16 ? 8 : 4; /* a sum: ulong or uint */
    cl_int rv = s->rv, rh = s->rh, vround = s->vround, vshift = s->vshift, fround = s->fround,
           fshift = s->fshift, amount = s->amount, mask = s->mask, narrow = s->narrow;
    int err;
    if (b->rows) {
        int bands;
        cl_int band = band_rows(l, &bands);
        if ((err =
                 work_reserve(b, l, (size_t)bands * 4 * ((size_t)l->width + 2 * (size_t)rh) * acc)))
            return err;
        clv_launch pass = *l;
        pass.src = in;
        pass.dst = out;
        err = clv__kernel_frame_args(b->rows, &pass);
        if (!err)
            err =
                clv__kernel_args(b->rows, 5, 13, CLV__ARG(s->mv), CLV__ARG(rv), CLV__ARG(s->mh),
                                 CLV__ARG(rh), CLV__ARG(vround), CLV__ARG(vshift), CLV__ARG(fround),
                                 CLV__ARG(fshift), CLV__ARG(amount), CLV__ARG(mask),
                                 CLV__ARG(b->work), CLV__ARG(band), CLV__ARG(narrow));
        size_t global = (size_t)bands, one = 1;
        return err ? err : clv__launch(l, b->rows, 1, &global, &one);
    }
    /* One kernel, the column sums of a tile in local memory (cl/blur.cl's
     * sep_tile: tiles of 128 x 16 pixels, or 64 x 16 where the reach makes
     * those too large, 256 work-items), at 16 bits where its 32-bit sums
     * hold (narrow). */
    cl_int tw = tile_bytes(128, rh) <= tile_room(l) ? 128 : 64;
    if ((l->depth == 8 || narrow) && tile_bytes(tw, rh) <= tile_room(l)) {
        clv_launch pass = *l;
        pass.src = in;
        pass.dst = out;
        err = clv__kernel_frame_args(b->tile, &pass);
        if (!err)
            err =
                clv__kernel_args(b->tile, 5, 11, CLV__ARG(s->mv), CLV__ARG(rv), CLV__ARG(s->mh),
                                 CLV__ARG(rh), CLV__ARG(vround), CLV__ARG(vshift), CLV__ARG(fround),
                                 CLV__ARG(fshift), CLV__ARG(amount), CLV__ARG(mask), CLV__ARG(tw));
        if (!err && clSetKernelArg(b->tile, 16, tile_bytes(tw, rh), NULL) != CL_SUCCESS)
            err = CLV_ECL;
        size_t local[2] = {256, 1};
        size_t global[2] = {((size_t)l->width + (size_t)tw - 1) / (size_t)tw * 256,
                            ((size_t)l->height + 15) / 16};
        return err ? err : clv__launch(l, b->tile, 2, global, local);
    }
    if ((err = work_reserve(b, l, (size_t)l->stride * (size_t)l->height * 4 * acc)))
        return err;
    err = clv__kernel_args(b->first, 0, 9, CLV__ARG(in), CLV__ARG(b->work), CLV__ARG(l->width),
                           CLV__ARG(l->height), CLV__ARG(l->stride), CLV__ARG(s->mv), CLV__ARG(rv),
                           CLV__ARG(vround), CLV__ARG(vshift));
    if (!err)
        err = clv__launch_pixels(l, b->first, l->width, l->height);
    if (!err)
        err = clv__kernel_args(b->second, 0, 12, CLV__ARG(in), CLV__ARG(out), CLV__ARG(l->width),
                               CLV__ARG(l->height), CLV__ARG(l->stride), CLV__ARG(b->work),
                               CLV__ARG(s->mh), CLV__ARG(rh), CLV__ARG(fround), CLV__ARG(fshift),
                               CLV__ARG(amount), CLV__ARG(mask));
    return err ? err : clv__launch_pixels(l, b->second, l->width, l->height);
}

/* The box's divisor n = (2rx+1)(2ry+1) as blur_div takes it (m, l), and
 * whether 65535 * n (255 * n) + n/2 passes 32 bits (wide: 64-bit sums). */
typedef struct box_div {
    cl_uint n, m;
    cl_int l, wide;
} box_div;

static box_div box_divisor(int rx, int ry, int depth)
{
    box_div d;
    uint64_t n = (uint64_t)(2 * rx + 1) * (uint64_t)(2 * ry + 1);
    int l = 0;
    while ((1ull << l) < n)
        l++;
    d.n = (cl_uint)n;
    d.l = l;
    d.m = n < 2 ? 0 : (cl_uint)((((1ull << l) - n) << 32) / n + 1);
    d.wide = (uint64_t)(depth == 16 ? 65535 : 255) * n + n / 2 >= (1ull << 32);
    return d;
}

/* box_tile's local memory for stretches of seg: BLUR_BR (8) rows of
 * 32 seg + 1 prefix sums and their 32 stretches' totals, four uints each. */
static size_t box_tile_bytes(int seg)
{
    return (size_t)8 * (size_t)(32 * seg + 1 + 32) * 4 * sizeof(cl_uint);
}

/* box_small's local memory: the tile and its reach as uints (the pitch
 * odd) and its rows' sums, 64 + 1 of two uints a row (cl/blur.cl). */
static size_t box_small_bytes(int rx, int ry)
{
    size_t rows = 32 + 2 * (size_t)ry;
    return rows * ((64 + 2 * (size_t)rx) | 1) * sizeof(cl_uint) + rows * 65 * 2 * sizeof(cl_uint);
}

/* box_strip's local memory for tiles tw wide: 4096 / tw rows of tw + 2rx
 * column sums, two uints each, the pitch odd (cl/blur.cl). */
static size_t box_strip_bytes(int tw, int rx)
{
    return (size_t)(4096 / tw) * (size_t)((tw + 2 * rx) | 1) * 2 * sizeof(cl_uint);
}

/* box_cols and box_across (cl/blur.cl), where the box sums fit 32 bits:
 * the column sums through `work`, two channels a uint in 16-bit halves
 * where they fit (8 bits, 2ry + 1 <= 257) and a channel a uint elsewhere;
 * then tiles of the rows as wide as BC_CAP (1280 sums) leaves beside the
 * reach, or the whole row a work-group (box_across_row) where that would
 * be under 512. The bands of box_cols are those measured fastest on an
 * H200 (docs/performance.md): 128 rows, 256 where 2ry + 1 passes 513. */
static int box_two(clv__blur *b, const clv_launch *l, int rx, int ry, int mask, const box_div *d,
                   cl_mem in, cl_mem out)
{
    const int whole = 2 * rx > 768, packed = !whole && l->depth != 16 && 2 * ry + 1 <= 257;
    const int k = !packed;
    const cl_int band = ry > 256 ? 256 : 128;
    const cl_int crx = rx, cry = ry, cmask = mask;
    const cl_int tw = whole ? l->width : (1280 - 2 * rx) / 256 * 256;
    int err = work_reserve(
        b, l, (size_t)l->width * (size_t)l->height * (packed ? 2 : 4) * sizeof(cl_uint));
    if (!err)
        err = clv__kernel_args(b->cols[k], 0, 7, CLV__ARG(in), CLV__ARG(b->work),
                               CLV__ARG(l->width), CLV__ARG(l->height), CLV__ARG(l->stride),
                               CLV__ARG(cry), CLV__ARG(band));
    size_t local[2] = {256, 1};
    size_t global[2] = {((size_t)l->width + 255) / 256 * 256,
                        ((size_t)l->height + (size_t)band - 1) / (size_t)band};
    if (!err)
        err = clv__launch(l, b->cols[k], 2, global, local);
    cl_kernel across = b->across[whole ? 2 : k];
    if (!err)
        err = clv__kernel_args(across, 0, 11, CLV__ARG(in), CLV__ARG(out), CLV__ARG(l->width),
                               CLV__ARG(l->height), CLV__ARG(l->stride), CLV__ARG(b->work),
                               CLV__ARG(crx), CLV__ARG(d->n), CLV__ARG(d->m), CLV__ARG(d->l),
                               CLV__ARG(cmask));
    if (!err && !whole)
        err = clv__kernel_args(across, 11, 1, CLV__ARG(tw));
    size_t aglobal[2] = {((size_t)l->width + (size_t)tw - 1) / (size_t)tw * 256, (size_t)l->height};
    return err ? err : clv__launch(l, across, 2, aglobal, local);
}

int clv__box_run(clv__blur *b, const clv_launch *l, int rx, int ry, int mask, cl_mem in, cl_mem out)
{
    box_div d = box_divisor(rx, ry, l->depth);
    cl_int crx = rx, cry = ry, cmask = mask;
    int err;
    if (b->rows) {
        int bands;
        cl_int band = band_rows(l, &bands);
        if ((err = work_reserve(b, l,
                                (size_t)bands * ((12 * (size_t)l->width + 7) & ~(size_t)7) *
                                    sizeof(cl_uint))))
            return err;
        clv_launch pass = *l;
        pass.src = in;
        pass.dst = out;
        err = clv__kernel_frame_args(b->rows, &pass);
        if (!err)
            err = clv__kernel_args(b->rows, 5, 9, CLV__ARG(crx), CLV__ARG(cry), CLV__ARG(d.n),
                                   CLV__ARG(d.m), CLV__ARG(d.l), CLV__ARG(d.wide), CLV__ARG(cmask),
                                   CLV__ARG(b->work), CLV__ARG(band));
        size_t global = (size_t)bands, one = 1;
        return err ? err : clv__launch(l, b->rows, 1, &global, &one);
    }
    /* Windows whose tile fits local memory at 8 bits, the rows' sums within
     * 16 bits: box_small's tiles of 64 x 32 pixels. */
    if (b->small && l->depth != 16 && d.n <= 4100 && 2 * rx + 1 <= 257 &&
        box_small_bytes(rx, ry) <= tile_room(l)) {
        clv_launch pass = *l;
        pass.src = in;
        pass.dst = out;
        err = clv__kernel_frame_args(b->small, &pass);
        if (!err)
            err = clv__kernel_args(b->small, 5, 6, CLV__ARG(crx), CLV__ARG(cry), CLV__ARG(d.n),
                                   CLV__ARG(d.m), CLV__ARG(d.l), CLV__ARG(cmask));
        size_t rows = 32 + 2 * (size_t)ry;
        if (!err &&
            (clSetKernelArg(b->small, 11, rows * ((64 + 2 * (size_t)rx) | 1) * sizeof(cl_uint),
                            NULL) != CL_SUCCESS ||
             clSetKernelArg(b->small, 12, rows * 65 * 2 * sizeof(cl_uint), NULL) != CL_SUCCESS))
            err = CLV_ECL;
        size_t local[2] = {256, 1};
        size_t global[2] = {((size_t)l->width + 63) / 64 * 256, ((size_t)l->height + 31) / 32};
        return err ? err : clv__launch(l, b->small, 2, global, local);
    }
    /* At 8 bits where the columns' sums fit 16 bits and the window's 32:
     * box_strip, 256 columns wide in bands of 128 rows, where its 16 rows
     * of column sums fit local memory (reaches across up to 59 in 48 KiB).
     * Longer reaches at 8 bits, and this one's where the columns' sums
     * pass 16 bits: box_cols and box_across (faster from radius 60 on an
     * H200, docs/performance.md). */
    if (b->strip && l->depth != 16 && !d.wide && 2 * ry + 1 <= 257 &&
        box_strip_bytes(256, rx) <= tile_room(l)) {
        const cl_int tw = 256, band = 128;
        clv_launch pass = *l;
        pass.src = in;
        pass.dst = out;
        err = clv__kernel_frame_args(b->strip, &pass);
        if (!err)
            err = clv__kernel_args(b->strip, 5, 8, CLV__ARG(crx), CLV__ARG(cry), CLV__ARG(d.n),
                                   CLV__ARG(d.m), CLV__ARG(d.l), CLV__ARG(cmask), CLV__ARG(tw),
                                   CLV__ARG(band));
        if (!err && clSetKernelArg(b->strip, 13, box_strip_bytes(tw, rx), NULL) != CL_SUCCESS)
            err = CLV_ECL;
        size_t local[2] = {256, 1};
        size_t global[2] = {((size_t)l->width + (size_t)tw - 1) / (size_t)tw * 256,
                            ((size_t)l->height + (size_t)band - 1) / (size_t)band};
        return err ? err : clv__launch(l, b->strip, 2, global, local);
    }
    /* At 16 bits box_tile (below) for reaches up to 32, box_cols and
     * box_across past them (measured on an H200, docs/performance.md).
     * Their local memory is fixed, at most 30,848 bytes: devices with less
     * than OpenCL's 32 KiB take box_tile and the frame of sums below. */
    if (b->cols[1] && !d.wide && l->ctx->dev.local_mem >= 32 * 1024 &&
        (l->depth != 16 || rx > 32 || ry > 32))
        return box_two(b, l, rx, ry, mask, &d, in, out);
    /* One kernel where the sums fit 32 bits and the tile's columns (at most
     * 512) fit local memory, with tiles at least 64 pixels wide (cl/blur.cl's
     * box_tile: seg odd, 32 seg >= tw + 2 rx). */
    cl_int tw = 0, seg = 0;
    for (cl_int s = 15; s >= 1 && !d.wide; s -= 2)
        if (box_tile_bytes(s) <= tile_room(l)) {
            tw = (32 * s - 2 * rx) / 32 * 32;
            tw = tw > 256 ? 256 : tw;
            seg = (tw + 2 * rx + 31) / 32 | 1;
            break;
        }
    if (tw >= 64) {
        /* Bands of rows long enough that their first window (2ry + 1 reads
         * a column) does not dominate, short enough to keep many
         * work-groups. */
        cl_int band = 2 * ry + 1 > 64 ? 128 : 64;
        clv_launch pass = *l;
        pass.src = in;
        pass.dst = out;
        err = clv__kernel_frame_args(b->tile, &pass);
        if (!err)
            err = clv__kernel_args(b->tile, 5, 9, CLV__ARG(crx), CLV__ARG(cry), CLV__ARG(d.n),
                                   CLV__ARG(d.m), CLV__ARG(d.l), CLV__ARG(cmask), CLV__ARG(tw),
                                   CLV__ARG(band), CLV__ARG(seg));
        if (!err && clSetKernelArg(b->tile, 14, box_tile_bytes(seg), NULL) != CL_SUCCESS)
            err = CLV_ECL;
        size_t local[2] = {256, 1};
        size_t global[2] = {((size_t)l->width + (size_t)tw - 1) / (size_t)tw * 256,
                            ((size_t)l->height + (size_t)band - 1) / (size_t)band};
        return err ? err : clv__launch(l, b->tile, 2, global, local);
    }
    if ((err = work_reserve(b, l, (size_t)l->stride * (size_t)l->height * 4 * sizeof(cl_uint))))
        return err;
    /* Otherwise two kernels through a frame of sums: segments of a row and
     * bands of columns long enough that their first window (2r + 1 reads)
     * does not dominate, short enough to keep many work-items. */
    seg = 2 * rx + 1 < 16 ? 16 : 2 * rx + 1 > 64 ? 64 : 2 * rx + 1;
    cl_int band = 2 * ry + 1 < 16 ? 16 : 2 * ry + 1 > 64 ? 64 : 2 * ry + 1;
    err = clv__kernel_args(b->first, 0, 7, CLV__ARG(in), CLV__ARG(b->work), CLV__ARG(l->width),
                           CLV__ARG(l->height), CLV__ARG(l->stride), CLV__ARG(crx), CLV__ARG(seg));
    size_t local[2] = {64, 1};
    size_t global[2] = {((size_t)(l->width + seg - 1) / (size_t)seg + 63) / 64 * 64,
                        (size_t)l->height};
    if (!err)
        err = clv__launch(l, b->first, 2, global, local);
    if (!err)
        err = clv__kernel_args(b->second, 0, 13, CLV__ARG(in), CLV__ARG(out), CLV__ARG(l->width),
                               CLV__ARG(l->height), CLV__ARG(l->stride), CLV__ARG(b->work),
                               CLV__ARG(cry), CLV__ARG(d.n), CLV__ARG(d.m), CLV__ARG(d.l),
                               CLV__ARG(d.wide), CLV__ARG(cmask), CLV__ARG(band));
    size_t vlocal[2] = {64, 1};
    size_t vglobal[2] = {((size_t)(l->width + 3) / 4 + 63) / 64 * 64,
                         (size_t)(l->height + band - 1) / (size_t)band};
    return err ? err : clv__launch(l, b->second, 2, vglobal, vlocal);
}

/* floor(a / 2^16) of a signed product. */
static int64_t floor_shift16(int64_t a)
{
    return a >= 0 ? a / 65536 : -((-a + 65535) / 65536);
}

int clv__sep_reference(const clv__sep *s, const clv_image *src, clv_image *dst)
{
    const int w = src->width, h = src->height, maxv = clv__maxv(src);
    int64_t *t = malloc((size_t)w * (size_t)h * 4 * sizeof *t);
    if (!t)
        return CLV_ENOMEM;
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < 4; c++) {
                int64_t acc = 0;
                for (int j = -s->rv; j <= s->rv; j++)
                    acc += (int64_t)s->wv[j < 0 ? -j : j] * clv__get_clamped(src, x, y + j, c);
                t[((size_t)y * (size_t)w + (size_t)x) * 4 + (size_t)c] =
                    (acc + s->vround) >> s->vshift;
            }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            for (int c = 0; c < 4; c++) {
                int64_t v = clv__get(src, x, y, c), out = v;
                if (s->mask >> c & 1) {
                    int64_t acc = 0;
                    for (int i = -s->rh; i <= s->rh; i++)
                        acc += (int64_t)s->wh[i < 0 ? -i : i] *
                               t[((size_t)y * (size_t)w + (size_t)clv__clamp(x + i, 0, w - 1)) * 4 +
                                 (size_t)c];
                    int64_t blur = (acc + s->fround) >> s->fshift;
                    out = v + floor_shift16((v - blur) * s->amount);
                    out = out < 0 ? 0 : out > maxv ? maxv : out;
                }
                clv__put(dst, x, y, c, (int)out);
            }
    free(t);
    return 0;
}

int clv__box_reference(int rx, int ry, int mask, const clv_image *src, clv_image *dst)
{
    const int w = src->width, h = src->height;
    const int64_t n = (int64_t)(2 * rx + 1) * (2 * ry + 1);
    /* Each row's sums of 2rx+1 pixels, then each column's of 2ry+1 of those,
     * both from running totals over the line with its ends repeated (the
     * edge pixel rx or ry times beyond each end): a window's sum is the
     * difference of two totals, the same at every radius. */
    const int line = (w > h ? w : h) + 2 * (rx > ry ? rx : ry) + 1;
    int64_t *t = malloc((size_t)w * (size_t)h * 4 * sizeof *t);
    int64_t *run = malloc((size_t)line * sizeof *run);
    if (!t || !run) {
        free(t);
        free(run);
        return CLV_ENOMEM;
    }
    for (int y = 0; y < h; y++)
        for (int c = 0; c < 4; c++) {
            run[0] = 0;
            for (int i = -rx; i < w + rx; i++)
                run[i + rx + 1] = run[i + rx] + clv__get_clamped(src, i, y, c);
            for (int x = 0; x < w; x++) /* pixels x-rx .. x+rx */
                t[((size_t)y * (size_t)w + (size_t)x) * 4 + (size_t)c] =
                    run[x + 2 * rx + 1] - run[x];
        }
    for (int x = 0; x < w; x++)
        for (int c = 0; c < 4; c++) {
            run[0] = 0;
            for (int j = -ry; j < h + ry; j++)
                run[j + ry + 1] =
                    run[j + ry] +
                    t[((size_t)clv__clamp(j, 0, h - 1) * (size_t)w + (size_t)x) * 4 + (size_t)c];
            for (int y = 0; y < h; y++) {
                int v = clv__get(src, x, y, c);
                if (mask >> c & 1) {
                    int64_t sum = run[y + 2 * ry + 1] - run[y];
                    v = (int)((sum + n / 2) / n);
                }
                clv__put(dst, x, y, c, v);
            }
        }
    free(t);
    free(run);
    return 0;
}
