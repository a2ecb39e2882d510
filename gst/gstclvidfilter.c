/* gstclvidfilter.c - clvidfilter, clvid's filters as a GStreamer element
 * (plugin libgstclvid.so): RGBA, BGRA, RGBx, BGRx, I420 and NV12 frames of
 * any size, and I420_10LE, P010_10LE and RGBA64_LE (the chain at 16 bits),
 * go through the engine's GPU stage (YUV converted on the device
 * with the caps' colorimetry, as in transcode) and come out in the same
 * format, at the chain's output size (scale, crop, pad, transpose and
 * rotate change it; the caps say so, pixel aspect included). `chain` may
 * change while PLAYING: the next buffer uses the new chain (the device's
 * built programs are kept); one of another output size renegotiates the
 * source caps after the buffers in flight went out. A bad chain stops the
 * element from starting (an error), but once it runs a bad chain is a
 * warning and the chain in use stays: a live pipeline keeps going. Uses the
 * installed engine API only (include/clvid/clvid.h). */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gst/gst.h>
#include <gst/video/gstvideofilter.h>
#include <gst/video/video.h>

#include "clvid.h"
#include "engine_env.h"

#define PACKAGE "clvid"
#define FORMATS "{ RGBA, BGRA, RGBx, BGRx, I420, NV12, I420_10LE, P010_10LE, RGBA64_LE }"

GST_DEBUG_CATEGORY_STATIC(clvid_debug);
#define GST_CAT_DEFAULT clvid_debug

#define GST_TYPE_CLVID_FILTER (gst_clvid_filter_get_type())
G_DECLARE_FINAL_TYPE(GstClvidFilter, gst_clvid_filter, GST, CLVID_FILTER, GstVideoFilter)

struct _GstClvidFilter {
    GstVideoFilter parent;
    /* Properties, under lock (set from the application's thread). */
    GMutex lock;
    gchar *chain_text;
    gchar *device;
    int in_flight;          /* the property: 0 auto */
    gboolean chain_changed; /* chain_text differs from the chain in use */
    gboolean running;       /* between start and stop: a bad chain is a warning */
    gchar *used_text;       /* the text of the chain in use, for a refused one */
    GQueue held;            /* input buffers in the stage, oldest first */
    int depth;       /* buffers held before the first comes out: 2 on GPUs, 1 on CPUs, per device */
    int chain_depth; /* the chain's bits a channel: 16 for the caps' formats of 10 bits */
    gboolean draining;
    char chain_error[1024];   /* a chain refused before start: start fails with it */
    int refused_w, refused_h; /* the last input size the chain refused, told once */
    double kernel_ms;         /* per frame, over the last second's frames */
    /* The streaming thread's. */
    clv_context *ctx;
    clv_chain *chain;
    clv_stage *stage;
    clv_pixfmt format;
    int width, height;         /* the input caps' */
    int out_width, out_height; /* the output caps' (the chain's size of the input's) */
    guint64 frames;
    /* A chain that holds a frame back (a deinterlacer, clv_chain_cadence):
     * the submit index its stream began at (its first delay * rate outputs
     * are no frames: dropped), and whether it must be built afresh before
     * the next buffer (its stream ended: EOS, new caps, a flush). In mode
     * send_field (rate 2) each buffer is submitted twice and gives two
     * buffers out, one per field; the head of `held` gives its timestamps
     * to both. */
    guint64 chain_from;
    gboolean restart;
    clv_stage_times mark; /* for kernel_ms */
    char cache_dir[1024];
    /* Buffers without host copies: the pool proposed upstream, whose
     * buffers are blocks of the stage's memory (shared staging's, or copied
     * staging's pinned memory; NULL: none proposed), and whether downstream reads
     * GstVideoMeta (the outputs' layout is the stage's, tightly packed). */
    GstBufferPool *pool;
    gboolean downstream_meta;
    /* Buffers submitted from our pool and copied in, buffers out wrapping
     * the stage's memory and copied out (copies-in, copies-out: read from
     * the application's thread). */
    atomic_uint_fast64_t in_place, copied_in, kept, copied_out;
};

G_DEFINE_TYPE(GstClvidFilter, gst_clvid_filter, GST_TYPE_VIDEO_FILTER)

