/* deint.c - ffmpeg's deinterlacers yadif and bwdif (libavfilter/vf_yadif.c,
 * vf_bwdif.c, yadif_common.c), on R, G, B and A as ffmpeg's on gbrap:
 * cl/deint.cl.
 *
 * Each output frame is made from three input frames (the previous, the
 * current, the next), so the filter holds one frame back: its output for
 * frame n comes with frame n + 1 (clv_chain_delay), and once the stream
 * ends (clv_chain_end) the caller sends the last frame once more to flush
 * it, which takes it as its own next, as ffmpeg's does. The first frame is
 * its own previous. mode send_field gives two frames per frame (one per
 * field, clv_chain_rate): the caller runs the chain twice on each frame;
 * the second run makes the second field's frame from what the first kept
 * (its input is not read). bwdif's first field of the first frame and last
 * field of the last one are spatial only (ffmpeg's YADIF_FIELD_END).
 *
 * clvid's frames carry no interlaced flag: parity auto takes top field
 * first (as ffmpeg does for a frame not flagged interlaced) and deint
 * interlaced deinterlaces every frame, as all. Frames of fewer than 3 rows
 * or columns, which ffmpeg refuses, take the same formulas with every row
 * clamped into the frame. At 16 bits the definition is ffmpeg's on 16-bit
 * planes (bwdif's edge rows included, see cl/deint.cl). */
#include "filters.h"

#include <stdlib.h>
#include <string.h>

enum { DI_MODE, DI_PARITY, DI_DEINT, DI_PARAM_COUNT };
enum { DI_AUTO, DI_TFF, DI_BFF }; /* parity's words: -1, 0, 1 in ffmpeg */

/* ---- What each run does: shared by the device and the reference ------- */

typedef struct di_clock {
    uint64_t runs; /* runs so far: a frame's fields are runs rate apart */
    int have;      /* frames held: 0, 1 (the first) or 2 (prev is a frame of its own) */
    int ended;     /* clv_chain_end: the runs flush, next = cur */
} di_clock;

typedef struct di_plan {
    int start;  /* the first frame: cur and next both take it */
    int rotate; /* prev <- cur <- next, then next <- the input (or cur at the end) */
    int field;  /* -1: no output yet (cur copied, the caller drops it); 0 or 1 */
    int intra;  /* bwdif: spatial only */
} di_plan;

static int di_rate(const clv_value *v)
{
    return (v[DI_MODE].i & 1) ? 2 : 1;
}

static di_plan di_step(di_clock *k, const clv_value *v, int bwdif)
{
    di_plan p = {0, 0, -1, 0};
    const int phase = (int)(k->runs++ % (uint64_t)di_rate(v));
    if (phase == 0) {
        if (k->have == 0) {
            p.start = !k->ended;
            k->have = p.start;
            return p;
        }
        p.rotate = 1;
        p.field = 0;
        p.intra = bwdif && !k->ended && k->have == 1;
        k->have = 2;
    } else if (k->have == 2) {
        p.field = 1;
        p.intra = bwdif && k->ended;
    }
    return p;
}

/* The rows a field interpolates ((y ^ parity) & 1) and which frames pair
 * with cur (p2, ffmpeg's parity ^ tff), as ffmpeg's return_frame. */
static void di_rows(const clv_value *v, int field, cl_int *parity, cl_int *p2)
{
    const int tff = v[DI_PARITY].i != DI_BFF;
    *parity = tff ^ (field == 0);
    *p2 = *parity ^ tff;
}

static void di_cadence(const clv_value *v, int *delay, int *rate)
{
    *delay = 1;
    *rate = di_rate(v);
}

/* ---- The device ----------------------------------------------------------- */

typedef struct di_state {
    cl_kernel kernel; /* first: the chain creates it (kernels) */
    cl_mem frame[3];  /* copies of the input: prev, cur, next as `at` says */
    int at[3];        /* frame[at[0]] is prev, frame[at[1]] cur, frame[at[2]] next */
    int w, h, stride; /* the frames held (stride in pixels) */
    di_clock clock;
    int bwdif;
} di_state;

static void release_frames(di_state *s)
{
    for (int i = 0; i < 3; i++)
        clv__mem_release(&s->frame[i]);
    s->w = s->h = s->stride = 0;
    s->clock.have = 0;
}

static void uninit(void *state)
{
    release_frames(state);
}

/* New values take effect at the next frame; the frames held stay. */
static int configure(void *state, clv_context *ctx, const clv_value *values, clv_msg *msg)
{
    (void)state;
    (void)ctx;
    (void)values;
    (void)msg;
    return 0;
}

