/* abi_layout.c - the public structs' sizes and their members' offsets, as
 * the compiler lays them out from the installed headers, as JSON: the
 * Python binding's test compares its ctypes mirrors with these (a member
 * missing, moved or of another size would make the library read the wrong
 * bytes). */
#include <stddef.h>
#include <stdio.h>

#include "clvid/graph.h"
#include "clvid/opencl.h"
#include "clvid/pipeline.h"

#define MEMBER(type, m) printf("%s\"%s\": %zu", first++ ? ", " : "", #m, offsetof(type, m))
#define BEGIN(type)                                                                                \
    printf("%s\"%s\": {\"size\": %zu, \"offsets\": {", structs++ ? ", " : "", #type,               \
           sizeof(type));                                                                          \
    first = 0
#define END() printf("}}")

int main(void)
{
    int structs = 0, first = 0;
    printf("{");
    BEGIN(clv_msg);
    MEMBER(clv_msg, text);
    END();
    BEGIN(clv_context_options);
    MEMBER(clv_context_options, struct_size);
    MEMBER(clv_context_options, device);
    MEMBER(clv_context_options, profiling);
    MEMBER(clv_context_options, shape);
    MEMBER(clv_context_options, cache_dir);
    MEMBER(clv_context_options, no_cache);
    MEMBER(clv_context_options, kernel_dir);
    MEMBER(clv_context_options, log_level);
    MEMBER(clv_context_options, log);
    MEMBER(clv_context_options, log_user);
    MEMBER(clv_context_options, watchdog_s);
    MEMBER(clv_context_options, staging);
    MEMBER(clv_context_options, cache_every_driver);
    END();
    BEGIN(clv_device_info);
    MEMBER(clv_device_info, index);
    MEMBER(clv_device_info, platform);
    MEMBER(clv_device_info, name);
    MEMBER(clv_device_info, driver);
    MEMBER(clv_device_info, version);
    MEMBER(clv_device_info, is_gpu);
    MEMBER(clv_device_info, is_cpu);
    MEMBER(clv_device_info, compute_units);
    MEMBER(clv_device_info, global_mem);
    MEMBER(clv_device_info, local_mem);
    MEMBER(clv_device_info, max_alloc);
    MEMBER(clv_device_info, platform_id);
    MEMBER(clv_device_info, device_id);
    END();
    BEGIN(clv_image);
    MEMBER(clv_image, pixels);
    MEMBER(clv_image, width);
    MEMBER(clv_image, height);
    MEMBER(clv_image, stride);
    MEMBER(clv_image, depth);
    END();
    BEGIN(clv_size);
    MEMBER(clv_size, width);
    MEMBER(clv_size, height);
    MEMBER(clv_size, sar_num);
    MEMBER(clv_size, sar_den);
    MEMBER(clv_size, transfer);
    MEMBER(clv_size, primaries);
    MEMBER(clv_size, peak);
    END();
    BEGIN(clv_frame);
    MEMBER(clv_frame, buffer);
    MEMBER(clv_frame, width);
    MEMBER(clv_frame, height);
    MEMBER(clv_frame, stride);
    MEMBER(clv_frame, depth);
    END();
    BEGIN(clv_param);
    MEMBER(clv_param, name);
    MEMBER(clv_param, type);
    MEMBER(clv_param, def);
    MEMBER(clv_param, min);
    MEMBER(clv_param, max);
    MEMBER(clv_param, choices);
    MEMBER(clv_param, help);
    MEMBER(clv_param, step);
    END();
    BEGIN(clv_transcode_status);
    MEMBER(clv_transcode_status, event);
    MEMBER(clv_transcode_status, input);
    MEMBER(clv_transcode_status, output);
    MEMBER(clv_transcode_status, width);
    MEMBER(clv_transcode_status, height);
    MEMBER(clv_transcode_status, rotation);
    MEMBER(clv_transcode_status, input_pix_fmt);
    MEMBER(clv_transcode_status, matrix);
    MEMBER(clv_transcode_status, full_range);
    MEMBER(clv_transcode_status, chain);
    MEMBER(clv_transcode_status, device);
    MEMBER(clv_transcode_status, codec);
    MEMBER(clv_transcode_status, output_pix_fmt);
    MEMBER(clv_transcode_status, partial_path);
    MEMBER(clv_transcode_status, total_seconds);
    MEMBER(clv_transcode_status, frames);
    MEMBER(clv_transcode_status, out_seconds);
    MEMBER(clv_transcode_status, elapsed);
    MEMBER(clv_transcode_status, stopped);
    MEMBER(clv_transcode_status, decode_s);
    MEMBER(clv_transcode_status, upload_s);
    MEMBER(clv_transcode_status, kernels_s);
    MEMBER(clv_transcode_status, download_s);
    MEMBER(clv_transcode_status, encode_s);
    MEMBER(clv_transcode_status, device_shares);
    MEMBER(clv_transcode_status, first_frame_s);
    MEMBER(clv_transcode_status, shared_staging);
    MEMBER(clv_transcode_status, corrupt_packets);
    MEMBER(clv_transcode_status, corrupt_frames);
    MEMBER(clv_transcode_status, latency_p50_ms);
    MEMBER(clv_transcode_status, latency_p99_ms);
    MEMBER(clv_transcode_status, latency_max_ms);
    MEMBER(clv_transcode_status, latency_mean_ms);
    MEMBER(clv_transcode_status, encoder_p50_ms);
    MEMBER(clv_transcode_status, encoder_p99_ms);
    MEMBER(clv_transcode_status, decode);
    MEMBER(clv_transcode_status, partial_paths);
    END();
    BEGIN(clv_media_info);
    MEMBER(clv_media_info, width);
    MEMBER(clv_media_info, height);
    MEMBER(clv_media_info, rate_num);
    MEMBER(clv_media_info, rate_den);
    MEMBER(clv_media_info, duration);
    MEMBER(clv_media_info, frames);
    MEMBER(clv_media_info, audio_streams);
    END();
    BEGIN(clv_transcode_input);
    MEMBER(clv_transcode_input, path);
    MEMBER(clv_transcode_input, format);
    MEMBER(clv_transcode_input, start_us);
    MEMBER(clv_transcode_input, duration_us);
    MEMBER(clv_transcode_input, offset_us);
    END();
    BEGIN(clv_graph_sync);
    MEMBER(clv_graph_sync, offset);
    MEMBER(clv_graph_sync, drive_from);
    MEMBER(clv_graph_sync, drive_until);
    MEMBER(clv_graph_sync, from);
    MEMBER(clv_graph_sync, until);
    MEMBER(clv_graph_sync, eof_action);
    MEMBER(clv_graph_sync, wait_first);
    END();
    printf("}\n");
    return 0;
}
