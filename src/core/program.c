/* program.c - kernel programs: source assembly (embedded or from
 * CLVID_KERNEL_DIR; a file's include lines bring in other files), build with
 * the log on failure, and the on-disk binary cache keyed by device, driver
 * and a hash of source + options. */
#include "clvid_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static uint64_t fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001B3ull;
    }
    return h;
}
#define FNV_BASIS 0xCBF29CE484222325ull

static const clv__source *embedded(const char *name)
{
    for (int i = 0; i < clv__source_count; i++)
        if (!strcmp(clv__sources[i].name, name))
            return &clv__sources[i];
    return NULL;
}

/* Where each file starts in the assembled source, to name file and line in
 * build logs of drivers that ignore #line (NVIDIA prints "<kernel>:88:30"). */
typedef struct source_part {
    const char *name;
    int first_line; /* the assembled line that holds the file's line 1 */
    char own[64];   /* name's storage, for files named by an include line */
} source_part;

/* The files of one program: common.cl, yuv.cl, the family's own file and
 * the files they include. */
#define SOURCE_PARTS 16
/* How deep includes may nest (a cycle ends here). */
#define INCLUDE_DEPTH 8

static int count_lines(const char *s, size_t n)
{
    int lines = 0;
    for (size_t i = 0; i < n; i++)
        lines += s[i] == '\n';
    return lines;
}

/* The file named by the line [line, end) when it is `#include "NAME"`
 * (blanks allowed around the words): NAME's length and *name, else 0. */
static size_t include_name(const char *line, const char *end, const char **name)
{
    while (line < end && (*line == ' ' || *line == '\t'))
        line++;
    if (end - line < 8 || strncmp(line, "#include", 8))
        return 0;
    for (line += 8; line < end && (*line == ' ' || *line == '\t');)
        line++;
    const char *close =
        line < end && *line == '"' ? memchr(line + 1, '"', (size_t)(end - line - 1)) : NULL;
    if (!close || close == line + 1)
        return 0;
    *name = line + 1;
    return (size_t)(close - line - 1);
}

/* Appends cl/<name> to buf (malloc'd, grown), from ctx's kernel_dir when
 * set, as the next of parts (*count of them so far). A file is appended
 * once a program. `#include "OTHER.cl"` lines are how one program is made
 * of several files (a filter's algorithms, generated code): the files they
 * name are appended first, in order, so includes belong at a file's top;
 * the line itself stays, as a comment, so line numbers hold. */
static int append_source(const clv_context *ctx, char **buf, size_t *len, const char *name,
                         source_part *parts, int *count, int depth, clv_msg *msg)
{
    for (int i = 0; i < *count; i++)
        if (!strcmp(parts[i].name, name))
            return 0;
    const char *dir = ctx->kernel_dir;
    char *text = NULL;
    const char *src;
    size_t n = 0;
    if (*dir) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, name);
        FILE *f = fopen(path, "rb");
        if (!f)
            return clv__fail(msg, CLV_EIO, "kernel directory: cannot open %s: %s", path,
                             strerror(errno));
        fseek(f, 0, SEEK_END);
        long size = ftell(f);
        fseek(f, 0, SEEK_SET);
        text = malloc(size > 0 ? (size_t)size : 1);
        n = text && size > 0 ? fread(text, 1, (size_t)size, f) : 0;
        fclose(f);
        if (!text)
            return clv__fail(msg, CLV_ENOMEM, "out of memory reading %s", path);
        src = text;
    } else {
        const clv__source *s = embedded(name);
        if (!s)
            return clv__fail(msg, CLV_ENOTFOUND, "no kernel source %s in this build", name);
        n = s->length;
        src = s->text;
    }
    int err = 0, includes = 0;
    for (const char *line = src, *stop = src + n; !err && line < stop;) {
        const char *eol = memchr(line, '\n', (size_t)(stop - line)), *other;
        eol = eol ? eol : stop;
        size_t other_len = include_name(line, eol, &other);
        if (other_len) {
            char other_name[sizeof parts[0].own];
            includes++;
            if (other_len >= sizeof other_name) {
                err = clv__fail(msg, CLV_ELIMIT, "%s: include of %.*s: the name is too long", name,
                                (int)other_len, other);
            } else if (depth == INCLUDE_DEPTH) {
                err = clv__fail(msg, CLV_ELIMIT,
                                "%s: includes nest more than %d deep (does a file include itself?)",
                                name, INCLUDE_DEPTH);
            } else {
                memcpy(other_name, other, other_len);
                other_name[other_len] = 0;
                err = append_source(ctx, buf, len, other_name, parts, count, depth + 1, msg);
            }
        }
        line = eol + 1;
    }
    if (!err && *count == SOURCE_PARTS)
        err = clv__fail(msg, CLV_ELIMIT, "%s: more than %d kernel files in one program", name,
                        SOURCE_PARTS);
    char header[300];
    int hn = snprintf(header, sizeof header, "\n#line 1 \"%s\"\n", name);
    char *grown = err ? NULL : realloc(*buf, *len + (size_t)hn + n + 2 * (size_t)includes + 1);
    if (!grown) {
        free(text);
        return err ? err : clv__fail(msg, CLV_ENOMEM, "out of memory assembling %s", name);
    }
    *buf = grown;
    source_part *part = &parts[(*count)++];
    snprintf(part->own, sizeof part->own, "%s", name);
    part->name = part->own;
    part->first_line = count_lines(*buf, *len) + 3; /* header: "\n#line ...\n" */
    memcpy(*buf + *len, header, (size_t)hn);
    *len += (size_t)hn;
    for (const char *line = src, *stop = src + n; line < stop;) {
        const char *eol = memchr(line, '\n', (size_t)(stop - line)), *other;
        size_t take = eol ? (size_t)(eol - line) + 1 : (size_t)(stop - line);
        if (include_name(line, line + take, &other)) {
            memcpy(*buf + *len, "//", 2);
            *len += 2;
        }
        memcpy(*buf + *len, line, take);
        *len += take;
        line += take;
    }
    (*buf)[*len] = 0;
    free(text);
    return 0;
}

