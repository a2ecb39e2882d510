/* filter_png.c - a PNG through a clvid chain with the engine API alone:
 * context -> chain -> frame upload -> run -> download.
 *   filter_png IN.png CHAIN OUT.png        e.g. filter_png in.png 'median,sharpen' out.png
 * Builds against the installed library: cc filter_png.c $(pkg-config --cflags --libs clvid
 * libpng). */
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <clvid/opencl.h>

/* Reads any PNG as RGBA8 into img (libpng's simplified API). */
static int read_png(const char *path, clv_image *img)
{
    png_image png;
    memset(&png, 0, sizeof png);
    png.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&png, path))
        return fprintf(stderr, "%s: %s\n", path, png.message), -1;
    png.format = PNG_FORMAT_RGBA;
    if (clv_image_alloc(img, (int)png.width, (int)png.height))
        return png_image_free(&png), -1;
    if (!png_image_finish_read(&png, NULL, img->pixels, (png_int_32)img->stride, NULL))
        return fprintf(stderr, "%s: %s\n", path, png.message), -1;
    return 0;
}

static int write_png(const char *path, const clv_image *img)
{
    png_image png;
    memset(&png, 0, sizeof png);
    png.version = PNG_IMAGE_VERSION;
    png.width = (png_uint_32)img->width;
    png.height = (png_uint_32)img->height;
    png.format = PNG_FORMAT_RGBA;
    if (!png_image_write_to_file(&png, path, 0, img->pixels, (png_int_32)img->stride, NULL))
        return fprintf(stderr, "%s: %s\n", path, png.message), -1;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: filter_png IN.png CHAIN OUT.png   (clvid %s)\n", clv_version());
        return 2;
    }
    clv_image in = {0}, out = {0};
    clv_context *ctx = NULL;
    clv_chain *chain = NULL;
    clv_frame src = {0}, dst = {0};
    clv_chain_desc *desc = NULL;
    clv_msg msg = {{0}};
    int status = 1;
    if (clv_chain_parse(argv[2], &desc, &msg)) { /* names the filter, value and range */
        fprintf(stderr, "%s\n", msg.text);
        return 2;
    }
    if (read_png(argv[1], &in) || clv_image_alloc(&out, in.width, in.height))
        goto done;
    clv_context_options options;
    clv_context_options_init(&options);
    options.device = getenv("CLVID_DEVICE");
    if (clv_context_create(&options, &ctx, &msg) || clv_chain_create(ctx, desc, &chain, &msg) ||
        clv_frame_create(ctx, in.width, in.height, &src, &msg) ||
        clv_frame_create(ctx, in.width, in.height, &dst, &msg) ||
        clv_frame_upload(ctx, &src, &in) || clv_chain_run(chain, &src, &dst, 0, NULL, NULL, &msg) ||
        clv_frame_download(ctx, &dst, &out) || write_png(argv[3], &out)) {
        fprintf(stderr, "filter_png: %s\n", msg.text[0] ? msg.text : "failed");
        goto done;
    }
    printf("%s: %dx%d through [%s] on %s -> %s\n", argv[1], in.width, in.height, argv[2],
           clv_context_device(ctx)->name, argv[3]);
    status = 0;
done:
    clv_chain_desc_destroy(desc);
    clv_frame_destroy(&src);
    clv_frame_destroy(&dst);
    clv_chain_destroy(chain);
    clv_context_destroy(ctx);
    clv_image_free(&in);
    clv_image_free(&out);
    return status;
}
