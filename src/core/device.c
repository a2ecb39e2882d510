/* device.c - every platform's devices in one flat list, device selection,
 * and the context (device + queue + built programs). */
/* OpenCL 2.0 for the SVM queries (the rest is 1.2, as everywhere). */
#undef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 200
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include "clvid_internal.h"

#include <CL/cl_ext.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CLV__INSTALL_HINT                                                                          \
    "install an OpenCL driver: on Debian `apt-get install pocl-opencl-icd` (CPU), or your GPU "    \
    "vendor's OpenCL driver (NVIDIA: the driver's libnvidia-opencl; AMD: ROCm; Intel: "            \
    "intel-opencl-icd)"

static void device_string(cl_device_id d, cl_device_info what, char *out, size_t size)
{
    out[0] = 0;
    if (clGetDeviceInfo(d, what, size, out, NULL) != CL_SUCCESS)
        snprintf(out, size, "?");
    out[size - 1] = 0;
}

static void fill_info(clv_device_info *info, cl_platform_id p, cl_device_id d, int index)
{
    memset(info, 0, sizeof *info);
    info->index = index;
    info->platform_id = p;
    info->device_id = d;
    if (clGetPlatformInfo(p, CL_PLATFORM_NAME, sizeof info->platform, info->platform, NULL))
        snprintf(info->platform, sizeof info->platform, "?");
    info->platform[sizeof info->platform - 1] = 0;
    device_string(d, CL_DEVICE_NAME, info->name, sizeof info->name);
    device_string(d, CL_DRIVER_VERSION, info->driver, sizeof info->driver);
    device_string(d, CL_DEVICE_OPENCL_C_VERSION, info->version, sizeof info->version);
    cl_device_type type = 0;
    clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    info->is_gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
    info->is_cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
    cl_uint cu = 0;
    clGetDeviceInfo(d, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL);
    info->compute_units = cu;
    cl_ulong v = 0;
    clGetDeviceInfo(d, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof v, &v, NULL);
    info->global_mem = v;
    v = 0;
    clGetDeviceInfo(d, CL_DEVICE_LOCAL_MEM_SIZE, sizeof v, &v, NULL);
    info->local_mem = v;
    v = 0;
    clGetDeviceInfo(d, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof v, &v, NULL);
    info->max_alloc = v;
}

int clv_device_list(clv_device_info **list, clv_msg *msg)
{
    *list = NULL;
    cl_uint nplat = 0;
    cl_int st = clGetPlatformIDs(0, NULL, &nplat);
    if (st != CL_SUCCESS || nplat == 0)
        return clv__fail(msg, CLV_ENOPLATFORM, "no OpenCL platform found (%s); %s",
                         st == CL_SUCCESS ? "the ICD loader lists none" : clv__cl_strerror(st),
                         CLV__INSTALL_HINT);
    cl_platform_id *plats = calloc(nplat, sizeof *plats);
    if (!plats)
        return clv__fail(msg, CLV_ENOMEM, "out of memory listing OpenCL platforms");
    clGetPlatformIDs(nplat, plats, NULL);

    int count = 0, capacity = 0;
    clv_device_info *out = NULL;
    for (cl_uint p = 0; p < nplat; p++) {
        cl_uint ndev = 0;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 0, NULL, &ndev) != CL_SUCCESS || !ndev)
            continue;
        cl_device_id *devs = calloc(ndev, sizeof *devs);
        if (!devs)
            break;
        clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, ndev, devs, NULL);
        for (cl_uint d = 0; d < ndev; d++) {
            if (count == capacity) {
                capacity = capacity ? capacity * 2 : 8;
                clv_device_info *grown = realloc(out, (size_t)capacity * sizeof *out);
                if (!grown) {
                    free(devs);
                    free(plats);
                    free(out);
                    return clv__fail(msg, CLV_ENOMEM, "out of memory listing OpenCL devices");
                }
                out = grown;
            }
            fill_info(&out[count], plats[p], devs[d], count);
            count++;
        }
        free(devs);
    }
    free(plats);
    if (count == 0) {
        free(out);
        return clv__fail(msg, CLV_ENOPLATFORM,
                         "OpenCL platforms are installed but none has a device; %s",
                         CLV__INSTALL_HINT);
    }
    *list = out;
    return count;
}