/* The context's cache directory, made if missing; -1 for no cache. */
static int cache_dir(const clv_context *ctx, char *out, size_t size)
{
    if (!ctx->cache_dir[0])
        return -1;
    snprintf(out, size, "%s", ctx->cache_dir);
    /* Make each missing component; failures surface when writing. */
    for (char *p = out + 1; *p; p++) {
        if (*p == '/') {
            *p = 0;
            mkdir(out, 0755);
            *p = '/';
        }
    }
    mkdir(out, 0755);
    return 0;
}

static const char magic[8] = {'C', 'L', 'V', 'B', 'I', 'N', '0', '1'};

/* Reads a cached binary whose stored key equals key; NULL when absent or
 * damaged in any way (the caller then builds from source). */
static unsigned char *cache_read(const char *path, const char *key, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    unsigned char *bin = NULL;
    char m[8];
    uint32_t keylen = 0;
    uint64_t binlen = 0, sum = 0;
    char *stored = NULL;
    if (fread(m, 1, 8, f) != 8 || memcmp(m, magic, 8) || fread(&keylen, 4, 1, f) != 1 ||
        keylen != strlen(key) || keylen > 65536)
        goto bad;
    stored = malloc(keylen + 1);
    if (!stored || fread(stored, 1, keylen, f) != keylen || memcmp(stored, key, keylen))
        goto bad;
    if (fread(&binlen, 8, 1, f) != 1 || binlen == 0 || binlen > ((uint64_t)1 << 30))
        goto bad;
    bin = malloc((size_t)binlen);
    if (!bin || fread(bin, 1, (size_t)binlen, f) != binlen || fread(&sum, 8, 1, f) != 1 ||
        sum != fnv1a(FNV_BASIS, bin, (size_t)binlen))
        goto bad;
    free(stored);
    fclose(f);
    *size = (size_t)binlen;
    return bin;
bad:
    free(stored);
    free(bin);
    fclose(f);
    return NULL;
}

/* Writes atomically (temporary file + rename) so that a reader never sees a
 * half-written entry. Failure only costs a rebuild next time. */
/* A cache that cannot be written is said once per context, as a warning
 * naming the directory: every run would compile again without it. */
static void cache_unwritable(clv_context *ctx, const char *what, int error)
{
    if (ctx->cache_warned++)
        return;
    clv__log(ctx, CLV__LOG_WARN,
             "kernel cache: cannot write %s (%s); kernels are compiled again on every run until "
             "%s is writable (or set another cache directory)",
             what, strerror(error), ctx->cache_dir);
}

static void cache_write(clv_context *ctx, const char *path, const char *key,
                        const unsigned char *bin, size_t size)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        cache_unwritable(ctx, tmp, errno);
        return;
    }
    uint32_t keylen = (uint32_t)strlen(key);
    uint64_t binlen = size, sum = fnv1a(FNV_BASIS, bin, size);
    int ok = fwrite(magic, 1, 8, f) == 8 && fwrite(&keylen, 4, 1, f) == 1 &&
             fwrite(key, 1, keylen, f) == keylen && fwrite(&binlen, 8, 1, f) == 1 &&
             fwrite(bin, 1, size, f) == size && fwrite(&sum, 8, 1, f) == 1;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        cache_unwritable(ctx, path, errno ? errno : EIO);
        remove(tmp);
    }
}

