/* median.cl - per-channel median of the (2r+1)^2 window, clamp-to-edge.
 * Channels are sorted in pairs of 16-bit lanes on GPUs and byte by byte
 * along a row on CPUs. One file an algorithm, included here; the program
 * assembler (src/core/program.c) puts each included file in the program
 * once, before the file that includes it.
 *
 * The host builds one kernel a program (-DCLV_MEDIAN_KIND: 0 median3, 1
 * median5, 2 median7, 3 median_radix, 4 median_hist with -DCLV_MEDIAN_R;
 * src/filters/median.c): NVIDIA's compiler took 1.35-1.55 s for the first
 * four together, 0.19-0.23 s for median3 alone. At 16 bits (CLV_DEPTH=16)
 * the files hold median3, median5 and median_radix on ushort channels,
 * for both shapes; median7 and median_hist are 8-bit only. */
#include "median3.cl"
#include "median5.cl"
#include "median_radix.cl"
#include "median_hist.cl"
#include "median7.cl"
