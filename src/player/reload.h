/* reload.h - the window's live user kernels (reload.c). */
#ifndef CLVID_RELOAD_H
#define CLVID_RELOAD_H

#include <stddef.h>
#include <stdint.h>

#include "clvid.h"

typedef struct clv_reload clv_reload;

/* Watches the kernel files of the `opencl` filters of chains (built on
 * ctx). *out is NULL when no chain has one. */
int clv_reload_create(clv_context *ctx, clv_chain *const *chains, int count, clv_reload **out,
                      clv_msg *msg);
void clv_reload_destroy(clv_reload *r);
/* Builds every file again now (the `r` key). */
void clv_reload_request(clv_reload *r);
/* What a poll saw finish: a kernel swapped into its chain, or a build
 * that failed (its message: clv_reload_error). */
enum { CLV_RELOAD_SWAPPED = 1, CLV_RELOAD_FAILED = 2 };

/* On the player's thread, once per pass: notices changed files, starts
 * their builds, swaps finished ones into their chains. Returns 0 or one of
 * CLV_RELOAD_*; notice (may be NULL) gets a line for the user. */
int clv_reload_poll(clv_reload *r, char *notice, size_t size);
/* The message of the last failed build of a kernel of chain, NULL when its
 * kernels built. */
const char *clv_reload_error(const clv_reload *r, const clv_chain *chain);
/* Kernels swapped in so far. */
uint64_t clv_reload_count(const clv_reload *r);

#endif
