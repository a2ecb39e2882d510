/* opencl.c - the `opencl` filter: a kernel of the user's from a .cl file,
 * with parameters declared in the file ("// @param float s = 1 [0, 4] step
 * 0.1", read by opencl_file.c), built after cl/user.cl's helpers and run
 * once per pixel. Also the live reload: a file built again off the chain's
 * thread and swapped in. */
#include "filters.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARGS 32

static int run(void *state, const clv_launch *l);
static void uninit(void *state);
static const char *file_of(const clv_filter *f, const char **kernel);
static void format(const clv_filter *f, char *out, size_t size);
static int open_file(void *state, clv_context *ctx, const clv_filter *f, const clv_filter **now,
                     clv_msg *msg);
static int swap(void *const *states, int count, clv_kernel_build *build, const clv_filter **now,
                clv_msg *msg);
static int temporal_state(const void *state);

typedef struct user_state {
    clv_kernel_build *build; /* of the chain's depth */
    clv_frame prev;          /* the previous input, for kernels that ask for prev */
    int prev_valid;
    int depth; /* the chain's, 8 or 16: which build a swap takes */
} user_state;

/* What every member shares; the file gives the rest (clv__user_kernel_load). */
static const clv_filter member = {
    .state_size = sizeof(user_state),
    .run = run,
    .uninit = uninit,
    .file = file_of,
    .format = format,
    .open = open_file,
    .swap = swap,
    .temporal_state = temporal_state,
    .timed = 1, /* a kernel reads the frame's number and time */
    .watchdog = 1,
};

/* Reads path and returns its descriptor and, when text is not NULL, the
 * source (malloc'd). */
static int load(const char *path, const char *kernel, const clv__user_kernel **out, char **text,
                clv_msg *msg)
{
    return clv__user_kernel_load(path, kernel, &member, out, text, msg);
}

int clv_kernel_file_load(const char *path, const char *kernel, const clv_filter **out, clv_msg *msg)
{
    const clv__user_kernel *u = NULL;
    int err = load(path, kernel, &u, NULL, msg);
    *out = u ? &u->filter : NULL;
    return err;
}

/* A member's descriptor is the first field of its clv__user_kernel. */
static const clv__user_kernel *user_of(const clv_filter *f)
{
    return (const clv__user_kernel *)f;
}

static const char *file_of(const clv_filter *f, const char **kernel)
{
    const clv__user_kernel *u = user_of(f);
    if (kernel)
        *kernel = u->kernel_given ? u->kernel : NULL;
    return u->path;
}

/* Writes s into out with the chain syntax's special characters escaped. */
static size_t escape(const char *s, char *out, size_t size)
{
    size_t n = 0;
    for (; *s && n + 2 < size; s++) {
        if (strchr(":,='\\[]; \t", *s))
            out[n++] = '\\';
        out[n++] = *s;
    }
    out[n] = 0;
    return n;
}

static void format(const clv_filter *f, char *out, size_t size)
{
    const clv__user_kernel *u = user_of(f);
    char path[8200];
    escape(u->path, path, sizeof path);
    if (u->kernel_given)
        snprintf(out, size, "opencl=file=%s:kernel=%s", path, u->kernel);
    else
        snprintf(out, size, "opencl=file=%s", path);
}

/* The registry's `opencl` entry (clv_filter's resolve): the file
 * (file=PATH, or the first value when it has no name) and kernel
 * (kernel=NAME), read before its other parameters, which the file
 * declares. s is at the '=' after the name, or at its end. */
