/* cmd_filters.c - `clvid filters`: every filter with its parameters and the
 * bits a channel it runs at, generated from the descriptors' tables;
 * `--markdown` writes the same as docs/filters.md (a test compares the
 * two). */
#include "cli.h"

#include <stdio.h>
#include <string.h>

#include "clvid.h"
#include "graph.h"

static void print_range(const clv_param *p)
{
    switch (p->type) {
    case CLV_PARAM_INT:
        if (CLV_PARAM_IS_BOOLEAN(p))
            printf("boolean: 1/true/yes/on/enable, 0/false/no/off/disable%s",
                   p->min < 0 ? ", -1/auto" : "");
        else
            printf("integer %.0f..%.0f", p->min, p->max);
        break;
    case CLV_PARAM_REAL:
        printf("number %g..%g", p->min, p->max);
        break;
    case CLV_PARAM_ENUM:
        printf("one of %s", p->choices);
        if (p->max > p->min)
            printf(" or ffmpeg's numbers %.0f..%.0f", p->min, p->max);
        break;
    case CLV_PARAM_MATRIX:
        printf("9/25/49 integers %.0f..%.0f", p->min, p->max);
        break;
    case CLV_PARAM_EXPR:
        printf("expression%s%s", *p->choices ? " of " : "", p->choices);
        break;
    case CLV_PARAM_COLOR:
        printf("colour (name or 0xRRGGBB[AA])");
        break;
    case CLV_PARAM_FLAGS:
        printf("flags of %s, joined by +", p->choices);
        if (p->max > 0)
            printf(", or ffmpeg's numbers %.0f..%.0f", p->min, p->max);
        break;
    case CLV_PARAM_TEXT:
        printf("text");
        break;
    case CLV_PARAM_FILE:
        printf("file name");
        break;
    }
}

static void print_params(const clv_filter *f)
{
    for (int j = 0; j < clv_filter_param_count(f); j++) {
        const clv_param *p = clv_filter_param(f, j);
        printf("      %-11s ", p->name);
        print_range(p);
        printf(", default %s%s%s", p->type == CLV_PARAM_MATRIX ? "'" : "",
               *p->def ? p->def : "none", p->type == CLV_PARAM_MATRIX ? "'" : "");
        if (p->type == CLV_PARAM_INT || p->type == CLV_PARAM_REAL)
            printf(", step %g", p->step);
        printf("\n                  %s\n", p->help);
    }
}

/* Writes text for a Markdown table cell or paragraph: the characters that
 * Markdown would read as markup are escaped, so a help text such as
 * "(2*S + D) / (2*D)" or "luma|gray" reads as written. */
static void md_text(const char *text)
{
    for (const char *c = text; *c; c++) {
        if (strchr("\\`*_[]<>|#", *c))
            putchar('\\');
        putchar(*c);
    }
}

static const char *md_type(const clv_param *p)
{
    switch (p->type) {
    case CLV_PARAM_INT:
        return CLV_PARAM_IS_BOOLEAN(p) ? "boolean" : "integer";
    case CLV_PARAM_REAL:
        return "number (to 1/1000)";
    case CLV_PARAM_ENUM:
        return "one word";
    case CLV_PARAM_MATRIX:
        return "integer matrix";
    case CLV_PARAM_EXPR:
        return "expression";
    case CLV_PARAM_COLOR:
        return "colour";
    case CLV_PARAM_FLAGS:
        return "flags";
    case CLV_PARAM_TEXT:
        return "text";
    case CLV_PARAM_FILE:
        return "file name";
    }
    return "";
}

static void md_range(const clv_param *p)
{
    switch (p->type) {
    case CLV_PARAM_INT:
        /* ffmpeg's words for a boolean (clvid.h's CLV_PARAM_IS_BOOLEAN). */
        if (CLV_PARAM_IS_BOOLEAN(p))
            printf("`1`, `true`, `yes`, `on`, `enable`; `0`, `false`, `no`, `off`, "
                   "`disable`%s",
                   p->min < 0 ? "; `-1`, `auto`" : "");
        else
            printf("%.0f to %.0f", p->min, p->max);
        break;
    case CLV_PARAM_REAL:
        printf("%g to %g", p->min, p->max);
        break;
    case CLV_PARAM_ENUM:
        for (const char *c = p->choices; *c; c++) {
            if (*c == '|')
                printf("`, `");
            else {
                if (c == p->choices)
                    putchar('`');
                putchar(*c);
            }
        }
        putchar('`');
        /* ffmpeg's numbers for the words, in their order (clvid.h) */
        if (p->max > p->min)
            printf("; or ffmpeg's numbers %.0f to %.0f", p->min, p->max);
        break;
    case CLV_PARAM_MATRIX:
        printf("9, 25 or 49 integers, each %.0f to %.0f", p->min, p->max);
        break;
    case CLV_PARAM_EXPR:
        if (!*p->choices) {
            printf("ffmpeg's expressions of numbers, `+ - * / ^` and ffmpeg's functions");
            break;
        }
        /* fall through */
    case CLV_PARAM_FLAGS:
        printf("%s", p->type == CLV_PARAM_EXPR ? "ffmpeg's expressions of " : "");
        for (const char *c = p->choices; *c; c++) {
            if (*c == '|')
                printf("`, `");
            else {
                if (c == p->choices)
                    putchar('`');
                putchar(*c);
            }
        }
        printf(p->type == CLV_PARAM_FLAGS ? "`, joined by `+`"
                                          : "`, numbers, `+ - * / ^` and ffmpeg's functions");
        if (p->type == CLV_PARAM_FLAGS && p->max > 0)
            printf(", or ffmpeg's numbers %.0f to %.0f", p->min, p->max);
        break;
    case CLV_PARAM_COLOR:
        printf("ffmpeg's colour names, `0xRRGGBB[AA]`, `#RRGGBB[AA]`, `@ALPHA`");
        break;
    case CLV_PARAM_TEXT:
        printf("at most %d characters", CLV_EXPR_MAX);
        break;
    case CLV_PARAM_FILE:
        printf("a path of at most %d characters; empty: none", CLV_EXPR_MAX);
        break;
    }
}