enum {
    PROP_0,
    PROP_CHAIN,
    PROP_DEVICE,
    PROP_KERNEL_MS,
    PROP_IN_FLIGHT,
    PROP_COPIES_IN,
    PROP_COPIES_OUT
};

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE(
    "sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS(GST_VIDEO_CAPS_MAKE(FORMATS)));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE(
    "src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS(GST_VIDEO_CAPS_MAKE(FORMATS)));

/* ---- Buffers in the stage's memory ------------------------------------- */

/* A GstMemory over a clv_block carries the block under this quark: such a
 * buffer is submitted where it lies (clv_stage_submit_block). */
static GQuark block_quark;

/* The pool proposed upstream: its buffers are blocks of the stage's input
 * memory (clv_stage_block_new), laid out as the caps' GstVideoInfo says,
 * with a GstVideoMeta. The element clears `stage` (under lock) before it
 * destroys the stage; buffers made after that are plain memory, which the
 * element copies as any other buffer. */
#define GST_TYPE_CLVID_POOL (gst_clvid_pool_get_type())
G_DECLARE_FINAL_TYPE(GstClvidPool, gst_clvid_pool, GST, CLVID_POOL, GstBufferPool)

struct _GstClvidPool {
    GstBufferPool parent;
    GMutex lock;
    clv_stage *stage; /* not owned; NULL once the element's stage went */
    GstVideoInfo info;
};

G_DEFINE_TYPE(GstClvidPool, gst_clvid_pool, GST_TYPE_BUFFER_POOL)

static const gchar **pool_options(GstBufferPool *pool)
{
    (void)pool;
    static const gchar *options[] = {GST_BUFFER_POOL_OPTION_VIDEO_META, NULL};
    return options;
}

static gboolean pool_set_config(GstBufferPool *pool, GstStructure *config)
{
    GstClvidPool *self = GST_CLVID_POOL(pool);
    GstCaps *caps;
    guint size, min, max;
    GstVideoInfo info;
    if (!gst_buffer_pool_config_get_params(config, &caps, &size, &min, &max) || !caps ||
        !gst_video_info_from_caps(&info, caps))
        return FALSE;
    self->info = info;
    gst_buffer_pool_config_set_params(config, caps, (guint)info.size, min, max);
    return GST_BUFFER_POOL_CLASS(gst_clvid_pool_parent_class)->set_config(pool, config);
}

/* A GstMemory over block, which it frees. */
static GstMemory *wrap_block(clv_block *block, size_t size)
{
    GstMemory *mem = gst_memory_new_wrapped(0, clv_block_pixels(block), size, 0, size, block,
                                            (GDestroyNotify)clv_block_free);
    if (mem)
        gst_mini_object_set_qdata(GST_MINI_OBJECT_CAST(mem), block_quark, block, NULL);
    else
        clv_block_free(block);
    return mem;
}

static GstFlowReturn pool_alloc(GstBufferPool *pool, GstBuffer **out,
                                GstBufferPoolAcquireParams *params)
{
    (void)params;
    GstClvidPool *self = GST_CLVID_POOL(pool);
    const GstVideoInfo *info = &self->info;
    g_mutex_lock(&self->lock);
    clv_block *block = self->stage ? clv_stage_block_new(self->stage, info->size) : NULL;
    g_mutex_unlock(&self->lock);
    GstMemory *mem =
        block ? wrap_block(block, info->size) : gst_allocator_alloc(NULL, info->size, NULL);
    if (!mem)
        return GST_FLOW_ERROR;
    GstBuffer *buffer = gst_buffer_new();
    gst_buffer_append_memory(buffer, mem);
    gst_buffer_add_video_meta_full(buffer, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_INFO_FORMAT(info),
                                   GST_VIDEO_INFO_WIDTH(info), GST_VIDEO_INFO_HEIGHT(info),
                                   GST_VIDEO_INFO_N_PLANES(info), (gsize *)info->offset,
                                   (gint *)info->stride);
    *out = buffer;
    return GST_FLOW_OK;
}

/* The element's stage goes: the pool's later buffers are plain memory. */
static void pool_forget_stage(GstBufferPool *pool)
{
    if (!pool)
        return;
    GstClvidPool *self = GST_CLVID_POOL(pool);
    g_mutex_lock(&self->lock);
    self->stage = NULL;
    g_mutex_unlock(&self->lock);
}

static void pool_finalize(GObject *object)
{
    g_mutex_clear(&GST_CLVID_POOL(object)->lock);
    G_OBJECT_CLASS(gst_clvid_pool_parent_class)->finalize(object);
}

static void gst_clvid_pool_init(GstClvidPool *self)
{
    g_mutex_init(&self->lock);
}

static void gst_clvid_pool_class_init(GstClvidPoolClass *klass)
{
    G_OBJECT_CLASS(klass)->finalize = pool_finalize;
    GstBufferPoolClass *pool = GST_BUFFER_POOL_CLASS(klass);
    pool->get_options = pool_options;
    pool->set_config = pool_set_config;
    pool->alloc_buffer = pool_alloc;
}

/* ---- Properties --------------------------------------------------------- */

static void set_property(GObject *object, guint id, const GValue *value, GParamSpec *pspec)
{
    GstClvidFilter *self = GST_CLVID_FILTER(object);
    switch (id) {
    case PROP_CHAIN: {
        const char *text = g_value_get_string(value);
        clv_chain_desc *desc = NULL;
        clv_msg msg = {{0}};
        /* Checked now, so that a mistake is told at once; built by the
         * streaming thread before the next buffer. */
        g_mutex_lock(&self->lock);
        if (clv_chain_parse(text ? text : "", &desc, &msg)) {
            gboolean running = self->running;
            /* Before start the element may not have a bus yet: start
             * posts the error and fails. */
            if (!running)
                snprintf(self->chain_error, sizeof self->chain_error, "%s", msg.text);
            g_mutex_unlock(&self->lock);
            /* Running, the chain in use stays and buffers keep flowing: a
             * warning, not an error that would stop a live pipeline. Posted
             * outside the lock, as a bus handler may read the properties. */
            if (running)
                GST_ELEMENT_WARNING(
                    self, LIBRARY, SETTINGS, ("clvidfilter chain: %s", msg.text),
                    ("chain '%s' refused; the chain in use stays", text ? text : ""));
            break;
        }
        clv_chain_desc_destroy(desc);
        self->chain_error[0] = 0;
        g_free(self->chain_text);
        self->chain_text = g_strdup(text ? text : "");
        self->chain_changed = TRUE;
        g_mutex_unlock(&self->lock);
        break;
    }
    case PROP_DEVICE:
        g_mutex_lock(&self->lock);
        g_free(self->device);
        self->device = g_value_dup_string(value);
        g_mutex_unlock(&self->lock);
        break;
    case PROP_IN_FLIGHT:
        g_mutex_lock(&self->lock);
        self->in_flight = g_value_get_int(value);
        g_mutex_unlock(&self->lock);
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    }
}

static void get_property(GObject *object, guint id, GValue *value, GParamSpec *pspec)
{
    GstClvidFilter *self = GST_CLVID_FILTER(object);
    g_mutex_lock(&self->lock);
    switch (id) {
    case PROP_CHAIN:
        g_value_set_string(value, self->chain_text);
        break;
    case PROP_DEVICE:
        g_value_set_string(value, self->device);
        break;
    case PROP_KERNEL_MS:
        g_value_set_double(value, self->kernel_ms);
        break;
    case PROP_IN_FLIGHT:
        g_value_set_int(value, self->in_flight);
        break;
    case PROP_COPIES_IN:
        g_value_set_uint64(value, atomic_load(&self->copied_in));
        break;
    case PROP_COPIES_OUT:
        g_value_set_uint64(value, atomic_load(&self->copied_out));
        break;
    default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec);
    }
    g_mutex_unlock(&self->lock);
}

/* ---- The device ------------------------------------------------------------ */

/* The pool proposed upstream stops making blocks of the stage (before the
 * stage goes): buffers upstream still holds stay valid (a block outlives its
 * stage) and are copied like any other. */
static void drop_pool(GstClvidFilter *self)
{
    pool_forget_stage(self->pool);
    g_clear_object(&self->pool);
}

static void release_device(GstClvidFilter *self)
{
    g_mutex_lock(&self->lock);
    self->running = FALSE;
    g_free(self->used_text);
    self->used_text = NULL;
    g_mutex_unlock(&self->lock);
    drop_pool(self);
    clv_stage_destroy(self->stage);
    self->stage = NULL;
    clv_chain_destroy(self->chain);
    self->chain = NULL;
    clv_context_destroy(self->ctx);
    self->ctx = NULL;
}

/* Parses and builds text on the context, ready to run; NULL with msg on
 * failure (a parse error, a kernel file gone or that does not build). The
 * file of a user kernel is read again here: it may have changed since the
 * property was set. */
static clv_chain *build_chain(GstClvidFilter *self, const char *text, clv_msg *msg)
{
    clv_chain_desc *desc = NULL;
    clv_chain *chain = NULL;
    int err = clv_chain_parse(text, &desc, msg);
    /* At the depth of the caps' format (8 until caps come). */
    if (!err)
        err = clv_chain_create_depth(self->ctx, desc, self->chain_depth ? self->chain_depth : 8,
                                     &chain, msg);
    clv_chain_desc_destroy(desc);
    if (err)
        return NULL;
    /* kernel-ms reads the stage's times only: no per-filter events, and a
     * filter that can run inside the conversions on a CPU does (equalize
     * between I420 or NV12 buffers). */
    clv_chain_set_filter_timing(chain, 0);
    return chain;
}

static gboolean start(GstBaseTransform *trans)
{
    GstClvidFilter *self = GST_CLVID_FILTER(trans);
    clv_context_options o;
    clv_context_options_init(&o);
    char refused[sizeof self->chain_error];
    g_mutex_lock(&self->lock);
    snprintf(refused, sizeof refused, "%s", self->chain_error);
    /* From here a bad chain set is a warning (the chain built below, or a
     * later good one, stays): so none set during start is lost. */
    self->running = !refused[0];
    gchar *device = g_strdup(self->device);
    g_mutex_unlock(&self->lock);
    if (refused[0]) {
        GST_ELEMENT_ERROR(self, LIBRARY, SETTINGS, ("clvidfilter chain: %s", refused), (NULL));
        g_free(device);
        return FALSE;
    }
    /* The engine's settings from the environment, read by the same code as
     * the clvid command's (CLVID_DEVICE when no device is set, CLVID_SHAPE,
     * the kernel cache, CLVID_WATCHDOG, CLVID_LOG, ...). */
    o.device = device && *device ? device : NULL;
    clv_env_engine_settings(&o, self->cache_dir, sizeof self->cache_dir);
    o.profiling = 1;
    clv_msg msg = {{0}};
    int err = clv_context_create(&o, &self->ctx, &msg);
    g_free(device);
    if (err) {
        GST_ELEMENT_ERROR(self, RESOURCE, OPEN_READ_WRITE, ("clvidfilter: %s", msg.text), (NULL));
        release_device(self);
        return FALSE;
    }
    /* A GPU filters one buffer while the next one's copies and upload run;
     * on a CPU they would share the same cores: one at a time, no latency. */
    g_mutex_lock(&self->lock);
    atomic_store(&self->in_place, 0);
    atomic_store(&self->copied_in, 0);
    atomic_store(&self->kept, 0);
    atomic_store(&self->copied_out, 0);
    /* One in flight a device (device=1,2: as many as devices), GPUs too:
     * frames enter and leave a GPU's stage in its pinned memory, with
     * nothing on the host left to overlap, and a second one in flight made
     * 4K buffers slower on an H200 (1031 -> 610 a second, `gst-bench`,
     * docs/performance.md). */
    self->depth = self->in_flight ? self->in_flight : clv_context_device_count(self->ctx);
    g_mutex_unlock(&self->lock);
    GST_INFO_OBJECT(self, "on %s, %d buffer(s) in flight", clv_context_device(self->ctx)->name,
                    self->depth);
    /* The chain is built now, not at the first buffer, so that one that
     * cannot be built (a kernel file that does not compile) fails the state
     * change with its message rather than stopping the stream later, and
     * so that a later bad chain always has one in use to fall back to. */
    g_mutex_lock(&self->lock);
    gchar *text = g_strdup(self->chain_text);
    self->chain_changed = FALSE;
    g_mutex_unlock(&self->lock);
    self->chain = build_chain(self, text, &msg);
    if (!self->chain) {
        GST_ELEMENT_ERROR(self, LIBRARY, SETTINGS, ("clvidfilter chain: %s", msg.text),
                          ("chain '%s'", text));
        g_free(text);
        release_device(self);
        return FALSE;
    }
    GST_INFO_OBJECT(self, "chain '%s'", text);
    self->chain_from = self->frames;
    self->restart = FALSE;
    g_mutex_lock(&self->lock);
    self->used_text = text;
    g_mutex_unlock(&self->lock);
    return TRUE;
}

