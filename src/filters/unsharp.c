/* unsharp.c - ffmpeg's unsharp (libavfilter/vf_unsharp.c): per channel the
 * blur of a msize_x x msize_y window with binomial weights (ffmpeg's chain
 * of two-tap sums, clamp-to-edge), blur = (S + 2^(b-1)) >> b with S the
 * exact sum and b = 2 (msize_x / 2 + msize_y / 2), and the output v +
 * floor((v - blur) * amount / 65536), clamped, where amount is ffmpeg's
 * (int)(a * 65536.0) of the float a: sharper for a > 0, blurred for a < 0.
 * One sep pass of the blur family (blur.c, cl/blur.cl) per set of options.
 *
 * ffmpeg's luma options (lx, ly, la) act on R, G and B and its alpha options
 * (ax, ay, aa) on alpha, unchanged by default (ffmpeg 5.1's own unsharp
 * crashes on an alpha amount other than 0: it never makes that set's
 * state); the chroma options are checked as ffmpeg checks them and have
 * nothing to act on in RGB. At 8 bits this
 * is ffmpeg's arithmetic on each plane exactly. At 16 bits it is the same
 * formula on 0-65535 in 64 bits: ffmpeg's 16-bit path shifts by 24 instead
 * of 16 (its sharpening is 1/256 as strong) and its 32-bit sums overflow
 * for large windows. */
#include "filters.h"

enum { US_LX, US_LY, US_LA, US_CX, US_CY, US_CA, US_AX, US_AY, US_AA, US_PARAM_COUNT };

typedef struct unsharp_state {
    clv__blur blur;
    clv__sep pass[2];
    int count;
} unsharp_state;

/* ffmpeg's amount: the float's value times 65536.0, truncated. */
static int fixed_amount(int64_t milli)
{
    return (int)((double)(float)((double)milli / 1000.0) * 65536.0);
}

static int64_t binomial(int n, int k)
{
    int64_t c = 1;
    for (int i = 1; i <= k; i++)
        c = c * (n - k + i) / i;
    return c;
}

/* One set of options (first: its msize_x) as a pass on mask. */
static int make_pass(const clv_value *v, int first, int mask, clv__sep *s)
{
    int sx = (int)v[first].i / 2, sy = (int)v[first + 1].i / 2;
    if (clv__sep_alloc(s, sy, sx))
        return CLV_ENOMEM;
    for (int j = 0; j <= sy; j++)
        s->wv[j] = (int)binomial(2 * sy, sy + j);
    for (int i = 0; i <= sx; i++)
        s->wh[i] = (int)binomial(2 * sx, sx + i);
    s->vround = s->vshift = 0;
    s->fshift = 2 * (sx + sy);
    s->fround = s->fshift ? 1 << (s->fshift - 1) : 0;
    s->amount = fixed_amount(v[first + 2].i);
    s->mask = mask;
    return 0;
}

/* The filter's passes (at most two, into pass[]; their count): the luma's
 * set on R, G, B (and alpha where alpha's set is the same), alpha's on
 * alpha unless its amount is 0; one copy when nothing changes. The sizes
 * are checked as ffmpeg checks them (odd for luma and chroma; the steps of
 * every set at most 12 together). */
static int make_passes(const clv_value *v, clv__sep pass[2], int *count, clv_msg *msg)
{
    static const char *const set[] = {"luma", "chroma", "alpha"};
    for (int k = 0; k < 3; k++) {
        int x = (int)v[US_LX + 3 * k].i, y = (int)v[US_LY + 3 * k].i;
        if (k < 2 && !(x & y & 1))
            return clv__fail(msg, CLV_ERANGE, "unsharp: the %s matrix is %dx%d; its sizes are odd",
                             set[k], x, y);
        if ((x / 2 + y / 2) * 2 >= 26)
            return clv__fail(msg, CLV_ERANGE,
                             "unsharp: the %s matrix %dx%d is too big (msize_x / 2 + msize_y / 2 "
                             "is at most 12)",
                             set[k], x, y);
    }
    int la = fixed_amount(v[US_LA].i), aa = fixed_amount(v[US_AA].i);
    int same = v[US_AX].i / 2 == v[US_LX].i / 2 && v[US_AY].i / 2 == v[US_LY].i / 2 && aa == la;
    int n = 0, err = 0, alpha = !same && aa != 0;
    if (la != 0 || !alpha)
        err = make_pass(v, US_LX, same ? 15 : 7, &pass[n++]);
    if (!err && alpha)
        err = make_pass(v, US_AX, 8, &pass[n++]);
    *count = n;
    return err ? clv__fail(msg, err, "unsharp: out of memory for the weights") : 0;
}

