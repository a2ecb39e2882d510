/* error.c - the error table (clv_strerror), OpenCL status names, user
 * messages and the log. */
#include "clvid_internal.h"

#include <CL/cl_ext.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *clv_version(void)
{
    return CLVID_VERSION_STRING;
}

int clv_version_number(void)
{
    return CLVID_VERSION_NUMBER;
}

const char *clv_strerror(int code)
{
    switch (code) {
    case 0:
        return "success";
#define CLV__CASE(name, value, text)                                                               \
    case value:                                                                                    \
        return text;
        CLV_ERRORS(CLV__CASE)
#undef CLV__CASE
    }
    return "unknown error";
}

int clv__fail(clv_msg *msg, int code, const char *fmt, ...)
{
    if (msg) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg->text, sizeof msg->text, fmt, ap);
        va_end(ap);
    }
    return code;
}

const char *clv__cl_strerror(cl_int status)
{
    switch (status) {
#define CLV__S(x)                                                                                  \
    case x:                                                                                        \
        return #x;
        CLV__S(CL_SUCCESS)
        CLV__S(CL_DEVICE_NOT_FOUND)
        CLV__S(CL_DEVICE_NOT_AVAILABLE)
        CLV__S(CL_COMPILER_NOT_AVAILABLE)
        CLV__S(CL_MEM_OBJECT_ALLOCATION_FAILURE)
        CLV__S(CL_OUT_OF_RESOURCES)
        CLV__S(CL_OUT_OF_HOST_MEMORY)
        CLV__S(CL_PROFILING_INFO_NOT_AVAILABLE)
        CLV__S(CL_BUILD_PROGRAM_FAILURE)
        CLV__S(CL_INVALID_VALUE)
        CLV__S(CL_INVALID_DEVICE)
        CLV__S(CL_INVALID_BINARY)
        CLV__S(CL_INVALID_BUILD_OPTIONS)
        CLV__S(CL_INVALID_PROGRAM_EXECUTABLE)
        CLV__S(CL_INVALID_KERNEL_NAME)
        CLV__S(CL_INVALID_KERNEL_ARGS)
        CLV__S(CL_INVALID_ARG_INDEX)
        CLV__S(CL_INVALID_ARG_VALUE)
        CLV__S(CL_INVALID_ARG_SIZE)
        CLV__S(CL_INVALID_WORK_DIMENSION)
        CLV__S(CL_INVALID_WORK_GROUP_SIZE)
        CLV__S(CL_INVALID_WORK_ITEM_SIZE)
        CLV__S(CL_INVALID_GLOBAL_WORK_SIZE)
        CLV__S(CL_INVALID_MEM_OBJECT)
        CLV__S(CL_INVALID_BUFFER_SIZE)
        CLV__S(CL_INVALID_EVENT_WAIT_LIST)
        CLV__S(CL_INVALID_EVENT)
        CLV__S(CL_INVALID_OPERATION)
        CLV__S(CL_INVALID_COMMAND_QUEUE)
        CLV__S(CL_INVALID_CONTEXT)
        CLV__S(CL_PLATFORM_NOT_FOUND_KHR)
#undef CLV__S
    }
    return "unknown OpenCL status";
}

void clv__log(const clv_context *ctx, int level, const char *fmt, ...)
{
    static const char *const names[] = {"error", "warning", "info", "debug"};
    if (level > (ctx ? ctx->log_level : CLV__LOG_WARN))
        return;
    char small[1024], *line = small;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n >= (int)sizeof small && (line = malloc((size_t)n + 1)) != NULL) {
        va_start(ap, fmt); /* a build log can be long: all of it */
        vsnprintf(line, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    if (!line)
        line = small;
    if (ctx && ctx->log)
        ctx->log(ctx->log_user, level, line);
    else
        fprintf(stderr, "clvid: %s: %s\n", names[level], line);
    if (line != small)
        free(line);
}

int clv__options_copy(const void *given, void *out, size_t known, const char *what, clv_msg *msg)
{
    size_t size = *(const size_t *)given;
    if (size == 0)
        return clv__fail(msg, CLV_EINVAL,
                         "%s: struct_size is 0; fill the struct with %.*s_init() first", what,
                         (int)strlen(what), what);
    if (size < sizeof(size_t) || size > known)
        return clv__fail(msg, CLV_EINVAL,
                         "%s: struct_size %zu; this clvid (%s) knows %zu bytes (built against "
                         "another clvid's header?)",
                         what, size, clv_version(), known);
    memcpy(out, given, size);
    return 0;
}
