/* quantize.c - k-means colour quantization on R,G,B, every iteration on the
 * device. The palette carries over from frame to frame. At 16 bits the same
 * definition on 0-65535 channels: squared distances need 64 bits (up to
 * 3 * 65535^2), the palette's centres are 16-bit values. */
#include "filters.h"

#include <string.h>

#define KMAX 256
#define ITER_MAX 100
#define KM_SEG 2048         /* GPU shape: pixels a work-group takes at once (cl/quantize.cl) */
#define GROUP_PX (1u << 24) /* pixels whose sums of bytes stay below 2^32 */
/* The same for 16-bit values: 2^15 pixels and the slack below (a row of at
 * most 16384 pixels, or two KM_SEG units) make at most 49152 values of
 * 65535, below 2^32. */
#define GROUP_PX16 (1u << 15)

/* The parameters, in the order of the table below. */
enum { QUANTIZE_COLORS, QUANTIZE_ITERATIONS, QUANTIZE_PARAM_COUNT };

typedef struct quantize_state {
    cl_kernel seed, assign, reduce, map;
    cl_mem centres, partial;
    cl_mem moved; /* a word a pass: did its reduction move a centre (cl/quantize.cl) */
    size_t partial_bytes;
    int seeded; /* centres hold a palette for colors == k */
    int k;
} quantize_state;

static int init(void *state, clv_context *ctx, cl_program prog, clv_msg *msg)
{
    quantize_state *s = state;
    int err = clv__kernel_create(prog, "km_seed", &s->seed, msg);
    if (!err)
        err = clv__kernel_create(prog, "km_assign", &s->assign, msg);
    if (!err)
        err = clv__kernel_create(prog, "km_reduce", &s->reduce, msg);
    if (!err)
        err = clv__kernel_create(prog, "km_map", &s->map, msg);
    if (err)
        return err;
    cl_int st = CL_SUCCESS;
    s->centres = clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, KMAX * 4 * sizeof(cl_int), NULL, &st);
    if (st == CL_SUCCESS)
        s->moved =
            clCreateBuffer(ctx->cl, CL_MEM_READ_WRITE, (ITER_MAX + 1) * sizeof(cl_int), NULL, &st);
    if (st != CL_SUCCESS)
        return clv__fail(msg, CLV_ENOMEM,
                         "quantize: cannot allocate its palette and pass flags: %s",
                         clv__cl_strerror(st));
    return 0;
}

static int configure(void *state, clv_context *ctx, const clv_value *v, clv_msg *msg)
{
    (void)ctx;
    (void)msg;
    quantize_state *s = state;
    if (s->k != (int)v[QUANTIZE_COLORS].i)
        s->seeded = 0; /* a new number of colours starts afresh */
    s->k = (int)v[QUANTIZE_COLORS].i;
    return 0;
}

static void uninit(void *state)
{
    quantize_state *s = state;
    clv__kernel_release(&s->seed);
    clv__kernel_release(&s->assign);
    clv__kernel_release(&s->reduce);
    clv__kernel_release(&s->map);
    clv__mem_release(&s->centres);
    clv__mem_release(&s->partial);
    clv__mem_release(&s->moved);
}

static int run(void *state, const clv_launch *l)
{
    quantize_state *s = state;
    cl_int k = s->k, iterations = (cl_int)l->values[QUANTIZE_ITERATIONS].i;
    int row = l->ctx->row_shape;
    /* Each group adds its pixels' values into 32-bit sums: enough groups
     * that none takes more than GROUP_PX pixels (plus a row or a unit). */
    const size_t group_px = l->depth == 16 ? GROUP_PX16 : GROUP_PX;
    size_t least = ((size_t)l->width * (size_t)l->height + group_px - 1) / group_px;
    size_t groups;
    if (row) {
        groups = l->ctx->dev.compute_units * 4; /* a row at a time each */
        if (groups < least)
            groups = least;
        if (groups > (size_t)l->height)
            groups = (size_t)l->height;
    } else {
        /* One wave: km_assign's registers let two groups of 256 run at
         * once on a compute unit, and one wave of groups each walking
         * several units of KM_SEG pixels beat more, shorter groups (and
         * waves of other sizes; docs/performance.md). Every group gets the
         * same number of units, so none is left to finish alone. */
        size_t units = ((size_t)l->width * (size_t)l->height + KM_SEG - 1) / KM_SEG;
        size_t wave = l->ctx->dev.compute_units * 2;
        if (wave < least)
            wave = least;
        size_t per = (units + wave - 1) / wave;
        groups = (units + per - 1) / per;
    }
    size_t need = groups * (size_t)k * 4 * sizeof(cl_uint);
    if (need > s->partial_bytes) {
        clv__mem_release(&s->partial);
        s->partial_bytes = 0;
        cl_int st = CL_SUCCESS;
        s->partial = clCreateBuffer(l->ctx->cl, CL_MEM_READ_WRITE, need, NULL, &st);
        if (st != CL_SUCCESS) {
            clv__log(l->ctx, CLV__LOG_ERROR, "quantize: cannot allocate %zu bytes of sums: %s",
                     need, clv__cl_strerror(st));
            return CLV_ENOMEM;
        }
        s->partial_bytes = need;
    }
    cl_int ngroups = (cl_int)groups;
    size_t one = 1, wg = 256, kk = (size_t)k, reduce_global = row ? kk : kk * wg;
    size_t assign_global = row ? groups : groups * wg;
    int err = 0;
    if (!s->seeded) {
        err = clv__kernel_args(s->seed, 0, 6, CLV__ARG(l->src), CLV__ARG(l->width),
                               CLV__ARG(l->height), CLV__ARG(l->stride), CLV__ARG(s->centres),
                               CLV__ARG(k));
        if (!err)
            err = clv__launch(l, s->seed, 1, &kk, NULL);
        if (err)
            return err;
        s->seeded = 1;
    }
    err = clv__kernel_args(s->assign, 0, 8, CLV__ARG(l->src), CLV__ARG(l->width),
                           CLV__ARG(l->height), CLV__ARG(l->stride), CLV__ARG(s->centres),
                           CLV__ARG(k), CLV__ARG(s->partial), CLV__ARG(s->moved));
    if (!err)
        err = clv__kernel_args(s->reduce, 0, 5, CLV__ARG(s->partial), CLV__ARG(ngroups),
                               CLV__ARG(k), CLV__ARG(s->centres), CLV__ARG(s->moved));
    /* Every pass is enqueued; once the centres settle the kernels return at
     * once (cl/quantize.cl), so the host never waits to find out. */
    for (cl_int i = 0; i < iterations && !err; i++) {
        err = clv__kernel_args(s->assign, 8, 1, CLV__ARG(i));
        if (!err)
            err = clv__kernel_args(s->reduce, 5, 1, CLV__ARG(i));
        if (!err)
            err = clv__launch(l, s->assign, 1, &assign_global, row ? &one : &wg);
        if (!err)
            err = clv__launch(l, s->reduce, 1, &reduce_global, row ? NULL : &wg);
    }
    if (!err)
        err = clv__kernel_frame_args(s->map, l);
    if (!err)
        err = clv__kernel_args(s->map, 5, 2, CLV__ARG(s->centres), CLV__ARG(k));
    return err ? err : clv__launch_pixels(l, s->map, l->width, l->height);
}

