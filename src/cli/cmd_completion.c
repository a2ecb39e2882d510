/* cmd_completion.c - `clvid completion bash`: the bash completion script for
 * clvid and clvid-bench, its filter names and parameters read from the
 * registry so that a new filter completes without a change here. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clvid.h"

/* The options each command parses (cmd_play.c, cmd_transcode.c, options.c,
 * src/bench/bench.c keep their own tables): `offered` is what completes,
 * `valued` every option that takes a value, aliases included, so that the
 * word after it is completed as that value. The package test checks that
 * each option a command's --help names is offered here. */
typedef struct command_words {
    const char *name;
    const char *offered;
    const char *valued;
} command_words;

#define CAPTURE_WORDS                                                                              \
    "--input-size --input-fps --input-format --audio --audio-format -rtsp_transport -rw_timeout "  \
    "--reconnect-max -hwaccel -hwaccel_device"
#define ENCODER_WORDS "-c:v -preset -pix_fmt -c:a -aspect -crf -b:v -g -r"
#define ENCODER_ALIASES "-vcodec -acodec"

static const command_words commands[] = {
    {"play",
     "-i -f -vf -ss --device --size --fullscreen --untimed --loop --autoexit -an --volume "
     "--no-hud --exit-after-frames --screenshot --keys --stats --ipc --live --reconnect "
     "--no-window -o -y "
     "--no-autorotate --help -filter_complex -filter_complex_script -lavfi -map -t "
     "-itsoffset " CAPTURE_WORDS " " ENCODER_WORDS,
     "-i -f -vf -ss -t -itsoffset --device --size --volume --exit-after-frames --screenshot "
     "--keys --stats --ipc -o -filter_complex -filter_complex_script -lavfi -map " CAPTURE_WORDS
     " " ENCODER_WORDS " " ENCODER_ALIASES},
    {"webcam",
     "-i -f -vf -ss --device --size --fullscreen --untimed --loop --autoexit -an --volume "
     "--no-hud --exit-after-frames --screenshot --keys --stats --ipc --live --reconnect "
     "--no-window -o -y "
     "--no-autorotate --help -filter_complex -filter_complex_script -lavfi -map -t "
     "-itsoffset " CAPTURE_WORDS " " ENCODER_WORDS,
     "-i -f -vf -ss -t -itsoffset --device --size --volume --exit-after-frames --screenshot "
     "--keys --stats --ipc -o -filter_complex -filter_complex_script -lavfi -map " CAPTURE_WORDS
     " " ENCODER_WORDS " " ENCODER_ALIASES},
    {"transcode",
     "-i -o -f -vf -y -q -an -sn -ss -t --frames --frame-index --device --progress --ipc "
     "--live --reconnect -re -hls_time -hls_list_size --no-autorotate --help -filter_complex "
     "-filter_complex_script -lavfi -map " CAPTURE_WORDS " " ENCODER_WORDS,
     "-i -o -f -vf -ss -t --frames -frames:v -frames -vframes --frame-index --device --progress "
     "--ipc "
     "-hls_time "
     "-hls_list_size -filter_complex -filter_complex_script -lavfi -map " CAPTURE_WORDS
     " " ENCODER_WORDS " " ENCODER_ALIASES},
    {"filters", "--file --kernel", "--file --kernel"},
    {"devices", "", ""},
    {"sources", "--help", ""},
    {"completion", "--help", ""},
    {"clvid-bench",
     "--size --device --chain --graph --frames --warmup --shape --depth --pattern --json "
     "--input --hwaccel --writers --slots --out --pipeline --blocks --help",
     "--size --device --chain --graph --frames --warmup --shape --depth --pattern --input "
     "--hwaccel --writers --slots --out"},
};

/* The user's kernel is not in the registry: its parameters come from its
 * file, so only its own two keys complete. */
static const char opencl_name[] = "opencl";
static const char opencl_params[] = "file kernel";

/* The part of the script that does not depend on the registry. It splits
 * the line at blanks itself: bash splits words at '=' and ':' too, which
 * are inside chains (median=radius=2) and options (-c:v). */