static void discard(GstClvidFilter *self);
static GstFlowReturn drain(GstClvidFilter *self);

static gboolean stop(GstBaseTransform *trans)
{
    GstClvidFilter *self = GST_CLVID_FILTER(trans);
    GST_INFO_OBJECT(
        self, "%" G_GUINT64_FORMAT " buffers copied in, %" G_GUINT64_FORMAT " copied out",
        (guint64)atomic_load(&self->copied_in), (guint64)atomic_load(&self->copied_out));
    discard(self);
    release_device(self);
    return TRUE;
}

static int pixfmt_of(GstVideoFormat f, clv_pixfmt *out)
{
    switch (f) {
    case GST_VIDEO_FORMAT_RGBA:
        *out = CLV_PIX_RGBA;
        return 0;
    case GST_VIDEO_FORMAT_BGRA:
        *out = CLV_PIX_BGRA;
        return 0;
    case GST_VIDEO_FORMAT_RGBx:
        *out = CLV_PIX_RGB0;
        return 0;
    case GST_VIDEO_FORMAT_BGRx:
        *out = CLV_PIX_BGR0;
        return 0;
    case GST_VIDEO_FORMAT_I420:
        *out = CLV_PIX_YUV420P;
        return 0;
    case GST_VIDEO_FORMAT_NV12:
        *out = CLV_PIX_NV12;
        return 0;
    case GST_VIDEO_FORMAT_I420_10LE:
        *out = CLV_PIX_YUV420P10;
        return 0;
    case GST_VIDEO_FORMAT_P010_10LE:
        *out = CLV_PIX_P010;
        return 0;
    case GST_VIDEO_FORMAT_RGBA64_LE:
        *out = CLV_PIX_RGBA64;
        return 0;
    default:
        return -1;
    }
}

/* The caps' colorimetry as the engine's (what transcode does for a file). */
static clv_color color_of(const GstVideoInfo *info)
{
    clv_color c = {CLV_MATRIX_BT601, 0};
    switch (info->colorimetry.matrix) {
    case GST_VIDEO_COLOR_MATRIX_BT709:
        c.matrix = CLV_MATRIX_BT709;
        break;
    case GST_VIDEO_COLOR_MATRIX_BT2020:
        c.matrix = CLV_MATRIX_BT2020;
        break;
    default:
        c.matrix = CLV_MATRIX_BT601;
    }
    c.full_range = info->colorimetry.range == GST_VIDEO_COLOR_RANGE_0_255;
    return c;
}

/* The chain whose sizes the caps follow: the one in use once running, the
 * property's before (parsed; NULL when it does not parse). */
static clv_chain_desc *caps_chain(GstClvidFilter *self)
{
    g_mutex_lock(&self->lock);
    gchar *text = g_strdup(self->used_text ? self->used_text : self->chain_text);
    g_mutex_unlock(&self->lock);
    clv_chain_desc *desc = NULL;
    if (clv_chain_parse(text ? text : "", &desc, NULL))
        desc = NULL;
    g_free(text);
    return desc;
}

/* 1 when the chain keeps the two sizes it is tried on (no scale, crop...):
 * then caps that are not one fixed size pass through as before. */
static int keeps_size(const clv_chain_desc *desc)
{
    static const int probe[][2] = {{640, 480}, {17, 9}};
    for (int i = 0; i < 2; i++) {
        clv_size in = {probe[i][0], probe[i][1], 1, 1, 0, 0, 0}, out;
        if (clv_chain_desc_output_size(desc, &in, &out, NULL) || out.width != in.width ||
            out.height != in.height || out.sar_num * in.sar_den != in.sar_num * out.sar_den)
            return 0;
    }
    return 1;
}

/* The framerate field of o times num / den: a fraction scaled, anything
 * else (a range, a list) left out (any rate). 0/1 (variable) stays. */
static void scale_framerate(GstStructure *o, int num, int den)
{
    int n, d;
    if (!gst_structure_has_field(o, "framerate"))
        return;
    if (gst_structure_get_fraction(o, "framerate", &n, &d)) {
        if (n > 0 && d > 0) {
            gint rn, rd;
            gst_util_fraction_multiply(n, d, num, den, &rn, &rd);
            gst_structure_set(o, "framerate", GST_TYPE_FRACTION, rn, rd, NULL);
        }
        return;
    }
    gst_structure_remove_field(o, "framerate");
}

/* Sink caps to source caps: each fixed size through the chain (its pixel
 * aspect too); source caps to sink caps: any size, as the chain's sizes
 * are not inverted (a fixed input size meets the source's caps in
 * fixation). */
static GstCaps *transform_caps(GstBaseTransform *trans, GstPadDirection direction, GstCaps *caps,
                               GstCaps *filter)
{
    GstClvidFilter *self = GST_CLVID_FILTER(trans);
    clv_chain_desc *desc = caps_chain(self);
    int same = desc && keeps_size(desc);
    /* A deinterlacer makes progressive frames; send_field twice as many. */
    int delay = 0, rate = 1;
    if (!desc || clv_chain_desc_cadence(desc, &delay, &rate, NULL))
        delay = 0, rate = 1;
    GstCaps *out = gst_caps_new_empty();
    for (guint i = 0; i < gst_caps_get_size(caps); i++) {
        GstStructure *o = gst_structure_copy(gst_caps_get_structure(caps, i));
        int w, h, n = 1, d = 1;
        /* A fixed size always goes through the chain: keeps_size only
         * probes two sizes (crop=w='min(iw,640)' keeps both). */
        if (direction == GST_PAD_SINK && gst_structure_get_int(o, "width", &w) &&
            gst_structure_get_int(o, "height", &h)) {
            int par = gst_structure_get_fraction(o, "pixel-aspect-ratio", &n, &d);
            clv_size in = {w, h, n, d, 0, 0, 0}, size;
            clv_msg size_msg = {{0}};
            if (!desc || clv_chain_desc_output_size(desc, &in, &size, &size_msg)) {
                gst_structure_free(o); /* the chain can't take this size */
                /* Said on the bus (once a size), or negotiation fails with
                 * no word of why (the size the chain refused). */
                g_mutex_lock(&self->lock);
                int told = self->refused_w == w && self->refused_h == h;
                self->refused_w = w, self->refused_h = h;
                g_mutex_unlock(&self->lock);
                if (desc)
                    GST_INFO_OBJECT(self, "the chain refuses %dx%d: %s", w, h, size_msg.text);
                if (desc && !told)
                    GST_ELEMENT_WARNING(self, CORE, NEGOTIATION,
                                        ("clvidfilter chain: %s", size_msg.text),
                                        ("the input caps' size %dx%d", w, h));
                continue;
            }
            gst_structure_set(o, "width", G_TYPE_INT, size.width, "height", G_TYPE_INT, size.height,
                              NULL);
            if (par && size.sar_num > 0 && size.sar_den > 0)
                gst_structure_set(o, "pixel-aspect-ratio", GST_TYPE_FRACTION, size.sar_num,
                                  size.sar_den, NULL);
        } else if (!same) {
            gst_structure_set(o, "width", GST_TYPE_INT_RANGE, 1, 16384, "height",
                              GST_TYPE_INT_RANGE, 1, 16384, NULL);
            gst_structure_remove_field(o, "pixel-aspect-ratio");
        }
        if (delay && direction == GST_PAD_SINK) {
            gst_structure_set(o, "interlace-mode", G_TYPE_STRING, "progressive", NULL);
            gst_structure_remove_field(o, "field-order");
        } else if (delay) {
            gst_structure_remove_fields(o, "interlace-mode", "field-order", NULL);
        }
        if (rate != 1)
            scale_framerate(o, direction == GST_PAD_SINK ? rate : 1,
                            direction == GST_PAD_SINK ? 1 : rate);
        out = gst_caps_merge_structure(out, o);
    }
    clv_chain_desc_destroy(desc);
    if (filter) {
        GstCaps *both = gst_caps_intersect_full(filter, out, GST_CAPS_INTERSECT_FIRST);
        gst_caps_unref(out);
        out = both;
    }
    return out;
}