static void end(void *state)
{
    ((di_state *)state)->clock.ended = 1;
}

/* The stream starts again: the next frame is a first (the buffers stay). */
static void restart(void *state)
{
    di_state *s = state;
    memset(&s->clock, 0, sizeof s->clock);
}

/* The frames of a new size (or stride): the stream starts again. */
static int hold(di_state *s, const clv_launch *l)
{
    if (s->w == l->width && s->h == l->height && s->stride == l->stride && s->frame[0])
        return 0;
    release_frames(s);
    const size_t bytes = (size_t)l->stride * (size_t)l->height * (l->depth == 16 ? 8 : 4);
    cl_int st = CL_SUCCESS;
    for (int i = 0; i < 3 && st == CL_SUCCESS; i++)
        s->frame[i] = clCreateBuffer(l->ctx->cl, CL_MEM_READ_WRITE, bytes, NULL, &st);
    if (st != CL_SUCCESS) {
        release_frames(s);
        clv__log(l->ctx, CLV__LOG_ERROR, "%s: cannot hold three %dx%d frames: %s",
                 s->bwdif ? "bwdif" : "yadif", l->width, l->height, clv__cl_strerror(st));
        return CLV_ENOMEM;
    }
    s->w = l->width;
    s->h = l->height;
    s->stride = l->stride;
    return 0;
}

static int copy_frame(const clv_launch *l, cl_mem from, cl_mem to)
{
    const size_t px = l->depth == 16 ? 8 : 4;
    const size_t bytes = ((size_t)l->stride * (size_t)(l->height - 1) + (size_t)l->width) * px;
    int err = 0;
    CLV__CL_CHECK(l->ctx, clEnqueueCopyBuffer(l->queue, from, to, 0, 0, bytes, 0, NULL, NULL),
                  "deinterlacer: clEnqueueCopyBuffer");
fail:
    return err;
}

static int run(void *state, const clv_launch *l)
{
    di_state *s = state;
    int err = hold(s, l);
    if (err)
        return err;
    const di_plan p = di_step(&s->clock, l->values, s->bwdif);
    cl_mem *f = s->frame;
    if (p.start) {
        if ((err = copy_frame(l, l->src, f[s->at[1]])) ||
            (err = copy_frame(l, l->src, f[s->at[2]])))
            return err;
    } else if (p.rotate) {
        const int old_prev = s->at[0];
        s->at[0] = s->at[1];
        s->at[1] = s->at[2];
        s->at[2] = old_prev;
        if ((err = copy_frame(l, s->clock.ended ? f[s->at[1]] : l->src, f[s->at[2]])))
            return err;
    }
    cl_int parity = 0, p2 = 0, copy = p.field < 0, w = l->width, h = l->height, stride = l->stride,
           dstride = l->out_stride;
    cl_int mode = s->bwdif ? p.intra : (cl_int)l->values[DI_MODE].i;
    if (!copy)
        di_rows(l->values, p.field, &parity, &p2);
    if (s->clock.have == 0) /* nothing held (a flush with no frame): the input */
        err = clv__kernel_args(s->kernel, 0, 4, CLV__ARG(l->dst), CLV__ARG(l->src),
                               CLV__ARG(l->src), CLV__ARG(l->src));
    else
        err = clv__kernel_args(s->kernel, 0, 4, CLV__ARG(l->dst), CLV__ARG(f[s->at[0]]),
                               CLV__ARG(f[s->at[1]]), CLV__ARG(f[s->at[2]]));
    if (!err)
        err = clv__kernel_args(s->kernel, 4, 8, CLV__ARG(w), CLV__ARG(h), CLV__ARG(stride),
                               CLV__ARG(dstride), CLV__ARG(parity), CLV__ARG(p2), CLV__ARG(mode),
                               CLV__ARG(copy));
    return err ? err : clv__launch_pixels(l, s->kernel, l->width, l->height);
}

static int init_yadif(void *state, clv_context *ctx, cl_program prog, clv_msg *msg)
{
    (void)ctx;
    (void)prog;
    (void)msg;
    di_state *s = state;
    s->bwdif = 0;
    for (int i = 0; i < 3; i++)
        s->at[i] = i;
    return 0;
}

static int init_bwdif(void *state, clv_context *ctx, cl_program prog, clv_msg *msg)
{
    (void)ctx;
    (void)prog;
    (void)msg;
    di_state *s = state;
    s->bwdif = 1;
    for (int i = 0; i < 3; i++)
        s->at[i] = i;
    return 0;
}