static const char script_body[] =
    "# The line up to the cursor in words split at blanks: sets words and cur.\n"
    "_clvid_split() {\n"
    "    local line=${COMP_LINE:0:COMP_POINT}\n"
    "    read -ra words <<<\"$line\"\n"
    "    if [[ -z $line || $line == *[[:space:]] ]]; then\n"
    "        words+=(\"\")\n"
    "    fi\n"
    "    cur=${words[${#words[@]} - 1]}\n"
    "}\n"
    "\n"
    "# COMPREPLY: the candidates that start with $1, less what readline keeps\n"
    "# of the word (it replaces only the text after the last character of\n"
    "# COMP_WORDBREAKS, or after an opening quote).\n"
    "_clvid_reply() {\n"
    "    local word=$1 lead= c i\n"
    "    shift\n"
    "    COMPREPLY=()\n"
    "    for c in \"$@\"; do\n"
    "        if [[ $c == \"$word\"* ]]; then\n"
    "            COMPREPLY+=(\"$c\")\n"
    "        fi\n"
    "    done\n"
    "    if [[ $word == [\\\"\\']* ]]; then\n"
    "        lead=${word:0:1}\n"
    "    else\n"
    "        for ((i = ${#word} - 1; i >= 0; i--)); do\n"
    "            if [[ $COMP_WORDBREAKS == *\"${word:i:1}\"* ]]; then\n"
    "                lead=${word:0:i+1}\n"
    "                break\n"
    "            fi\n"
    "        done\n"
    "    fi\n"
    "    if [[ -n $lead ]]; then\n"
    "        COMPREPLY=(\"${COMPREPLY[@]#\"$lead\"}\")\n"
    "    fi\n"
    "}\n"
    "\n"
    "# A filter chain (median=radius=2,sharpen): filter names after a comma,\n"
    "# parameter names after '=' or ':', an enumeration's words after 'NAME='.\n"
    "_clvid_chain() {\n"
    "    local word=$1 quote= body head seg name args piece stem c\n"
    "    local -a out=()\n"
    "    if [[ $word == [\\\"\\']* ]]; then\n"
    "        quote=${word:0:1}\n"
    "    fi\n"
    "    body=${word#\"$quote\"}\n"
    "    seg=${body##*,}\n"
    "    head=${body%\"$seg\"}\n"
    "    if [[ $seg != *=* ]]; then\n"
    "        for c in $_clvid_filters; do\n"
    "            out+=(\"$quote$head$c\")\n"
    "        done\n"
    "    else\n"
    "        name=${seg%%=*}\n"
    "        args=${seg#*=}\n"
    "        piece=${args##*:}\n"
    "        stem=${seg%\"$piece\"}\n"
    "        if [[ $piece == *=* ]]; then\n"
    "            for c in $(_clvid_choices \"$name.${piece%%=*}\"); do\n"
    "                out+=(\"$quote$head$stem${piece%%=*}=$c\")\n"
    "            done\n"
    "        else\n"
    "            for c in $(_clvid_params \"$name\"); do\n"
    "                out+=(\"$quote$head$stem$c=\")\n"
    "            done\n"
    "        fi\n"
    "    fi\n"
    "    _clvid_reply \"$word\" \"${out[@]}\"\n"
    "    compopt -o nospace 2>/dev/null\n"
    "}\n"
    "\n"
    "# Device indices from the clvid being completed (this machine's devices,\n"
    "# not the build machine's), and the words --device takes besides.\n"
    "_clvid_devices() {\n"
    "    local exe=${1/#\\~/$HOME}\n"
    "    _clvid_reply \"$2\" $(\"$exe\" completion devices 2>/dev/null) gpu all\n"
    "}\n"
    "\n"
    "# The value after option $2 of command $1; 1 when $2 takes none.\n"
    "_clvid_value() {\n"
    "    local command=$1 option=$2 exe=$3\n"
    "    [[ \" $(_clvid_valued \"$command\") \" == *\" $option \"* ]] || return 1\n"
    "    compopt +o default 2>/dev/null\n"
    "    case $option in\n"
    "    -vf | --chain) _clvid_chain \"$cur\" ;;\n"
    "    --device) _clvid_devices \"$exe\" \"$cur\" ;;\n"
    "    --audio-format) _clvid_reply \"$cur\" alsa pulse oss lavfi ;;\n"
    "    -hwaccel | --hwaccel) _clvid_reply \"$cur\" auto cuda vaapi none ;;\n"
    "    -preset) _clvid_reply \"$cur\" ultrafast superfast veryfast faster fast medium slow \\\n"
    "        slower veryslow placebo ;;\n"
    "    --shape) _clvid_reply \"$cur\" row gpu ;;\n"
    "    --out) _clvid_reply \"$cur\" yuv420p rgba ;;\n"
    "    --size) [[ $command == clvid-bench ]] && _clvid_reply \"$cur\" 720p 1080p 4k ;;\n"
    "    -i | -o | --progress | --screenshot | --stats | --ipc | --file | --input | --audio)\n"
    "        compopt -o default 2>/dev/null\n"
    "        COMPREPLY=() ;;\n"
    "    *) COMPREPLY=() ;;\n"
    "    esac\n"
    "    return 0\n"
    "}\n"
    "\n"
    "_clvid() {\n"
    "    local cur command\n"
    "    local -a words\n"
    "    _clvid_split\n"
    "    if ((${#words[@]} <= 2)); then\n"
    "        _clvid_reply \"$cur\" $_clvid_commands\n"
    "        return\n"
    "    fi\n"
    "    command=${words[1]}\n"
    "    _clvid_value \"$command\" \"${words[${#words[@]} - 2]}\" \"${words[0]}\" && return\n"
    "    case $cur in\n"
    "    -*) _clvid_reply \"$cur\" $(_clvid_options \"$command\") ;;\n"
    "    *)\n"
    "        case $command in\n"
    "        webcam) _clvid_reply \"$cur\" $(compgen -G '/dev/video*') ;;\n"
    "        completion) _clvid_reply \"$cur\" bash ;;\n"
    "        *) COMPREPLY=() ;;\n"
    "        esac\n"
    "        ;;\n"
    "    esac\n"
    "}\n"
    "\n"
    "_clvid_bench() {\n"
    "    local cur\n"
    "    local -a words\n"
    "    _clvid_split\n"
    "    _clvid_value clvid-bench \"${words[${#words[@]} - 2]}\" clvid && return\n"
    "    _clvid_reply \"$cur\" $(_clvid_options clvid-bench)\n"
    "}\n"
    "\n"
    "complete -o default -F _clvid clvid\n"
    "complete -o default -F _clvid_bench clvid-bench\n";

