/* gst_test.c - the clvidfilter element in real pipelines (videotestsrc,
 * appsink), against the engine's C references: every format bit for bit at
 * awkward sizes, the chain changed while PLAYING taking effect on the next
 * buffer, every kind of bad chain while PLAYING as a warning on the bus with
 * the stream going on through the chain in use, a bad chain at start as an
 * error that stops the start, kernel-ms, and a long run with memory flat.
 * usage: gst-test TEST (formats, switch_chain, bad_chain, long_run, resize,
 * fields, pool: buffers in the stage's memory, upstream's own, held ones);
 * GST_PLUGIN_PATH must lead to the plugin. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gst/gst.h>
#include <gst/video/video.h>

#include "../harness.h" /* CHECK */

int test_failures;

/* ---- Frames in the engine's packed layout ----------------------------------- */

static clv_pixfmt pixfmt_of(GstVideoFormat f)
{
    switch (f) {
    case GST_VIDEO_FORMAT_BGRA:
        return CLV_PIX_BGRA;
    case GST_VIDEO_FORMAT_RGBx:
        return CLV_PIX_RGB0;
    case GST_VIDEO_FORMAT_BGRx:
        return CLV_PIX_BGR0;
    case GST_VIDEO_FORMAT_I420:
        return CLV_PIX_YUV420P;
    case GST_VIDEO_FORMAT_NV12:
        return CLV_PIX_NV12;
    case GST_VIDEO_FORMAT_I420_10LE:
        return CLV_PIX_YUV420P10;
    case GST_VIDEO_FORMAT_P010_10LE:
        return CLV_PIX_P010;
    case GST_VIDEO_FORMAT_RGBA64_LE:
        return CLV_PIX_RGBA64;
    default:
        return CLV_PIX_RGBA;
    }
}

static clv_color color_of(const GstVideoInfo *info)
{
    clv_color c = {CLV_MATRIX_BT601, info->colorimetry.range == GST_VIDEO_COLOR_RANGE_0_255};
    if (info->colorimetry.matrix == GST_VIDEO_COLOR_MATRIX_BT709)
        c.matrix = CLV_MATRIX_BT709;
    else if (info->colorimetry.matrix == GST_VIDEO_COLOR_MATRIX_BT2020)
        c.matrix = CLV_MATRIX_BT2020;
    return c;
}

/* A buffer's picture without row padding, as clv_pixfmt_size lays it out. */
static uint8_t *pack(GstBuffer *buf, const GstVideoInfo *info)
{
    GstVideoFrame frame;
    if (!gst_video_frame_map(&frame, (GstVideoInfo *)info, buf, GST_MAP_READ))
        return NULL;
    clv_pixfmt f = pixfmt_of(GST_VIDEO_INFO_FORMAT(info));
    int w = GST_VIDEO_INFO_WIDTH(info), h = GST_VIDEO_INFO_HEIGHT(info);
    uint8_t *out = malloc(clv_pixfmt_size(f, w, h)), *o = out;
    int planes = f == CLV_PIX_YUV420P || f == CLV_PIX_YUV420P10 ? 3
                 : f == CLV_PIX_NV12 || f == CLV_PIX_P010       ? 2
                                                                : 1;
    int b = clv_pixfmt_depth(f) / 8; /* bytes a sample */
    for (int p = 0; p < planes && out; p++) {
        int two = f == CLV_PIX_NV12 || f == CLV_PIX_P010 ? 2 : 1;
        size_t row = clv_pixfmt_is_yuv(f) ? (size_t)b * (p == 0 ? w : two * ((w + 1) / 2))
                                          : (size_t)w * 4 * (size_t)b;
        int rows = p == 0 ? h : (h + 1) / 2;
        const uint8_t *d = GST_VIDEO_FRAME_PLANE_DATA(&frame, p);
        int stride = GST_VIDEO_FRAME_PLANE_STRIDE(&frame, p);
        for (int y = 0; y < rows; y++, o += row)
            memcpy(o, d + (size_t)y * stride, row);
    }
    gst_video_frame_unmap(&frame);
    return out;
}

/* The reference: conversion, chain and conversion by the C definitions. */
static uint8_t *expected(const char *chain, const uint8_t *in, const GstVideoInfo *info,
                         uint64_t index)
{
    clv_pixfmt f = pixfmt_of(GST_VIDEO_INFO_FORMAT(info));
    int w = GST_VIDEO_INFO_WIDTH(info), h = GST_VIDEO_INFO_HEIGHT(info);
    clv_color c = color_of(info);
    clv_chain_desc *desc = NULL;
    clv_msg msg = {{0}};
    clv_ref_chain *ref = NULL;
    clv_image a = {0}, b = {0};
    /* At the chain's output size (scale, crop... change it). */
    clv_size in_size = {w, h, 1, 1, 0, 0, 0}, out_size = in_size;
    int bad = clv_chain_parse(chain, &desc, &msg) ||
              clv_chain_desc_output_size(desc, &in_size, &out_size, &msg);
    uint8_t *out = bad ? NULL : malloc(clv_pixfmt_size(f, out_size.width, out_size.height));
    int depth = clv_pixfmt_depth(f);
    bad = bad || !out || clv_ref_chain_create(desc, &ref) ||
          clv_image_alloc_depth(&a, w, h, depth) ||
          clv_image_alloc_depth(&b, out_size.width, out_size.height, depth);
    clv_chain_desc_destroy(desc);
    if (bad) {
        free(out);
        return NULL;
    }
    clv_ref_to_rgba(f, c, in, &a);
    clv_ref_chain_run(ref, &a, &b, index);
    clv_ref_from_rgba(f, c, &b, out);
    clv_ref_chain_destroy(ref);
    clv_image_free(&a);
    clv_image_free(&b);
    return out;
}

/* ---- A pipeline with the input buffers recorded ------------------------------ */

#define MAX_FRAMES 64

typedef struct run {
    GstElement *pipeline, *filter, *sink;
    GstVideoInfo info;
    uint8_t *inputs[MAX_FRAMES];
    int seen;
    /* switch_chain: chains set from the probe before buffer k */
    const char *set_at[MAX_FRAMES];
    /* the chain property as buffer k came in, before any set_at[k] */
    gchar *chain_at[MAX_FRAMES];
} run;

static GstPadProbeReturn on_input(GstPad *pad, GstPadProbeInfo *pi, gpointer data)
{
    run *r = data;
    GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER(pi);
    if (r->seen == 0) {
        GstCaps *caps = gst_pad_get_current_caps(pad);
        gst_video_info_from_caps(&r->info, caps);
        gst_caps_unref(caps);
    }
    if (r->seen < MAX_FRAMES) {
        g_object_get(r->filter, "chain", &r->chain_at[r->seen], NULL);
        if (r->set_at[r->seen])
            g_object_set(r->filter, "chain", r->set_at[r->seen], NULL);
        r->inputs[r->seen] = pack(buf, &r->info);
    }
    r->seen++;
    return GST_PAD_PROBE_OK;
}

