/* fade.c - ffmpeg's fade (vf_fade.c) on RGBA (cl/channels.cl): from black
 * (or `color`) in, or to it out, over nb_frames frames from start_frame,
 * or over `duration` seconds from start_time, as ffmpeg 5.1 counts them:
 *
 *   fading by frames: f = (n - n0) * floor(65536 / nb_frames), 65535 from
 *     n > n0 + nb_frames on;
 *   by time: f = floor((t - t0) * 65535 / duration), in microseconds;
 *   before the start 0; f clipped to 0 .. 65535 and, fading out,
 *   65535 - f. n0 is the first frame at or past start_frame whose time
 *   is start_time or later, t0 start_time, or n0's time where only
 *   start_frame is given.
 *
 * At f = 65535 the frame passes unchanged. Otherwise, towards black
 * (0x000000ff) every channel, alpha too, becomes (p f + 2^15) >> 16;
 * towards another colour c, R, G and B become
 * clip(((c << 16) + (p - c) f + 2^15) >> 16) and alpha stays; with
 * alpha=1 only alpha fades, as black. These are ffmpeg's bytes on rgba
 * (its packed-RGB code); at 16 bits the same formulas on 0-65535, c * 257.
 * ffmpeg counts time in its input's time base (st and d rounded to its
 * ticks): clvid in microseconds of the frame's time (its index over the
 * frame rate), which is ffmpeg's where st, d and the frames' times are
 * whole ticks of both (mp4's 1/12800 at 25 frames/s: every one). */
#include "filters.h"

#include <math.h>

enum {
    FADE_TYPE,
    FADE_START_FRAME,
    FADE_NB_FRAMES,
    FADE_ALPHA,
    FADE_START_TIME,
    FADE_DURATION,
    FADE_COLOR,
    FADE_PARAM_COUNT
};

static const char *const kernels[] = {"fade", NULL};

/* The factor of frame n at time t (seconds), ffmpeg's s->factor after
 * its inversion for a fade out. */
static int factor_at(const clv_value *v, uint64_t n, double t)
{
    const int64_t s = v[FADE_START_FRAME].i, nb = v[FADE_NB_FRAMES].i;
    const int64_t st = v[FADE_START_TIME].i * 1000, d = v[FADE_DURATION].i * 1000; /* us */
    const int64_t now = llround(t * 1e6);
    int64_t f = 0;
    if ((int64_t)n >= s && now >= st) {
        if (d == 0) {
            /* n0: the first frame at or past s at or past st */
            int64_t n0 = s;
            if (st > 0 && s == 0) {
                /* the first frame whose time reaches st: n and t give the
                 * frame period */
                double period = n > 0 ? t / (double)n : 0;
                n0 = period > 0 ? (int64_t)ceil((double)st / 1e6 / period - 1e-9) : 0;
                while (n0 > 0 && llround((double)(n0 - 1) * period * 1e6) >= st)
                    n0--;
                while (llround((double)n0 * period * 1e6) < st)
                    n0++;
            }
            f = (int64_t)n > n0 + nb ? 65535 : ((int64_t)n - n0) * (65536 / nb);
        } else {
            int64_t t0 = st;
            if (st == 0 && s != 0) /* n0's time: s frames at this frame's period */
                t0 = n > 0 ? llround(t / (double)n * (double)s * 1e6) : 0;
            f = (now - t0) * 65535 / d;
        }
    }
    f = f < 0 ? 0 : f > 65535 ? 65535 : f;
    return (int)(v[FADE_TYPE].i ? 65535 - f : f);
}

/* 0 black, 1 towards the colour, 2 alpha only. */
static int mode_of(const clv_value *v)
{
    return v[FADE_ALPHA].i ? 2 : (uint32_t)v[FADE_COLOR].i == 0x000000ffu ? 0 : 1;
}

static void colour_of(const clv_value *v, int depth, int c[4])
{
    uint32_t rgba = (uint32_t)v[FADE_COLOR].i;
    for (int k = 0; k < 4; k++) {
        c[k] = (int)(rgba >> (24 - 8 * k)) & 0xff;
        c[k] *= depth == 16 ? 257 : 1;
    }
}

