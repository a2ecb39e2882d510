/* block.c - the blocks of a stage's memory (clv_block): on shared staging
 * fine-grained SVM the kernels read and write in place, on copied staging
 * pinned host memory (CL_MEM_ALLOC_HOST_PTR, mapped for the block's life)
 * the copies to and from the device are DMAs of. The caller may keep a
 * block past the stage. */
#undef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 200
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include "stage_internal.h"

#include <stdlib.h>

/* Encoders may read a little past a frame's last row with SIMD loads, as
 * FFmpeg's own frame pools allow for: a kept block is that much longer. */
#define OUTPUT_PADDING 64

clv__outputs *clv__outputs_create(clv_context *ctx, size_t frame_size)
{
    clv__outputs *o = calloc(1, sizeof *o);
    if (!o || pthread_mutex_init(&o->lock, NULL)) {
        free(o);
        return NULL;
    }
    o->refs = 1;
    o->cl = ctx->cl;
    clRetainContext(o->cl);
    o->size = frame_size + OUTPUT_PADDING;
    if (!ctx->shared_staging) {
        cl_int st = CL_SUCCESS;
        o->map_q = clCreateCommandQueue(ctx->cl, ctx->dev.device_id, 0, &st);
        if (st != CL_SUCCESS) {
            clv__log(ctx, CLV__LOG_ERROR, "clCreateCommandQueue (the blocks' maps): %s",
                     clv__cl_strerror(st));
            o->map_q = NULL;
            clv__outputs_unref(o);
            return NULL;
        }
    }
    return o;
}

static void block_free(clv__outputs *o, clv_block *b)
{
    if (!b)
        return;
    if (b->pin) {
        /* Unmapped before the buffer goes; waited on its own event, so that
         * any thread may free a block beside the others. */
        cl_event unmapped = NULL;
        if (clEnqueueUnmapMemObject(o->map_q, b->pin, b->pixels, 0, NULL, &unmapped) ==
                CL_SUCCESS &&
            unmapped) {
            clFlush(o->map_q);
            clWaitForEvents(1, &unmapped);
            clReleaseEvent(unmapped);
        }
        clReleaseMemObject(b->pin);
    } else {
        clSVMFree(o->cl, b->pixels);
    }
    free(b);
}

clv_block *clv__block_new(clv__outputs *o, size_t size)
{
    clv_block *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    if (o->map_q) {
        cl_int st = CL_SUCCESS;
        b->pin = clCreateBuffer(o->cl, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, size, NULL, &st);
        if (st == CL_SUCCESS)
            b->pixels = clEnqueueMapBuffer(o->map_q, b->pin, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0,
                                           size, 0, NULL, NULL, &st);
        if (st != CL_SUCCESS) {
            if (b->pin)
                clReleaseMemObject(b->pin);
            b->pin = NULL;
            b->pixels = NULL;
        }
    } else {
        b->pixels = clSVMAlloc(o->cl, CL_MEM_READ_WRITE | CL_MEM_SVM_FINE_GRAIN_BUFFER, size, 0);
    }
    if (!b->pixels) {
        free(b);
        return NULL;
    }
    b->owner = o;
    b->size = size;
    return b;
}

clv_block *clv__block_get(clv__outputs *o)
{
    clv_block *b = NULL;
    pthread_mutex_lock(&o->lock);
    if (o->spares > 0)
        b = o->spare[--o->spares];
    pthread_mutex_unlock(&o->lock);
    return b ? b : clv__block_new(o, o->size);
}

void clv__block_put(clv__outputs *o, clv_block *b)
{
    if (!b)
        return;
    if (b->size != o->size) { /* an input block: not a spare */
        block_free(o, b);
        return;
    }
    pthread_mutex_lock(&o->lock);
    if (o->spares == o->spare_cap) {
        int cap = o->spare_cap ? o->spare_cap * 2 : 8;
        clv_block **grown = realloc(o->spare, (size_t)cap * sizeof *grown);
        if (grown) {
            o->spare = grown;
            o->spare_cap = cap;
        }
    }
    int kept = o->spares < o->spare_cap;
    if (kept)
        o->spare[o->spares++] = b;
    pthread_mutex_unlock(&o->lock);
    if (!kept)
        block_free(o, b);
}

void clv__outputs_unref(clv__outputs *o)
{
    if (!o)
        return;
    pthread_mutex_lock(&o->lock);
    int last = --o->refs == 0;
    pthread_mutex_unlock(&o->lock);
    if (!last)
        return;
    for (int i = 0; i < o->spares; i++)
        block_free(o, o->spare[i]);
    free(o->spare);
    if (o->map_q)
        clReleaseCommandQueue(o->map_q);
    clReleaseContext(o->cl);
    pthread_mutex_destroy(&o->lock);
    free(o);
}

void clv__outputs_ref(clv__outputs *o)
{
    pthread_mutex_lock(&o->lock);
    o->refs++;
    pthread_mutex_unlock(&o->lock);
}

void clv_block_free(clv_block *block)
{
    if (!block)
        return;
    clv__outputs *o = block->owner;
    clv__block_put(o, block);
    clv__outputs_unref(o);
}

uint8_t *clv_block_pixels(const clv_block *block)
{
    return block->pixels;
}
