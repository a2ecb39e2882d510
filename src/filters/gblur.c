/* gblur.c - ffmpeg's gblur options on a true Gaussian: per channel the
 * clamp-to-edge correlation with exp(-d^2 / (2 sigma^2)) out to ceil(3 sigma),
 * down the columns (sigmaV) and then along the rows (sigma), as one sep pass
 * of the blur family (blur.c, cl/blur.cl).
 *
 * The weights are made once on the host in double: w[d] rounded from
 * 2^14 * g(d) / sum g, the centre taking what the rounding left over, so
 * that they sum to exactly 2^14 (sigma 0: the centre alone). Down the
 * columns T = (sum w * p + 128) >> 8 keeps 6 bits below the input's unit
 * (at 8 bits two T fit 15 bits: x86 CPUs sum two taps an instruction,
 * cl/blur.cl); along the rows out = (sum w * T + 2^19) >> 20. At 8 bits every sum fits
 * 32 bits; at 16 bits the same formula on 0-65535, in 64 bits.
 *
 * ffmpeg's planes: bit 0 (its first plane, the luma) blurs R, G and B, bit 3
 * alpha; bits 1 and 2 (its chroma) have nothing to act on in RGB. steps is
 * taken for ffmpeg's command lines and changes nothing: ffmpeg's steps
 * refine its recursive approximation, and this is the Gaussian itself. */
#include "filters.h"

#include <math.h>

enum { GB_SIGMA, GB_STEPS, GB_PLANES, GB_SIGMAV, GB_PARAM_COUNT };

/* The weights sum to 2^GB_BITS; the column sums keep GB_FRAC bits below
 * the unit. */
#define GB_BITS 14
#define GB_FRAC 6

typedef struct gblur_state {
    clv__blur blur;
    clv__sep sep;
} gblur_state;

/* The reach and weights of a Gaussian of sigma milli-units: w[0 .. r]. */
static int gauss_reach(int64_t milli)
{
    return (int)((3 * milli + 999) / 1000);
}

static double gauss(double sigma, int r, int d)
{
    return r ? exp(-(double)d * d / (2 * sigma * sigma)) : 1;
}

static void gauss_weights(int64_t milli, int *w, int r)
{
    const double sigma = (double)milli / 1000.0;
    double total = 0;
    for (int d = 0; d <= r; d++)
        total += (d ? 2 : 1) * gauss(sigma, r, d);
    int sum = 0;
    for (int d = 0; d <= r; d++) {
        w[d] = (int)floor(gauss(sigma, r, d) * (1 << GB_BITS) / total + 0.5);
        sum += d ? 2 * w[d] : w[d];
    }
    w[0] += (1 << GB_BITS) - sum;
}

/* The filter's pass for its values. */
static int make_sep(const clv_value *v, clv__sep *s)
{
    int64_t across = v[GB_SIGMA].i, down = v[GB_SIGMAV].i < 0 ? across : v[GB_SIGMAV].i;
    if (clv__sep_alloc(s, gauss_reach(down), gauss_reach(across)))
        return CLV_ENOMEM;
    gauss_weights(down, s->wv, s->rv);
    gauss_weights(across, s->wh, s->rh);
    s->vshift = GB_BITS - GB_FRAC;
    s->vround = 1 << (s->vshift - 1);
    s->fshift = GB_BITS + GB_FRAC;
    s->fround = 1 << (s->fshift - 1);
    s->amount = -65536;
    s->narrow = 1;
    int planes = (int)v[GB_PLANES].i;
    s->mask = (planes & 1 ? 7 : 0) | (planes & 8);
    return 0;
}

static int init(void *state, clv_context *ctx, cl_program prog, clv_msg *msg)
{
    return clv__blur_init(&((gblur_state *)state)->blur, ctx, prog, 0, msg);
}

static int configure(void *state, clv_context *ctx, const clv_value *values, clv_msg *msg)
{
    gblur_state *st = state;
    if (make_sep(values, &st->sep))
        return clv__fail(msg, CLV_ENOMEM, "gblur: out of memory for the weights");
    return clv__sep_upload(&st->sep, ctx, msg);
}

static void uninit(void *state)
{
    gblur_state *st = state;
    clv__blur_uninit(&st->blur);
    clv__sep_release(&st->sep);
}

static int run(void *state, const clv_launch *l)
{
    gblur_state *st = state;
    return clv__sep_run(&st->blur, l, &st->sep, l->src, l->dst);
}

static int reference(void *ref_state, const clv_value *v, const clv_image *src, clv_image *dst,
                     uint64_t frame_index)
{
    (void)ref_state;
    (void)frame_index;
    clv__sep s = {0};
    int err = make_sep(v, &s);
    if (!err)
        err = clv__sep_reference(&s, src, dst);
    clv__sep_release(&s);
    return err;
}

static const clv_param params[] = {
    {"sigma", CLV_PARAM_REAL, "0.5", 0, 1024, NULL,
     "standard deviation across in pixels; the kernel reaches ceil(3 sigma)", 0.5},
    {"steps", CLV_PARAM_INT, "1", 1, 6, NULL,
     "ffmpeg's approximation steps: taken, no effect (this is the exact Gaussian)", 1},
    {"planes", CLV_PARAM_INT, "15", 0, 15, NULL,
     "ffmpeg's planes: bit 0 blurs R, G and B, bit 3 alpha (bits 1, 2: no effect on RGB)", 1},
    {"sigmaV", CLV_PARAM_REAL, "-1", -1, 1024, NULL, "standard deviation down; -1: sigma's", 0.5},
};
_Static_assert(sizeof params / sizeof params[0] == GB_PARAM_COUNT,
               "gblur: the enum and the params table differ");

const clv_filter clv__filter_gblur = {
    .name = "gblur",
    .help = "Gaussian blur, clamp-to-edge, reach ceil(3 sigma), separable (ffmpeg's gblur "
            "options; the exact Gaussian)",
    .params = params,
    .param_count = GB_PARAM_COUNT,
    .program = "blur",
    .deep = 1,
    .state_size = sizeof(gblur_state),
    .init = init,
    .configure = configure,
    .uninit = uninit,
    .run = run,
    .reference = reference,
};