static int open_run(run *r, const char *description)
{
    memset(r, 0, sizeof *r);
    GError *error = NULL;
    r->pipeline = gst_parse_launch(description, &error);
    if (!r->pipeline) {
        CHECK(0, "%s: %s", description, error ? error->message : "?");
        g_clear_error(&error);
        return -1;
    }
    r->filter = gst_bin_get_by_name(GST_BIN(r->pipeline), "f");
    r->sink = gst_bin_get_by_name(GST_BIN(r->pipeline), "out");
    GstPad *pad = gst_element_get_static_pad(r->filter, "sink");
    gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, on_input, r, NULL);
    gst_object_unref(pad);
    return 0;
}

static void close_run(run *r)
{
    gst_element_set_state(r->pipeline, GST_STATE_NULL);
    gst_object_unref(r->filter);
    gst_object_unref(r->sink);
    gst_object_unref(r->pipeline);
    for (int i = 0; i < MAX_FRAMES; i++) {
        free(r->inputs[i]);
        g_free(r->chain_at[i]);
    }
}

/* The next output buffer packed, or NULL at the end of the stream. */
static uint8_t *next_output(run *r)
{
    GstSample *sample = NULL; /* NULL at the end, or after an error stopped the stream */
    g_signal_emit_by_name(r->sink, "try-pull-sample", (GstClockTime)(20 * GST_SECOND), &sample);
    if (!sample)
        return NULL;
    uint8_t *out = pack(gst_sample_get_buffer(sample), &r->info);
    gst_sample_unref(sample);
    return out;
}

/* The next output buffer packed with its caps' size (*w x *h), or NULL at
 * the end of the stream. */
static uint8_t *next_sized(run *r, int *w, int *h)
{
    GstSample *sample = NULL;
    g_signal_emit_by_name(r->sink, "try-pull-sample", (GstClockTime)(20 * GST_SECOND), &sample);
    if (!sample)
        return NULL;
    GstVideoInfo info;
    gst_video_info_from_caps(&info, gst_sample_get_caps(sample));
    *w = GST_VIDEO_INFO_WIDTH(&info);
    *h = GST_VIDEO_INFO_HEIGHT(&info);
    uint8_t *out = pack(gst_sample_get_buffer(sample), &info);
    gst_sample_unref(sample);
    return out;
}

/* The error on the pipeline's bus, if any (caller frees). An error comes
 * before the end of stream that the pipeline posts once its sink has it,
 * so the wait ends there: waiting out the 2 s for an error that a good run
 * never posts made most of gst_formats' time (2 s for each of 40 runs). */
static char *bus_error(run *r)
{
    GstBus *bus = gst_element_get_bus(r->pipeline);
    GstMessage *m =
        gst_bus_timed_pop_filtered(bus, 2 * GST_SECOND, GST_MESSAGE_ERROR | GST_MESSAGE_EOS);
    if (m && GST_MESSAGE_TYPE(m) == GST_MESSAGE_EOS) {
        gst_message_unref(m);
        m = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR); /* one already there */
    }
    char *text = NULL;
    if (m) {
        GError *e = NULL;
        gst_message_parse_error(m, &e, NULL);
        text = g_strdup(e->message);
        g_error_free(e);
        gst_message_unref(m);
    }
    gst_object_unref(bus);
    return text;
}

/* The warnings and errors on the pipeline's bus, in order, into texts
 * (each "warning: ..." or "error: ...", caller frees); how many. One pass,
 * as popping one type drops the others. A run's messages are posted before
 * its end of stream reaches the sink, so a short wait is enough. */
static int bus_messages(run *r, char **texts, int max)
{
    GstBus *bus = gst_element_get_bus(r->pipeline);
    GstMessage *m;
    int n = 0;
    while (n < max && (m = gst_bus_timed_pop_filtered(bus, GST_SECOND / 2,
                                                      GST_MESSAGE_WARNING | GST_MESSAGE_ERROR))) {
        GError *e = NULL;
        gboolean warning = GST_MESSAGE_TYPE(m) == GST_MESSAGE_WARNING;
        if (warning)
            gst_message_parse_warning(m, &e, NULL);
        else
            gst_message_parse_error(m, &e, NULL);
        texts[n++] = g_strdup_printf("%s: %s", warning ? "warning" : "error", e->message);
        g_error_free(e);
        gst_message_unref(m);
    }
    gst_object_unref(bus);
    return n;
}

/* Its first line, for a report (compiler messages run over several). */
static int first_line(const char *text)
{
    return text ? (int)strcspn(text, "\n") : 0;
}

/* Runs `frames` buffers of format/size through chain and checks each. */
static void check_format(const char *format, int w, int h, const char *chain, int frames)
{
    char description[512];
    snprintf(description, sizeof description,
             "videotestsrc num-buffers=%d pattern=ball ! video/x-raw,format=%s,width=%d,"
             "height=%d ! clvidfilter name=f chain=%s ! appsink name=out sync=false",
             frames, format, w, h, chain);
    run r;
    if (open_run(&r, description))
        return;
    gst_element_set_state(r.pipeline, GST_STATE_PLAYING);
    int got = 0, bad = 0;
    uint8_t *out;
    while ((out = next_output(&r))) {
        clv_pixfmt f = pixfmt_of(GST_VIDEO_INFO_FORMAT(&r.info));
        size_t n = clv_pixfmt_size(f, w, h);
        uint8_t *want =
            got < r.seen ? expected(chain, r.inputs[got], &r.info, (uint64_t)got) : NULL;
        if (!want || memcmp(out, want, n)) {
            size_t i = 0;
            while (want && i < n && out[i] == want[i])
                i++;
            if (bad++ == 0)
                CHECK(0, "%s %dx%d '%s' buffer %d differs from the reference at byte %zu", format,
                      w, h, chain, got, i);
        }
        free(want);
        free(out);
        got++;
    }
    char *err = bus_error(&r);
    CHECK(!err, "%s: %s", description, err);
    g_free(err);
    CHECK(got == frames && bad == 0, "%s %dx%d: %d of %d buffers, %d differ", format, w, h, got,
          frames, bad);
    printf("  %-5s %4dx%-4d %-16s %d buffers equal to the reference\n", format, w, h, chain,
           got - bad);
    double ms = -1;
    g_object_get(r.filter, "kernel-ms", &ms, NULL);
    CHECK(ms > 0, "kernel-ms %g", ms);
    close_run(&r);
}

/* Buffers held in flight (what a GPU does by default): the same bytes, in
 * order, with their timestamps, the last ones drained at the end. */
