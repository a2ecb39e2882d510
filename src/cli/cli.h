/* cli.h - the subcommands of the clvid command line. Each returns the exit
 * status: 0 success, 1 runtime error, 2 usage error. */
#ifndef CLVID_CLI_H
#define CLVID_CLI_H

#include <stdint.h>

enum { CLV_EXIT_OK = 0, CLV_EXIT_RUNTIME = 1, CLV_EXIT_USAGE = 2 };

/* Seconds or [hh:]mm:ss[.frac] to microseconds; -1 if malformed. */
int64_t clv_cli_parse_time(const char *text);

/* --audio DEVICE and --audio-format F, shared by play, webcam and
 * transcode: 1 when `option` was one of them (value stored), 0 when not,
 * -1 (message printed) for an unknown capture format. */
int clv_cli_mic_option(const char *option, const char *value, const char **mic,
                       const char **mic_format);

int clv_cmd_filters(int argc, char **argv);
int clv_cmd_devices(int argc, char **argv);
int clv_cmd_transcode(int argc, char **argv);
int clv_cmd_play(int argc, char **argv);
int clv_cmd_webcam(int argc, char **argv);
int clv_cmd_sources(int argc, char **argv);

#endif