static int init(void *state, clv_context *ctx, cl_program prog, clv_msg *msg)
{
    return clv__blur_init(&((unsharp_state *)state)->blur, ctx, prog, 0, msg);
}

static void uninit(void *state)
{
    unsharp_state *st = state;
    clv__blur_uninit(&st->blur);
    clv__sep_release(&st->pass[0]);
    clv__sep_release(&st->pass[1]);
}

static int configure(void *state, clv_context *ctx, const clv_value *values, clv_msg *msg)
{
    unsharp_state *st = state;
    clv__sep_release(&st->pass[0]);
    clv__sep_release(&st->pass[1]);
    int err = make_passes(values, st->pass, &st->count, msg);
    for (int k = 0; !err && k < st->count; k++)
        err = clv__sep_upload(&st->pass[k], ctx, msg);
    return err;
}

static int run(void *state, const clv_launch *l)
{
    unsharp_state *st = state;
    cl_mem in = l->src;
    for (int k = 0; k < st->count; k++) {
        cl_mem out = clv__pass_target(l, k, st->count);
        int err = clv__sep_run(&st->blur, l, &st->pass[k], in, out);
        if (err)
            return err;
        in = out;
    }
    return 0;
}

static int reference(void *ref_state, const clv_value *v, const clv_image *src, clv_image *dst,
                     uint64_t frame_index)
{
    (void)ref_state;
    (void)frame_index;
    clv__sep pass[2] = {{0}, {0}};
    clv_image mid = {0};
    int count = 0, err = make_passes(v, pass, &count, NULL);
    if (!err && count == 2)
        err = clv_image_alloc_depth(&mid, src->width, src->height, clv__depth(src));
    if (!err)
        err = clv__sep_reference(&pass[0], src, count == 2 ? &mid : dst);
    if (!err && count == 2)
        err = clv__sep_reference(&pass[1], &mid, dst);
    clv_image_free(&mid);
    clv__sep_release(&pass[0]);
    clv__sep_release(&pass[1]);
    return err ? CLV_ENOMEM : 0;
}

static const char *const aliases[] = {
    "lx", "luma_msize_x",   "ly", "luma_msize_y",  "la", "luma_amount",   "cx", "chroma_msize_x",
    "cy", "chroma_msize_y", "ca", "chroma_amount", "ax", "alpha_msize_x", "ay", "alpha_msize_y",
    "aa", "alpha_amount",   NULL};

static const clv_param params[] = {
    {"luma_msize_x", CLV_PARAM_INT, "5", 3, 23, NULL, "window width on R, G, B (odd)", 2},
    {"luma_msize_y", CLV_PARAM_INT, "5", 3, 23, NULL, "window height on R, G, B (odd)", 2},
    {"luma_amount", CLV_PARAM_REAL, "1", -2, 5, NULL,
     "strength on R, G, B: above 0 sharpens, below 0 blurs", 0.1},
    {"chroma_msize_x", CLV_PARAM_INT, "5", 3, 23, NULL,
     "ffmpeg's chroma width: checked, nothing to act on in RGB", 2},
    {"chroma_msize_y", CLV_PARAM_INT, "5", 3, 23, NULL,
     "ffmpeg's chroma height: checked, nothing to act on in RGB", 2},
    {"chroma_amount", CLV_PARAM_REAL, "0", -2, 5, NULL,
     "ffmpeg's chroma strength: nothing to act on in RGB", 0.1},
    {"alpha_msize_x", CLV_PARAM_INT, "5", 3, 23, NULL, "window width on alpha", 2},
    {"alpha_msize_y", CLV_PARAM_INT, "5", 3, 23, NULL, "window height on alpha", 2},
    {"alpha_amount", CLV_PARAM_REAL, "0", -2, 5, NULL, "strength on alpha (0: unchanged)", 0.1},
};
_Static_assert(sizeof params / sizeof params[0] == US_PARAM_COUNT,
               "unsharp: the enum and the params table differ");

const clv_filter clv__filter_unsharp = {
    .name = "unsharp",
    .help = "unsharp mask (ffmpeg's unsharp: binomial blur of lx x ly, v + (v - blur) * la); "
            "la < 0 blurs",
    .params = params,
    .param_count = US_PARAM_COUNT,
    .program = "blur",
    .needs_scratch = 1,
    .deep = 1,
    .aliases = aliases,
    .state_size = sizeof(unsharp_state),
    .init = init,
    .configure = configure,
    .uninit = uninit,
    .run = run,
    .reference = reference,
};
