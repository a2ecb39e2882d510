/* shaders.h - the GLSL sources of shaders/, embedded at build time
 * (cmake/embed.cmake); CLVID_SHADER_DIR loads them from disk instead. */
#ifndef CLVID_SHADERS_H
#define CLVID_SHADERS_H

#include <stddef.h>

typedef struct clv__shader_source {
    const char *name; /* "present.frag" */
    const char *text;
    size_t length;
} clv__shader_source;

extern const clv__shader_source clv__shader_sources[];
extern const int clv__shader_source_count;

#endif
