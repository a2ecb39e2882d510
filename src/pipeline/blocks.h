/* blocks.h - a decoder's frames in a GPU stage's blocks: the decoder's
 * pool callbacks (pool_buffer) over clv_stage_block_new, for transcode and
 * clvid-bench --pipeline --input VIDEO. */
#ifndef CLVID_PIPELINE_BLOCKS_H
#define CLVID_PIPELINE_BLOCKS_H

#include <stddef.h>
#include <stdint.h>

#include "clvid/clvid.h"

/* size bytes of the stage's memory for a frame, its pixels at *pixels;
 * NULL where the stage gives none (the decoder then uses its own). */
static inline void *clv__stage_block_alloc(void *stage, size_t size, uint8_t **pixels)
{
    clv_block *b = clv_stage_block_new(stage, size);
    if (b)
        *pixels = clv_block_pixels(b);
    return b;
}

static inline void clv__stage_block_free(void *block)
{
    clv_block_free(block);
}

#endif
