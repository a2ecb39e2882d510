/* cmd_filters.c - `clvid filters`: every filter with its parameters,
 * generated from the descriptors' tables. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

#include "clvid.h"

static void print_range(const clv_param *p)
{
    switch (p->type) {
    case CLV_PARAM_INT:
        printf("integer %.0f..%.0f", p->min, p->max);
        break;
    case CLV_PARAM_REAL:
        printf("number %g..%g", p->min, p->max);
        break;
    case CLV_PARAM_ENUM:
        printf("one of %s", p->choices);
        break;
    case CLV_PARAM_MATRIX:
        printf("9/25/49 integers %.0f..%.0f", p->min, p->max);
        break;
    }
}

static void print_params(const clv_filter *f)
{
    for (int j = 0; j < clv_filter_param_count(f); j++) {
        const clv_param *p = clv_filter_param(f, j);
        printf("      %-11s ", p->name);
        print_range(p);
        printf(", default %s%s%s", p->type == CLV_PARAM_MATRIX ? "'" : "", p->def,
               p->type == CLV_PARAM_MATRIX ? "'" : "");
        if (p->type == CLV_PARAM_INT || p->type == CLV_PARAM_REAL)
            printf(", step %g", p->step);
        printf("\n                  %s\n", p->help);
    }
}

int clv_cmd_filters(int argc, char **argv)
{
    const char *file = NULL, *kernel = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--file") && i + 1 < argc)
            file = argv[++i];
        else if (!strcmp(argv[i], "--kernel") && i + 1 < argc)
            kernel = argv[++i];
        else {
            fprintf(stderr,
                    "clvid filters: unexpected '%s' (usage: clvid filters [--file KERNEL.cl "
                    "[--kernel NAME]])\n",
                    argv[i]);
            return CLV_EXIT_USAGE;
        }
    }
    if (kernel && !file) {
        fprintf(stderr, "clvid filters: --kernel needs --file\n");
        return CLV_EXIT_USAGE;
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
        if (!clv_filter_param_count(f))
            printf("      (no parameters: declare them with '// @param float NAME = DEFAULT "
                   "[MIN, MAX] step STEP')\n");
        print_params(f);
        return CLV_EXIT_OK;
    }
    printf("Filters (chain them with commas: -vf 'median=radius=2,sharpen'):\n");
    for (int i = 0; i < clv_filter_count(); i++) {
        const clv_filter *f = clv_filter_at(i);
        printf("\n  %-12s %s\n", clv_filter_name(f), clv_filter_help(f));
        print_params(f);
    }
    printf("\n  %-12s your own kernel: opencl=file=PATH[:kernel=NAME][:PARAM=VALUE...]; its\n"
           "               parameters are declared in the file (clvid filters --file PATH)\n",
           "opencl");
    return CLV_EXIT_OK;
}
