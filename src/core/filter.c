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
    for (int i = 0; i < clv__graph_filter_count; i++)
        if (!strcmp(clv__graph_filters[i]->name, name))
            return clv__graph_filters[i];
    return NULL;
}

int clv_graph_filter_count(void)
{
    return clv__graph_filter_count;
}

const clv_filter *clv_graph_filter_at(int index)
{
    return index >= 0 && index < clv__graph_filter_count ? clv__graph_filters[index] : NULL;
}

/* The value of f's INT parameter `name` in v, or `otherwise` when f has no
 * such parameter. */
static int count_param(const clv_filter *f, const char *name, const clv_value *v, int otherwise)
{
    for (int i = 0; name && i < f->param_count; i++)
        if (!strcmp(f->params[i].name, name))
            return (int)v[i].i;
    return otherwise;
}

/* The values of f's defaults (which the table holds as valid text). */
static void defaults(const clv_filter *f, clv_value *v)
{
    for (int i = 0; i < f->param_count; i++)
        clv_param_parse(f, i, f->params[i].def, &v[i], NULL);
}

int clv__filter_inputs(const clv_filter *f, const clv_value *v)
{
    if (f->input_count)
        return f->input_count(v);
    return count_param(f, f->inputs_param, v, f->inputs > 0 ? f->inputs : 1);
}

int clv__filter_outputs(const clv_filter *f, const clv_value *v)
{
    return count_param(f, f->outputs_param, v, f->outputs > 0 ? f->outputs : 1);
}

int clv_filter_inputs(const clv_filter *f)
{
    clv_value v[CLV_PARAMS_MAX];
    defaults(f, v);
    return clv__filter_inputs(f, v);
}

int clv_filter_outputs(const clv_filter *f)
{
    clv_value v[CLV_PARAMS_MAX];
    defaults(f, v);
    return clv__filter_outputs(f, v);
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
