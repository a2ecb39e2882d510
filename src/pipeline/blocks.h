/* blocks.h - a decoder's frames in a GPU stage's blocks: the decoder's
 * pool callbacks (pool_buffer) over clv_stage_block_new, for transcode and
 * clvid-bench --pipeline --input VIDEO. */
#ifndef CLVID_PIPELINE_BLOCKS_H
#define CLVID_PIPELINE_BLOCKS_H

#include <stddef.h>
#include <stdint.h>

#include "clvid/clvid.h"

#include "../io/io.h"

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

/* Sends f where the decoder wrote it, in one of the stage's blocks: 0 (the
 * stage holds it until it comes out), 1 when it is not in one or its planes
 * run backwards (copy it then), or a CLV_E* code with msg. */
static inline int clv__stage_submit_decoded(clv_stage *stage, const clv_decoder *dec, AVFrame *f,
                                            uint64_t index, clv_msg *msg)
{
    const uint8_t *base = NULL;
    clv_block *block = clv_decoder_frame_block(dec, f, &base);
    size_t offset[3] = {0, 0, 0};
    int stride[3] = {0, 0, 0};
    for (int i = 0; block && i < 3 && f->data[i]; i++) {
        if (f->data[i] < base || f->linesize[i] <= 0)
            block = NULL;
        else
            offset[i] = (size_t)(f->data[i] - base), stride[i] = f->linesize[i];
    }
    if (!block)
        return 1;
    return clv_stage_submit_block(stage, index, block, offset, stride, msg);
}

#endif