static void set_rate(GstClvidFilter *self, clv_chain *chain);
static GstFlowReturn flush_chain(GstClvidFilter *self);

/* The frames a chain's output lags behind its input (1: a deinterlacer). */
static int chain_delay(const clv_chain *chain)
{
    int delay = 0, rate = 1;
    if (chain)
        clv_chain_cadence(chain, &delay, &rate);
    return delay;
}

/* Its buffers out per buffer in (2: a deinterlacer's send_field). */
static int chain_rate(const clv_chain *chain)
{
    int delay = 0, rate = 1;
    if (chain)
        clv_chain_cadence(chain, &delay, &rate);
    return rate;
}

static gboolean set_info(GstVideoFilter *filter, GstCaps *incaps, GstVideoInfo *in_info,
                         GstCaps *outcaps, GstVideoInfo *out_info)
{
    (void)incaps;
    (void)outcaps;
    GstClvidFilter *self = GST_CLVID_FILTER(filter);
    clv_pixfmt f;
    if (GST_VIDEO_INFO_FORMAT(in_info) != GST_VIDEO_INFO_FORMAT(out_info) ||
        pixfmt_of(GST_VIDEO_INFO_FORMAT(in_info), &f)) {
        GST_ELEMENT_ERROR(self, CORE, NEGOTIATION, ("clvidfilter: unsupported format"), (NULL));
        return FALSE;
    }
    discard(self); /* drained by the caps event (or the chain change) before this */
    drop_pool(self);
    clv_stage_destroy(self->stage);
    self->stage = NULL;
    self->format = f;
    /* Formats of more than 8 bits run the chain at 16: built again at the
     * caps' depth when it differs. */
    if (self->chain && clv_chain_depth(self->chain) != clv_pixfmt_depth(f)) {
        self->chain_depth = clv_pixfmt_depth(f);
        g_mutex_lock(&self->lock);
        gchar *text = g_strdup(self->used_text);
        g_mutex_unlock(&self->lock);
        clv_msg depth_msg = {{0}};
        clv_chain *chain = build_chain(self, text, &depth_msg);
        g_free(text);
        if (!chain) {
            GST_ELEMENT_ERROR(self, CORE, NEGOTIATION,
                              ("clvidfilter: %s caps: %s", clv_pixfmt_name(f), depth_msg.text),
                              (NULL));
            return FALSE;
        }
        set_rate(self, chain);
        clv_chain_destroy(self->chain);
        self->chain = chain;
    }
    self->width = GST_VIDEO_INFO_WIDTH(in_info);
    self->height = GST_VIDEO_INFO_HEIGHT(in_info);
    self->out_width = GST_VIDEO_INFO_WIDTH(out_info);
    self->out_height = GST_VIDEO_INFO_HEIGHT(out_info);
    /* The chain must make the output caps' size of the input's. */
    clv_size in_size = {self->width,
                        self->height,
                        GST_VIDEO_INFO_PAR_N(in_info),
                        GST_VIDEO_INFO_PAR_D(in_info),
                        0,
                        0,
                        0},
             out_size;
    clv_msg size_msg = {{0}};
    if (self->chain && clv_chain_output_size(self->chain, &in_size, &out_size, &size_msg)) {
        GST_ELEMENT_ERROR(self, CORE, NEGOTIATION, ("clvidfilter: %s", size_msg.text), (NULL));
        return FALSE;
    }
    if (self->chain && (out_size.width != self->out_width || out_size.height != self->out_height)) {
        GST_ELEMENT_ERROR(self, CORE, NEGOTIATION,
                          ("clvidfilter: the chain makes %dx%d of %dx%d, the output caps are "
                           "%dx%d",
                           out_size.width, out_size.height, self->width, self->height,
                           self->out_width, self->out_height),
                          (NULL));
        return FALSE;
    }
    clv_color color = color_of(in_info);
    clv_stage_options so = {.struct_size = sizeof(clv_stage_options),
                            .width = self->width,
                            .height = self->height,
                            .in_format = f,
                            .out_format = f,
                            .in_color = color,
                            .out_color = color,
                            .slots = self->depth + 2, /* send_field: a buffer's two runs */
                            .profiling = 1};
    clv_msg msg = {{0}};
    if (clv_stage_create(self->ctx, &so, self->chain, &self->stage, &msg)) {
        GST_ELEMENT_ERROR(self, RESOURCE, SETTINGS, ("clvidfilter: %s", msg.text), (NULL));
        return FALSE;
    }
    GST_INFO_OBJECT(self, "%dx%d %s, %s %s range", self->width, self->height, clv_pixfmt_name(f),
                    color.matrix == CLV_MATRIX_BT709    ? "bt709"
                    : color.matrix == CLV_MATRIX_BT2020 ? "bt2020"
                                                        : "bt601",
                    color.full_range ? "full" : "limited");
    memset(&self->mark, 0, sizeof self->mark);
    if (self->chain) /* a new rate for the chain in use (filter->in_info is set after this) */
        clv_chain_set_frame_rate(self->chain, in_info->fps_n, in_info->fps_d);
    return TRUE;
}

/* The caps' frame rate, for the `time` argument of user kernels. */
static void set_rate(GstClvidFilter *self, clv_chain *chain)
{
    const GstVideoInfo *info = &GST_VIDEO_FILTER(self)->in_info;
    if (chain)
        clv_chain_set_frame_rate(chain, info->fps_n, info->fps_d);
}

/* A chain set while running that can't be used (msg says why): a warning,
 * and the chain in use stays; the property says the chain in use again,
 * unless the application has set another since (built before the next
 * buffer). Takes text. */
static void refuse_chain(GstClvidFilter *self, gchar *text, const clv_msg *msg)
{
    g_mutex_lock(&self->lock);
    gchar *used = g_strdup(self->used_text);
    gboolean revert = !self->chain_changed && !g_strcmp0(self->chain_text, text);
    if (revert) {
        g_free(self->chain_text);
        self->chain_text = g_strdup(used);
    }
    g_mutex_unlock(&self->lock);
    GST_ELEMENT_WARNING(self, LIBRARY, SETTINGS, ("clvidfilter chain: %s", msg->text),
                        ("chain '%s' refused; '%s' stays", text, used));
    if (revert)
        g_object_notify(G_OBJECT(self), "chain");
    g_free(used);
    g_free(text);
}

/* Builds the chain the property asks for, when it changed. One that cannot
 * be built is a warning and the chain in use stays: the stream goes on. */