/* ---- The reference: vf_yadif's and vf_bwdif's filter_slice --------------- */

typedef struct di_ref {
    clv_image frame[3]; /* prev, cur, next as at says */
    int at[3];
    di_clock clock;
} di_ref;

static void reference_uninit(void *ref_state)
{
    di_ref *r = ref_state;
    for (int i = 0; i < 3; i++)
        clv_image_free(&r->frame[i]);
    memset(r, 0, sizeof *r);
}

static void reference_end(void *ref_state)
{
    ((di_ref *)ref_state)->clock.ended = 1;
}

static void copy_image(const clv_image *from, clv_image *to)
{
    for (int y = 0; y < from->height; y++)
        memcpy(to->pixels + (size_t)y * to->stride, from->pixels + (size_t)y * from->stride,
               (size_t)from->width * (size_t)clv_image_pixel_bytes(from));
}

static int clampi(int v, int lo, int hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

static int absi(int v)
{
    return v < 0 ? -v : v;
}

/* vf_yadif's FILTER for channel c of (x, y): m, p the rows above and below,
 * mode its mode there (2 on rows 1 and h - 2), the spatial check inside
 * 3 columns of the sides. */
static int yadif_px(const clv_image *prev, const clv_image *cur, const clv_image *next, int p2,
                    int x, int y, int c, int m, int p, int mode)
{
    const clv_image *prev2 = p2 ? prev : cur, *next2 = p2 ? cur : next;
    const int h = cur->height, w = cur->width;
#define AT(img, xx, r) clv__get(img, xx, r, c)
    const int cc = AT(cur, x, m), e = AT(cur, x, p);
    const int d = (AT(prev2, x, y) + AT(next2, x, y)) >> 1;
    const int temporal_diff0 = absi(AT(prev2, x, y) - AT(next2, x, y));
    const int temporal_diff1 = (absi(AT(prev, x, m) - cc) + absi(AT(prev, x, p) - e)) >> 1;
    const int temporal_diff2 = (absi(AT(next, x, m) - cc) + absi(AT(next, x, p) - e)) >> 1;
    int diff = clv__max3(temporal_diff0 >> 1, temporal_diff1, temporal_diff2);
    int spatial_pred = (cc + e) >> 1;
    if (x >= 3 && x < w - 3) {
        int spatial_score = absi(AT(cur, x - 1, m) - AT(cur, x - 1, p)) + absi(cc - e) +
                            absi(AT(cur, x + 1, m) - AT(cur, x + 1, p)) - 1;
        /* ffmpeg's CHECK(j): the line through (x + j, m) and (x - j, p);
         * j = +-2 is tried only when j = +-1 scored better. */
        for (int side = -1; side <= 1; side += 2)
            for (int j = side; j == side || j == 2 * side; j += side) {
                const int score = absi(AT(cur, x - 1 + j, m) - AT(cur, x - 1 - j, p)) +
                                  absi(AT(cur, x + j, m) - AT(cur, x - j, p)) +
                                  absi(AT(cur, x + 1 + j, m) - AT(cur, x + 1 - j, p));
                if (score >= spatial_score)
                    break;
                spatial_score = score;
                spatial_pred = (AT(cur, x + j, m) + AT(cur, x - j, p)) >> 1;
            }
    }
    if (!(mode & 2)) {
        const int rb = clampi(y + 2 * (m - y), 0, h - 1), rf = clampi(y + 2 * (p - y), 0, h - 1);
        const int b = (AT(prev2, x, rb) + AT(next2, x, rb)) >> 1;
        const int f = (AT(prev2, x, rf) + AT(next2, x, rf)) >> 1;
        const int mx = clv__max3(d - e, d - cc, b - cc < f - e ? b - cc : f - e);
        const int mn = clv__min3(d - e, d - cc, b - cc > f - e ? b - cc : f - e);
        diff = clv__max3(diff, mn, -mx);
    }
#undef AT
    if (spatial_pred > d + diff)
        spatial_pred = d + diff;
    else if (spatial_pred < d - diff)
        spatial_pred = d - diff;
    return spatial_pred;
}

/* vf_bwdif's filter_intra, filter_edge and filter_line for channel c of
 * (x, y); df its bytes a sample (its edge rows depend on it). */
static int bwdif_px(const clv_image *prev, const clv_image *cur, const clv_image *next, int p2,
                    int x, int y, int c, int intra)
{
    static const int lf[2] = {4309, 213}, hf[3] = {5570, 3801, 1016}, sp[2] = {5077, 981};
    const clv_image *prev2 = p2 ? prev : cur, *next2 = p2 ? cur : next;
    const int h = cur->height, df = clv__depth(cur) == 16 ? 2 : 1, maxv = clv__maxv(cur);
#define ROW(r) clampi(r, 0, h - 1)
#define AT(img, r) clv__get(img, x, ROW(r), c)
    const int edge = y < 4 || y + 5 > h;
    const int p = edge || intra ? (y + df < h ? y + 1 : y - 1) : y + 1;
    const int m = edge || intra ? (y > df - 1 ? y - 1 : y + 1) : y - 1;
    const int p3 = intra ? (y + 3 * df < h ? y + 3 : y - 1) : y + 3;
    const int m3 = intra ? (y > 3 * df - 1 ? y - 3 : y + 1) : y - 3;
    if (intra)
        return clampi((sp[0] * (AT(cur, m) + AT(cur, p)) - sp[1] * (AT(cur, m3) + AT(cur, p3))) >>
                          13,
                      0, maxv);
    const int cc = AT(cur, m), e = AT(cur, p);
    const int d = (AT(prev2, y) + AT(next2, y)) >> 1;
    const int temporal_diff0 = absi(AT(prev2, y) - AT(next2, y));
    const int temporal_diff1 = (absi(AT(prev, m) - cc) + absi(AT(prev, p) - e)) >> 1;
    const int temporal_diff2 = (absi(AT(next, m) - cc) + absi(AT(next, p) - e)) >> 1;
    int diff = clv__max3(temporal_diff0 >> 1, temporal_diff1, temporal_diff2);
    if (!diff)
        return d;
    if (!edge || !(y < 2 || y + 3 > h)) {
        const int b = ((AT(prev2, y - 2) + AT(next2, y - 2)) >> 1) - cc;
        const int f = ((AT(prev2, y + 2) + AT(next2, y + 2)) >> 1) - e;
        const int mx = clv__max3(d - e, d - cc, b < f ? b : f);
        const int mn = clv__min3(d - e, d - cc, b > f ? b : f);
        diff = clv__max3(diff, mn, -mx);
    }
    int interpol;
    if (edge)
        interpol = (cc + e) >> 1;
    else if (absi(cc - e) > temporal_diff0)
        interpol =
            (((hf[0] * (AT(prev2, y) + AT(next2, y)) -
               hf[1] * (AT(prev2, y - 2) + AT(next2, y - 2) + AT(prev2, y + 2) + AT(next2, y + 2)) +
               hf[2] *
                   (AT(prev2, y - 4) + AT(next2, y - 4) + AT(prev2, y + 4) + AT(next2, y + 4))) >>
              2) +
             lf[0] * (cc + e) - lf[1] * (AT(cur, y - 3) + AT(cur, y + 3))) >>
            13;
    else
        interpol = (sp[0] * (cc + e) - sp[1] * (AT(cur, y - 3) + AT(cur, y + 3))) >> 13;
#undef AT
#undef ROW
    if (interpol > d + diff)
        interpol = d + diff;
    else if (interpol < d - diff)
        interpol = d - diff;
    return clampi(interpol, 0, maxv);
}

static int reference_di(void *ref_state, const clv_value *v, const clv_image *src, clv_image *dst,
                        int bwdif)
{
    di_ref *r = ref_state;
    const int w = src->width, h = src->height, depth = clv__depth(src);
    if (!r->frame[0].pixels || r->frame[0].width != w || r->frame[0].height != h ||
        clv__depth(&r->frame[0]) != depth) {
        for (int i = 0; i < 3; i++) {
            clv_image_free(&r->frame[i]);
            if (clv_image_alloc_depth(&r->frame[i], w, h, depth))
                return CLV_ENOMEM;
            r->at[i] = i;
        }
        r->clock.have = 0;
    }
    const di_plan p = di_step(&r->clock, v, bwdif);
    clv_image *f = r->frame;
    if (p.start) {
        copy_image(src, &f[r->at[1]]);
        copy_image(src, &f[r->at[2]]);
    } else if (p.rotate) {
        const int old_prev = r->at[0];
        r->at[0] = r->at[1];
        r->at[1] = r->at[2];
        r->at[2] = old_prev;
        copy_image(r->clock.ended ? &f[r->at[1]] : src, &f[r->at[2]]);
    }
    const clv_image *prev = &f[r->at[0]], *cur = &f[r->at[1]], *next = &f[r->at[2]];
    if (r->clock.have == 0)
        cur = src;
    cl_int parity = 0, p2 = 0;
    if (p.field >= 0)
        di_rows(v, p.field, &parity, &p2);
    for (int y = 0; y < h; y++) {
        const int keep = p.field < 0 || !((y ^ parity) & 1);
        const int m = clampi(y ? y - 1 : y + 1, 0, h - 1),
                  pr = clampi(y + 1 < h ? y + 1 : y - 1, 0, h - 1);
        const int mode = y == 1 || y + 2 == h ? 2 : (int)v[DI_MODE].i;
        for (int x = 0; x < w; x++)
            for (int c = 0; c < 4; c++)
                clv__put(dst, x, y, c,
                         keep    ? clv__get(cur, x, y, c)
                         : bwdif ? bwdif_px(prev, cur, next, p2, x, y, c, p.intra)
                                 : yadif_px(prev, cur, next, p2, x, y, c, m, pr, mode));
    }
    return 0;
}

static int reference_yadif(void *ref_state, const clv_value *v, const clv_image *src,
                           clv_image *dst, uint64_t frame_index)
{
    (void)frame_index;
    return reference_di(ref_state, v, src, dst, 0);
}

static int reference_bwdif(void *ref_state, const clv_value *v, const clv_image *src,
                           clv_image *dst, uint64_t frame_index)
{
    (void)frame_index;
    return reference_di(ref_state, v, src, dst, 1);
}

/* ffmpeg's options, in its order; a number picks a word as in ffmpeg
 * (parity -1 auto, 0 tff, 1 bff). */
static const clv_param yadif_params[] = {
    {"mode", CLV_PARAM_ENUM, "send_frame", 0, 3,
     "send_frame|send_field|send_frame_nospatial|send_field_nospatial",
     "a frame per frame, or per field (twice the rate); _nospatial: no spatial interlacing check",
     1},
    {"parity", CLV_PARAM_ENUM, "auto", -1, 1, "auto|tff|bff",
     "the field order: top or bottom field first (auto: top)", 1},
    {"deint", CLV_PARAM_ENUM, "all", 0, 1, "all|interlaced",
     "which frames (clvid's frames carry no interlaced flag: every one)", 1},
};
static const clv_param bwdif_params[] = {
    {"mode", CLV_PARAM_ENUM, "send_field", 0, 1, "send_frame|send_field",
     "a frame per frame, or per field (twice the rate)", 1},
    {"parity", CLV_PARAM_ENUM, "auto", -1, 1, "auto|tff|bff",
     "the field order: top or bottom field first (auto: top)", 1},
    {"deint", CLV_PARAM_ENUM, "all", 0, 1, "all|interlaced",
     "which frames (clvid's frames carry no interlaced flag: every one)", 1},
};

static const char *const yadif_kernels[] = {"yadif", NULL};
static const char *const bwdif_kernels[] = {"bwdif", NULL};

const clv_filter clv__filter_yadif = {
    .name = "yadif",
    .help = "deinterlace, ffmpeg's yadif (holds one frame back; send_field doubles the rate)",
    .params = yadif_params,
    .param_count = DI_PARAM_COUNT,
    .program = "deint",
    .kernels = yadif_kernels,
    .state_size = sizeof(di_state),
    .temporal = 1,
    .deep = 1,
    .cadence = di_cadence,
    .end = end,
    .restart = restart,
    .init = init_yadif,
    .configure = configure,
    .uninit = uninit,
    .run = run,
    .ref_state_size = sizeof(di_ref),
    .reference = reference_yadif,
    .reference_end = reference_end,
    .reference_uninit = reference_uninit,
};

const clv_filter clv__filter_bwdif = {
    .name = "bwdif",
    .help = "deinterlace, ffmpeg's bwdif (holds one frame back; send_field, the default, "
            "doubles the rate)",
    .params = bwdif_params,
    .param_count = DI_PARAM_COUNT,
    .program = "deint",
    .kernels = bwdif_kernels,
    .state_size = sizeof(di_state),
    .temporal = 1,
    .deep = 1,
    .cadence = di_cadence,
    .end = end,
    .restart = restart,
    .init = init_bwdif,
    .configure = configure,
    .uninit = uninit,
    .run = run,
    .ref_state_size = sizeof(di_ref),
    .reference = reference_bwdif,
    .reference_end = reference_end,
    .reference_uninit = reference_uninit,
};
