// npp_bench.cu - NVIDIA NPP on the operations clvid-bench times, on the same
// 4K RGBA frames: one JSON object per line, {"op": ..., "npp_us": median}.
// Built and run by scripts/compare-gpu (nvcc, -lnppif -lnppim -lnppist
// -lnppicc -lnppig -lnppc). NPP's filters take no border: the region is the
// frame less the mask's border, a little less work than clvid's. The
// resizes (nppiResize_8u_C4R, 4K <-> 1080p whatever the size asked) print
// "npp_us": null and NPP's status when NPP refuses one. The bilateral
// (nppiFilterBilateralGaussBorder_8u_C3R: NPP has C1 and C3, no C4) runs on
// the frame's R, G, B packed as 3 bytes a pixel, which is what clvid's
// bilateral filters (its alpha passes through).
#include <cuda_runtime.h>
#include <npp.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK_CUDA(x)                                                                              \
    do {                                                                                           \
        cudaError_t e = (x);                                                                       \
        if (e != cudaSuccess) {                                                                    \
            fprintf(stderr, "npp_bench: %s: %s\n", #x, cudaGetErrorString(e));                     \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)
#define CHECK_NPP(x)                                                                               \
    do {                                                                                           \
        NppStatus s = (x);                                                                         \
        if (s < 0) {                                                                               \
            fprintf(stderr, "npp_bench: %s: NPP status %d\n", #x, (int)s);                         \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static NppStreamContext context(cudaStream_t stream)
{
    NppStreamContext c = {};
    int dev = 0;
    CHECK_CUDA(cudaGetDevice(&dev));
    c.hStream = stream;
    c.nCudaDeviceId = dev;
    cudaDeviceGetAttribute(&c.nMultiProcessorCount, cudaDevAttrMultiProcessorCount, dev);
    cudaDeviceGetAttribute(&c.nMaxThreadsPerMultiProcessor, cudaDevAttrMaxThreadsPerMultiProcessor,
                           dev);
    cudaDeviceGetAttribute(&c.nMaxThreadsPerBlock, cudaDevAttrMaxThreadsPerBlock, dev);
    int shared = 0;
    cudaDeviceGetAttribute(&shared, cudaDevAttrMaxSharedMemoryPerBlock, dev);
    c.nSharedMemPerBlock = (size_t)shared;
    cudaDeviceGetAttribute(&c.nCudaDevAttrComputeCapabilityMajor, cudaDevAttrComputeCapabilityMajor,
                           dev);
    cudaDeviceGetAttribute(&c.nCudaDevAttrComputeCapabilityMinor, cudaDevAttrComputeCapabilityMinor,
                           dev);
    unsigned int flags = 0;
    cudaStreamGetFlags(stream, &flags);
    c.nStreamFlags = flags;
    return c;
}

template <typename F> static double time_us(cudaStream_t s, int runs, F op)
{
    cudaEvent_t a, b;
    CHECK_CUDA(cudaEventCreate(&a));
    CHECK_CUDA(cudaEventCreate(&b));
    for (int i = 0; i < 3; i++)
        op();
    std::vector<float> t;
    for (int i = 0; i < runs; i++) {
        CHECK_CUDA(cudaEventRecord(a, s));
        op();
        CHECK_CUDA(cudaEventRecord(b, s));
        CHECK_CUDA(cudaEventSynchronize(b));
        float ms = 0;
        CHECK_CUDA(cudaEventElapsedTime(&ms, a, b));
        t.push_back(ms * 1000);
    }
    std::sort(t.begin(), t.end());
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return t[t.size() / 2];
}

int main(int argc, char **argv)
{
    int w = argc > 2 ? atoi(argv[1]) : 3840, h = argc > 2 ? atoi(argv[2]) : 2160, runs = 20;
    int step = w * 4;
    size_t bytes = (size_t)step * h;
    std::vector<unsigned char> host(bytes);
    unsigned int x = 0x12345678u;
    for (size_t i = 0; i < bytes; i++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        host[i] = i % 4 == 3 ? 255 : (unsigned char)(x >> 24);
    }
    Npp8u *src, *dst, *tmp;
    CHECK_CUDA(cudaMalloc(&src, bytes));
    CHECK_CUDA(cudaMalloc(&dst, bytes));
    CHECK_CUDA(cudaMalloc(&tmp, bytes));
    CHECK_CUDA(cudaMemcpy(src, host.data(), bytes, cudaMemcpyHostToDevice));
    cudaStream_t s;
    CHECK_CUDA(cudaStreamCreate(&s));
    NppStreamContext c = context(s);

    printf("{\"op\": \"copy\", \"npp_us\": %.1f}\n", time_us(s, runs, [&] {
               CHECK_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, s));
           }));
    // 3x3 convolution with clvid's sharpen mask (NPP flips the kernel; it is symmetric).
    Npp32s mask[9] = {0, -1, 0, -1, 5, -1, 0, -1, 0}, *dmask;
    CHECK_CUDA(cudaMalloc(&dmask, sizeof mask));
    CHECK_CUDA(cudaMemcpy(dmask, mask, sizeof mask, cudaMemcpyHostToDevice));
    NppiSize in1 = {w - 2, h - 2};
    const Npp8u *src1 = src + step + 4;
    Npp8u *dst1 = dst + step + 4;
    printf("{\"op\": \"sharpen\", \"npp_us\": %.1f}\n", time_us(s, runs, [&] {
               CHECK_NPP(nppiFilter_8u_C4R_Ctx(src1, step, dst1, step, in1, dmask, NppiSize{3, 3},
                                               NppiPoint{1, 1}, 1, c));
           }));
    printf("{\"op\": \"erode\", \"npp_us\": %.1f}\n", time_us(s, runs, [&] {
               CHECK_NPP(nppiErode3x3_8u_C4R_Ctx(src1, step, dst1, step, in1, c));
           }));
    printf("{\"op\": \"prewitt\", \"npp_us\": %.1f}\n", time_us(s, runs, [&] {
               CHECK_NPP(nppiFilterPrewittHoriz_8u_C4R_Ctx(src1, step, dst1, step, in1, c));
               CHECK_NPP(nppiFilterPrewittVert_8u_C4R_Ctx(src1, step, tmp + step + 4, step, in1, c));
           }));
    for (int r : {1, 2, 3, 4, 7}) {
        int m = 2 * r + 1;
        NppiSize roi = {w - 2 * r, h - 2 * r}, msize = {m, m};
        Npp32u size = 0;
        CHECK_NPP(nppiFilterMedianGetBufferSize_8u_C4R_Ctx(roi, msize, &size, c));
        Npp8u *buf;
        CHECK_CUDA(cudaMalloc(&buf, size ? size : 1));
        const Npp8u *sr = src + (size_t)r * step + 4 * r;
        Npp8u *dr = dst + (size_t)r * step + 4 * r;
        printf("{\"op\": \"median%dx%d\", \"npp_us\": %.1f}\n", m, m, time_us(s, runs, [&] {
                   CHECK_NPP(nppiFilterMedian_8u_C4R_Ctx(sr, step, dr, step, roi, msize,
                                                         NppiPoint{r, r}, buf, c));
               }));
        cudaFree(buf);
    }
    // Bilateral with clvid's bilateral=sigmaS=3:sigmaR=0.1 (compare-gpu's
    // chain): the radius clvid takes, lrint(1.5 sigmaS), and the squares of
    // the spatial sigma and of the range sigma on the 0-255 scale; borders
    // replicated, as clvid clamps to the edge (NPP supports only that).
    {
        const double sigma_s = 3, sigma_r = 0.1;
        const int radius = std::max(1, (int)lrint(1.5 * sigma_s));
        const Npp32f val2 = (Npp32f)(255 * sigma_r * 255 * sigma_r),
                     pos2 = (Npp32f)(sigma_s * sigma_s);
        int step3 = w * 3;
        size_t bytes3 = (size_t)step3 * h;
        std::vector<unsigned char> rgb(bytes3);
        for (size_t i = 0, n = (size_t)w * h; i < n; i++)
            for (int k = 0; k < 3; k++)
                rgb[3 * i + k] = host[4 * i + k];
        Npp8u *src3, *dst3;
        CHECK_CUDA(cudaMalloc(&src3, bytes3));
        CHECK_CUDA(cudaMalloc(&dst3, bytes3));
        CHECK_CUDA(cudaMemcpy(src3, rgb.data(), bytes3, cudaMemcpyHostToDevice));
        NppiSize size = {w, h};
        printf("{\"op\": \"bilateral\", \"npp_us\": %.1f, \"radius\": %d}\n",
               time_us(s, runs,
                       [&] {
                           CHECK_NPP(nppiFilterBilateralGaussBorder_8u_C3R_Ctx(
                               src3, step3, size, NppiPoint{0, 0}, dst3, step3, size, radius, 1,
                               val2, pos2, NPP_BORDER_REPLICATE, c));
                       }),
               radius);
        cudaFree(src3);
        cudaFree(dst3);
    }
    // Equalize: a 256-bin histogram per channel, then a LUT over the frame
    // (the LUT's values are built on the host in clvid's; here a fixed one,
    // which costs NPP the same).
    {
        NppiSize roi = {w, h};
        int levels[4] = {257, 257, 257, 257};
        Npp32s lower[4] = {0, 0, 0, 0}, upper[4] = {256, 256, 256, 256};
        size_t size = 0;
        CHECK_NPP(nppiHistogramEvenGetBufferSize_8u_C4R_Ctx(roi, levels, &size, c));
        Npp8u *buf;
        Npp32s *hist[4];
        CHECK_CUDA(cudaMalloc(&buf, size ? size : 1));
        for (int i = 0; i < 4; i++)
            CHECK_CUDA(cudaMalloc(&hist[i], 256 * sizeof(Npp32s)));
        Npp32s values[256], lv[256], *dv, *dl;
        for (int i = 0; i < 256; i++)
            values[i] = 255 - i, lv[i] = i;
        CHECK_CUDA(cudaMalloc(&dv, sizeof values));
        CHECK_CUDA(cudaMalloc(&dl, sizeof lv));
        CHECK_CUDA(cudaMemcpy(dv, values, sizeof values, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(dl, lv, sizeof lv, cudaMemcpyHostToDevice));
        const Npp32s *pv[4] = {dv, dv, dv, dv}, *pl[4] = {dl, dl, dl, dl};
        int nl[4] = {256, 256, 256, 256};
        printf("{\"op\": \"equalize\", \"npp_us\": %.1f}\n", time_us(s, runs, [&] {
                   CHECK_NPP(nppiHistogramEven_8u_C4R_Ctx(src, step, roi, hist, levels, lower,
                                                          upper, buf, c));
                   CHECK_NPP(nppiLUT_8u_C4R_Ctx(src, step, dst, step, roi, pv, pl, nl, c));
               }));
    }
    // Resizes, cubic and Lanczos, 4K -> 1080p and 1080p -> 4K (from the top
    // left 1920x1080 of src; src, dst and tmp hold a 4K frame at least).
    if ((size_t)3840 * 2160 * 4 <= bytes) {
        struct {
            const char *name;
            int iw, ih, ow, oh, interp;
        } resizes[] = {
            {"scale_4k_1080p_bicubic", 3840, 2160, 1920, 1080, NPPI_INTER_CUBIC},
            {"scale_4k_1080p_lanczos", 3840, 2160, 1920, 1080, NPPI_INTER_LANCZOS},
            {"scale_1080p_4k_bicubic", 1920, 1080, 3840, 2160, NPPI_INTER_CUBIC},
            {"scale_1080p_4k_lanczos", 1920, 1080, 3840, 2160, NPPI_INTER_LANCZOS},
            // NPP's shrink that does not alias (supersampling: a box over
            // the source pixels each output covers), against clvid's area.
            {"scale_4k_1080p_area", 3840, 2160, 1920, 1080, NPPI_INTER_SUPER},
        };
        for (const auto &r : resizes) {
            NppiSize in = {r.iw, r.ih}, out = {r.ow, r.oh};
            NppiRect inr = {0, 0, r.iw, r.ih}, outr = {0, 0, r.ow, r.oh};
            int is = r.iw * 4, os = r.ow * 4;
            NppStatus st = nppiResize_8u_C4R_Ctx(src, is, in, inr, dst, os, out, outr, r.interp, c);
            CHECK_CUDA(cudaStreamSynchronize(s));
            if (st < 0) {
                printf("{\"op\": \"%s\", \"npp_us\": null, \"status\": %d}\n", r.name, (int)st);
                continue;
            }
            printf("{\"op\": \"%s\", \"npp_us\": %.1f}\n", r.name, time_us(s, runs, [&] {
                       CHECK_NPP(nppiResize_8u_C4R_Ctx(src, is, in, inr, dst, os, out, outr,
                                                       r.interp, c));
                   }));
        }
    }
    return 0;
}
