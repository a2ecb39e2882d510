/* filter.c - the registry as the API shows it: lookups by index and name,
 * and a descriptor's fields. */
#include "clvid_internal.h"

#include <string.h>

/* The API lists the registry's filters but the families (resolve set: the
 * `opencl` filter), which are no filter until their file is read. */

int clv_filter_count(void)
{
    int n = 0;
    for (int i = 0; i < clv__filter_count; i++)
        n += !clv__filters[i]->resolve;
    return n;
}

const clv_filter *clv_filter_at(int index)
{
    for (int i = 0; i < clv__filter_count; i++)
        if (!clv__filters[i]->resolve && index-- == 0)
            return clv__filters[i];
    return NULL;
}

const clv_filter *clv_filter_find(const char *name)
{
    for (int i = 0; i < clv__filter_count; i++)
        if (!clv__filters[i]->resolve && !strcmp(clv__filters[i]->name, name))
            return clv__filters[i];
    return NULL;
}

const char *clv_filter_name(const clv_filter *f)
{
    return f->name;
}

const char *clv_filter_help(const clv_filter *f)
{
    return f->help;
}

int clv_filter_param_count(const clv_filter *f)
{
    return f->param_count;
}

int clv_filter_temporal(const clv_filter *f)
{
    return f->temporal;
}

int clv_filter_deep(const clv_filter *f)
{
    return f->deep;
}

const char *clv_filter_file(const clv_filter *f)
{
    return f->file ? f->file(f, NULL) : NULL;
}

const clv_param *clv_filter_param(const clv_filter *f, int index)
{
    return index >= 0 && index < f->param_count ? &f->params[index] : NULL;
}