static int contains_nocase(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < n && hay[i] &&
               tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == n)
            return 1;
    }
    return n == 0;
}

int clv_device_select(const clv_device_info *list, int count, const char *spec, clv_msg *msg)
{
    const char *from = "--device";
    if (!spec || !*spec) {
        for (int i = 0; i < count; i++)
            if (list[i].is_gpu)
                return i;
        return 0;
    }
    char *end = NULL;
    long n = strtol(spec, &end, 10);
    if (end != spec && *end == 0) {
        if (n >= 0 && n < count)
            return (int)n;
        return clv__fail(msg, CLV_ENODEVICE,
                         "%s %s: no device with that index; there are %d (0 to %d); "
                         "`clvid devices` lists them",
                         from, spec, count, count - 1);
    }
    for (int i = 0; i < count; i++)
        if (contains_nocase(list[i].name, spec))
            return i;
    for (int i = 0; i < count; i++)
        if (contains_nocase(list[i].platform, spec))
            return i;
    char names[600] = "";
    for (int i = 0; i < count && strlen(names) < 500; i++) {
        char one[200];
        snprintf(one, sizeof one, "%s%d: %s", i ? "; " : "", i, list[i].name);
        strncat(names, one, sizeof names - strlen(names) - 1);
    }
    return clv__fail(msg, CLV_ENODEVICE, "%s '%s': no device name contains it; devices are %s",
                     from, spec, names);
}

/* One item of a list: "all", "gpu", "cpu" or what clv_device_select takes. */
static int select_item(const clv_device_info *list, int count, const char *item, int *indices,
                       int n, int max, clv_msg *msg)
{
    int gpu = !strcmp(item, "gpu"), cpu = !strcmp(item, "cpu"), all = !strcmp(item, "all");
    int added = 0;
    for (int i = 0; (gpu || cpu || all) && i < count; i++) {
        if (all || (gpu && list[i].is_gpu) || (cpu && list[i].is_cpu)) {
            int seen = 0;
            for (int k = 0; k < n + added; k++)
                seen |= indices[k] == i;
            if (seen)
                continue;
            if (n + added == max)
                return clv__fail(msg, CLV_ENODEVICE, "--device %s: more than %d devices", item,
                                 max);
            indices[n + added++] = i;
        }
    }
    if (gpu || cpu || all) {
        if (!added && (gpu || cpu))
            return clv__fail(msg, CLV_ENODEVICE,
                             "--device %s: no %s device here; `clvid devices` lists them", item,
                             gpu ? "GPU" : "CPU");
        return added;
    }
    int index = clv_device_select(list, count, item, msg);
    if (index < 0)
        return index;
    for (int k = 0; k < n; k++)
        if (indices[k] == index)
            return clv__fail(msg, CLV_ENODEVICE, "--device: device %d (%s) is named twice", index,
                             list[index].name);
    if (n == max)
        return clv__fail(msg, CLV_ENODEVICE, "--device: more than %d devices", max);
    indices[n] = index;
    return 1;
}

int clv_device_select_list(const clv_device_info *list, int count, const char *spec, int *indices,
                           int max, clv_msg *msg)
{
    if (!spec || !*spec || !strchr(spec, ',')) {
        if (spec && (!strcmp(spec, "all") || !strcmp(spec, "gpu") || !strcmp(spec, "cpu")))
            return select_item(list, count, spec, indices, 0, max, msg);
        int index = clv_device_select(list, count, spec, msg);
        if (index < 0)
            return index;
        indices[0] = index;
        return 1;
    }
    int n = 0;
    for (const char *s = spec;;) {
        size_t len = strcspn(s, ",");
        char item[128];
        if (len == 0 || len >= sizeof item)
            return clv__fail(msg, CLV_ENODEVICE,
                             "--device %s: expected devices separated by commas (1,2), "
                             "gpu, cpu or all",
                             spec);
        memcpy(item, s, len);
        item[len] = 0;
        int got = select_item(list, count, item, indices, n, max, msg);
        if (got < 0)
            return got;
        n += got;
        if (!s[len])
            break;
        s += len + 1;
    }
    return n;
}