/* Writes log to out, turning "<kernel>:N" (any <name>:N) into "file.cl:M". */
static void map_log_lines(const char *log, const source_part *parts, int count, FILE *out)
{
    const char *s = log;
    while (*s) {
        const char *lt = strchr(s, '<');
        const char *gt = lt ? strchr(lt, '>') : NULL;
        if (!lt || !gt || gt[1] != ':' || gt[2] < '0' || gt[2] > '9' ||
            memchr(lt, '\n', (size_t)(gt - lt))) {
            size_t skip = lt ? (size_t)(lt - s) + 1 : strlen(s);
            fwrite(s, 1, skip, out);
            s += skip;
            continue;
        }
        char *end;
        long line = strtol(gt + 2, &end, 10);
        int at = -1;
        for (int i = 0; i < count; i++)
            if (line >= parts[i].first_line)
                at = i;
        fwrite(s, 1, (size_t)(lt - s), out);
        if (at >= 0)
            fprintf(out, "%s:%ld", parts[at].name, line - parts[at].first_line + 1);
        else
            fwrite(lt, 1, (size_t)(end - lt), out);
        s = end;
    }
}

/* The build log of prog with its lines mapped back to the files (malloc'd;
 * NULL when out of memory). */
static char *mapped_build_log(const clv_context *ctx, cl_program prog, const source_part *parts,
                              int count)
{
    size_t size = 0;
    clGetProgramBuildInfo(prog, ctx->dev.device_id, CL_PROGRAM_BUILD_LOG, 0, NULL, &size);
    char *log = malloc(size + 1);
    if (!log)
        return NULL;
    log[0] = 0;
    clGetProgramBuildInfo(prog, ctx->dev.device_id, CL_PROGRAM_BUILD_LOG, size, log, NULL);
    log[size] = 0;
    char *mapped = NULL;
    size_t mapped_size = 0;
    FILE *out = open_memstream(&mapped, &mapped_size);
    if (!out)
        return log;
    map_log_lines(log, parts, count, out);
    fclose(out);
    free(log);
    return mapped;
}

static void print_build_log(clv_context *ctx, cl_program prog, const char *family,
                            const source_part *parts, int count)
{
    char *log = mapped_build_log(ctx, prog, parts, count);
    clv__log(ctx, CLV__LOG_ERROR, "build log of cl/%s.cl on %s:\n%s", family, ctx->dev.name,
             log ? log : "(no log)");
    free(log);
}

int clv__program_build_text(const clv_context *ctx, const char *text, size_t len,
                            const char *options, const char *file, int first_line, cl_program *out,
                            char **log, clv_msg *msg)
{
    *out = NULL;
    *log = NULL;
    cl_int st = CL_SUCCESS;
    cl_program prog = clCreateProgramWithSource(ctx->cl, 1, &text, &len, &st);
    if (!prog || st != CL_SUCCESS)
        return clv__fail(msg, CLV_ECL, "%s: clCreateProgramWithSource: %s", file,
                         clv__cl_strerror(st));
    st = clBuildProgram(prog, 1, &ctx->dev.device_id, options, NULL, NULL);
    if (st != CL_SUCCESS) {
        source_part part = {.name = file, .first_line = first_line};
        *log = mapped_build_log(ctx, prog, &part, 1);
        clReleaseProgram(prog);
        return st == CL_BUILD_PROGRAM_FAILURE || st == CL_INVALID_BUILD_OPTIONS
                   ? CLV_EBUILD
                   : clv__fail(msg, CLV_ECL, "%s: clBuildProgram: %s", file, clv__cl_strerror(st));
    }
    *out = prog;
    return 0;
}

int clv__source_text(const clv_context *ctx, const char *name, char **text, size_t *len,
                     clv_msg *msg)
{
    source_part parts[SOURCE_PARTS];
    int count = 0;
    *text = NULL;
    *len = 0;
    return append_source(ctx, text, len, name, parts, &count, 0, msg);
}

/* Asks the driver for prog's binary and writes it as the entry at path. */
static void cache_save(clv_context *ctx, cl_program prog, const char *path, const char *key)
{
    size_t size = 0;
    if (clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) != CL_SUCCESS ||
        size == 0)
        return;
    unsigned char *bin = malloc(size);
    unsigned char *bins[1] = {bin};
    if (bin && clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL) == CL_SUCCESS)
        cache_write(ctx, path, key, bin, size);
    free(bin);
}

