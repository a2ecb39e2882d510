/* null.c - null and copy, as ffmpeg's: the frame passes on unchanged. They
 * run nothing (clv_filter's passes): a chain hands the frame to the next
 * filter, and a chain of nothing else copies it once. */
#include "filters.h"

#include <string.h>

int clv__pass_reference(void *ref_state, const clv_value *values, const clv_image *src,
                        clv_image *dst, uint64_t frame_index)
{
    (void)ref_state;
    (void)values;
    (void)frame_index;
    size_t row = (size_t)src->width * (size_t)clv_image_pixel_bytes(src);
    for (int y = 0; y < src->height; y++)
        memcpy(dst->pixels + (size_t)y * dst->stride, src->pixels + (size_t)y * src->stride, row);
    return 0;
}

const clv_filter clv__filter_null = {
    .name = "null",
    .help = "pass the frame on unchanged (ffmpeg's null)",
    .deep = 1,
    .passes = 1,
    .reference = clv__pass_reference,
};

const clv_filter clv__filter_copy = {
    .name = "copy",
    .help = "pass the frame on unchanged (ffmpeg's copy; clvid copies nothing)",
    .deep = 1,
    .passes = 1,
    .reference = clv__pass_reference,
};
