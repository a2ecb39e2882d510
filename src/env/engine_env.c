/* engine_env.c - the engine's settings from the environment, for the
 * programs (the clvid command, clvid-bench): the library reads none. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "engine_env.h"

/* One value of the environment, or NULL when unset or empty. */
static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

void clv_env_engine_settings(clv_context_options *e, char *dir, size_t size)
{
    if (!e->device)
        e->device = env("CLVID_DEVICE");
    const char *shape = env("CLVID_SHAPE");
    if (!e->shape && shape)
        e->shape = !strcmp(shape, "row") ? 1 : !strcmp(shape, "gpu") ? 2 : 0;
    const char *staging = env("CLVID_STAGING");
    if (!e->staging && staging && !strcmp(staging, "copy"))
        e->staging = 1;
    const char *no_cache = env("CLVID_NO_CACHE");
    if (no_cache && strcmp(no_cache, "0"))
        e->no_cache = 1;
    if (!e->cache_dir)
        e->cache_dir = env("CLVID_CACHE_DIR");
    if (!e->cache_dir) {
        /* The XDG place, written into the caller's buffer. */
        const char *xdg = env("XDG_CACHE_HOME"), *home = env("HOME");
        if (xdg || home) {
            snprintf(dir, size, "%s%s", xdg ? xdg : home, xdg ? "/clvid" : "/.cache/clvid");
            e->cache_dir = dir;
        }
    }
    /* PoCL's own cache off: clvid's is the only one there. */
    const char *pocl_cache = env("POCL_KERNEL_CACHE");
    if (pocl_cache && !strcmp(pocl_cache, "0"))
        e->cache_every_driver = 1;
    if (!e->kernel_dir)
        e->kernel_dir = env("CLVID_KERNEL_DIR");
    /* Seconds a frame through a user kernel may take; "off": no limit. */
    const char *watchdog = env("CLVID_WATCHDOG");
    if (watchdog && !e->watchdog_s)
        e->watchdog_s = !strcasecmp(watchdog, "off") ? -1 : atof(watchdog) > 0 ? atof(watchdog) : 0;
    const char *log = env("CLVID_LOG");
    if (log)
        e->log_level = !strcasecmp(log, "error")   ? CLV_LOG_ERROR
                       : !strcasecmp(log, "info")  ? CLV_LOG_INFO
                       : !strcasecmp(log, "debug") ? CLV_LOG_DEBUG
                                                   : CLV_LOG_WARN;
}