static GstClockTime check_in_flight(int in_flight)
{
    char description[512];
    snprintf(description, sizeof description,
             "videotestsrc num-buffers=12 pattern=ball ! video/x-raw,format=I420,width=641,"
             "height=359,framerate=25/1 ! clvidfilter name=f in-flight=%d chain=median ! appsink "
             "name=out sync=false",
             in_flight);
    run r;
    if (open_run(&r, description))
        return 0;
    gst_element_set_state(r.pipeline, GST_STATE_PLAYING);
    int got = 0;
    for (;;) {
        GstSample *sample = NULL;
        g_signal_emit_by_name(r.sink, "try-pull-sample", (GstClockTime)(20 * GST_SECOND), &sample);
        if (!sample)
            break;
        GstBuffer *buf = gst_sample_get_buffer(sample);
        GstClockTime pts = GST_BUFFER_PTS(buf);
        uint8_t *out = pack(buf, &r.info);
        uint8_t *want = expected("median", r.inputs[got], &r.info, (uint64_t)got);
        size_t n = clv_pixfmt_size(CLV_PIX_YUV420P, 641, 359);
        CHECK(out && want && !memcmp(out, want, n), "in-flight=%d: buffer %d differs", in_flight,
              got);
        CHECK(pts == (GstClockTime)got * GST_SECOND / 25,
              "in-flight=%d: buffer %d pts %" GST_TIME_FORMAT, in_flight, got, GST_TIME_ARGS(pts));
        free(out);
        free(want);
        gst_sample_unref(sample);
        got++;
    }
    CHECK(got == 12, "in-flight=%d: %d of 12 buffers came out", in_flight, got);
    GstQuery *q = gst_query_new_latency();
    gboolean live;
    GstClockTime min = 0, max = 0;
    if (gst_element_query(r.filter, q)) {
        gst_query_parse_latency(q, &live, &min, &max);
        printf(
            "  in-flight=%d: 12 buffers in order, equal, timestamps kept; latency %" GST_TIME_FORMAT
            "\n",
            in_flight, GST_TIME_ARGS(min));
    }
    gst_query_unref(q);
    close_run(&r);
    return min;
}

/* A user kernel's `time` follows the caps' frame rate (10 fps: 0.1 s a
 * buffer), not the engine's default 25. */
static void check_time(void)
{
    char path[] = "/tmp/clvid-gst-time-XXXXXX";
    int fd = mkstemp(path);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        CHECK(0, "cannot write a kernel file");
        return;
    }
    fputs("kernel void t(CLV_ARGS, float time)\n"
          "{ WRITE((uchar4)((int)(time * 100.0f + 0.5f) & 255, 0, 0, 255)); }\n",
          f);
    fclose(f);
    char description[512];
    snprintf(description, sizeof description,
             "videotestsrc num-buffers=6 ! video/x-raw,format=RGBA,width=8,height=4,"
             "framerate=10/1 ! clvidfilter name=f chain=opencl=file=%s ! appsink name=out "
             "sync=false",
             path);
    run r;
    if (open_run(&r, description) == 0) {
        gst_element_set_state(r.pipeline, GST_STATE_PLAYING);
        int got = 0;
        uint8_t *out;
        while ((out = next_output(&r))) {
            CHECK(out[0] == got * 10, "buffer %d: time %d/100 s, want %d", got, out[0], got * 10);
            free(out);
            got++;
        }
        CHECK(got == 6, "%d of 6 buffers", got);
        printf("  a user kernel's time at 10 fps: 0, 0.1, ... 0.5 s\n");
        close_run(&r);
    }
    remove(path);
}

/* A chain whose every filter runs at 16 bits, for the deep formats. */
#define DEEP_CHAIN "hflip,vflip"