/* docs/filters.md: every registered filter, its help and a table of its
 * parameters, in the registry's order. */
/* One filter's section of the markdown page. */
static void md_filter(const clv_filter *f)
{
    printf("\n## %s\n\n", clv_filter_name(f));
    md_text(clv_filter_help(f));
    printf(".\n\n%s\n", clv_filter_deep(f) ? "Runs at 8 and 16 bits a channel."
                                           : "Runs at 8 bits a channel only.");
    if (clv_filter_inputs(f) > 1 || clv_filter_outputs(f) > 1)
        printf("\nTakes %d input%s and gives %d output%s (with its default values).\n",
               clv_filter_inputs(f), clv_filter_inputs(f) == 1 ? "" : "s", clv_filter_outputs(f),
               clv_filter_outputs(f) == 1 ? "" : "s");
    if (clv_filter_temporal(f))
        printf("\nIts output depends on the frames before, so it is never split between "
               "devices or segments\n(it runs on the first device of a list; "
               "`clvid-cluster transcode` refuses it).\n");
    if (!clv_filter_param_count(f)) {
        printf("\nNo parameters.\n");
        return;
    }
    printf("\n| parameter | type | default | range | step | help |\n"
           "|---|---|---|---|---|---|\n");
    for (int j = 0; j < clv_filter_param_count(f); j++) {
        const clv_param *p = clv_filter_param(f, j);
        if (*p->def)
            printf("| `%s` | %s | `%s` | ", p->name, md_type(p), p->def);
        else
            printf("| `%s` | %s | none | ", p->name, md_type(p));
        md_range(p);
        if (p->type == CLV_PARAM_INT || p->type == CLV_PARAM_REAL)
            printf(" | %g | ", p->step);
        else
            printf(" | %s | ", p->type == CLV_PARAM_ENUM ? "next word" : "none");
        md_text(p->help);
        printf(" |\n");
    }
}

static void print_markdown(void)
{
    printf("# Filters\n\n"
           "<!-- Generated from the filter registry by `clvid filters --markdown`; do not edit.\n"
           "     Regenerate: ./build/clvid filters --markdown > docs/filters.md -->\n\n"
           "Chain filters with commas; parameters follow `=`, separated by colons, by name or "
           "in\n"
           "the table's order: `median=radius=2,sharpen,equalize=mode=gray`, `median=2`,\n"
           "`convolution=matrix='1 2 1 2 4 2 1 2 1'`. Frames are RGBA inside the chain, alpha\n"
           "passes through unchanged, and neighbourhood filters repeat the edge pixel at the\n"
           "borders. What each filter computes, exactly, is in\n"
           "[the architecture](architecture.md#what-the-filters-compute). A step is what one\n"
           "press of the window's up or down keys changes.\n\n"
           "An input of more than 8 bits a channel (10-bit HEVC, ProRes, 16-bit PNG) is "
           "filtered at\n"
           "16 bits a channel when every filter of the chain runs there; a filter that runs "
           "at 8 bits\n"
           "only keeps the whole chain at 8 (`clvid transcode` says which). Each filter says "
           "which it\n"
           "is below.\n\n"
           "ffmpeg's timeline option, `enable=EXPR`, switches a filter on and off frame by "
           "frame:\n"
           "`gblur=sigma=5:enable='between(t,10,20)'`, `hflip=enable='gte(n,100)'`. Where the\n"
           "expression (of `t`, the frame's time in seconds from its number and the frame "
           "rate;\n"
           "`n`, its number from 0; `w` and `h`, its size; `pos`, not known here: NaN) is "
           "under 0.5\n"
           "from 0, the frame passes on unchanged (a filter with state, hqdn3d or quantize, "
           "still\n"
           "takes it in). Every filter that keeps the frame's size and rate takes it, and "
           "rotate\n"
           "where its output keeps the input's size; scale, crop, pad, transpose, tonemap and "
           "the\n"
           "deinterlacers do not. In graphs overlay, blend and alphamerge take it too (off, "
           "their\n"
           "first input passes on).\n");
    for (int i = 0; i < clv_filter_count(); i++)
        md_filter(clv_filter_at(i));
    printf("\n## opencl\n\n"
           "Your own kernel: `opencl=file=PATH[:kernel=NAME][:PARAM=VALUE...]`. Its parameters "
           "are\n"
           "declared in the file and listed by `clvid filters --file PATH`; see\n"
           "[your own kernels](kernels.md).\n\n"
           "Runs at 8 and 16 bits a channel when the file is depth-generic (it names no `uchar` "
           "type:\n"
           "[16 bits](kernels.md#16-bits)); at 8 bits only otherwise.\n");
    printf("\n# Filters of graphs\n\n"
           "Filters of several inputs or outputs, which only a graph takes (`-filter_complex`, "
           "see\n[graphs](graphs.md)); a chain (`-vf`) refuses them.\n");
    for (int i = 0; i < clv_graph_filter_count(); i++)
        md_filter(clv_graph_filter_at(i));
}

