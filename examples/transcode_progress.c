/* transcode_progress.c - a file through a clvid chain with the pipeline
 * library: clv_transcode_run with a progress callback; Ctrl-C stops it
 * cleanly (the output is finished up to there).
 *   transcode_progress IN CHAIN OUT        e.g. transcode_progress in.mp4 sharpen out.mp4
 * Builds against the installed library: cc transcode_progress.c $(pkg-config --cflags --libs
 * clvid-pipeline). */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <clvid/pipeline.h>

static volatile sig_atomic_t stop;

static void on_sigint(int sig)
{
    stop = sig;
}

static int on_status(const clv_transcode_status *s, void *user)
{
    int *calls = user;
    ++*calls;
    if (s->event == CLV_TRANSCODE_START)
        printf("%s (%dx%d) -> [%s] on %s -> %s (%s)\n", s->input, s->width, s->height, s->chain,
               s->device, s->output, s->codec);
    else if (s->event == CLV_TRANSCODE_PROGRESS)
        printf("progress: %lld frames, %.2f s of %.2f s\n", (long long)s->frames, s->out_seconds,
               s->total_seconds);
    else
        printf("done: %lld frames in %.2f s%s\n", (long long)s->frames, s->elapsed,
               s->stopped ? " (stopped)" : "");
    return 0; /* non-zero would stop the run */
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: transcode_progress IN CHAIN OUT\n");
        return 2;
    }
    clv_transcode_options o;
    clv_transcode_options_init(&o);
    o.input = argv[1];
    o.chain = argv[2];
    o.output = argv[3];
    o.overwrite = 1;
    signal(SIGINT, on_sigint);
    int calls = 0;
    clv_msg msg;
    int err = clv_transcode_run(&o, on_status, &calls, &stop, &msg);
    if (err) {
        fprintf(stderr, "transcode_progress: %s (%s)\n", msg.text, clv_strerror(err));
        return 1;
    }
    return 0;
}