static int test_formats(void)
{
    check_time();
    GstClockTime one = check_in_flight(1);
    for (int k = 2; k <= 3; k++) {
        GstClockTime l = check_in_flight(k);
        CHECK(l == one + (GstClockTime)(k - 1) * GST_SECOND / 25,
              "in-flight=%d reports %" GST_TIME_FORMAT " of latency, not one frame more per buffer",
              k, GST_TIME_ARGS(l));
    }
    /* The sanitizer builds (run alone: RUN_SERIAL) take 641x359 for every
     * third format and 1921x1081 not at all; the small sizes for all. */
    int sanitized = getenv("CLVID_SANITIZED") != NULL;
    static const char *const formats[] = {"RGBA", "BGRA", "RGBx", "BGRx", "I420", "NV12"};
    static const int sizes[][2] = {{641, 359}, {17, 9}, {1, 1}, {2, 3}};
    for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
            if (!sanitized || s || f % 3 == 0)
                check_format(formats[f], sizes[s][0], sizes[s][1], "median,sharpen", s ? 3 : 8);
    check_format("I420", 641, 359, "equalize,noise=amount=0.3", 4); /* per-frame index */
    /* run inside the conversions on CPUs */
    check_format("NV12", 641, 359, "equalize", 3);
    check_format("I420", 17, 9, "equalize=mode=gray", 3);
    if (!sanitized)
        check_format("RGBA", 1921, 1081, "prewitt", 2);
    /* 10 and 16 bits: the chain at 16 bits (a filter of each kind that runs
     * there; DEEP_CHAIN names them) */
    static const char *const deep[] = {"I420_10LE", "P010_10LE", "RGBA64_LE"};
    for (size_t f = 0; f < sizeof deep / sizeof deep[0]; f++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
            if (!sanitized || s || f == 0)
                check_format(deep[f], sizes[s][0], sizes[s][1], DEEP_CHAIN, s ? 3 : 5);
    return 0;
}

static int test_switch_chain(void)
{
    run r;
    if (open_run(&r, "videotestsrc num-buffers=30 pattern=ball ! video/x-raw,format=RGBA,"
                     "width=64,height=48 ! clvidfilter name=f chain=gray ! appsink name=out "
                     "sync=false max-buffers=2"))
        return 1;
    /* Set from the streaming thread just before buffer 10 and 20 enter the
     * element: "the next buffer" is exactly that one. At 25, a bad chain:
     * refused, and median=radius=2 goes on to the end. */
    r.set_at[10] = "threshold=t=100";
    r.set_at[20] = "median=radius=2";
    r.set_at[25] = "median=radius=9";
    gst_element_set_state(r.pipeline, GST_STATE_PLAYING);
    int got = 0;
    uint8_t *out;
    while ((out = next_output(&r))) {
        const char *chain = got < 10 ? "gray" : got < 20 ? "threshold=t=100" : "median=radius=2";
        uint8_t *want = expected(chain, r.inputs[got], &r.info, (uint64_t)got);
        CHECK(want && !memcmp(out, want, 64 * 48 * 4), "buffer %d is not '%s'", got, chain);
        free(want);
        free(out);
        got++;
    }
    char *said[4] = {0};
    int n = bus_messages(&r, said, 4);
    CHECK(n == 1 && strstr(said[0], "warning: clvidfilter chain: filter 'median' parameter "
                                    "'radius': 9 is out of range (allowed: 1 to 7)"),
          "%d messages on the bus, the first: %s (one warning wanted)", n, n ? said[0] : "(none)");
    printf("  30 buffers: gray, threshold from buffer 10, median from 20 to the end; at 25 the "
           "bus said %s\n",
           n ? said[0] : "(none)");
    for (int i = 0; i < n; i++)
        g_free(said[i]);
    CHECK(got == 30, "%d buffers came out (30 expected: a bad chain must not stop the stream)",
          got);
    char *now = NULL;
    g_object_get(r.filter, "chain", &now, NULL);
    CHECK(now && !strcmp(now, "median=radius=2"), "the refused chain replaced the property: %s",
          now);
    g_free(now);
    close_run(&r);
    return 0;
}

/* Chains that change the size: the source caps say the chain's size, and a
 * chain of another size set while PLAYING renegotiates them from the next
 * buffer on (the buffers before it come out at the old size); each buffer
 * equals its chain's reference, in RGBA and I420. */
static void check_resize(const char *format)
{
    char description[512];
    snprintf(description, sizeof description,
             "videotestsrc num-buffers=30 pattern=ball ! video/x-raw,format=%s,width=64,"
             "height=48 ! clvidfilter name=f chain=crop=iw/2:ih-8:3:1 ! appsink name=out "
             "sync=false max-buffers=2",
             format);
    run r;
    if (open_run(&r, description))
        return;
    static const char *const chains[] = {"crop=iw/2:ih-8:3:1", "transpose=clock,pad=iw+6:ih+2:3:1",
                                         "", "crop=17:9"};
    r.set_at[8] = chains[1];
    r.set_at[16] = chains[2];
    r.set_at[24] = chains[3];
    gst_element_set_state(r.pipeline, GST_STATE_PLAYING);
    int got = 0, w, h;
    uint8_t *out;
    while ((out = next_sized(&r, &w, &h))) {
        const char *chain = chains[got / 8];
        clv_chain_desc *desc = NULL;
        clv_size in = {64, 48, 1, 1, 0, 0, 0}, want_size = in;
        if (!clv_chain_parse(chain, &desc, NULL))
            clv_chain_desc_output_size(desc, &in, &want_size, NULL);
        clv_chain_desc_destroy(desc);
        CHECK(w == want_size.width && h == want_size.height,
              "%s buffer %d ('%s'): caps %dx%d, the chain makes %dx%d", format, got, chain, w, h,
              want_size.width, want_size.height);
        uint8_t *want = expected(chain, r.inputs[got], &r.info, (uint64_t)got);
        CHECK(want && w == want_size.width &&
                  !memcmp(out, want,
                          clv_pixfmt_size(pixfmt_of(GST_VIDEO_INFO_FORMAT(&r.info)), w, h)),
              "%s buffer %d is not '%s'", format, got, chain);
        free(want);
        free(out);
        got++;
    }
    CHECK(got == 30, "%s: %d buffers came out of 30", format, got);
    printf("  %s 64x48: crop to 32x40, transpose+pad to 46x34 from buffer 8, none from 16, "
           "crop=17:9 from 24: %d buffers, each at its size and equal to the reference\n",
           format, got);
    close_run(&r);
}

static int test_resize(void)
{
    check_resize("RGBA");
    check_resize("I420");
    /* A chain that keeps small sizes but not this one: the caps follow the
     * chain for the stream's own size. */
    run r;
    if (open_run(&r, "videotestsrc num-buffers=3 ! video/x-raw,format=RGBA,width=64,height=48 ! "
                     "clvidfilter name=f ! appsink name=out sync=false"))
        return 1;
    g_object_set(r.filter, "chain", "crop=w='min(iw,40)'", NULL);
    gst_element_set_state(r.pipeline, GST_STATE_PLAYING);
    int got = 0, w = 0, h = 0;
    uint8_t *out;
    while ((out = next_sized(&r, &w, &h))) {
        CHECK(w == 40 && h == 48, "crop=w='min(iw,40)' on 64x48: caps %dx%d", w, h);
        free(out);
        got++;
    }
    CHECK(got == 3, "%d buffers of 3", got);
    close_run(&r);
    return 0;
}

/* The references of a deinterlacing chain over count RGBA frames of w x h
 * as a stream runs it (rate runs a frame, the first delay * rate outputs
 * no frames, the held ones given after clv_ref_chain_end): delay + rate *
 * count frames into outs (caller frees each); how many, -1 on failure. */
static int expected_stream(const char *chain, uint8_t *const *in, int count, int w, int h,
                           uint8_t **outs, int max)
{
    clv_chain_desc *desc = NULL;
    clv_ref_chain *ref = NULL;
    clv_image a = {0}, b = {0};
    int delay = 0, rate = 1, n = 0;
    if (clv_chain_parse(chain, &desc, NULL) || clv_chain_desc_cadence(desc, &delay, &rate, NULL) ||
        clv_ref_chain_create(desc, &ref) || clv_image_alloc(&a, w, h) ||
        clv_image_alloc(&b, w, h)) {
        clv_chain_desc_destroy(desc);
        clv_ref_chain_destroy(ref);
        return -1;
    }
    clv_chain_desc_destroy(desc);
    uint64_t runs = 0;
    for (int f = 0; f <= count; f++) {
        if (f == count)
            clv_ref_chain_end(ref);
        const uint8_t *frame = in[f < count ? f : count - 1];
        for (int y = 0; y < h; y++)
            memcpy(a.pixels + (size_t)y * a.stride, frame + (size_t)y * w * 4, (size_t)w * 4);
        for (int k = 0; k < (f == count ? delay * rate : rate); k++, runs++) {
            clv_ref_chain_run(ref, &a, &b, runs);
            if (runs < (uint64_t)(delay * rate) || n >= max)
                continue;
            uint8_t *out = malloc((size_t)w * h * 4);
            for (int y = 0; out && y < h; y++)
                memcpy(out + (size_t)y * w * 4, b.pixels + (size_t)y * b.stride, (size_t)w * 4);
            outs[n++] = out;
        }
    }
    clv_ref_chain_destroy(ref);
    clv_image_free(&a);
    clv_image_free(&b);
    return n;
}

/* A deinterlacer's send_field while PLAYING: two buffers out of each, the
 * source caps at twice the rate and progressive, each pair at pts and
 * pts + duration / 2; switched to a chain of one buffer a buffer (its
 * held buffer given first, the caps back at the input's rate) and back. */
static int test_fields(void)
{
    run r;
    if (open_run(&r, "videotestsrc num-buffers=30 pattern=ball ! video/x-raw,format=RGBA,"
                     "width=64,height=48,framerate=25/1 ! clvidfilter name=f chain=bwdif ! "
                     "appsink name=out sync=false max-buffers=2"))
        return 1;
    r.set_at[10] = "gray";
    r.set_at[20] = "yadif=send_field";
    gst_element_set_state(r.pipeline, GST_STATE_PLAYING);
    int got = 0, fields = 0;
    GstClockTime last = 0;
    uint8_t *outs[MAX_FRAMES] = {0};
    for (;;) {
        GstSample *sample = NULL;
        g_signal_emit_by_name(r.sink, "try-pull-sample", (GstClockTime)(20 * GST_SECOND), &sample);
        if (!sample)
            break;
        /* Buffers 0-9 and 20-29 give two each, 10-19 one. */
        const int two = got < 20 || got >= 30;
        const int in = got < 20 ? got / 2 : got < 30 ? got - 10 : 20 + (got - 30) / 2;
        const int field = two ? got % 2 : 0;
        GstBuffer *b = gst_sample_get_buffer(sample);
        const GstStructure *caps = gst_caps_get_structure(gst_sample_get_caps(sample), 0);
        int n = 0, d = 0;
        gst_structure_get_fraction(caps, "framerate", &n, &d);
        const char *mode = gst_structure_get_string(caps, "interlace-mode");
        const GstClockTime pts =
            (GstClockTime)in * GST_SECOND / 25 + (GstClockTime)field * GST_SECOND / 50;
        const GstClockTime dur = two ? GST_SECOND / 50 : GST_SECOND / 25;
        CHECK(n == (two ? 50 : 25) && d == 1, "buffer %d out: framerate %d/%d", got, n, d);
        CHECK(!two || (mode && !strcmp(mode, "progressive")), "buffer %d out: interlace-mode %s",
              got, mode ? mode : "(none)");
        CHECK(GST_BUFFER_PTS(b) == pts && GST_BUFFER_DURATION(b) == dur,
              "buffer %d out: pts %" GST_TIME_FORMAT " duration %" GST_TIME_FORMAT
              ", wanted %" GST_TIME_FORMAT " %" GST_TIME_FORMAT,
              got, GST_TIME_ARGS(GST_BUFFER_PTS(b)), GST_TIME_ARGS(GST_BUFFER_DURATION(b)),
              GST_TIME_ARGS(pts), GST_TIME_ARGS(dur));
        CHECK(got == 0 || GST_BUFFER_PTS(b) > last, "buffer %d out: time goes back", got);
        last = GST_BUFFER_PTS(b);
        fields += two;
        if (got < MAX_FRAMES)
            outs[got] = pack(b, &r.info);
        got++;
        gst_sample_unref(sample);
    }
    /* The pictures: each part as its chain's references make it. */
    uint8_t *want[MAX_FRAMES] = {0};
    int n = got == 50 ? expected_stream("bwdif", r.inputs, 10, 64, 48, want, 20) : -1;
    for (int i = 0; i < 10; i++)
        want[20 + i] = expected("gray", r.inputs[10 + i], &r.info, (uint64_t)(10 + i));
    int m = n == 20 ? expected_stream("yadif=send_field", r.inputs + 20, 10, 64, 48, want + 30, 20)
                    : -1;
    for (int i = 0; m == 20 && i < 50; i++)
        CHECK(outs[i] && want[i] && !memcmp(outs[i], want[i], 64 * 48 * 4),
              "buffer %d out differs from the reference", i);
    CHECK(n == 20 && m == 20, "references: %d and %d frames", n, m);
    for (int i = 0; i < MAX_FRAMES; i++) {
        free(outs[i]);
        free(want[i]);
    }
    CHECK(got == 50 && fields == 40, "%d buffers out of 30 (%d of fields), 50 wanted", got, fields);
    printf("  30 buffers: bwdif (send_field) for 10, gray for 10, yadif=send_field for 10: %d "
           "out, 50/1 and 25/1 caps in turn, each field at its time, equal to the references\n",
           got);
    close_run(&r);
    return 0;
}

/* ---- Bad chains -------------------------------------------------------------- */

/* Writes text into dir/name; the path in path (size bytes). */
static int write_kernel(const char *dir, const char *name, const char *text, char *path,
                        size_t size)
{
    snprintf(path, size, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f) {
        CHECK(0, "cannot write %s", path);
        return -1;
    }
    fputs(text, f);
    fclose(f);
    return 0;
}

/* The invert kernel's output: RGB turned over, alpha kept. */
static int is_inverted(const uint8_t *out, const uint8_t *in, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (out[i] != ((i & 3) == 3 ? in[i] : 255 - in[i]))
            return 0;
    return 1;
}

/* A bad chain given before PLAYING: the state change fails with an error
 * naming the problem, no buffer comes out, and once the chain is put right
 * the same pipeline runs. */
static void check_bad_start(const char *chain, const char *want)
{
    run r;
    if (open_run(&r, "videotestsrc num-buffers=3 pattern=ball ! video/x-raw,format=RGBA,"
                     "width=64,height=48 ! clvidfilter name=f ! appsink name=out sync=false"))
        return;
    g_object_set(r.filter, "chain", chain, NULL);
    gst_element_set_state(r.pipeline, GST_STATE_PLAYING);
    GstStateChangeReturn sr = gst_element_get_state(r.pipeline, NULL, NULL, 20 * GST_SECOND);
    CHECK(sr == GST_STATE_CHANGE_FAILURE, "'%s' at start: the state change gave %s", chain,
          gst_element_state_change_return_get_name(sr));
    char *err = bus_error(&r);
    CHECK(err && strstr(err, want), "'%s' at start: bus error %s, wanted one with \"%s\"", chain,
          err ? err : "(none)", want);
    GstSample *sample = NULL;
    g_signal_emit_by_name(r.sink, "try-pull-sample", (GstClockTime)(GST_SECOND / 2), &sample);
    CHECK(!sample, "'%s' at start: a buffer came out", chain);
    if (sample)
        gst_sample_unref(sample);
    int seen = r.seen;
    gst_element_set_state(r.pipeline, GST_STATE_NULL);
    g_object_set(r.filter, "chain", "gray", NULL);
    gst_element_set_state(r.pipeline, GST_STATE_PLAYING);
    int got = 0;
    uint8_t *out;
    while ((out = next_output(&r))) {
        uint8_t *want_out = got + seen < r.seen
                                ? expected("gray", r.inputs[got + seen], &r.info, (uint64_t)got)
                                : NULL;
        CHECK(want_out && !memcmp(out, want_out, 64 * 48 * 4),
              "after '%s' at start, then gray: buffer %d is not gray", chain, got);
        free(want_out);
        free(out);
        got++;
    }
    CHECK(got == 3, "after '%s' at start, then gray: %d of 3 buffers", chain, got);
    printf("  at start '%s': the state change failed, the bus said: %.*s; then gray ran\n", chain,
           err ? first_line(err) : 6, err ? err : "(none)");
    g_free(err);
    close_run(&r);
}

/* A chain that cannot take the input's size (a crop larger than the
 * frame) at start: negotiation fails, with a warning on the bus that
 * names the filter and the size, not "not-negotiated" alone. */
static void check_size_refused(void)
{
    run r;
    if (open_run(&r, "videotestsrc num-buffers=3 ! video/x-raw,format=RGBA,width=64,height=48 ! "
                     "clvidfilter name=f ! appsink name=out sync=false"))
        return;
    g_object_set(r.filter, "chain", "crop=100:100", NULL);
    gst_element_set_state(r.pipeline, GST_STATE_PLAYING);
    gst_element_get_state(r.pipeline, NULL, NULL, 20 * GST_SECOND);
    char *said[8];
    int n = bus_messages(&r, said, 8), found = 0;
    for (int i = 0; i < n; i++) {
        found |= !strncmp(said[i], "warning:", 8) && strstr(said[i], "a crop of 100x100") &&
                 strstr(said[i], "64x48");
        g_free(said[i]);
    }
    CHECK(found,
          "crop=100:100 on 64x48 at start: no warning naming the crop and the size (%d "
          "messages)",
          n);
    printf("  at start 'crop=100:100' on 64x48: a warning names the crop and the size\n");
    close_run(&r);
}

static int test_bad_chain(void)
{
    char dir[] = "/tmp/clvid-gst-bad-XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK(0, "cannot make a temporary folder");
        return 1;
    }
    char missing[512], syntax[512] = "", signature[512] = "", invert[512] = "";
    snprintf(missing, sizeof missing, "%s/missing.cl", dir);
    if (write_kernel(dir, "syntax.cl", "kernel void k(CLV_ARGS)\n{ WRITE((uchar4)(1, 2, 3 ; }\n",
                     syntax, sizeof syntax) ||
        write_kernel(dir, "signature.cl", "kernel void k(global int *x)\n{ x[0] = 1; }\n",
                     signature, sizeof signature) ||
        write_kernel(
            dir, "invert.cl",
            "kernel void k(CLV_ARGS)\n"
            "{ uchar4 p = READ(CLV_X, CLV_Y); WRITE((uchar4)((uchar3)255 - p.xyz, p.w)); }\n",
            invert, sizeof invert))
        goto done;
    char chain_missing[600], chain_syntax[600], chain_signature[600], chain_invert[600];
    snprintf(chain_missing, sizeof chain_missing, "opencl=file=%s", missing);
    snprintf(chain_syntax, sizeof chain_syntax, "opencl=file=%s", syntax);
    snprintf(chain_signature, sizeof chain_signature, "opencl=file=%s", signature);
    snprintf(chain_invert, sizeof chain_invert, "opencl=file=%s", invert);
    char want_missing[600], want_syntax[600];
    snprintf(want_missing, sizeof want_missing, "cannot read '%s'", missing);
    snprintf(want_syntax, sizeof want_syntax, "%s: kernel 'k' does not build", syntax);

    /* Every kind of bad chain, each set from the streaming thread just
     * before buffer `at` (three buffers apart), then two good ones, then a
     * bad one over the user kernel. Each must be a warning naming the
     * problem, and the buffers from `at` on keep the chain in use. Two
     * buffers in flight, as on a GPU: the one before is still in the stage
     * when each chain is set. */
    static const int frames = 48;
    const struct {
        int at;
        const char *chain, *want; /* want: NULL for a good chain */
    } sets[] = {
        {3, "median=radius=99",
         "filter 'median' parameter 'radius': 99 is out of range (allowed: 1 to 7)"},
        {6, "wobble=7", "unknown filter 'wobble'"},
        {9, "#$% not a chain", "unknown filter '#$% not a chain'"},
        {12, chain_missing, want_missing},
        {15, chain_syntax, want_syntax},
        {18, chain_signature, "kernel 'k' has 1 arguments; it must start kernel void NAME("},
        {21, ",", "empty filter (two commas, or a comma at an end?)"},
        {24, "median,,sharpen", "empty filter (two commas, or a comma at an end?)"},
        {27, "median=radius", "'radius' is not an integer"},
        {30, "opencl=file=", "filter 'opencl' needs a kernel file"},
        {33, "sharpen", NULL},
        {38, chain_invert, NULL},
        {43, "median=radius=0", "filter 'median' parameter 'radius': 0 is out of range"},
    };
    const int count = (int)(sizeof sets / sizeof sets[0]);
    run r;
    if (open_run(&r, "videotestsrc num-buffers=48 pattern=ball ! video/x-raw,format=RGBA,"
                     "width=64,height=48 ! clvidfilter name=f in-flight=2 chain=median=radius=2 ! "
                     "appsink name=out sync=false max-buffers=2"))
        goto done;
    /* What each buffer must have gone through. */
    const char *in_use[MAX_FRAMES];
    const char *now = "median=radius=2";
    for (int i = 0, k = 0; i < frames; i++) {
        if (k < count && sets[k].at == i) {
            r.set_at[i] = sets[k].chain;
            if (!sets[k].want)
                now = sets[k].chain;
            k++;
        }
        in_use[i] = now;
    }
    gst_element_set_state(r.pipeline, GST_STATE_PLAYING);
    int got = 0, bad = 0;
    uint8_t *out;
    while ((out = next_output(&r))) {
        size_t n = 64 * 48 * 4;
        int same;
        if (got >= r.seen)
            same = 0;
        else if (in_use[got] == chain_invert)
            same = is_inverted(out, r.inputs[got], n);
        else {
            uint8_t *want = expected(in_use[got], r.inputs[got], &r.info, (uint64_t)got);
            same = want && !memcmp(out, want, n);
            free(want);
        }
        if (!same && bad++ < 4)
            CHECK(0, "buffer %d is not '%s'", got, in_use[got]);
        free(out);
        got++;
    }
    CHECK(got == frames, "%d of %d buffers came out: a bad chain stopped the stream", got, frames);
    CHECK(bad == 0, "%d of %d buffers did not go through the chain in use", bad, got);
    printf("  %d buffers, each through the chain in use (median=radius=2, from 33 sharpen, from "
           "38 a user kernel)\n",
           got);
    /* One warning per bad chain, in order, each naming the problem, and no
     * error. */
    char *said[MAX_FRAMES] = {0};
    int n = bus_messages(&r, said, MAX_FRAMES), m = 0;
    for (int k = 0; k < count; k++) {
        if (!sets[k].want)
            continue;
        const char *text = m < n ? said[m++] : NULL;
        CHECK(text && !strncmp(text, "warning: clvidfilter chain: ", 28) &&
                  strstr(text, sets[k].want),
              "'%s' at buffer %d: the bus said %s, wanted a warning with \"%s\"", sets[k].chain,
              sets[k].at, text ? text : "(nothing)", sets[k].want);
        printf("  '%s' at %d: %.*s\n", sets[k].chain, sets[k].at, text ? first_line(text) : 9,
               text ? text : "(nothing)");
        /* A chain refused when it was built, not when it was set: the
         * property says the chain in use again by the next buffer (when the
         * stream got that far: the count above tells when it did not). */
        int next = sets[k].at + 1;
        if (next < r.seen && next < MAX_FRAMES)
            CHECK(r.chain_at[next] && !strcmp(r.chain_at[next], in_use[next]),
                  "after '%s' the chain property says '%s', not the chain in use '%s'",
                  sets[k].chain, r.chain_at[next] ? r.chain_at[next] : "(null)", in_use[next]);
    }
    CHECK(m == n, "%d messages more than the bad chains' warnings, the first: %s", n - m,
          m < n ? said[m] : "");
    for (int i = 0; i < n; i++)
        g_free(said[i]);
    close_run(&r);

    check_bad_start("median=radius=99", "99 is out of range");
    check_bad_start(",", "empty filter (two commas");
    check_bad_start(chain_missing, want_missing);
    check_bad_start(chain_syntax, want_syntax);
    check_bad_start(chain_signature, "kernel 'k' has 1 arguments");
    check_size_refused();
done:
    remove(syntax);
    remove(signature);
    remove(invert);
    rmdir(dir);
    return 0;
}

