/* ref_tool.c - clvid-ref: applies a chain with the C references to raw RGBA
 * frames (stdin to stdout), so scripts can check clvid's output against the
 * definitions. usage: clvid-ref CHAIN WIDTH HEIGHT [FRAMES] */
#include <stdio.h>
#include <stdlib.h>

#include "clvid.h"

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: clvid-ref CHAIN WIDTH HEIGHT [FRAMES] < in.rgba > out.rgba\n");
        return 2;
    }
    int w = atoi(argv[2]), h = atoi(argv[3]), frames = argc > 4 ? atoi(argv[4]) : 1;
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
    if (w < 1 || h < 1 || clv_chain_desc_output_size(desc, &in_size, &out_size, &msg)) {
        fprintf(stderr, "clvid-ref: %s\n", w < 1 || h < 1 ? "bad size" : msg.text);
        clv_chain_desc_destroy(desc);
        return 2;
    }
    int bad = clv_ref_chain_create(desc, &ref);
    clv_chain_desc_destroy(desc);
    if (bad || clv_image_alloc(&in, w, h) ||
        clv_image_alloc(&out, out_size.width, out_size.height)) {
        fprintf(stderr, "clvid-ref: cannot set up %dx%d\n", w, h);
        return 1;
    }
    size_t n = (size_t)w * h * 4, n_out = (size_t)out_size.width * out_size.height * 4;
    if (getenv("CLVID_REF_SIZE")) /* the output's size on stderr, for scripts */
        fprintf(stderr, "%dx%d\n", out_size.width, out_size.height);
    int status = 0;
    for (int f = 0; f < frames; f++) {
        if (fread(in.pixels, 1, n, stdin) != n) {
            fprintf(stderr, "clvid-ref: frame %d: short input\n", f);
            status = 1;
            break;
        }
        clv_ref_chain_run(ref, &in, &out, (uint64_t)f);
        fwrite(out.pixels, 1, n_out, stdout);
    }
    clv_ref_chain_destroy(ref);
    clv_image_free(&in);
    clv_image_free(&out);
    return status;
}