void clv__program_cache_late(clv_context *ctx, int write)
{
    for (int i = 0; i < ctx->program_count; i++) {
        if (write && ctx->programs[i].late_path)
            cache_save(ctx, ctx->programs[i].program, ctx->programs[i].late_path,
                       ctx->programs[i].late_key);
        free(ctx->programs[i].late_path);
        free(ctx->programs[i].late_key);
        ctx->programs[i].late_path = ctx->programs[i].late_key = NULL;
    }
}

/* Programs built with the conversions' arithmetic (cl/yuv.cl) between
 * cl/common.cl and their own file: the stage's conversions, and on CPUs
 * every filter's, whose kernels may run inside them (clv_filter's run_yuv;
 * cl/yuv.cl's CLV_FUSED_BODY). */
static int uses_yuv(const clv_context *ctx, const char *family)
{
    return ctx->row_shape || !strcmp(family, "color");
}

/* CLV_X86_VNNI=1 for a CPU device on an x86 host with AVX-512 VNNI: PoCL
 * runs its CPU device on the host, but may name an older CPU to LLVM (a
 * virtual machine's "Intel Xeon Processor" becomes skylake-avx512), so
 * kernels that want the instructions ask for them by function attribute
 * behind this define (cl/blur.cl, cl/bilateral.cl). */
static const char *host_isa(const clv_context *ctx)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (ctx->dev.is_cpu && ctx->row_shape && __builtin_cpu_supports("avx512vnni"))
        return " -DCLV_X86_VNNI=1";
#else
    (void)ctx;
#endif
    return "";
}

/* Builds a program (from the cache when it holds one). With the cache on
 * and ctx->cache_late, a program built from source gets its entry's path
 * and key in *late_path and *late_key (malloc'd) for the context's end:
 * PoCL compiles every kernel of a program to hand out its binary, which a
 * cold start's first frame should not wait for. */
static int build(clv_context *ctx, const char *family, const char *defines, cl_program *out,
                 char **late_path, char **late_key, clv_msg *msg)
{
    char name[128];
    snprintf(name, sizeof name, "%s.cl", family);
    char *src = NULL;
    size_t len = 0;
    source_part parts[SOURCE_PARTS];
    int count = 0;
    int err = append_source(ctx, &src, &len, "common.cl", parts, &count, 0, msg);
    if (!err && uses_yuv(ctx, family))
        err = append_source(ctx, &src, &len, "yuv.cl", parts, &count, 0, msg);
    if (!err)
        err = append_source(ctx, &src, &len, name, parts, &count, 0, msg);
    if (err) {
        free(src);
        return err;
    }
    char options[352]; /* the fixed part, host_isa and the family's defines */
    snprintf(options, sizeof options, "-cl-std=CL1.2 -DCLV_ROW=%d -DCLV_PX=%d -DCLV_NV_SM=%d%s%s%s",
             ctx->row_shape, CLV__GPU_PX, ctx->nv_sm, host_isa(ctx), *defines ? " " : "", defines);

    /* The key names everything that makes a binary differ. */
    uint64_t h = fnv1a(FNV_BASIS, src, len);
    h = fnv1a(h, options, strlen(options));
    char key[1024];
    snprintf(key, sizeof key, "%s|%s|%s|%s|%s|%016llx", ctx->dev.platform, ctx->dev.name,
             ctx->dev.driver, ctx->dev.version, family, (unsigned long long)h);
    char dir[3800], path[4096];
    int cached = cache_dir(ctx, dir, sizeof dir) == 0;
    if (cached)
        snprintf(path, sizeof path, "%s/%s-%016llx.bin", dir, family,
                 (unsigned long long)fnv1a(FNV_BASIS, key, strlen(key)));

    cl_int st;
    cl_program prog = NULL;
    if (cached) {
        size_t size = 0;
        unsigned char *bin = cache_read(path, key, &size);
        if (bin) {
            const unsigned char *bins[1] = {bin};
            cl_int bst = CL_SUCCESS;
            prog =
                clCreateProgramWithBinary(ctx->cl, 1, &ctx->dev.device_id, &size, bins, &bst, &st);
            free(bin);
            if (prog && (st != CL_SUCCESS || bst != CL_SUCCESS ||
                         clBuildProgram(prog, 1, &ctx->dev.device_id, options, NULL, NULL))) {
                clReleaseProgram(prog);
                prog = NULL;
            }
            if (prog)
                clv__log(ctx, CLV__LOG_DEBUG, "cl/%s.cl: loaded from %s", family, path);
            else
                clv__log(ctx, CLV__LOG_DEBUG, "cl/%s.cl: cache entry %s unusable; rebuilding",
                         family, path);
        }
    }
    if (!prog) {
        const char *srcs[1] = {src};
        prog = clCreateProgramWithSource(ctx->cl, 1, srcs, &len, &st);
        if (!prog || st != CL_SUCCESS) {
            free(src);
            return clv__fail(msg, CLV_ECL, "cl/%s.cl: clCreateProgramWithSource: %s", family,
                             clv__cl_strerror(st));
        }
        st = clBuildProgram(prog, 1, &ctx->dev.device_id, options, NULL, NULL);
        if (st != CL_SUCCESS) {
            print_build_log(ctx, prog, family, parts, count);
            clReleaseProgram(prog);
            free(src);
            return clv__fail(msg, CLV_EBUILD,
                             "cl/%s.cl does not build on %s (%s); the build log is above", family,
                             ctx->dev.name, clv__cl_strerror(st));
        }
        if (cached && ctx->cache_late) {
            *late_path = strdup(path);
            *late_key = strdup(key);
            if (!*late_path || !*late_key) { /* out of memory: no entry, no harm */
                free(*late_path);
                free(*late_key);
                *late_path = *late_key = NULL;
            }
        } else if (cached) {
            cache_save(ctx, prog, path, key);
        }
    }
    free(src);
    *out = prog;
    return 0;
}