static void update_chain(GstClvidFilter *self)
{
    g_mutex_lock(&self->lock);
    gboolean changed = self->chain_changed;
    gchar *text = changed ? g_strdup(self->chain_text) : NULL;
    self->chain_changed = FALSE;
    g_mutex_unlock(&self->lock);
    if (!changed)
        return;
    clv_msg msg = {{0}};
    clv_chain *chain = build_chain(self, text, &msg);
    if (!chain) {
        refuse_chain(self, text, &msg);
        return;
    }
    GST_INFO_OBJECT(self, "chain '%s'", text);
    set_rate(self, chain);
    const GstVideoInfo *info = &GST_VIDEO_FILTER(self)->in_info;
    clv_size in = {self->width,
                   self->height,
                   GST_VIDEO_INFO_PAR_N(info),
                   GST_VIDEO_INFO_PAR_D(info),
                   0,
                   0,
                   0},
             size;
    if (clv_chain_output_size(chain, &in, &size, &msg)) {
        /* It can't take this stream's size: refused as a bad chain is. */
        clv_chain_destroy(chain);
        refuse_chain(self, text, &msg);
        return;
    }
    /* Another size or rate: new caps, the buffers in flight out at the old
     * ones first; a deinterlacer gives the frame it holds. */
    int resized = size.width != self->out_width || size.height != self->out_height ||
                  chain_rate(chain) != chain_rate(self->chain);
    if (resized || chain_delay(self->chain))
        flush_chain(self);
    /* clv_chain_destroy waits for the queue: frames still in flight with the
     * old chain finish before it goes. */
    clv_stage_set_chain(self->stage, chain);
    clv_chain_destroy(self->chain);
    self->chain = chain;
    self->chain_from = self->frames;
    self->restart = FALSE;
    g_mutex_lock(&self->lock);
    g_free(self->used_text);
    self->used_text = text;
    g_mutex_unlock(&self->lock);
    if (resized) {
        /* New source caps of the new size; set_info makes the stage again. */
        GST_INFO_OBJECT(self, "chain makes %dx%d at %d a buffer: renegotiating", size.width,
                        size.height, chain_rate(chain));
        gst_base_transform_reconfigure_src(GST_BASE_TRANSFORM(self));
        if (!gst_base_transform_reconfigure(GST_BASE_TRANSFORM(self)))
            GST_ELEMENT_WARNING(
                self, CORE, NEGOTIATION,
                ("clvidfilter: downstream refuses %dx%d frames", size.width, size.height), (NULL));
    }
}

/* Bytes of row r of plane p in the engine's packed layout, and rows. */
static void plane_shape(clv_pixfmt f, int w, int h, int p, size_t *row, int *rows)
{
    int cw = (w + 1) / 2, ch = (h + 1) / 2;
    switch (f) {
    case CLV_PIX_YUV420P:
        *row = (size_t)(p == 0 ? w : cw);
        *rows = p == 0 ? h : ch;
        return;
    case CLV_PIX_NV12:
        *row = (size_t)(p == 0 ? w : 2 * cw);
        *rows = p == 0 ? h : ch;
        return;
    case CLV_PIX_YUV420P10:
        *row = (size_t)(p == 0 ? 2 * w : 2 * cw);
        *rows = p == 0 ? h : ch;
        return;
    case CLV_PIX_P010:
        *row = (size_t)(p == 0 ? 2 * w : 4 * cw);
        *rows = p == 0 ? h : ch;
        return;
    case CLV_PIX_RGBA64:
        *row = (size_t)w * 8;
        *rows = h;
        return;
    default:
        *row = (size_t)w * 4;
        *rows = h;
    }
}

static int plane_count(clv_pixfmt f)
{
    return f == CLV_PIX_YUV420P || f == CLV_PIX_YUV420P10 ? 3
           : f == CLV_PIX_NV12 || f == CLV_PIX_P010       ? 2
                                                          : 1;
}

/* The stage's packed layout of a w x h frame: each plane's first byte and
 * bytes a row; returns the frame's bytes. */
static size_t packed_layout(clv_pixfmt f, int w, int h, gsize offset[4], gint stride[4])
{
    size_t at = 0;
    for (int p = 0; p < plane_count(f); p++) {
        size_t row;
        int rows;
        plane_shape(f, w, h, p, &row, &rows);
        offset[p] = at;
        stride[p] = (gint)row;
        at += row * (size_t)rows;
    }
    return at;
}

/* Copies between a GstVideoFrame (rows with its strides) and the stage's
 * packed layout. */
static void copy_frame(GstClvidFilter *self, GstVideoFrame *frame, uint8_t *packed, int to_packed)
{
    /* In: the input's size; out: the chain's output size. */
    int w = to_packed ? self->width : self->out_width;
    int h = to_packed ? self->height : self->out_height;
    for (int p = 0; p < plane_count(self->format); p++) {
        size_t row;
        int rows;
        plane_shape(self->format, w, h, p, &row, &rows);
        uint8_t *data = GST_VIDEO_FRAME_PLANE_DATA(frame, p);
        int stride = GST_VIDEO_FRAME_PLANE_STRIDE(frame, p);
        for (int y = 0; y < rows; y++, packed += row) {
            if (to_packed)
                memcpy(packed, data + (size_t)y * stride, row);
            else
                memcpy(data + (size_t)y * stride, packed, row);
        }
    }
}

static void update_kernel_ms(GstClvidFilter *self)
{
    /* kernel-ms: the device's kernel time per frame, over 30 frames. */
    clv_stage_times t;
    clv_stage_get_times(self->stage, &t);
    uint64_t n = t.frames - self->mark.frames;
    if (n >= 30 || (self->kernel_ms == 0 && n > 0)) {
        g_mutex_lock(&self->lock);
        self->kernel_ms = (double)(t.kernels_ns - self->mark.kernels_ns) / 1e6 / (double)n;
        g_mutex_unlock(&self->lock);
        if (n >= 30)
            self->mark = t;
    }
}

/* A deinterlacer whose stream ended, built again from its text: it starts
 * a new stream at the next buffer (one that cannot be built leaves the old,
 * which then copies). */
static void restart_chain(GstClvidFilter *self)
{
    self->restart = FALSE;
    g_mutex_lock(&self->lock);
    gchar *text = g_strdup(self->used_text);
    g_mutex_unlock(&self->lock);
    clv_msg msg = {{0}};
    clv_chain *chain = text ? build_chain(self, text, &msg) : NULL;
    g_free(text);
    if (!chain)
        return;
    set_rate(self, chain);
    clv_stage_set_chain(self->stage, chain);
    clv_chain_destroy(self->chain);
    self->chain = chain;
    self->chain_from = self->frames;
}

static GstFlowReturn generate_output(GstBaseTransform *trans, GstBuffer **outbuf);

/* Whether buffers out may wrap the stage's memory: downstream reads
 * GstVideoMeta, or the stage's packed layout is the caps' own. */
static gboolean wrap_outputs(GstClvidFilter *self)
{
    if (self->downstream_meta)
        return TRUE;
    const GstVideoInfo *info = &GST_VIDEO_FILTER(self)->out_info;
    gsize offset[4] = {0};
    gint stride[4] = {0};
    size_t size = packed_layout(self->format, self->out_width, self->out_height, offset, stride);
    if (size != GST_VIDEO_INFO_SIZE(info))
        return FALSE;
    for (int p = 0; p < plane_count(self->format); p++)
        if (offset[p] != GST_VIDEO_INFO_PLANE_OFFSET(info, p) ||
            stride[p] != GST_VIDEO_INFO_PLANE_STRIDE(info, p))
            return FALSE;
    return TRUE;
}

/* Pushes the buffers due until `runs` slots are free (a buffer's runs go in
 * together). */
static GstFlowReturn make_room(GstClvidFilter *self, int runs)
{
    GstFlowReturn ret = GST_FLOW_OK;
    const int slots = self->depth + 2;
    self->draining = TRUE;
    while (ret == GST_FLOW_OK && clv_stage_pending(self->stage) > 0 &&
           (!clv_stage_input(self->stage) || clv_stage_pending(self->stage) + runs > slots)) {
        GstBuffer *out = NULL;
        ret = generate_output(GST_BASE_TRANSFORM(self), &out);
        if (out)
            ret = gst_pad_push(GST_BASE_TRANSFORM_SRC_PAD(self), out);
    }
    self->draining = FALSE;
    return ret;
}