static int run(void *state, const clv_launch *l)
{
    cl_kernel kernel = *(cl_kernel *)state;
    cl_int f = factor_at(l->values, l->frame_index, l->time), mode = mode_of(l->values);
    if (f == 65535) { /* as ffmpeg: untouched */
        const clv_frame in = {l->src, l->width, l->height, l->stride, l->depth};
        clv_frame out = {l->dst, l->width, l->height, l->out_stride, l->depth};
        return clv__frame_copy(l->ctx, &in, &out);
    }
    int c[4];
    colour_of(l->values, l->depth, c);
    cl_int4 colour = {{c[0], c[1], c[2], c[3]}};
    int err = clv__kernel_frame_args(kernel, l);
    if (!err)
        err = clv__kernel_args(kernel, 5, 3, CLV__ARG(f), CLV__ARG(mode), CLV__ARG(colour));
    return err ? err : clv__launch_pixels(l, kernel, l->width, l->height);
}

static int reference_at(void *ref_state, const clv_value *v, const clv_image *src, clv_image *dst,
                        uint64_t frame_index, double time)
{
    (void)ref_state;
    const int64_t f = factor_at(v, frame_index, time);
    const int mode = mode_of(v), maxv = clv__maxv(src);
    int c[4];
    colour_of(v, clv__depth(src), c);
    for (int y = 0; y < src->height; y++)
        for (int x = 0; x < src->width; x++)
            for (int k = 0; k < 4; k++) {
                int64_t p = clv__get(src, x, y, k), o = p;
                if (f == 65535)
                    o = p;
                else if (mode == 0 || (mode == 2 && k == 3))
                    o = (p * f + 32768) >> 16;
                else if (mode == 1 && k < 3) {
                    o = (((int64_t)c[k] << 16) + (p - c[k]) * f + 32768) >> 16;
                    o = o < 0 ? 0 : o > maxv ? maxv : o;
                }
                clv__put(dst, x, y, k, (int)o);
            }
    return 0;
}

static const clv_param params[] = {
    {"type", CLV_PARAM_ENUM, "in", 0, 1, "in|out", "fade in (from the colour) or out (to it)", 1},
    {"start_frame", CLV_PARAM_INT, "0", 0, 2147483647, NULL,
     "the first frame of the fade (with start_time: the later of the two)", 1},
    {"nb_frames", CLV_PARAM_INT, "25", 1, 2147483647, NULL,
     "frames the fade lasts (unless duration is given)", 1},
    {"alpha", CLV_PARAM_INT, "0", 0, 1, NULL, "fade the alpha channel only", 1},
    {"start_time", CLV_PARAM_REAL, "0", 0, 2147483, NULL, "seconds at which the fade starts", 0.5},
    {"duration", CLV_PARAM_REAL, "0", 0, 2147483, NULL,
     "seconds the fade lasts; 0: nb_frames frames", 0.5},
    {"color", CLV_PARAM_COLOR, "black", 0, 0, NULL,
     "the colour faded from or to (black: every channel, alpha too, as ffmpeg on RGBA)", 0},
};
_Static_assert(sizeof params / sizeof params[0] == FADE_PARAM_COUNT,
               "fade: the enum and the params table differ");
static const char *const aliases[] = {"t",         "type",  "s",          "start_frame", "n",
                                      "nb_frames", "st",    "start_time", "d",           "duration",
                                      "c",         "color", NULL};

const clv_filter clv__filter_fade = {
    .name = "fade",
    .timed = 1,
    .help = "fade in from black (or a colour) or out to it, by frames or seconds (ffmpeg's fade)",
    .params = params,
    .param_count = FADE_PARAM_COUNT,
    .aliases = aliases,
    .program = "channels",
    .kernels = kernels,
    .deep = 1,
    .run = run,
    .reference_at = reference_at,
};