static int context_open(const clv_context_options *options, const clv_device_info *dev,
                        clv_context **out, clv_msg *msg);

void clv_context_options_init(clv_context_options *options)
{
    memset(options, 0, sizeof *options);
    options->struct_size = sizeof *options;
}

int clv_context_create(const clv_context_options *given, clv_context **out, clv_msg *msg)
{
    *out = NULL;
    clv_context_options copy;
    clv_context_options_init(&copy);
    int err = given ? clv__options_copy(given, &copy, sizeof copy, "clv_context_options", msg) : 0;
    if (err)
        return err;
    const clv_context_options *options = &copy;
    clv_device_info *list = NULL;
    int count = clv_device_list(&list, msg);
    if (count < 0)
        return count;
    int indices[CLV_DEVICES_MAX];
    int n = clv_device_select_list(list, count, options->device, indices, CLV_DEVICES_MAX, msg);
    if (n < 0) {
        free(list);
        return n;
    }
    /* Several devices: every queue is profiled, for the stage deals frames
     * by each device's time per frame on its own clock (from its first
     * command to its last, which with shared staging are kernels). */
    clv_context_options several = *options;
    several.profiling = 1;
    const clv_context_options *o = n > 1 ? &several : options;
    err = context_open(o, &list[indices[0]], out, msg);
    for (int i = 1; !err && i < n; i++) {
        err = context_open(o, &list[indices[i]], &(*out)->more[i - 1], msg);
        if (!err)
            (*out)->more_count = i;
    }
    free(list);
    if (err) {
        clv_context_destroy(*out);
        *out = NULL;
    }
    return err;
}

static int context_open(const clv_context_options *options, const clv_device_info *dev,
                        clv_context **out, clv_msg *msg)
{
    int err = 0;
    clv_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return clv__fail(msg, CLV_ENOMEM, "out of memory");
    ctx->dev = *dev;
    ctx->profiling = options && options->profiling;
    /* The one rule for every filter's kernel shape: rows per work-item on
     * CPUs, several pixels per work-item elsewhere, unless asked. */
    ctx->row_shape = !ctx->dev.is_gpu;
    ctx->log_level = CLV__LOG_WARN;
    ctx->watchdog_s = 10;
    if (options) {
        if (options->watchdog_s)
            ctx->watchdog_s = options->watchdog_s;
        if (options->shape)
            ctx->row_shape = options->shape == 1;
        /* PoCL compiles every kernel to hand out a binary: its entries are
         * written at the end (see clv_context_options). */
        const int pocl = strstr(ctx->dev.platform, "Portable Computing Language") != NULL;
        if (options->cache_dir && !options->no_cache)
            snprintf(ctx->cache_dir, sizeof ctx->cache_dir, "%s", options->cache_dir);
        ctx->cache_late = pocl && !options->cache_every_driver;
        if (options->kernel_dir)
            snprintf(ctx->kernel_dir, sizeof ctx->kernel_dir, "%s", options->kernel_dir);
        if (options->log_level)
            ctx->log_level = options->log_level;
        ctx->log = options->log;
        ctx->log_user = options->log_user;
    }

    cl_device_fp_config fp = 0;
    clGetDeviceInfo(ctx->dev.device_id, CL_DEVICE_SINGLE_FP_CONFIG, sizeof fp, &fp, NULL);
    ctx->correct_div = (fp & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT) != 0;

    /* NVIDIA's compute capability (cl_nv_device_attribute_query), for the
     * kernels' packed 16-bit min/max of sm_90 (CLV_NV_SM). */
    size_t ext_size = 0;
    char *ext = NULL;
    if (clGetDeviceInfo(ctx->dev.device_id, CL_DEVICE_EXTENSIONS, 0, NULL, &ext_size) ==
            CL_SUCCESS &&
        (ext = calloc(ext_size + 1, 1)) &&
        clGetDeviceInfo(ctx->dev.device_id, CL_DEVICE_EXTENSIONS, ext_size, ext, NULL) ==
            CL_SUCCESS &&
        strstr(ext, "cl_nv_device_attribute_query")) {
        cl_uint major = 0, minor = 0;
        if (clGetDeviceInfo(ctx->dev.device_id, CL_DEVICE_COMPUTE_CAPABILITY_MAJOR_NV, sizeof major,
                            &major, NULL) == CL_SUCCESS &&
            clGetDeviceInfo(ctx->dev.device_id, CL_DEVICE_COMPUTE_CAPABILITY_MINOR_NV, sizeof minor,
                            &minor, NULL) == CL_SUCCESS)
            ctx->nv_sm = (int)(10 * major + minor);
    }
    free(ext);

    /* Shared staging where the device computes in the host's memory and can
     * share a buffer with it at every point (fine-grained SVM): a CPU. A
     * device without SVM (OpenCL 1.2) fails the query. */
    cl_bool unified = CL_FALSE;
    cl_device_svm_capabilities svm = 0;
    if ((!options || options->staging != 1) &&
        clGetDeviceInfo(ctx->dev.device_id, CL_DEVICE_HOST_UNIFIED_MEMORY, sizeof unified, &unified,
                        NULL) == CL_SUCCESS &&
        clGetDeviceInfo(ctx->dev.device_id, CL_DEVICE_SVM_CAPABILITIES, sizeof svm, &svm, NULL) ==
            CL_SUCCESS)
        ctx->shared_staging = unified && (svm & CL_DEVICE_SVM_FINE_GRAIN_BUFFER);

    cl_int st = CL_SUCCESS;
    cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                     (cl_context_properties)ctx->dev.platform_id, 0};
    ctx->cl = clCreateContext(props, 1, &ctx->dev.device_id, NULL, NULL, &st);
    CLV__CL_CHECK(ctx, st, "clCreateContext");
    ctx->queue = clCreateCommandQueue(ctx->cl, ctx->dev.device_id,
                                      ctx->profiling ? CL_QUEUE_PROFILING_ENABLE : 0, &st);
    CLV__CL_CHECK(ctx, st, "clCreateCommandQueue");
    clv__log(ctx, CLV__LOG_INFO, "device %d: %s (%s, %s shape, %s staging)", ctx->dev.index,
             ctx->dev.name, ctx->dev.platform, ctx->row_shape ? "row" : "gpu",
             ctx->shared_staging ? "shared" : "copied");
    *out = ctx;
    return 0;
