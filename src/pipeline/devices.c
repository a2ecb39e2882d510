/* devices.c - what the pipeline and the player say about a run over several
 * devices, and the fault hook of the tests. */
#include "sink.h"

#include <stdio.h>
#include <string.h>

#include "../io/io.h"
#include "clvid/testing.h"

void clv_devices_text(clv_context *ctx, char *out, size_t size)
{
    int n = clv_context_device_count(ctx);
    if (n == 1) {
        snprintf(out, size, "%s", clv_context_device(ctx)->name);
        return;
    }
    size_t used = 0;
    out[0] = 0;
    for (int d = 0; d < n && used < size; d++) {
        const clv_device_info *dev = clv_context_device_at(ctx, d);
        used += (size_t)snprintf(out + used, size - used, "%s#%d %s", d ? " + " : "", dev->index,
                                 dev->name);
    }
}

void clv_device_shares_text(clv_context *ctx, const clv_stage *stage, char *out, size_t size)
{
    int n = clv_stage_device_count(stage);
    out[0] = 0;
    if (n < 2)
        return;
    uint64_t total = 0;
    for (int d = 0; d < n; d++) {
        clv_stage_device s;
        clv_stage_device_stats(stage, d, &s);
        total += s.frames;
    }
    size_t used = 0;
    for (int d = 0; d < n && used < size; d++) {
        clv_stage_device s;
        clv_stage_device_stats(stage, d, &s);
        used += (size_t)snprintf(
            out + used, size - used, "%s#%d %s %llu frames (%.0f%%) %.2f ms/frame%s", d ? "; " : "",
            clv_context_device_at(ctx, d)->index, s.name, (unsigned long long)s.frames,
            total ? 100.0 * (double)s.frames / (double)total : 0.0,
            s.frames ? s.busy_ms / (double)s.frames : 0.0, s.failed ? " FAILED" : "");
    }
}

void clv_device_faults_from_env(clv_stage *stage)
{
    for (int d = 0; d < clv_stage_device_count(stage); d++) {
        char where[24];
        snprintf(where, sizeof where, "device%d", d);
        int64_t after = clv_fault_after(where);
        if (after >= 0)
            clv_stage_inject_fault(stage, d, (uint64_t)after);
    }
}