static int resolve(const char *s, const clv_filter **f, int *in_order, clv_msg *msg)
{
    char path[4096] = "", kernel[256] = "", arg[8192];
    int first = 1;
    size_t length;
    if (*s == '=') {
        s++;
        while (*s && *s != ',') {
            const char *start = s;
            size_t klen = strcspn(start, "=:,'\\");
            char key[64] = "";
            if (start[klen] == '=') {
                const char *k = clv__token(start, "=", key, sizeof key, &length);
                if (!k || length >= sizeof key)
                    break; /* the main loop says what is wrong */
                s = k + 1;
            }
            const char *e = clv__token(s, ":,", arg, sizeof arg, &length);
            if (!e || length >= sizeof arg)
                break;
            int is_file = !strcmp(key, "file") || (!key[0] && first);
            char *to = is_file ? path : !strcmp(key, "kernel") ? kernel : NULL;
            size_t room = is_file ? sizeof path : sizeof kernel;
            if (to && length >= room)
                return clv__fail(msg, CLV_EPARSE,
                                 "filter 'opencl' parameter '%s': a %s of %zu characters is "
                                 "too long (at most %zu)",
                                 is_file ? "file" : "kernel", is_file ? "file name" : "kernel name",
                                 length, room - 1);
            if (to)
                memcpy(to, arg, length + 1);
            if (is_file)
                *in_order = !key[0];
            first = 0;
            s = *e == ':' ? e + 1 : e;
        }
    }
    return clv_kernel_file_load(path, kernel[0] ? kernel : NULL, f, msg);
}

const clv_filter clv__filter_opencl = {
    .name = "opencl",
    .help = "a kernel of yours from a .cl file, with the parameters the file declares",
    .usage = "opencl=file=KERNEL.cl",
    .resolve = resolve,
    .resolve_keys = "file|kernel",
};

/* ---- Building and binding -------------------------------------------------- */

enum arg_kind { ARG_PARAM, ARG_FRAME, ARG_TIME, ARG_PREV };

/* A kernel built from a file and how its arguments are fed. */
struct clv_kernel_build {
    const clv__user_kernel *user;
    int depth; /* 8 or 16: built with CLV_DEPTH=depth, for chains of that depth */
    cl_program program;
    cl_kernel kernel;
    int nargs;
    unsigned char kind[MAX_ARGS];
    unsigned char param[MAX_ARGS];
    int uses_prev;
    clv_kernel_build *next; /* the build for the context's next device */
    /* clv_kernel_build_file's 8-bit builds only: the same file built at 16
     * bits for the same device when the file is depth-generic (NULL
     * otherwise), or why that build failed (deep_err, deep_msg). */
    clv_kernel_build *deep;
    int deep_err;
    clv_msg deep_msg;
};

void clv_kernel_build_free(clv_kernel_build *b)
{
    if (!b)
        return;
    clv_kernel_build_free(b->next);
    clv_kernel_build_free(b->deep);
    if (b->kernel)
        clReleaseKernel(b->kernel);
    if (b->program)
        clReleaseProgram(b->program);
    free(b);
}

typedef struct arg_info {
    char name[64], type[64];
    cl_kernel_arg_address_qualifier address;
} arg_info;

static int get_arg_info(cl_kernel k, cl_uint i, arg_info *a)
{
    if (clGetKernelArgInfo(k, i, CL_KERNEL_ARG_NAME, sizeof a->name, a->name, NULL) ||
        clGetKernelArgInfo(k, i, CL_KERNEL_ARG_TYPE_NAME, sizeof a->type, a->type, NULL) ||
        clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof a->address, &a->address,
                           NULL))
        return -1;
    /* "uchar4*" or "uchar4 *" */
    char *sp;
    while ((sp = strchr(a->type, ' ')))
        memmove(sp, sp + 1, strlen(sp));
    return 0;
}

/* The first arguments a kernel of depth's frames starts with. */
static const char *contract(int depth)
{
    return depth == 16 ? "kernel void NAME(global const ushort4 *src, global ushort4 *dst, int "
                         "width, int height, int stride, ...) (or NAME(CLV_ARGS, ...))"
                       : "kernel void NAME(global const uchar4 *src, global uchar4 *dst, int "
                         "width, int height, int stride, ...) (or NAME(CLV_ARGS, ...))";
}

/* 1 when a (an argument's info) is a global pointer to the pixels of
 * depth's frames: the channel type (uchar4, ushort4) or cl/user.cl's
 * typedef, which some drivers name as written. */
