/* cpu-gathers.c - how fast this CPU's AVX-512 gathers are: a 16-lane
 * vpgatherdd from a 32 KiB table (in L1), eight independent ones in flight.
 * The CPU kernels of hqdn3d, bilateral, deband and lut3d read their tables
 * by vpgatherdd on AVX-512 CPUs; a microcode that slows gathers (Intel's fix
 * for Gather Data Sampling, "Downfall", makes them several times slower)
 * moves their CPU times (docs/performance.md, "On a CPU with slow
 * gathers").
 *
 *   cc -O2 -mavx512f -o /tmp/cpu-gathers scripts/cpu-gathers.c && /tmp/cpu-gathers */
#include <immintrin.h>
#include <stdio.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(void)
{
    static int table[8192];
    for (int i = 0; i < 8192; i++)
        table[i] = i * 7;
    __m512i index[8];
    for (int k = 0; k < 8; k++) {
        int lanes[16];
        for (int j = 0; j < 16; j++)
            lanes[j] = (j * 37 + k * 101) & 8191;
        index[k] = _mm512_loadu_si512(lanes);
    }
    const long n = 20000000;
    __m512i sum = _mm512_setzero_si512();
    double t = now();
    for (long i = 0; i < n; i += 8)
        for (int k = 0; k < 8; k++)
            sum = _mm512_add_epi32(sum, _mm512_i32gather_epi32(index[k], table, 4));
    const double gather = (now() - t) / (double)n;
    int out[16];
    _mm512_storeu_si512(out, sum);
    printf("vpgatherdd, 16 lanes from L1: %.2f ns (%.3f ns a lane; %d)\n", gather * 1e9,
           gather * 1e9 / 16, out[0] & 1);
    return 0;
}
