/* main.c - the clvid command: git-like subcommands with ffmpeg-like words. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clvid.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: clvid <command> [options]\n"
            "\n"
            "commands:\n"
            "  play [INPUT] [-vf CHAIN]                   live window; no INPUT: the bundled "
            "sample (play --help)\n"
            "  webcam [DEVICE]                            a camera live (default /dev/video0); "
            "-o records\n"
            "  sources   list the capture devices with their formats, sizes and rates\n"
            "  transcode -i INPUT [-vf CHAIN] -o OUTPUT   filter a file headlessly "
            "(transcode --help)\n"
            "  filters   list every filter with its parameters, defaults and ranges\n"
            "  devices   list the OpenCL devices (pick one with --device N|NAME or "
            "CLVID_DEVICE)\n"
            "  completion bash   print the bash completion script\n"
            "\n"
            "The benchmark is the separate program clvid-bench (clvid-bench --help).\n");
}

/* clvid's version, the FFmpeg libraries it runs with, the OpenCL platforms. */
static int version(void)
{
    char libs[512];
    clv_pipeline_versions(libs, sizeof libs);
    printf("clvid %s\n%s\n", clv_version(), libs);
    clv_device_info *list = NULL;
    clv_msg msg = {{0}};
    int count = clv_device_list(&list, &msg);
    if (count < 0)
        printf("OpenCL: %s\n", msg.text);
    for (int i = 0; i < count; i++)
        if (i == 0 || strcmp(list[i].platform, list[i - 1].platform))
            printf("OpenCL platform: %s (%s)\n", list[i].platform, list[i].version);
    free(list);
    return CLV_EXIT_OK;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CLV_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "filters"))
        return clv_cmd_filters(argc - 1, argv + 1);
    if (!strcmp(cmd, "devices"))
        return clv_cmd_devices(argc - 1, argv + 1);
    if (!strcmp(cmd, "webcam"))
        return clv_cmd_webcam(argc - 1, argv + 1);
    if (!strcmp(cmd, "sources")) {
        if (argc > 2) {
            int help = !strcmp(argv[2], "-h") || !strcmp(argv[2], "--help");
            fprintf(help ? stdout : stderr,
                    "usage: clvid sources   (lists cameras with their formats, sizes and rates, "
                    "and other capture inputs)\n");
            return help ? CLV_EXIT_OK : CLV_EXIT_USAGE;
        }
        return clv_capture_sources_print(stdout) ? CLV_EXIT_RUNTIME : CLV_EXIT_OK;
    }
    if (!strcmp(cmd, "play"))
        return clv_cmd_play(argc - 1, argv + 1);
    if (!strcmp(cmd, "transcode"))
        return clv_cmd_transcode(argc - 1, argv + 1);
    if (!strcmp(cmd, "completion"))
        return clv_cmd_completion(argc - 1, argv + 1);
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        usage(stdout);
        return CLV_EXIT_OK;
    }
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-version") || !strcmp(cmd, "version"))
        return version();
    static const char *const commands[] = {"play",    "webcam",  "sources",    "transcode",
                                           "filters", "devices", "completion", "--version",
                                           "--help",  NULL};
    const char *near = clv_cli_closest(cmd, commands);
    fprintf(stderr, "clvid: unknown command '%s'%s%s%s\n", cmd, near ? " (did you mean " : "",
            near ? near : "", near ? "?)" : "");
    usage(stderr);
    return CLV_EXIT_USAGE;
}