int clv__program_get(clv_context *ctx, const char *family, cl_program *out, clv_msg *msg)
{
    return clv__program_variant(ctx, family, "", out, msg);
}

/* The defines a program is built with: own, with CLV_DEPTH=16 first while a
 * 16-bit chain builds (the same files at that depth); in deep when they
 * differ from own. */
static const char *depth_defines(const clv_context *ctx, const char *own, char *deep, size_t size)
{
    if (ctx->build_depth != 16)
        return own;
    snprintf(deep, size, "-DCLV_DEPTH=16%s%s", *own ? " " : "", own);
    return deep;
}

static cl_program find(const clv_context *ctx, const char *family, const char *defines)
{
    for (int i = 0; i < ctx->program_count; i++)
        if (!strcmp(ctx->programs[i].family, family) && !strcmp(ctx->programs[i].defines, defines))
            return ctx->programs[i].program;
    return NULL;
}

int clv__program_variant(clv_context *ctx, const char *family, const char *own, cl_program *out,
                         clv_msg *msg)
{
    char deep[sizeof ctx->programs[0].defines + 16];
    const char *defines = depth_defines(ctx, own, deep, sizeof deep);
    if (strlen(defines) >= sizeof ctx->programs[0].defines)
        return clv__fail(msg, CLV_ELIMIT, "cl/%s.cl: build options too long: %s", family, defines);
    if ((*out = find(ctx, family, defines)))
        return 0;
    int cap = (int)(sizeof ctx->programs / sizeof ctx->programs[0]);
    if (ctx->program_count == cap)
        return clv__fail(msg, CLV_ELIMIT, "too many kernel programs (%d)", cap);
    cl_program prog = NULL;
    char *late_path = NULL, *late_key = NULL;
    int err = build(ctx, family, defines, &prog, &late_path, &late_key, msg);
    if (err)
        return err;
    ctx->programs[ctx->program_count].late_path = late_path;
    ctx->programs[ctx->program_count].late_key = late_key;
    ctx->programs[ctx->program_count].family = family;
    snprintf(ctx->programs[ctx->program_count].defines,
             sizeof ctx->programs[ctx->program_count].defines, "%s", defines);
    ctx->programs[ctx->program_count].program = prog;
    ctx->program_count++;
    *out = prog;
    return 0;
}

cl_program clv__program_find(const clv_context *ctx, const char *family, const char *own)
{
    char deep[sizeof ctx->programs[0].defines + 16];
    return find(ctx, family, depth_defines(ctx, own, deep, sizeof deep));
}

int clv__program_count(const clv_context *ctx, const char *family)
{
    int n = 0;
    for (int i = 0; i < ctx->program_count; i++)
        n += !strcmp(ctx->programs[i].family, family);
    return n;
}

int clv__kernel_create(cl_program prog, const char *name, cl_kernel *out, clv_msg *msg)
{
    cl_int st = CL_SUCCESS;
    *out = clCreateKernel(prog, name, &st);
    if (st != CL_SUCCESS || !*out) {
        *out = NULL;
        return clv__fail(msg, CLV_ECL, "kernel %s: clCreateKernel: %s", name, clv__cl_strerror(st));
    }
    return 0;
}
