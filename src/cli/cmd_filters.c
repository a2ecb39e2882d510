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

int clv_cmd_filters(int argc, char **argv)
{
    (void)argv;
    if (argc > 1) {
        fprintf(stderr, "clvid filters: takes no arguments\n");
        return CLV_EXIT_USAGE;
    }
    printf("Filters (chain them with commas: -vf 'median=radius=2,sharpen'):\n");
    for (int i = 0; i < clv_filter_count(); i++) {
        const clv_filter *f = clv_filter_at(i);
        printf("\n  %-12s %s\n", clv_filter_name(f), clv_filter_help(f));
        for (int j = 0; j < clv_filter_param_count(f); j++) {
            const clv_param *p = clv_filter_param(f, j);
            printf("      %-11s ", p->name);
            print_range(p);
            printf(", default %s%s%s\n", p->type == CLV_PARAM_MATRIX ? "'" : "", p->def,
                   p->type == CLV_PARAM_MATRIX ? "'" : "");
            printf("                  %s\n", p->help);
        }
    }
    return CLV_EXIT_OK;
}