/* A field's buffer (send_field): the input's time and half its duration
 * (its duration from the next buffer's time, or the caps' rate, when it
 * has none), the second field half a duration on. */
static void time_field(GstClvidFilter *self, GstBuffer *input, GstBuffer *out, int field)
{
    GstClockTime pts = GST_BUFFER_PTS(input), dur = GST_BUFFER_DURATION(input);
    const GstVideoInfo *info = &GST_VIDEO_FILTER(self)->in_info;
    if (!GST_CLOCK_TIME_IS_VALID(dur)) {
        /* the first field's input is still the head; the second's was taken */
        GstBuffer *next = g_queue_peek_nth(&self->held, field ? 0 : 1);
        if (next && GST_CLOCK_TIME_IS_VALID(pts) && GST_CLOCK_TIME_IS_VALID(GST_BUFFER_PTS(next)) &&
            GST_BUFFER_PTS(next) > pts)
            dur = GST_BUFFER_PTS(next) - pts;
        else if (info->fps_n > 0 && info->fps_d > 0)
            dur = gst_util_uint64_scale_int(GST_SECOND, info->fps_d, info->fps_n);
    }
    const GstClockTime half = GST_CLOCK_TIME_IS_VALID(dur) ? dur / 2 : GST_CLOCK_TIME_NONE;
    GST_BUFFER_DURATION(out) = half;
    if (field && GST_CLOCK_TIME_IS_VALID(pts) && GST_CLOCK_TIME_IS_VALID(half))
        GST_BUFFER_PTS(out) = pts + half;
    if (field && GST_CLOCK_TIME_IS_VALID(GST_BUFFER_DTS(input)) && GST_CLOCK_TIME_IS_VALID(half))
        GST_BUFFER_DTS(out) = GST_BUFFER_DTS(input) + half;
    GST_BUFFER_OFFSET(out) = GST_BUFFER_OFFSET_NONE;
    GST_BUFFER_OFFSET_END(out) = GST_BUFFER_OFFSET_NONE;
    if (field) /* the second of two from one buffer is not a new start */
        GST_BUFFER_FLAG_UNSET(out, GST_BUFFER_FLAG_DISCONT);
}

/* Buffers go into the stage as they come and come out `depth` buffers later
 * (GstBaseTransform's submit_input_buffer / generate_output): on a GPU the
 * next buffer's upload and copies overlap this one's kernels. The held input
 * buffers give their timestamps and metadata to the outputs. */
static GstFlowReturn submit_input_buffer(GstBaseTransform *trans, gboolean discont,
                                         GstBuffer *input)
{
    (void)discont;
    GstClvidFilter *self = GST_CLVID_FILTER(trans);
    GstVideoFilter *video = GST_VIDEO_FILTER(trans);
    GstFlowReturn ret = self->stage ? GST_FLOW_OK : GST_FLOW_NOT_NEGOTIATED;
    if (self->stage && self->restart)
        restart_chain(self);
    if (self->stage)
        update_chain(self);
    /* send_field's two runs: room for both (the buffers due go out). */
    const int rate = chain_rate(self->chain);
    if (ret == GST_FLOW_OK)
        ret = make_room(self, rate);
    uint8_t *slot = ret == GST_FLOW_OK ? clv_stage_input(self->stage) : NULL;
    if (ret == GST_FLOW_OK && !slot) {
        GST_ELEMENT_ERROR(self, CORE, FAILED, ("clvidfilter: no free slot"), (NULL));
        ret = GST_FLOW_ERROR;
    }
    /* A buffer of our pool (one block of the stage's memory): the stage
     * reads its planes where upstream wrote them (send_field's two runs
     * copy: the second reads the slot). */
    GstMemory *mem = gst_buffer_n_memory(input) == 1 ? gst_buffer_peek_memory(input, 0) : NULL;
    clv_block *block =
        mem && rate == 1 ? gst_mini_object_get_qdata(GST_MINI_OBJECT_CAST(mem), block_quark) : NULL;
    if (ret == GST_FLOW_OK && block) {
        const GstVideoMeta *meta = gst_buffer_get_video_meta(input);
        const GstVideoInfo *info = &video->in_info;
        size_t offset[3] = {0, 0, 0};
        int stride[3] = {0, 0, 0};
        for (int p = 0; p < plane_count(self->format); p++) {
            offset[p] =
                mem->offset + (meta ? meta->offset[p] : GST_VIDEO_INFO_PLANE_OFFSET(info, p));
            stride[p] = meta ? meta->stride[p] : GST_VIDEO_INFO_PLANE_STRIDE(info, p);
        }
        clv_msg msg = {{0}};
        if (clv_stage_submit_block(self->stage, self->frames++, block, offset, stride, &msg)) {
            GST_ELEMENT_ERROR(self, RESOURCE, FAILED, ("clvidfilter: %s", msg.text), (NULL));
            gst_buffer_unref(input);
            return GST_FLOW_ERROR;
        }
        /* Held until its frame is out: the block stays as it is. */
        atomic_fetch_add(&self->in_place, 1);
        g_queue_push_tail(&self->held, input);
        return GST_FLOW_OK;
    }
    GstVideoFrame frame;
    if (ret == GST_FLOW_OK && !gst_video_frame_map(&frame, &video->in_info, input, GST_MAP_READ)) {
        GST_ELEMENT_ERROR(self, CORE, FAILED, ("clvidfilter: cannot map an input buffer"), (NULL));
        ret = GST_FLOW_ERROR;
    }
    if (ret != GST_FLOW_OK) {
        gst_buffer_unref(input);
        return ret;
    }
    copy_frame(self, &frame, slot, 1);
    gst_video_frame_unmap(&frame);
    atomic_fetch_add(&self->copied_in, 1);
    clv_msg msg = {{0}};
    /* The second field's run reads what the deinterlacer kept, not the
     * slot: nothing is copied for it. */
    for (int i = 0; i < rate; i++) {
        if (clv_stage_submit(self->stage, self->frames++, &msg)) {
            GST_ELEMENT_ERROR(self, RESOURCE, FAILED, ("clvidfilter: %s", msg.text), (NULL));
            gst_buffer_unref(input);
            return GST_FLOW_ERROR;
        }
    }
    g_queue_push_tail(&self->held, input);
    return GST_FLOW_OK;
}

