/* cli.h - the subcommands of the clvid command line. Each returns the exit
 * status: 0 success, 1 runtime error, 2 usage error. */
#ifndef CLVID_CLI_H
#define CLVID_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "clvid/pipeline.h"

#include "../env/engine_env.h"

enum { CLV_EXIT_OK = 0, CLV_EXIT_RUNTIME = 1, CLV_EXIT_USAGE = 2 };

/* Options several subcommands share. Each returns 1 when `option` was one
 * of its own (the value checked and stored), 0 when it was not, and -1
 * (a message printed) for a bad value. */
/* --input-size, --input-fps, --input-format (capture), --audio and
 * --audio-format (a microphone). */
int clv_cli_capture_option(const char *option, const char *value, clv_transcode_options *o);
/* -c:v (-vcodec), -preset, -pix_fmt, -crf, -b:v. */
int clv_cli_output_option(const char *option, const char *value, clv_transcode_options *o);

/* Several -o: one encoding written to each (ffmpeg takes several outputs).
 * They travel to the pipeline as one output in ffmpeg's tee syntax
 * ("a.mkv|udp://..." with output_format "tee"), each path quoted where it
 * holds tee's special characters. */
typedef struct clv_cli_outputs {
    char spec[8192];
    int count;
} clv_cli_outputs;
/* -filter_complex_script path's text, at most 65535 bytes, into *text
 * (malloc'd, the caller's, also on failure). Returns 0, or -1 (printed,
 * naming command) when it cannot be read or is too long. */
int clv_cli_read_script(const char *command, const char *path, char **text);
/* Adds -o path: the first is o->output as it is; a second makes o->output
 * the spec of all of them. Returns 0, or -1 (printed, naming command)
 * when the spec is too long. */
int clv_cli_add_output(clv_cli_outputs *outputs, const char *path, clv_transcode_options *o,
                       const char *command);
/* After the options: with several -o, output_format becomes "tee"; -f
 * FORMAT with them is refused (each one's format is told in the tee form,
 * -f tee and one -o).
 * Returns 0 or -1 (printed). */
int clv_cli_outputs_done(const clv_cli_outputs *outputs, clv_transcode_options *o,
                         const char *command);

/* 0 when `option` is one of `known` (NULL-terminated) or one of the
 * shared capture and encoder options; else prints
 * "clvid COMMAND: unknown option X (did you mean Y?)" and returns 1. */
int clv_cli_unknown(const char *option, const char *const *known, const char *command);
/* The closest of `known` to word (NULL-terminated), or NULL when none is
 * near. */
const char *clv_cli_closest(const char *word, const char *const *known);

/* The engine's settings from the environment: clv_env_engine_settings
 * (src/env/engine_env.h). */
/* The exit status for an error code: 0, 2 for usage mistakes (bad chain,
 * option or device), 1 for the rest. */
int clv_cli_exit_status(int err);

/* Runs a transcode with the progress line, the summary and Ctrl-C
 * handling; returns the exit status. transcode and webcam --no-window. */
int clv_cli_transcode(clv_transcode_options *options, int quiet, const char *progress_path);

int clv_cmd_filters(int argc, char **argv);
int clv_cmd_devices(int argc, char **argv);
int clv_cmd_transcode(int argc, char **argv);
int clv_cmd_play(int argc, char **argv);
int clv_cmd_webcam(int argc, char **argv);
/* `clvid completion bash`: the completion script on standard output. */
int clv_cmd_completion(int argc, char **argv);

#endif
