/* swscale per plane (gray8, +accurate_rnd), the 4 planes of an RGBA frame,
 * on T threads: thread t scales planes t, t+T, ...; time per frame. */
#include <libswscale/swscale.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static int W, H, OW, OH, FLAGS, FRAMES, T;
static uint8_t *in[4], *out[4];
static pthread_barrier_t bar;
static void *work(void *arg)
{
    int t = (int)(intptr_t)arg;
    struct SwsContext *c =
        sws_getContext(W, H, AV_PIX_FMT_GRAY8, OW, OH, AV_PIX_FMT_GRAY8, FLAGS, NULL, NULL, NULL);
    for (int f = 0; f < FRAMES; f++) {
        pthread_barrier_wait(&bar);
        for (int p = t; p < 4; p += T) {
            const uint8_t *s[1] = {in[p]};
            uint8_t *d[1] = {out[p]};
            int ss[1] = {W}, ds[1] = {OW};
            sws_scale(c, s, ss, 0, H, d, ds);
        }
    }
    sws_freeContext(c);
    return NULL;
}
int main(int argc, char **argv)
{
    if (argc < 8) {
        fprintf(stderr, "usage: W H OW OH bicubic|lanczos FRAMES THREADS\n");
        return 2;
    }
    W = atoi(argv[1]);
    H = atoi(argv[2]);
    OW = atoi(argv[3]);
    OH = atoi(argv[4]);
    FLAGS = (strcmp(argv[5], "lanczos") ? SWS_BICUBIC : SWS_LANCZOS) | SWS_ACCURATE_RND;
    FRAMES = atoi(argv[6]);
    T = atoi(argv[7]);
    uint32_t st = 12345;
    for (int p = 0; p < 4; p++) {
        in[p] = malloc((size_t)W * H);
        out[p] = malloc((size_t)OW * OH);
        for (size_t i = 0; i < (size_t)W * H; i++) {
            st ^= st << 13;
            st ^= st >> 17;
            st ^= st << 5;
            in[p][i] = st >> 24;
        }
    }
    pthread_barrier_init(&bar, NULL, T + 1);
    pthread_t th[8];
    for (int t = 0; t < T; t++)
        pthread_create(&th[t], NULL, work, (void *)(intptr_t)t);
    struct timespec a, b;
    pthread_barrier_wait(&bar); /* every frame timed, the first included */
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int f = 1; f < FRAMES; f++)
        pthread_barrier_wait(&bar);
    for (int t = 0; t < T; t++)
        pthread_join(th[t], NULL);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double ms = ((b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6) / FRAMES;
    printf("swscale per plane %dx%d -> %dx%d %s, %d thread(s): %.2f ms per RGBA frame\n", W, H, OW,
           OH, argv[5], T, ms);
    return 0;
}