static GstFlowReturn generate_output(GstBaseTransform *trans, GstBuffer **outbuf)
{
    GstClvidFilter *self = GST_CLVID_FILTER(trans);
    GstVideoFilter *video = GST_VIDEO_FILTER(trans);
    *outbuf = NULL;
    const int rate = chain_rate(self->chain);
    const guint64 lag = (guint64)(chain_delay(self->chain) * rate);
    const uint8_t *result = NULL;
    uint64_t index = 0;
    for (;;) {
        int pending = self->stage ? clv_stage_pending(self->stage) : 0;
        /* Out when `depth` are in the stage, or when the stage wants one
         * taken before the next goes in (several devices: the one due is
         * busy). */
        if (pending == 0 ||
            (pending < self->depth && !self->draining && clv_stage_input(self->stage)))
            return GST_FLOW_OK;
        clv_msg msg = {{0}};
        if (clv_stage_output(self->stage, &result, &index, &msg)) {
            GST_ELEMENT_ERROR(self, RESOURCE, FAILED, ("clvidfilter: %s", msg.text), (NULL));
            return GST_FLOW_ERROR;
        }
        /* A deinterlacer's first outputs are no frames: it took the first
         * buffer (whose timestamps the next output carries). The next
         * result may be a frame: the base class asks again only after one. */
        if ((index >= self->chain_from && index < self->chain_from + lag) ||
            g_queue_is_empty(&self->held)) {
            clv_stage_release(self->stage);
            continue;
        }
        break;
    }
    /* send_field: the head buffer's first field, then its second, each half
     * its duration (the second from the next buffer's time when the head
     * has none, or from the caps' rate). */
    const int field = index >= self->chain_from + lag
                          ? (int)((index - self->chain_from - lag) % (guint64)rate)
                          : 0;
    GstBuffer *input = field == rate - 1 ? g_queue_pop_head(&self->held)
                                         : gst_buffer_ref(g_queue_peek_head(&self->held));
    /* The buffer out is the stage's output memory itself (clv_stage_keep:
     * what the kernels wrote, or the pinned memory the download landed in),
     * when downstream reads its layout (GstVideoMeta, or
     * the caps' own layout). Else the base class's allocation: from the
     * negotiated pool, with the input's timestamps, flags and metadata. */
    GstFlowReturn ret = GST_FLOW_OK;
    clv_block *kept = wrap_outputs(self) ? clv_stage_keep(self->stage) : NULL;
    if (kept) {
        gsize offset[4] = {0};
        gint stride[4] = {0};
        size_t size =
            packed_layout(self->format, self->out_width, self->out_height, offset, stride);
        GstMemory *mem = wrap_block(kept, size);
        if (mem) {
            *outbuf = gst_buffer_new();
            gst_buffer_append_memory(*outbuf, mem);
            GST_BASE_TRANSFORM_GET_CLASS(trans)->copy_metadata(trans, input, *outbuf);
            if (self->downstream_meta)
                gst_buffer_add_video_meta_full(
                    *outbuf, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_INFO_FORMAT(&video->out_info),
                    self->out_width, self->out_height, plane_count(self->format), offset, stride);
            atomic_fetch_add(&self->kept, 1);
        } else {
            ret = GST_FLOW_ERROR;
            GST_ELEMENT_ERROR(self, CORE, FAILED, ("clvidfilter: out of memory"), (NULL));
        }
        if (ret == GST_FLOW_OK && rate == 2)
            time_field(self, input, *outbuf, field);
        clv_stage_release(self->stage);
        gst_buffer_unref(input);
        update_kernel_ms(self);
        return ret;
    }
    ret = GST_BASE_TRANSFORM_CLASS(gst_clvid_filter_parent_class)
              ->prepare_output_buffer(trans, input, outbuf);
    if (ret == GST_FLOW_OK && rate == 2)
        time_field(self, input, *outbuf, field);
    GstVideoFrame frame;
    if (ret == GST_FLOW_OK &&
        gst_video_frame_map(&frame, &video->out_info, *outbuf, GST_MAP_WRITE)) {
        atomic_fetch_add(&self->copied_out, 1);
        copy_frame(self, &frame, (uint8_t *)result, 0);
        gst_video_frame_unmap(&frame);
    } else if (ret == GST_FLOW_OK) {
        GST_ELEMENT_ERROR(self, CORE, FAILED, ("clvidfilter: cannot map an output buffer"), (NULL));
        gst_clear_buffer(outbuf);
        ret = GST_FLOW_ERROR;
    }
    clv_stage_release(self->stage);
    gst_buffer_unref(input);
    update_kernel_ms(self);
    return ret;
}

/* Pushes every buffer still in the stage (end of stream, new caps). */
static GstFlowReturn drain(GstClvidFilter *self)
{
    GstFlowReturn ret = GST_FLOW_OK;
    self->draining = TRUE;
    while (ret == GST_FLOW_OK && self->stage && clv_stage_pending(self->stage) > 0) {
        GstBuffer *out = NULL;
        ret = generate_output(GST_BASE_TRANSFORM(self), &out);
        if (out)
            ret = gst_pad_push(GST_BASE_TRANSFORM_SRC_PAD(self), out);
    }
    self->draining = FALSE;
    return ret;
}

/* The end of a stream (EOS, new caps, another chain): a chain that holds
 * a frame back is told and runs once more per frame held, on whatever the
 * slot holds (the deinterlacer reads the frame it kept), then every buffer
 * in the stage is pushed; it is built afresh for the next buffer. */
static GstFlowReturn flush_chain(GstClvidFilter *self)
{
    const int delay = chain_delay(self->chain), runs = delay * chain_rate(self->chain);
    if (!self->stage || !delay || self->frames <= self->chain_from || self->restart)
        return drain(self);
    clv_chain_end(self->chain);
    GstFlowReturn ret = GST_FLOW_OK;
    for (int i = 0; ret == GST_FLOW_OK && i < runs; i++) {
        self->draining = TRUE;
        while (ret == GST_FLOW_OK && !clv_stage_input(self->stage)) {
            GstBuffer *out = NULL;
            ret = generate_output(GST_BASE_TRANSFORM(self), &out);
            if (out)
                ret = gst_pad_push(GST_BASE_TRANSFORM_SRC_PAD(self), out);
        }
        self->draining = FALSE;
        clv_msg msg = {{0}};
        if (ret == GST_FLOW_OK && clv_stage_submit(self->stage, self->frames++, &msg)) {
            GST_ELEMENT_ERROR(self, RESOURCE, FAILED, ("clvidfilter: %s", msg.text), (NULL));
            ret = GST_FLOW_ERROR;
        }
    }
    self->restart = TRUE;
    return ret == GST_FLOW_OK ? drain(self) : ret;
}

/* Never called (generate_output makes the output); its presence tells
 * GstVideoFilter that the element writes a new buffer rather than filtering
 * in place. */
static GstFlowReturn transform_frame(GstVideoFilter *filter, GstVideoFrame *in, GstVideoFrame *out)
{
    (void)in;
    (void)out;
    GST_ELEMENT_ERROR(filter, CORE, NOT_IMPLEMENTED, ("clvidfilter: unexpected transform"), (NULL));
    return GST_FLOW_NOT_SUPPORTED;
}

/* Drops the buffers in flight (a flush, a stop); a deinterlacer forgets
 * the frames it holds (built afresh for the next buffer). */
static void discard(GstClvidFilter *self)
{
    /* The frames in flight first: a buffer of our pool goes back upstream
     * (to be written again) only once the stage has read it. */
    while (self->stage && clv_stage_pending(self->stage) > 0) {
        const uint8_t *px;
        uint64_t index;
        clv_msg msg;
        if (clv_stage_output(self->stage, &px, &index, &msg))
            break;
        clv_stage_release(self->stage);
    }
    GstBuffer *b;
    while ((b = g_queue_pop_head(&self->held)))
        gst_buffer_unref(b);
    /* (A chain that has had no buffer yet holds none: a chain set while
     * PLAYING renegotiates before its first.) */
    if (chain_delay(self->chain) && self->frames > self->chain_from)
        self->restart = TRUE;
}

static gboolean sink_event(GstBaseTransform *trans, GstEvent *event)
{
    GstClvidFilter *self = GST_CLVID_FILTER(trans);
    switch (GST_EVENT_TYPE(event)) {
    case GST_EVENT_EOS:
    case GST_EVENT_CAPS:
        flush_chain(self);
        break;
    case GST_EVENT_SEGMENT:
        drain(self);
        break;
    case GST_EVENT_FLUSH_STOP:
        discard(self);
        break;
    default:
        break;
    }
    return GST_BASE_TRANSFORM_CLASS(gst_clvid_filter_parent_class)->sink_event(trans, event);
}

/* The latency: the buffers held beyond the one being filtered. */
static gboolean query(GstBaseTransform *trans, GstPadDirection direction, GstQuery *q)
{
    GstClvidFilter *self = GST_CLVID_FILTER(trans);
    gboolean res =
        GST_BASE_TRANSFORM_CLASS(gst_clvid_filter_parent_class)->query(trans, direction, q);
    if (res && direction == GST_PAD_SRC && GST_QUERY_TYPE(q) == GST_QUERY_LATENCY) {
        gboolean live;
        GstClockTime min, max;
        const GstVideoInfo *info = &GST_VIDEO_FILTER(trans)->in_info;
        gst_query_parse_latency(q, &live, &min, &max);
        /* A deinterlacer holds one more. */
        const int frames = self->depth - 1 + chain_delay(self->chain);
        GstClockTime extra =
            info->fps_n > 0 && frames > 0
                ? gst_util_uint64_scale_int((guint64)frames * GST_SECOND, info->fps_d, info->fps_n)
                : 0;
        gst_query_set_latency(q, live, min + extra,
                              GST_CLOCK_TIME_IS_VALID(max) ? max + extra : max);
    }
    return res;
}