static int pixel_pointer(const arg_info *a, int depth)
{
    const char *type = depth == 16 ? "ushort4*" : "uchar4*";
    return a->address == CL_KERNEL_ARG_ADDRESS_GLOBAL &&
           (!strcmp(a->type, type) || !strcmp(a->type, "clv_pixel*"));
}

/* Decides what feeds each argument of b->kernel. */
static int bind(clv_kernel_build *b, clv_msg *msg)
{
    const clv__user_kernel *u = b->user;
    const char *file = u->path, *kn = u->kernel;
    cl_uint nargs = 0;
    if (clGetKernelInfo(b->kernel, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, NULL))
        return clv__fail(msg, CLV_ECL, "%s: cannot read kernel '%s''s arguments", file, kn);
    if (nargs < 5)
        return clv__fail(msg, CLV_EKERNEL, "%s: kernel '%s' has %u arguments; it must start %s",
                         file, kn, nargs, contract(b->depth));
    if (nargs > MAX_ARGS)
        return clv__fail(msg, CLV_EKERNEL, "%s: kernel '%s' has %u arguments; at most %d", file, kn,
                         nargs, MAX_ARGS);
    b->nargs = (int)nargs;
    arg_info a;
    if (get_arg_info(b->kernel, 0, &a)) {
        /* No argument names from this driver: the declared parameters in
         * order. */
        if ((int)nargs != 5 + u->filter.param_count)
            return clv__fail(msg, CLV_EKERNEL,
                             "%s: kernel '%s' has %u arguments but the file declares %d "
                             "parameters (this driver gives no argument names, so they must "
                             "follow the first five in order)",
                             file, kn, nargs, u->filter.param_count);
        for (int i = 5; i < (int)nargs; i++) {
            b->kind[i] = ARG_PARAM;
            b->param[i] = (unsigned char)(i - 5);
        }
        return 0;
    }
    static const char *const first[] = {"src", "dst", "width", "height", "stride"};
    for (cl_uint i = 0; i < nargs; i++) {
        if (get_arg_info(b->kernel, i, &a))
            return clv__fail(msg, CLV_ECL, "%s: cannot read kernel '%s''s argument %u", file, kn,
                             i + 1);
        int pixels = pixel_pointer(&a, b->depth);
        if (i < 5) {
            int ok = i < 2 ? pixels : !strcmp(a.type, "int");
            const char *want = i >= 2           ? "an int"
                               : b->depth == 16 ? "a global ushort4 pointer"
                                                : "a global uchar4 pointer";
            if (!ok)
                return clv__fail(msg, CLV_EKERNEL,
                                 "%s: kernel '%s' argument %u ('%s %s') must be %s %s: a kernel "
                                 "%sstarts %s",
                                 file, kn, i + 1, a.type, a.name, want, first[i],
                                 b->depth == 16 ? "of a 16-bit chain " : "", contract(b->depth));
            continue;
        }
        /* PoCL renames identifiers that are built-in functions (a
         * parameter called `mix` reads "_cl_mix"). */
        if (!strncmp(a.name, "_cl_", 4))
            memmove(a.name, a.name + 4, strlen(a.name + 4) + 1);
        int p = -1;
        for (int j = 0; j < u->filter.param_count; j++)
            if (!strcmp(u->params[j].name, a.name))
                p = j;
        if (p >= 0) {
            const char *want = u->params[p].type == CLV_PARAM_INT ? "int" : "float";
            if (strcmp(a.type, want))
                return clv__fail(msg, CLV_EKERNEL,
                                 "%s: kernel '%s' argument '%s' is %s but its @param says %s", file,
                                 kn, a.name, a.type, want);
            b->kind[i] = ARG_PARAM;
            b->param[i] = (unsigned char)p;
        } else if (!strcmp(a.name, "frame") &&
                   (!strcmp(a.type, "int") || !strcmp(a.type, "uint"))) {
            b->kind[i] = ARG_FRAME;
        } else if (!strcmp(a.name, "time") && !strcmp(a.type, "float")) {
            b->kind[i] = ARG_TIME;
        } else if (!strcmp(a.name, "prev") && pixels) {
            b->kind[i] = ARG_PREV;
            b->uses_prev = 1;
        } else {
            return clv__fail(msg, CLV_EKERNEL,
                             "%s: kernel '%s' argument '%s %s' is not a declared parameter "
                             "(declare it: // @param %s %s = 0 [0, 1]) nor one of clvid's: int "
                             "frame, float time, global const %s *prev",
                             file, kn, a.type, a.name, strstr(a.type, "float") ? "float" : "int",
                             a.name, b->depth == 16 ? "ushort4" : "uchar4");
        }
    }
    return 0;
}