typedef struct quantize_ref {
    int seeded, k;
    int centre[KMAX][3];
} quantize_ref;

/* The nearest centre to the colour p (R, G, B), the lower index on a tie;
 * squared distances in 64 bits (3 * 65535^2 at 16 bits). */
static int nearest(const quantize_ref *q, const int *p)
{
    int64_t best = INT64_MAX;
    int at = 0;
    for (int j = 0; j < q->k; j++) {
        int64_t dr = p[0] - q->centre[j][0], dg = p[1] - q->centre[j][1],
                db = p[2] - q->centre[j][2];
        int64_t d = dr * dr + dg * dg + db * db;
        if (d < best) {
            best = d;
            at = j;
        }
    }
    return at;
}

static int reference(void *ref_state, const clv_value *v, const clv_image *src, clv_image *dst,
                     uint64_t frame_index)
{
    (void)frame_index;
    quantize_ref *q = ref_state;
    int k = (int)v[QUANTIZE_COLORS].i, w = src->width, h = src->height;
    if (!q->seeded || q->k != k) {
        uint64_t n = (uint64_t)w * (uint64_t)h;
        for (int i = 0; i < k; i++) {
            uint64_t idx = (uint64_t)i * n / (uint64_t)k;
            for (int c = 0; c < 3; c++)
                q->centre[i][c] =
                    clv__get(src, (int)(idx % (uint64_t)w), (int)(idx / (uint64_t)w), c);
        }
        q->seeded = 1;
        q->k = k;
    }
    static const uint64_t zero[KMAX][4];
    uint64_t sum[KMAX][4];
    for (int it = 0; it < v[QUANTIZE_ITERATIONS].i; it++) {
        memcpy(sum, zero, sizeof sum);
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                const int p[3] = {clv__get(src, x, y, 0), clv__get(src, x, y, 1),
                                  clv__get(src, x, y, 2)};
                int j = nearest(q, p);
                for (int c = 0; c < 3; c++)
                    sum[j][c] += p[c];
                sum[j][3]++;
            }
        for (int j = 0; j < k; j++)
            if (sum[j][3])
                for (int c = 0; c < 3; c++)
                    q->centre[j][c] = (int)((sum[j][c] + sum[j][3] / 2) / sum[j][3]);
    }
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            const int p[3] = {clv__get(src, x, y, 0), clv__get(src, x, y, 1),
                              clv__get(src, x, y, 2)};
            int j = nearest(q, p);
            for (int c = 0; c < 3; c++)
                clv__put(dst, x, y, c, q->centre[j][c]);
            clv__put(dst, x, y, 3, clv__get(src, x, y, 3));
        }
    return 0;
}

static const clv_param params[] = {
    {"colors", CLV_PARAM_INT, "16", 1, KMAX, NULL, "palette size k", 1},
    {"iterations", CLV_PARAM_INT, "10", 0, ITER_MAX, NULL, "k-means iterations per frame", 1},
};
_Static_assert(sizeof params / sizeof params[0] == QUANTIZE_PARAM_COUNT,
               "quantize: the enum and the params table differ");

const clv_filter clv__filter_quantize = {
    .name = "quantize",
    .help = "k-means colour quantization; the palette carries over between frames",
    .params = params,
    .param_count = QUANTIZE_PARAM_COUNT,
    .program = "quantize",
    .state_size = sizeof(quantize_state),
    .init = init,
    .configure = configure,
    .uninit = uninit,
    .run = run,
    .temporal = 1,
    .deep = 1,
    .ref_state_size = sizeof(quantize_ref),
    .reference = reference,
};