/* Upstream is offered a pool of buffers in the stage's own memory, which
 * the stage reads where they lie (shared staging: a CPU through PoCL) or
 * uploads from (copied staging: pinned memory, a DMA on a GPU); where the
 * stage gives no blocks only GstVideoMeta is offered, and buffers are
 * copied. */
static gboolean propose_allocation(GstBaseTransform *trans, GstQuery *decide, GstQuery *query)
{
    GstClvidFilter *self = GST_CLVID_FILTER(trans);
    GstCaps *caps = NULL;
    gboolean need_pool = FALSE;
    GstVideoInfo info;
    clv_pixfmt f;
    gst_query_parse_allocation(query, &caps, &need_pool);
    clv_block *probe = NULL;
    if (self->stage && caps && gst_video_info_from_caps(&info, caps) &&
        GST_VIDEO_INFO_WIDTH(&info) == self->width &&
        GST_VIDEO_INFO_HEIGHT(&info) == self->height &&
        !pixfmt_of(GST_VIDEO_INFO_FORMAT(&info), &f) && f == self->format)
        probe = clv_stage_block_new(self->stage, GST_VIDEO_INFO_SIZE(&info));
    if (!probe) /* GstVideoFilter's: GstVideoMeta, and a pool of plain memory */
        return GST_BASE_TRANSFORM_CLASS(gst_clvid_filter_parent_class)
            ->propose_allocation(trans, decide, query);
    clv_block_free(probe);
    gst_query_add_allocation_meta(query, GST_VIDEO_META_API_TYPE, NULL);
    drop_pool(self);
    GstClvidPool *pool = g_object_new(GST_TYPE_CLVID_POOL, NULL);
    pool->stage = self->stage;
    /* Buffers held in the stage, and one upstream writes. */
    const guint min = (guint)self->depth + 2;
    GstStructure *config = gst_buffer_pool_get_config(GST_BUFFER_POOL(pool));
    gst_buffer_pool_config_set_params(config, caps, (guint)GST_VIDEO_INFO_SIZE(&info), min, 0);
    gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
    if (!gst_buffer_pool_set_config(GST_BUFFER_POOL(pool), config)) {
        pool_forget_stage(GST_BUFFER_POOL(pool));
        gst_object_unref(pool);
        return TRUE;
    }
    self->pool = GST_BUFFER_POOL(pool);
    gst_query_add_allocation_pool(query, self->pool, (guint)GST_VIDEO_INFO_SIZE(&info), min, 0);
    GST_INFO_OBJECT(self, "proposing a pool of the stage's memory");
    return TRUE;
}

/* Whether downstream reads GstVideoMeta: then buffers out wrap the stage's
 * memory whatever its layout. */
static gboolean decide_allocation(GstBaseTransform *trans, GstQuery *query)
{
    GstClvidFilter *self = GST_CLVID_FILTER(trans);
    self->downstream_meta = gst_query_find_allocation_meta(query, GST_VIDEO_META_API_TYPE, NULL);
    return GST_BASE_TRANSFORM_CLASS(gst_clvid_filter_parent_class)->decide_allocation(trans, query);
}

/* ---- The type ------------------------------------------------------------------ */

static void finalize(GObject *object)
{
    GstClvidFilter *self = GST_CLVID_FILTER(object);
    release_device(self);
    g_free(self->chain_text);
    g_free(self->device);
    g_mutex_clear(&self->lock);
    G_OBJECT_CLASS(gst_clvid_filter_parent_class)->finalize(object);
}

static void gst_clvid_filter_init(GstClvidFilter *self)
{
    g_mutex_init(&self->lock);
    self->chain_text = g_strdup("");
    g_queue_init(&self->held);
    self->depth = 1;
}

static void gst_clvid_filter_class_init(GstClvidFilterClass *klass)
{
    GObjectClass *gobject = G_OBJECT_CLASS(klass);
    GstElementClass *element = GST_ELEMENT_CLASS(klass);
    GstBaseTransformClass *trans = GST_BASE_TRANSFORM_CLASS(klass);
    GstVideoFilterClass *video = GST_VIDEO_FILTER_CLASS(klass);
    gobject->set_property = set_property;
    gobject->get_property = get_property;
    gobject->finalize = finalize;
    g_object_class_install_property(
        gobject, PROP_CHAIN,
        g_param_spec_string(
            "chain", "Chain",
            "clvid filter chain in ffmpeg's syntax, e.g. 'median=radius=2,sharpen' (clvid "
            "filters lists them; opencl=file=KERNEL.cl runs your own kernel); empty: none. "
            "Changeable while PLAYING: the next buffer uses it. A bad chain (its message "
            "names the filter, parameter, value and range, or the kernel file and the "
            "compiler's error) is an error before the element starts, which then does not "
            "start; while it runs, a warning, and the chain in use stays",
            "", G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING));
    g_object_class_install_property(
        gobject, PROP_DEVICE,
        g_param_spec_string("device", "Device",
                            "OpenCL device as clvid's --device: an index of `clvid devices`, "
                            "part of its name, or a list (1,2; gpu; all) to deal buffers to "
                            "several devices in order; unset: CLVID_DEVICE, else the first GPU, "
                            "else the first device",
                            NULL,
                            G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
    g_object_class_install_property(
        gobject, PROP_KERNEL_MS,
        g_param_spec_double("kernel-ms", "Kernel ms",
                            "Device time of the conversions and the chain per frame, in "
                            "milliseconds, over the last 30 frames (read-only)",
                            0, G_MAXDOUBLE, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
    g_object_class_install_property(
        gobject, PROP_IN_FLIGHT,
        g_param_spec_int("in-flight", "Buffers in flight",
                         "Buffers held in the device's pipeline: the output of buffer N leaves "
                         "when buffer N + in-flight - 1 has come in (latency: in-flight - 1 "
                         "frames, reported). 0: 1 a device",
                         0, 3, 0,
                         G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY));
    g_object_class_install_property(
        gobject, PROP_COPIES_IN,
        g_param_spec_uint64("copies-in", "Buffers copied in",
                            "Input buffers copied into the device's staging since the element "
                            "started (read-only); the others were read where upstream wrote "
                            "them, in buffers of the pool the element proposes (on devices "
                            "that work in the host's memory)",
                            0, G_MAXUINT64, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
    g_object_class_install_property(
        gobject, PROP_COPIES_OUT,
        g_param_spec_uint64("copies-out", "Buffers copied out",
                            "Output buffers copied out of the device's staging since the element "
                            "started (read-only); the others are the memory the device wrote, "
                            "handed downstream as it is",
                            0, G_MAXUINT64, 0, G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
    gst_element_class_set_static_metadata(
        element, "clvid filter", "Filter/Effect/Video",
        "clvid's exact OpenCL filters (median, sharpen, prewitt, erode, equalize, quantize, "
        "your own kernels...) on raw video",
        "clvid developers");
    gst_element_class_add_static_pad_template(element, &sink_template);
    gst_element_class_add_static_pad_template(element, &src_template);
    trans->start = start;
    trans->stop = stop;
    trans->submit_input_buffer = submit_input_buffer;
    trans->generate_output = generate_output;
    trans->sink_event = sink_event;
    trans->query = query;
    trans->propose_allocation = propose_allocation;
    trans->decide_allocation = decide_allocation;
    trans->transform_caps = transform_caps;
    video->set_info = set_info;
    video->transform_frame = transform_frame;
}

static gboolean plugin_init(GstPlugin *plugin)
{
    GST_DEBUG_CATEGORY_INIT(clvid_debug, "clvidfilter", 0, "clvid filters");
    block_quark = g_quark_from_static_string("clvid-block");
    return gst_element_register(plugin, "clvidfilter", GST_RANK_NONE, GST_TYPE_CLVID_FILTER);
}

GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, clvid, "clvid: exact OpenCL video filters",
                  plugin_init, CLVID_VERSION_STRING, GST_LICENSE_UNKNOWN, "clvid",
                  "clvid source tree")
