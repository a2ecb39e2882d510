/* engine_env.h - the engine's settings from the environment, read once by a
 * program and passed down (the library reads no environment). */
#ifndef CLVID_ENGINE_ENV_H
#define CLVID_ENGINE_ENV_H

#include <stddef.h>

#include "clvid.h"

/* Fills what e leaves unset: CLVID_DEVICE (when no --device), CLVID_SHAPE,
 * CLVID_CACHE_DIR (or XDG_CACHE_HOME/clvid, ~/.cache/clvid, written into
 * cache_dir), CLVID_NO_CACHE, CLVID_KERNEL_DIR, CLVID_WATCHDOG, CLVID_LOG,
 * POCL_KERNEL_CACHE ("0": clvid keeps binaries on PoCL too). */
void clv_env_engine_settings(clv_context_options *e, char *cache_dir, size_t size);

#endif
