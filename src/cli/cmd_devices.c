/* cmd_devices.c - `clvid devices`: the flat list of every platform's OpenCL
 * devices, with the default marked. */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clvid.h"

int clv_cmd_devices(int argc, char **argv)
{
    if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
        printf("usage: clvid devices\n"
               "Lists every OpenCL device of every platform (index, platform, name, type,\n"
               "compute units, memory, OpenCL C version); * marks the one used by default\n"
               "(CLVID_DEVICE, else the first GPU, else the first device). --device takes\n"
               "an index, a name's part, gpu, cpu, all or a list (0,1).\n");
        return CLV_EXIT_OK;
    }
    if (argc > 1) {
        fprintf(stderr, "clvid devices: takes no arguments (unexpected '%s')\n", argv[1]);
        return CLV_EXIT_USAGE;
    }
    clv_msg msg = {{0}};
    clv_device_info *list = NULL;
    int count = clv_device_list(&list, &msg);
    if (count < 0) {
        fprintf(stderr, "clvid: %s\n", msg.text);
        return CLV_EXIT_RUNTIME;
    }
    int chosen = clv_device_select(list, count, NULL, &msg);
    printf("%-3s %-4s %-28s %-44s %-5s %4s %10s %9s  %s\n", "", "#", "platform", "device", "type",
           "CUs", "global MiB", "local KiB", "OpenCL C");
    for (int i = 0; i < count; i++) {
        const clv_device_info *d = &list[i];
        printf("%-3s %-4d %-28.28s %-44.44s %-5s %4u %10llu %9llu  %s\n", i == chosen ? "*" : "",
               d->index, d->platform, d->name,
               d->is_gpu   ? "GPU"
               : d->is_cpu ? "CPU"
                           : "other",
               d->compute_units, (unsigned long long)(d->global_mem >> 20),
               (unsigned long long)(d->local_mem >> 10), d->version);
    }
    if (chosen < 0)
        fprintf(stderr, "clvid: %s\n", msg.text);
    else
        printf("\n* the default (--device N|NAME or CLVID_DEVICE picks another)\n");
    free(list);
    return chosen < 0 ? CLV_EXIT_USAGE : CLV_EXIT_OK;
}
