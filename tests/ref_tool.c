/* ref_tool.c - clvid-ref: applies a chain with the C references to raw RGBA
 * frames (stdin to stdout), so scripts can check clvid's output against the
 * definitions. usage: clvid-ref CHAIN WIDTH HEIGHT [FRAMES]; with
 * CLVID_REF_DEPTH=16 the frames are RGBA16 (four uint16_t a pixel in the
 * host's order: rgba64le on little-endian hosts) and every filter runs its
 * 16-bit definition. CLVID_REF_COLOR=TRANSFER:PRIMARIES:PEAK (pq, hlg,
 * bt709 or linear; bt2020 or bt709; cd/m2; an empty or missing field:
 * unknown) says what the input's pixels mean (tonemap reads it). A chain
 * with a deinterlacer gives its frames as clvid transcode writes them: each
 * frame run once per frame out (twice with send_field), the first outputs
 * (no frames yet) dropped, the last frames flushed at the end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clvid.h"

/* CLVID_REF_COLOR's words into in's transfer, primaries and peak; 0 when
 * they read, else -1. */
static int parse_color(const char *text, clv_size *in)
{
    static const char *const transfers[] = {"", "bt709", "pq", "hlg", "linear"};
    static const char *const primaries[] = {"", "bt709", "bt2020"};
    char buf[64];
    snprintf(buf, sizeof buf, "%s", text);
    char *peak = NULL, *prim = strchr(buf, ':');
    if (prim) {
        *prim++ = 0;
        if ((peak = strchr(prim, ':')))
            *peak++ = 0;
    }
    in->transfer = in->primaries = -1;
    for (int i = 0; i < 5; i++)
        if (!strcmp(buf, transfers[i]))
            in->transfer = i;
    for (int i = 0; i < 3; i++)
        if (!strcmp(prim ? prim : "", primaries[i]))
            in->primaries = i;
    in->peak = peak ? atoi(peak) : 0;
    return in->transfer < 0 || in->primaries < 0 || in->peak < 0 ? -1 : 0;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: clvid-ref CHAIN WIDTH HEIGHT [FRAMES] < in.rgba > out.rgba\n");
        return 2;
    }
    int w = atoi(argv[2]), h = atoi(argv[3]), frames = argc > 4 ? atoi(argv[4]) : 1;
    const char *depth_text = getenv("CLVID_REF_DEPTH");
    int depth = depth_text ? atoi(depth_text) : 8;
    if (depth != 8 && depth != 16) {
        fprintf(stderr, "clvid-ref: CLVID_REF_DEPTH is 8 or 16\n");
        return 2;
    }
    clv_chain_desc *desc = NULL;
    clv_msg msg = {{0}};
    if (clv_chain_parse(argv[1], &desc, &msg)) {
        fprintf(stderr, "clvid-ref: %s\n", msg.text);
        return 2;
    }
    clv_ref_chain *ref = NULL;
    clv_image in = {0}, out = {0};
    /* The output is of the chain's size (scale, crop... change it). */
    clv_size in_size = {w, h, 0, 1, 0, 0, 0}, out_size = in_size;
    const char *color = getenv("CLVID_REF_COLOR");
    if (color && parse_color(color, &in_size)) {
        fprintf(stderr,
                "clvid-ref: CLVID_REF_COLOR='%s': want TRANSFER:PRIMARIES:PEAK "
                "(pq|hlg|bt709|linear, bt2020|bt709, cd/m2)\n",
                color);
        clv_chain_desc_destroy(desc);
        return 2;
    }
    if (w < 1 || h < 1 || clv_chain_desc_output_size(desc, &in_size, &out_size, &msg)) {
        fprintf(stderr, "clvid-ref: %s\n", w < 1 || h < 1 ? "bad size" : msg.text);
        clv_chain_desc_destroy(desc);
        return 2;
    }
    int delay = 0, rate = 1;
    int bad = clv_chain_desc_cadence(desc, &delay, &rate, &msg) || clv_ref_chain_create(desc, &ref);
    clv_chain_desc_destroy(desc);
    if (bad || clv_image_alloc_depth(&in, w, h, depth) ||
        clv_image_alloc_depth(&out, out_size.width, out_size.height, depth)) {
        fprintf(stderr, "clvid-ref: cannot set up %dx%d\n", w, h);
        return 1;
    }
    clv_ref_chain_set_input(ref, &in_size);
    const size_t px_bytes = (size_t)clv_image_pixel_bytes(&in);
    size_t n = (size_t)w * h * px_bytes,
           n_out = (size_t)out_size.width * out_size.height * px_bytes;
    if (getenv("CLVID_REF_SIZE")) /* the output's size on stderr, for scripts */
        fprintf(stderr, "%dx%d\n", out_size.width, out_size.height);
    int status = 0;
    uint64_t run = 0;
    for (int f = 0; f <= frames && !status; f++) {
        if (f == frames) { /* the end: the frames held */
            if (!delay || !frames)
                break;
            clv_ref_chain_end(ref);
        } else if (fread(in.pixels, 1, n, stdin) != n) {
            fprintf(stderr, "clvid-ref: frame %d: short input\n", f);
            status = 1;
            break;
        }
        for (int k = 0; k < (f == frames ? delay * rate : rate); k++, run++) {
            int err = clv_ref_chain_run(ref, &in, &out, run);
            if (err) {
                fprintf(stderr, "clvid-ref: frame %d at %d bits: %s\n", f, depth,
                        clv_strerror(err));
                status = 1;
                break;
            }
            if (run >= (uint64_t)(delay * rate))
                fwrite(out.pixels, 1, n_out, stdout);
        }
    }
    clv_ref_chain_destroy(ref);
    clv_image_free(&in);
    clv_image_free(&out);
    return status;
}