static void copies(GstElement *filter, guint64 *in, guint64 *out);

static double rss_mb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    double mb = 0;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmRSS:", 6))
            mb = atof(line + 6) / 1024;
    if (f)
        fclose(f);
    return mb;
}

static int test_long_run(void)
{
    GError *error = NULL;
    GstElement *p = gst_parse_launch("videotestsrc num-buffers=1000 pattern=ball ! "
                                     "video/x-raw,format=I420,width=320,height=240 ! "
                                     "clvidfilter name=f chain=median,sharpen ! appsink name=out "
                                     "sync=false",
                                     &error);
    if (!p) {
        CHECK(0, "%s", error->message);
        return 1;
    }
    GstElement *sink = gst_bin_get_by_name(GST_BIN(p), "out");
    gst_element_set_state(p, GST_STATE_PLAYING);
    int n = 0;
    double at100 = 0, at1000 = 0;
    GstSample *s;
    for (;;) {
        s = NULL;
        g_signal_emit_by_name(sink, "try-pull-sample", (GstClockTime)(20 * GST_SECOND), &s);
        if (!s)
            break;
        gst_sample_unref(s);
        n++;
        if (n == 100)
            at100 = rss_mb();
    }
    at1000 = rss_mb();
    printf("  %d buffers; resident memory %.1f MB after 100, %.1f MB after 1000 (+%.1f)\n", n,
           at100, at1000, at1000 - at100);
    CHECK(n == 1000, "%d buffers", n);
    guint64 in = 0, out = 0;
    GstElement *f = gst_bin_get_by_name(GST_BIN(p), "f");
    copies(f, &in, &out);
    gst_object_unref(f);
    printf("  copied in %" G_GUINT64_FORMAT ", out %" G_GUINT64_FORMAT "\n", in, out);
    if (getenv("CLVID_SANITIZED"))
        printf("  (sanitizer build: its quarantine holds freed memory; LeakSanitizer checks "
               "instead)\n");
    else
        CHECK(at1000 - at100 < 8, "memory grew by %.1f MB over 900 buffers", at1000 - at100);
    gst_element_set_state(p, GST_STATE_NULL);
    gst_object_unref(sink);
    gst_object_unref(p);
    return 0;
}