fail:
    clv__fail(msg, err, "cannot open OpenCL device %d (%s): %s", ctx->dev.index, ctx->dev.name,
              clv_strerror(err));
    clv_context_destroy(ctx);
    return err;
}

void clv_context_destroy(clv_context *ctx)
{
    if (!ctx)
        return;
    for (int i = 0; i < ctx->more_count; i++)
        clv_context_destroy(ctx->more[i]);
    ctx->more_count = 0;
    if (ctx->hung) {
        clv__program_cache_late(ctx, 0);
        free(ctx); /* the device's objects are left to the process's end */
        return;
    }
    if (ctx->queue)
        clFinish(ctx->queue);
    clv__program_cache_late(ctx, 1);
    for (int i = 0; i < ctx->program_count; i++)
        clReleaseProgram(ctx->programs[i].program);
    if (ctx->queue)
        clReleaseCommandQueue(ctx->queue);
    if (ctx->cl)
        clReleaseContext(ctx->cl);
    free(ctx);
}

const clv_device_info *clv_context_device(const clv_context *ctx)
{
    return &ctx->dev;
}

cl_context clv_context_cl(const clv_context *ctx)
{
    return ctx->cl;
}

cl_command_queue clv_context_queue(const clv_context *ctx)
{
    return ctx->queue;
}

int clv_context_shared_staging(const clv_context *ctx)
{
    return ctx->shared_staging;
}

int clv_context_row_shape(const clv_context *ctx)
{
    return ctx->row_shape;
}

int clv_context_device_count(const clv_context *ctx)
{
    return 1 + ctx->more_count;
}

clv_context *clv__context_at(clv_context *ctx, int index)
{
    if (index < 0 || index > ctx->more_count)
        return NULL;
    return index == 0 ? ctx : ctx->more[index - 1];
}

const clv_device_info *clv_context_device_at(const clv_context *ctx, int index)
{
    if (index < 0 || index > ctx->more_count)
        return NULL;
    return index == 0 ? &ctx->dev : &ctx->more[index - 1]->dev;
}