/* A case arm of a shell function: `    WORD) echo 'TEXT' ;;`. The words
 * are the registry's and the tables' names: no quote is in them. */
static void case_arm(const char *word, const char *suffix, const char *text)
{
    printf("    %s%s) echo '%s' ;;\n", word, suffix, text);
}

static void print_filter_data(void)
{
    printf("_clvid_filters='");
    for (int i = 0; i < clv_filter_count(); i++)
        printf("%s ", clv_filter_name(clv_filter_at(i)));
    printf("%s'\n\n", opencl_name);

    printf("# Each filter's parameter names.\n_clvid_params() {\n    case $1 in\n");
    for (int i = 0; i < clv_filter_count(); i++) {
        const clv_filter *f = clv_filter_at(i);
        if (!clv_filter_param_count(f))
            continue;
        printf("    %s) echo '", clv_filter_name(f));
        for (int j = 0; j < clv_filter_param_count(f); j++)
            printf("%s%s", j ? " " : "", clv_filter_param(f, j)->name);
        printf("' ;;\n");
    }
    case_arm(opencl_name, "", opencl_params);
    printf("    esac\n}\n\n");

    /* An enumeration's choices are written "luma|gray". */
    printf("# The words of each enumeration, as FILTER.PARAMETER.\n_clvid_choices() {\n"
           "    case $1 in\n");
    for (int i = 0; i < clv_filter_count(); i++) {
        const clv_filter *f = clv_filter_at(i);
        for (int j = 0; j < clv_filter_param_count(f); j++) {
            const clv_param *p = clv_filter_param(f, j);
            if (p->type != CLV_PARAM_ENUM || !p->choices)
                continue;
            printf("    %s.%s) echo '", clv_filter_name(f), p->name);
            for (const char *c = p->choices; *c; c++)
                putchar(*c == '|' ? ' ' : *c);
            printf("' ;;\n");
        }
    }
    printf("    esac\n}\n\n");
}

static void print_command_data(void)
{
    printf("_clvid_commands='");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(commands[i].name, "clvid-bench"))
            printf("%s ", commands[i].name);
    printf("--help --version'\n\n");

    printf("# The options each command offers, and those that take a value.\n"
           "_clvid_options() {\n    case $1 in\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        case_arm(commands[i].name, "", commands[i].offered);
    printf("    esac\n}\n\n_clvid_valued() {\n    case $1 in\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        case_arm(commands[i].name, "", commands[i].valued);
    printf("    esac\n}\n\n");
}

static int print_bash(void)
{
    printf("# bash completion for clvid and clvid-bench (clvid %s), written by\n"
           "# `clvid completion bash`: commands, their options, filters and their\n"
           "# parameters after -vf and --chain, OpenCL devices after --device.\n\n",
           clv_version());
    print_command_data();
    print_filter_data();
    fputs(script_body, stdout);
    return fflush(stdout) ? CLV_EXIT_RUNTIME : CLV_EXIT_OK;
}

/* One device index a line, for the script's --device: quietly nothing when
 * there is no OpenCL platform, since a completion has nowhere to say why. */
static int print_devices(void)
{
    clv_device_info *list = NULL;
    clv_msg msg = {{0}};
    int count = clv_device_list(&list, &msg);
    for (int i = 0; i < count; i++)
        printf("%d\n", list[i].index);
    free(list);
    return CLV_EXIT_OK;
}

static void usage(FILE *out)
{
    fprintf(out, "usage: clvid completion bash      print the bash completion script for clvid\n"
                 "                                  and clvid-bench (source it, or install it\n"
                 "                                  as completions/clvid of bash-completion)\n"
                 "       clvid completion devices   the OpenCL device indices, one a line (the\n"
                 "                                  script's --device)\n");
}

int clv_cmd_completion(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "bash"))
        return print_bash();
    if (argc == 2 && !strcmp(argv[1], "devices"))
        return print_devices();
    if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        usage(stdout);
        return CLV_EXIT_OK;
    }
    if (argc < 2)
        fprintf(stderr, "clvid completion: name the shell (bash)\n");
    else
        fprintf(stderr, "clvid completion: '%s': only bash is written\n", argv[1]);
    usage(stderr);
    return CLV_EXIT_USAGE;
}