/* ---- Buffers without host copies --------------------------------------------- */

/* The element's counts of buffers copied in and out. */
static void copies(GstElement *filter, guint64 *in, guint64 *out)
{
    g_object_get(filter, "copies-in", in, "copies-out", out, NULL);
}

/* Makes appsink say it reads GstVideoMeta (it does not by itself): buffers
 * out of any layout may then be the stage's memory. */
static GstPadProbeReturn add_video_meta(GstPad *pad, GstPadProbeInfo *pi, gpointer data)
{
    (void)pad;
    (void)data;
    GstQuery *q = GST_PAD_PROBE_INFO_QUERY(pi);
    if (GST_QUERY_TYPE(q) == GST_QUERY_ALLOCATION &&
        !gst_query_find_allocation_meta(q, GST_VIDEO_META_API_TYPE, NULL))
        gst_query_add_allocation_meta(q, GST_VIDEO_META_API_TYPE, NULL);
    return GST_PAD_PROBE_OK;
}

static void sink_reads_meta(run *r)
{
    GstPad *pad = gst_element_get_static_pad(r->sink, "sink");
    gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM, add_video_meta, NULL, NULL);
    gst_object_unref(pad);
}

/* videotestsrc writes into the pool the element proposes (the stage's
 * memory on PoCL): every buffer read where it lies, none copied in, each
 * equal to the reference; appsink, told to read GstVideoMeta, gets the
 * stage's output memory: none copied out. */