/* Escapes a file name for a #line directive. */
static void line_name(const char *path, char *out, size_t size)
{
    size_t n = 0;
    for (; *path && n + 3 < size; path++) {
        if (*path == '"' || *path == '\\')
            out[n++] = '\\';
        if (*path != '\n')
            out[n++] = *path;
    }
    out[n] = 0;
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* The file's refusal of a 16-bit chain (CLV_EDEPTH). */
static int not_deep(const clv__user_kernel *u, clv_msg *msg)
{
    return clv__fail(msg, CLV_EDEPTH,
                     "filter 'opencl' (%s) runs at 8 bits only: the chain cannot run on frames "
                     "of 16 bits a channel (the file names uchar; write it with clv_pixel, "
                     "CLV_MAX and cl/user.cl's helpers to run at both depths)",
                     u->path);
}

/* Builds the file for frames of depth bits a channel (8 or 16: with
 * CLV_DEPTH=16) on ctx. Uses neither ctx->build_depth nor anything else of
 * ctx but its device and OpenCL context, so it may run on any thread. */
static int build_one(clv_context *ctx, const char *path, const char *kernel, int depth,
                     clv_kernel_build **out, clv_msg *msg)
{
    *out = NULL;
    const clv__user_kernel *u = NULL;
    char *src = NULL, *header = NULL, *text = NULL, *log = NULL;
    size_t header_len = 0;
    int err = load(path, kernel, &u, &src, msg);
    if (err)
        return err;
    clv_kernel_build *b = NULL;
    if (depth == 16 && !u->filter.deep) {
        err = not_deep(u, msg);
        goto done;
    }
    b = calloc(1, sizeof *b);
    if (!b) {
        err = clv__fail(msg, CLV_ENOMEM, "out of memory");
        goto done;
    }
    b->user = u;
    b->depth = depth;
    if ((err = clv__source_text(ctx, "user.cl", &header, &header_len, msg)))
        goto done;
    char name[8300];
    line_name(path, name, sizeof name);
    size_t size = header_len + strlen(name) + strlen(src) + 32;
    text = malloc(size);
    if (!text) {
        err = clv__fail(msg, CLV_ENOMEM, "out of memory");
        goto done;
    }
    int n = snprintf(text, size, "%s\n#line 1 \"%s\"\n", header, name);
    int first_line = count_lines(text) + 1;
    snprintf(text + n, size - (size_t)n, "%s", src);
    err = clv__program_build_text(ctx, text, strlen(text),
                                  depth == 16 ? "-cl-std=CL1.2 -cl-kernel-arg-info -DCLV_DEPTH=16"
                                              : "-cl-std=CL1.2 -cl-kernel-arg-info",
                                  path, first_line, &b->program, &log, msg);
    if (err == CLV_EBUILD) {
        err = clv__fail(msg, CLV_EKERNEL, "%s: kernel '%s' does not build%s on %s:\n%s", path,
                        u->kernel, depth == 16 ? " at 16 bits (CLV_DEPTH=16)" : "", ctx->dev.name,
                        log && *log ? log : "(the driver gave no log)");
        goto done;
    }
    if (err)
        goto done;
    cl_int st = CL_SUCCESS;
    b->kernel = clCreateKernel(b->program, u->kernel, &st);
    if (!b->kernel || st != CL_SUCCESS) {
        b->kernel = NULL;
        err = clv__fail(msg, CLV_EKERNEL, "%s: kernel '%s': clCreateKernel: %s (is it a kernel?)",
                        path, u->kernel, clv__cl_strerror(st));
        goto done;
    }
    err = bind(b, msg);
done:
    free(src);
    free(header);
    free(text);
    free(log);
    if (err) {
        clv_kernel_build_free(b);
        return err;
    }
    *out = b;
    return 0;
}

/* The file built at 8 bits on ctx and, when it is depth-generic, at 16
 * bits too (b->deep): the reload does not know the depth of the chains it
 * goes to, so a swap finds the build of each one's. A failure of the
 * 16-bit build alone is kept in b for a 16-bit chain to report. */
static int build_both(clv_context *ctx, const char *path, const char *kernel,
                      clv_kernel_build **out, clv_msg *msg)
{
    int err = build_one(ctx, path, kernel, 8, out, msg);
    if (err || !(*out)->user->filter.deep)
        return err;
    clv_kernel_build *b = *out;
    b->deep_err = build_one(ctx, path, kernel, 16, &b->deep, &b->deep_msg);
    return 0;
}

int clv_kernel_build_file(clv_context *ctx, const char *path, const char *kernel,
                          clv_kernel_build **out, clv_msg *msg)
{
    int err = build_both(ctx, path, kernel, out, msg);
    clv_kernel_build **link = err ? NULL : &(*out)->next;
    for (int k = 0; !err && k < ctx->more_count; k++) {
        if ((err = build_both(ctx->more[k], path, kernel, link, msg))) {
            clv_kernel_build_free(*out);
            *out = NULL;
        } else {
            link = &(*link)->next;
        }
    }
    return err;
}

static int temporal_state(const void *state)
{
    const user_state *s = state;
    return s->build && s->build->uses_prev;
}

/* ---- The filter on a chain ---------------------------------------------------- */

/* Builds the file at the chain's depth (ctx->build_depth while the chain
 * builds). */
static int open_file(void *state, clv_context *ctx, const clv_filter *f, const clv_filter **now,
                     clv_msg *msg)
{
    user_state *s = state;
    const clv__user_kernel *u = user_of(f);
    s->depth = ctx->build_depth == 16 ? 16 : 8;
    int err = build_one(ctx, u->path, u->kernel_given ? u->kernel : NULL, s->depth, &s->build, msg);
    *now = err ? f : &s->build->user->filter;
    return err;
}

/* Takes build (clv_kernel_build_file's: 8-bit builds, their 16-bit ones
 * beside them) into states, each the build of its chain's depth; or none
 * (a negative code, msg saying why, build not taken) when a 16-bit state
 * has no 16-bit build: the file is no longer depth-generic, or does not
 * build at 16 bits. */
static int swap(void *const *states, int count, clv_kernel_build *build, const clv_filter **now,
                clv_msg *msg)
{
    int n = 0;
    for (clv_kernel_build *b = build; b && n < count; b = b->next, n++) {
        const user_state *s = states[n];
        if (s->depth != 16 || b->deep)
            continue;
        if (b->deep_err) {
            *msg = b->deep_msg;
            return b->deep_err;
        }
        return not_deep(b->user, msg);
    }
    n = 0;
    while (build && n < count) {
        clv_kernel_build *next = build->next; /* the build for the next device */
        build->next = NULL;
        user_state *s = states[n];
        if (s->depth == 16) {
            clv_kernel_build *deep = build->deep;
            build->deep = NULL;
            clv_kernel_build_free(build);
            build = deep;
        } else {
            clv_kernel_build_free(build->deep);
            build->deep = NULL;
        }
        clv_kernel_build_free(s->build); /* runs already enqueued keep their kernel */
        s->build = build;
        if (!build->uses_prev) {
            clv_frame_destroy(&s->prev);
            s->prev_valid = 0;
        }
        now[n++] = &build->user->filter;
        build = next;
    }
    clv_kernel_build_free(build); /* for devices the chain does not run on */
    return n;
}

static void uninit(void *state)
{
    user_state *s = state;
    clv_kernel_build_free(s->build);
    s->build = NULL;
    clv_frame_destroy(&s->prev);
}

static int run(void *state, const clv_launch *l)
{
    user_state *s = state;
    clv_kernel_build *b = s->build;
    const clv__user_kernel *u = b->user;
    int err = 0;
    clv_context *ctx = l->ctx;
    size_t bytes = (size_t)l->stride * (size_t)l->height * (l->depth == 16 ? 8 : 4);
    if (b->uses_prev) {
        if (!s->prev.buffer || s->prev.width != l->width || s->prev.height != l->height) {
            clv_frame_destroy(&s->prev);
            if ((err = clv_frame_create_depth(ctx, l->width, l->height, l->depth == 16 ? 16 : 8,
                                              &s->prev, NULL)))
                return err;
            s->prev_valid = 0;
        }
        if (!s->prev_valid)
            CLV__CL_CHECK(
                ctx,
                clEnqueueCopyBuffer(l->queue, l->src, s->prev.buffer, 0, 0, bytes, 0, NULL, NULL),
                "opencl filter: clEnqueueCopyBuffer");
    }
    if ((err = clv__kernel_frame_args(b->kernel, l)))
        return err;
    for (int i = 5; i < b->nargs; i++) {
        cl_int st = CL_SUCCESS;
        switch (b->kind[i]) {
        case ARG_PARAM: {
            const clv_param *p = &u->params[b->param[i]];
            const clv_value *v = &l->values[b->param[i]];
            if (p->type == CLV_PARAM_REAL) {
                cl_float f = (cl_float)((double)v->i / 1000.0);
                st = clSetKernelArg(b->kernel, (cl_uint)i, sizeof f, &f);
            } else {
                cl_int n = (cl_int)v->i;
                st = clSetKernelArg(b->kernel, (cl_uint)i, sizeof n, &n);
            }
            break;
        }
        case ARG_FRAME: {
            cl_uint n =
                (cl_uint)l->frame_index; /* `int frame` or `uint frame`: 32 bits either way */
            st = clSetKernelArg(b->kernel, (cl_uint)i, sizeof n, &n);
            break;
        }
        case ARG_TIME: {
            cl_float t = (cl_float)l->time;
            st = clSetKernelArg(b->kernel, (cl_uint)i, sizeof t, &t);
            break;
        }
        case ARG_PREV:
            st = clSetKernelArg(b->kernel, (cl_uint)i, sizeof(cl_mem), &s->prev.buffer);
            break;
        }
        CLV__CL_CHECK(ctx, st, "opencl filter: clSetKernelArg");
    }
    /* Exactly width x height work-items, in whole groups: the largest
     * rectangle that groups tile, then the right and bottom strips, each
     * launched at its offset so that get_global_id is the pixel. */
    size_t gx = ctx->row_shape ? 64 : 16, gy = ctx->row_shape ? 2 : 8;
    size_t w = (size_t)l->width, h = (size_t)l->height;
    size_t w0 = w - w % gx, h0 = h - h % gy;
    struct {
        size_t off[2], global[2], local[2];
    } part[3] = {
        {{0, 0}, {w0, h0}, {gx, gy}},
        {{w0, 0}, {w - w0, h0}, {1, gy}},
        {{0, h0}, {w, h - h0}, {1, 1}},
    };
    for (int i = 0; i < 3; i++) {
        if (!part[i].global[0] || !part[i].global[1])
            continue;
        if ((err = clv__launch_at(l, b->kernel, 2, part[i].off, part[i].global, part[i].local)))
            return err;
    }
    if (b->uses_prev) {
        CLV__CL_CHECK(
            ctx, clEnqueueCopyBuffer(l->queue, l->src, s->prev.buffer, 0, 0, bytes, 0, NULL, NULL),
            "opencl filter: clEnqueueCopyBuffer");
        s->prev_valid = 1;
    }
    return 0;
fail:
    return err;
}