int clv_cmd_filters(int argc, char **argv)
{
    const char *file = NULL, *kernel = NULL;
    int markdown = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            printf("usage: clvid filters [--markdown | --file KERNEL.cl [--kernel NAME]]\n"
                   "Lists every filter with its parameters (type, default, range, step);\n"
                   "--markdown as docs/filters.md's tables; --file: a user kernel's\n"
                   "parameters (opencl=file=KERNEL.cl), --kernel picking one of its kernels.\n");
            return CLV_EXIT_OK;
        } else if (!strcmp(argv[i], "--markdown"))
            markdown = 1;
        else if ((!strcmp(argv[i], "--file") || !strcmp(argv[i], "--kernel")) && i + 1 == argc) {
            fprintf(stderr, "clvid filters: %s needs a value\n", argv[i]);
            return CLV_EXIT_USAGE;
        } else if (!strcmp(argv[i], "--file"))
            file = argv[++i];
        else if (!strcmp(argv[i], "--kernel"))
            kernel = argv[++i];
        else {
            fprintf(stderr,
                    "clvid filters: unexpected '%s' (usage: clvid filters [--markdown | "
                    "--file KERNEL.cl [--kernel NAME]])\n",
                    argv[i]);
            return CLV_EXIT_USAGE;
        }
    }
    if (kernel && !file) {
        fprintf(stderr, "clvid filters: --kernel needs --file\n");
        return CLV_EXIT_USAGE;
    }
    if (markdown && file) {
        fprintf(stderr, "clvid filters: --markdown lists the registry; it takes no --file\n");
        return CLV_EXIT_USAGE;
    }
    if (markdown) {
        print_markdown();
        return CLV_EXIT_OK;
    }
    if (file) {
        const clv_filter *f = NULL;
        clv_msg msg = {{0}};
        int err = clv_kernel_file_load(file, kernel, &f, &msg);
        if (err) {
            fprintf(stderr, "clvid filters: %s\n", msg.text);
            return clv_cli_exit_status(err);
        }
        printf("opencl=file=%s  %s\n", file, clv_filter_help(f));
        printf("      runs at %s\n", clv_filter_deep(f)
                                         ? "8 and 16 bits a channel (the file is depth-generic)"
                                         : "8 bits a channel only (the file names uchar)");
        if (!clv_filter_param_count(f))
            printf("      (no parameters: declare them with '// @param float NAME = DEFAULT "
                   "[MIN, MAX] step STEP')\n");
        print_params(f);
        return CLV_EXIT_OK;
    }
    printf("Filters (chain them with commas: -vf 'median=radius=2,sharpen'), with the bits a\n"
           "channel each runs at: 8/16, or 8 only (an input of more than 8 bits is filtered at\n"
           "16 when every filter of the chain runs there):\n");
    for (int i = 0; i < clv_filter_count(); i++) {
        const clv_filter *f = clv_filter_at(i);
        printf("\n  %-12s %4s  %s\n", clv_filter_name(f), clv_filter_deep(f) ? "8/16" : "8",
               clv_filter_help(f));
        print_params(f);
    }
    printf("\n  %-12s %4s  your own kernel: opencl=file=PATH[:kernel=NAME][:PARAM=VALUE...];\n"
           "                     its parameters are declared in the file (clvid filters --file "
           "PATH);\n"
           "                     16 when the file is depth-generic (it names no uchar type)\n",
           "opencl", "8/16");
    printf("\nFilters of graphs (several inputs or outputs: -filter_complex "
           "'[0][1]hstack'; a chain\nrefuses them), with their inputs and outputs:\n");
    for (int i = 0; i < clv_graph_filter_count(); i++) {
        const clv_filter *f = clv_graph_filter_at(i);
        printf("\n  %-12s %4s  %d in, %d out: %s\n", clv_filter_name(f),
               clv_filter_deep(f) ? "8/16" : "8", clv_filter_inputs(f), clv_filter_outputs(f),
               clv_filter_help(f));
        print_params(f);
    }
    return CLV_EXIT_OK;
}