static void check_pool(const char *format, int w, int h, const char *chain, int frames)
{
    char description[512];
    snprintf(description, sizeof description,
             "videotestsrc num-buffers=%d pattern=ball ! video/x-raw,format=%s,width=%d,"
             "height=%d ! clvidfilter name=f chain=%s ! appsink name=out sync=false",
             frames, format, w, h, chain);
    run r;
    if (open_run(&r, description))
        return;
    sink_reads_meta(&r);
    gst_element_set_state(r.pipeline, GST_STATE_PLAYING);
    int got = 0, bad = 0;
    uint8_t *out;
    while ((out = next_output(&r))) {
        size_t n = clv_pixfmt_size(pixfmt_of(GST_VIDEO_INFO_FORMAT(&r.info)), w, h);
        uint8_t *want =
            got < r.seen ? expected(chain, r.inputs[got], &r.info, (uint64_t)got) : NULL;
        bad += !want || memcmp(out, want, n);
        free(want);
        free(out);
        got++;
    }
    guint64 in = 0, copied = 0;
    copies(r.filter, &in, &copied);
    CHECK(got == frames && bad == 0, "pool %s %dx%d: %d of %d buffers, %d differ", format, w, h,
          got, frames, bad);
    CHECK(in == 0 && copied == 0,
          "pool %s %dx%d: %" G_GUINT64_FORMAT " buffers copied in, %" G_GUINT64_FORMAT " out",
          format, w, h, in, copied);
    printf("  pool %-4s %4dx%-4d %-14s %d buffers equal, copied in %" G_GUINT64_FORMAT
           ", out %" G_GUINT64_FORMAT "\n",
           format, w, h, chain, got - bad, in, copied);
    close_run(&r);
}

/* An upstream that ignores the pool (appsrc pushing buffers of its own,
 * rows padded): each buffer copied in, equal to the reference. */
static void check_fallback(const char *format, int w, int h, const char *chain, int frames)
{
    char description[512];
    snprintf(description, sizeof description,
             "appsrc name=src format=time caps=video/x-raw,format=%s,width=%d,height=%d,"
             "framerate=25/1 ! clvidfilter name=f chain=%s ! appsink name=out sync=false",
             format, w, h, chain);
    run r;
    if (open_run(&r, description))
        return;
    GstElement *src = gst_bin_get_by_name(GST_BIN(r.pipeline), "src");
    gst_element_set_state(r.pipeline, GST_STATE_PLAYING);
    GstVideoInfo info;
    gst_video_info_set_format(&info, gst_video_format_from_string(format), (guint)w, (guint)h);
    uint32_t seed = 12345;
    for (int i = 0; i < frames; i++) {
        GstBuffer *b = gst_buffer_new_allocate(NULL, GST_VIDEO_INFO_SIZE(&info), NULL);
        GstMapInfo map;
        gst_buffer_map(b, &map, GST_MAP_WRITE);
        for (gsize k = 0; k < map.size; k++) {
            seed = seed * 1103515245u + 12345u;
            map.data[k] = (uint8_t)(seed >> 16);
        }
        gst_buffer_unmap(b, &map);
        GST_BUFFER_PTS(b) = (GstClockTime)i * GST_SECOND / 25;
        GST_BUFFER_DURATION(b) = GST_SECOND / 25;
        GstFlowReturn ret;
        g_signal_emit_by_name(src, "push-buffer", b, &ret);
        gst_buffer_unref(b);
    }
    GstFlowReturn ret;
    g_signal_emit_by_name(src, "end-of-stream", &ret);
    int got = 0, bad = 0;
    uint8_t *out;
    while ((out = next_output(&r))) {
        size_t n = clv_pixfmt_size(pixfmt_of(GST_VIDEO_INFO_FORMAT(&r.info)), w, h);
        uint8_t *want =
            got < r.seen ? expected(chain, r.inputs[got], &r.info, (uint64_t)got) : NULL;
        bad += !want || memcmp(out, want, n);
        free(want);
        free(out);
        got++;
    }
    guint64 in = 0, copied = 0;
    copies(r.filter, &in, &copied);
    CHECK(got == frames && bad == 0, "fallback %s %dx%d: %d of %d buffers, %d differ", format, w, h,
          got, frames, bad);
    CHECK(in == (guint64)frames, "fallback %s %dx%d: %" G_GUINT64_FORMAT " of %d copied in", format,
          w, h, in, frames);
    printf("  appsrc %-4s %4dx%-4d %-12s %d buffers equal, copied in %" G_GUINT64_FORMAT
           ", out %" G_GUINT64_FORMAT "\n",
           format, w, h, chain, got - bad, in, copied);
    gst_object_unref(src);
    close_run(&r);
}

/* videotestsrc into the element on copied staging (CLVID_STAGING=copy, as
 * on a GPU): upstream writes into the pool of the stage's pinned memory,
 * uploaded from there; appsink gets the pinned memory the download landed
 * in: none copied in or out, every buffer equal to the reference. */
