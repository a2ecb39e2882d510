# bench_decode.cmake - clvid-bench --pipeline --input VIDEO: a real decode
# timed alone, into the stage's blocks and through copies, on both stagings
# (shared memory on PoCL by default, pinned with CLVID_STAGING=copy), the
# paths named in the JSON; a clip shorter than --frames is looped; a missing
# clip, an unknown or unavailable -hwaccel are clean errors with nothing on
# stdout. Speed is not checked here.
set(sample ${MEDIA_DIR}/sample.mp4)
foreach(staging "" copy)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env CLVID_STAGING=${staging}
                          ${BENCH} --pipeline --input ${sample} --frames 10 --chain sharpen --json
                  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "clvid-bench --pipeline --input sample.mp4 (staging '${staging}') "
                        "failed (${status}):\n${out}\n${err}")
  endif()
  string(JSON decode_fps GET "${out}" decode_alone fps)
  string(JSON into GET "${out}" decode_alone into)
  string(JSON bfps GET "${out}" blocks fps)
  string(JSON bin GET "${out}" blocks in)
  string(JSON bout GET "${out}" blocks out)
  string(JSON ratio GET "${out}" blocks fraction_of_decode)
  string(JSON cfps GET "${out}" copies fps)
  string(JSON cin GET "${out}" copies in)
  string(JSON decode GET "${out}" decode)
  string(JSON in_format GET "${out}" in_format)
  string(JSON width GET "${out}" width)
  if(staging STREQUAL "copy")
    set(kind pinned)
  else()
    set(kind shared)
  endif()
  if(NOT decode_fps GREATER 0 OR NOT bfps GREATER 0 OR NOT cfps GREATER 0 OR NOT ratio GREATER 0
     OR NOT into STREQUAL "${kind} blocks" OR NOT bin STREQUAL kind
     OR NOT bout STREQUAL "kept ${kind}" OR NOT cin STREQUAL "copies"
     OR NOT decode STREQUAL "software" OR NOT in_format STREQUAL "yuv420p" OR NOT width EQUAL 1280)
    message(FATAL_ERROR "--input sample.mp4 (staging '${staging}'): ${out}")
  endif()
  message(STATUS "staging '${staging}': decode ${decode_fps}, blocks ${bfps} (${bin} in, ${bout} "
                 "out), copies ${cfps} frames/s")
endforeach()
# The table form names the three runs.
execute_process(COMMAND ${BENCH} --pipeline --input ${sample} --frames 2 --chain gray
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 0 OR NOT out MATCHES "decode alone:" OR NOT out MATCHES "decode -> blocks"
   OR NOT out MATCHES "decode -> copies")
  message(FATAL_ERROR "table (${status}):\n${out}\n${err}")
endif()
# A clip shorter than --frames goes round again: 5 frames of an odd size
# (ffv1 takes 33x17 in yuv420p), made with ffmpeg when it is there.
find_program(FFMPEG ffmpeg)
if(FFMPEG)
  set(short ${WORK_DIR}/bench-decode-short.mkv)
  execute_process(COMMAND ${FFMPEG} -v error -y -f lavfi -i testsrc=size=33x17:rate=25
                          -frames:v 5 -pix_fmt yuv420p -c:v ffv1 ${short} RESULT_VARIABLE status)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "ffmpeg could not make ${short}")
  endif()
  execute_process(COMMAND ${BENCH} --pipeline --input ${short} --frames 12 --chain sharpen --json
                  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  file(REMOVE ${short})
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "a 5-frame clip (${status}):\n${out}\n${err}")
  endif()
  string(JSON looped GET "${out}" looped)
  string(JSON clip_frames GET "${out}" clip_frames)
  string(JSON width GET "${out}" width)
  string(JSON bin GET "${out}" blocks in)
  if(NOT looped STREQUAL "ON" AND NOT looped STREQUAL "true" OR NOT clip_frames EQUAL 5
     OR NOT width EQUAL 33 OR NOT bin STREQUAL "shared")
    message(FATAL_ERROR "a 5-frame clip, 12 frames a run: ${out}")
  endif()
else()
  message(STATUS "no ffmpeg: the looped clip is not tried")
endif()
# Errors: nothing on stdout, the exit status and a message naming the fault.
function(refused want_status want_err)
  execute_process(COMMAND ${BENCH} ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(NOT status EQUAL want_status OR NOT err MATCHES "${want_err}" OR NOT out STREQUAL "")
    message(FATAL_ERROR "${ARGN}: status ${status} (want ${want_status}), stdout '${out}', "
                        "stderr:\n${err}")
  endif()
endfunction()
refused(1 "cannot open input '${WORK_DIR}/no-such-clip.mp4'" --pipeline --input
        ${WORK_DIR}/no-such-clip.mp4 --chain gray --json)
refused(2 "--hwaccel foo: expected none, auto" --pipeline --input ${sample} --hwaccel foo
        --chain gray)
refused(2 "is a video: it is timed through the GPU stage with --pipeline" --input ${sample}
        --chain gray)
refused(2 "--hwaccel cuda decodes --input VIDEO" --pipeline --hwaccel cuda --chain gray)
# -hwaccel cuda: a clean error where there is no NVIDIA GPU (CI, PoCL);
# where there is one, the decode said to be cuda's.
execute_process(COMMAND ${BENCH} --pipeline --input ${sample} --hwaccel cuda --frames 2
                        --chain gray --json
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(status EQUAL 0)
  string(JSON decode GET "${out}" decode)
  string(JSON in_format GET "${out}" in_format)
  if(NOT decode MATCHES "^cuda" OR NOT in_format STREQUAL "nv12")
    message(FATAL_ERROR "--hwaccel cuda: ${out}")
  endif()
  message(STATUS "--hwaccel cuda ran: ${decode}, ${in_format}")
elseif(NOT status EQUAL 1 OR NOT err MATCHES "-hwaccel cuda: '[^']*sample.mp4'"
       OR NOT out STREQUAL "")
  message(FATAL_ERROR "--hwaccel cuda without a GPU: status ${status}, stdout '${out}', "
                      "stderr:\n${err}")
else()
  message(STATUS "--hwaccel cuda refused here, as it should be")
endif()
