/* error.c - how io, pipeline and player say what failed: one call writes
 * the message and gives the code back (core's clv__fail for the FFmpeg
 * side), and FFmpeg's error codes as text. */
#include "io.h"

#include <stdarg.h>
#include <stdio.h>

int clv_io_fail(clv_msg *msg, int code, const char *fmt, ...)
{
    if (msg) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg->text, sizeof msg->text, fmt, ap);
        va_end(ap);
    }
    return code;
}

const char *clv_av_err(int code, char *buf, size_t size)
{
    av_strerror(code, buf, size);
    return buf;
}