static void check_copied(const char *format, int w, int h)
{
    char description[512];
    snprintf(description, sizeof description,
             "videotestsrc num-buffers=3 pattern=ball ! video/x-raw,format=%s,width=%d,"
             "height=%d ! clvidfilter name=f chain=sharpen ! appsink name=out sync=false",
             format, w, h);
    run r;
    if (open_run(&r, description))
        return;
    sink_reads_meta(&r);
    gst_element_set_state(r.pipeline, GST_STATE_PLAYING);
    int got = 0, bad = 0;
    uint8_t *out;
    while ((out = next_output(&r))) {
        size_t n = clv_pixfmt_size(pixfmt_of(GST_VIDEO_INFO_FORMAT(&r.info)), w, h);
        uint8_t *want =
            got < r.seen ? expected("sharpen", r.inputs[got], &r.info, (uint64_t)got) : NULL;
        bad += !want || memcmp(out, want, n);
        free(want);
        free(out);
        got++;
    }
    guint64 in = 0, copied = 0;
    copies(r.filter, &in, &copied);
    CHECK(got == 3 && bad == 0 && in == 0 && copied == 0,
          "copied staging %s %dx%d: %d of 3 buffers, %d differ, %" G_GUINT64_FORMAT
          " copied in, %" G_GUINT64_FORMAT " out",
          format, w, h, got, bad, in, copied);
    printf("  copied staging %-4s %4dx%-4d %s: %d buffers equal, copied in %" G_GUINT64_FORMAT
           ", out %" G_GUINT64_FORMAT "\n",
           format, w, h, getenv("CLVID_SHAPE") ? "gpu shape" : "", got - bad, in, copied);
    close_run(&r);
}

/* Buffers downstream keeps while the element goes on: several held (the
 * stage's own memory where it hands that out), then more buffers through;
 * the held ones are unchanged, equal to their references. */
static void check_held(const char *format, int w, int h, int meta)
{
    enum { HOLD = 6, FRAMES = 16 };
    char description[512];
    snprintf(description, sizeof description,
             "videotestsrc num-buffers=%d pattern=ball ! video/x-raw,format=%s,width=%d,"
             "height=%d ! clvidfilter name=f chain=sharpen ! appsink name=out sync=false",
             FRAMES, format, w, h);
    run r;
    if (open_run(&r, description))
        return;
    if (meta)
        sink_reads_meta(&r);
    gst_element_set_state(r.pipeline, GST_STATE_PLAYING);
    GstSample *held[HOLD] = {NULL};
    uint8_t *first[HOLD] = {NULL};
    int got = 0;
    for (;;) {
        GstSample *sample = NULL;
        g_signal_emit_by_name(r.sink, "try-pull-sample", (GstClockTime)(20 * GST_SECOND), &sample);
        if (!sample)
            break;
        if (got < HOLD) {
            held[got] = sample;
            first[got] = pack(gst_sample_get_buffer(sample), &r.info);
        } else {
            gst_sample_unref(sample);
        }
        got++;
    }
    size_t n = clv_pixfmt_size(pixfmt_of(GST_VIDEO_INFO_FORMAT(&r.info)), w, h);
    int bad = 0;
    for (int i = 0; i < HOLD && i < got; i++) {
        uint8_t *now = pack(gst_sample_get_buffer(held[i]), &r.info);
        uint8_t *want = expected("sharpen", r.inputs[i], &r.info, (uint64_t)i);
        bad += !now || !want || !first[i] || memcmp(now, first[i], n) || memcmp(now, want, n);
        free(now);
        free(want);
        free(first[i]);
        gst_sample_unref(held[i]);
    }
    guint64 in = 0, copied = 0;
    copies(r.filter, &in, &copied);
    CHECK(got == FRAMES && bad == 0, "held %s %dx%d: %d of %d buffers, %d held ones changed",
          format, w, h, got, FRAMES, bad);
    CHECK(!meta || copied == 0, "held %s %dx%d: %" G_GUINT64_FORMAT " copied out", format, w, h,
          copied);
    printf("  %s %dx%d: %d buffers held while %d more went through, unchanged and equal; "
           "copied out %" G_GUINT64_FORMAT "\n",
           format, w, h, HOLD, FRAMES - HOLD, copied);
    close_run(&r);
}

static int test_pool(void)
{
    static const char *const formats[] = {"I420", "NV12", "RGBA"};
    static const int sizes[][2] = {{641, 359}, {17, 9}, {1, 1}, {640, 360}};
    /* The sanitizer builds leave out 641x359 through median (its C
     * reference is slow under ThreadSanitizer). */
    const size_t first = getenv("CLVID_SANITIZED") ? 1 : 0;
    for (size_t f = 0; f < 3; f++)
        for (size_t s = first; s < sizeof sizes / sizeof sizes[0]; s++)
            check_pool(formats[f], sizes[s][0], sizes[s][1], "median,sharpen", 3);
    check_pool("I420", 641, 359, "sharpen", 4); /* run inside the conversions on CPUs */
    check_pool("NV12", 17, 9, "equalize", 3);
    check_pool("I420_10LE", 17, 9, "hflip,vflip", 3);
    for (size_t f = 0; f < 3; f++) {
        check_fallback(formats[f], 641, 359, "median,sharpen", 3);
        check_fallback(formats[f], 17, 9, "sharpen", 3);
    }
    /* Copied staging (what a GPU has): the pool of the stage's pinned
     * memory, nothing copied in or out, equal; the GPU shape too. */
    setenv("CLVID_STAGING", "copy", 1);
    check_copied("I420", 641, 359);
    check_copied("RGBA", 17, 9);
    setenv("CLVID_SHAPE", "gpu", 1);
    check_copied("NV12", 641, 359);
    unsetenv("CLVID_SHAPE");
    unsetenv("CLVID_STAGING");
    /* The stage's memory held (downstream reads GstVideoMeta, or the
     * layout is the caps' own), and copies held (a layout of its own). */
    check_held("I420", 640, 360, 0);
    check_held("RGBA", 17, 9, 0);
    check_held("NV12", 641, 359, 1);
    check_held("I420", 641, 359, 0);
    return 0;
}

int main(int argc, char **argv)
{
    gst_init(&argc, &argv);
    if (argc < 2) {
        fprintf(stderr,
                "usage: gst-test formats|switch_chain|bad_chain|long_run|resize|fields|pool\n");
        return 2;
    }
    if (!gst_element_factory_find("clvidfilter")) {
        fprintf(stderr, "gst-test: no clvidfilter element (GST_PLUGIN_PATH?)\n");
        return 1;
    }
    if (!strcmp(argv[1], "formats"))
        test_formats();
    else if (!strcmp(argv[1], "switch_chain"))
        test_switch_chain();
    else if (!strcmp(argv[1], "bad_chain"))
        test_bad_chain();
    else if (!strcmp(argv[1], "long_run"))
        test_long_run();
    else if (!strcmp(argv[1], "resize"))
        test_resize();
    else if (!strcmp(argv[1], "fields"))
        test_fields();
    else if (!strcmp(argv[1], "pool"))
        test_pool();
    else {
        fprintf(stderr, "gst-test: no test '%s'\n", argv[1]);
        return 2;
    }
    gst_deinit();
    printf("%s %s\n", test_failures ? "FAIL" : "PASS", argv[1]);
    return test_failures ? 1 : 0;
}
