# bench.cmake - clvid-bench runs and its JSON is well formed (speed is not
# checked here: that is for benchmarks, not tests).
execute_process(COMMAND ${BENCH} --size 67x45 --frames 3 --warmup 1 --json
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "clvid-bench failed (${status}):\n${out}\n${err}")
endif()
string(JSON count LENGTH "${out}" filters)
if(count LESS 12)
  message(FATAL_ERROR "clvid-bench --json lists ${count} filters:\n${out}")
endif()
math(EXPR last "${count} - 1")
foreach(i RANGE ${last})
  string(JSON name GET "${out}" filters ${i} filter)
  string(JSON us GET "${out}" filters ${i} median_us)
  string(JSON gbs GET "${out}" filters ${i} gb_per_s)
  if(NOT us GREATER 0)
    message(FATAL_ERROR "filter ${name}: median_us ${us} is not positive")
  endif()
  message(STATUS "${name}: ${us} us, ${gbs} GB/s")
endforeach()
string(JSON width GET "${out}" width)
string(JSON device GET "${out}" device)
if(NOT width EQUAL 67)
  message(FATAL_ERROR "width ${width}")
endif()
message(STATUS "clvid-bench ran on ${device}")
# The table form too.
execute_process(COMMAND ${BENCH} --size 16x16 --frames 1 --chain gray RESULT_VARIABLE status
                OUTPUT_VARIABLE out)
if(NOT status EQUAL 0 OR NOT out MATCHES "gray")
  message(FATAL_ERROR "table output:\n${out}")
endif()
# The pipeline mode (the whole GPU stage) runs and reports both figures.
execute_process(COMMAND ${BENCH} --pipeline --size 64x36 --frames 4 --chain sharpen --json
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "clvid-bench --pipeline failed (${status}):\n${out}\n${err}")
endif()
string(JSON fps GET "${out}" pipeline_fps)
string(JSON bound GET "${out}" transfer_bound_fps)
if(NOT fps GREATER 0 OR NOT bound GREATER 0)
  message(FATAL_ERROR "pipeline figures: ${out}")
endif()
message(STATUS "pipeline ${fps} frames/s, transfer bound ${bound}")
# --blocks: the frames from the stage's blocks beside the copies, the path
# said (shared memory on PoCL by default, pinned with CLVID_STAGING=copy).
foreach(staging "" copy)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env CLVID_STAGING=${staging}
                          ${BENCH} --pipeline --blocks --size 33x17 --frames 4 --chain sharpen --json
                  RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "clvid-bench --pipeline --blocks failed (${status}):\n${out}\n${err}")
  endif()
  string(JSON bfps GET "${out}" blocks fps)
  string(JSON bin GET "${out}" blocks in)
  string(JSON bout GET "${out}" blocks out)
  if(staging STREQUAL "copy")
    set(want_in pinned)
    set(want_out "kept pinned")
  else()
    set(want_in shared)
    set(want_out "kept shared")
  endif()
  if(NOT bfps GREATER 0 OR NOT bin STREQUAL want_in OR NOT bout STREQUAL want_out)
    message(FATAL_ERROR "--blocks (staging '${staging}'): ${out}")
  endif()
  message(STATUS "blocks (${bin} in, ${bout} out) ${bfps} frames/s")
endforeach()
# --slots: the stage's slots a device, said in the JSON; out of range refused.
execute_process(COMMAND ${BENCH} --pipeline --blocks --slots 5 --size 17x9 --frames 12 --chain sharpen
                        --json
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "clvid-bench --pipeline --slots 5 failed (${status}):\n${out}\n${err}")
endif()
string(JSON slots GET "${out}" slots)
string(JSON sfps GET "${out}" blocks fps)
if(NOT slots EQUAL 5 OR NOT sfps GREATER 0)
  message(FATAL_ERROR "--slots 5: ${out}")
endif()
foreach(bad 1 17 x)
  execute_process(COMMAND ${BENCH} --pipeline --slots ${bad} RESULT_VARIABLE status
                  ERROR_VARIABLE err OUTPUT_QUIET)
  if(NOT status EQUAL 2 OR NOT err MATCHES "--slots ${bad}: expected an integer from 2 to 16")
    message(FATAL_ERROR "--slots ${bad} (${status}): ${err}")
  endif()
endforeach()
execute_process(COMMAND ${BENCH} --blocks --chain sharpen RESULT_VARIABLE status
                ERROR_VARIABLE err OUTPUT_QUIET)
if(NOT status EQUAL 2 OR NOT err MATCHES "with --pipeline")
  message(FATAL_ERROR "--blocks without --pipeline (${status}): ${err}")
endif()
# --input: a clip of three frames (its frame count in the JSON, also through
# the pipeline) and a file that is not whole frames (refused, naming it).
set(clip ${CMAKE_CURRENT_BINARY_DIR}/bench-clip.rgba)
string(REPEAT "0123456789abcdef" 36 frame) # 16x9 RGBA: 576 bytes
file(WRITE ${clip} "${frame}${frame}${frame}")
execute_process(COMMAND ${BENCH} --size 16x9 --frames 5 --chain quantize --input ${clip} --json
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "clvid-bench --input (a clip) failed (${status}):\n${out}\n${err}")
endif()
string(JSON pictures GET "${out}" pictures)
if(NOT pictures EQUAL 3)
  message(FATAL_ERROR "a three-frame clip reported as ${pictures} pictures:\n${out}")
endif()
execute_process(COMMAND ${BENCH} --pipeline --size 16x9 --frames 4 --chain quantize --input ${clip}
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "clvid-bench --pipeline --input (a clip) failed (${status}):\n${out}\n${err}")
endif()
file(WRITE ${clip} "${frame}${frame}x")
execute_process(COMMAND ${BENCH} --size 16x9 --frames 1 --chain gray --input ${clip}
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(status EQUAL 0 OR NOT err MATCHES "bench-clip.rgba: its size is not a whole number of frames")
  message(FATAL_ERROR "a partial frame was not refused (${status}):\n${err}")
endif()
file(REMOVE ${clip})
# A deinterlacer: a run per frame out (send_field: two per frame in, the
# first untimed runs covering its first, frameless outputs), said in the
# table; two in one chain are refused.
execute_process(COMMAND ${BENCH} --size 33x17 --frames 3 --warmup 0 --chain bwdif
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 0 OR NOT out MATCHES "a deinterlacer: a run per frame out \\(send_field")
  message(FATAL_ERROR "clvid-bench --chain bwdif (${status}):\n${out}\n${err}")
endif()
execute_process(COMMAND ${BENCH} --pipeline --size 33x17 --frames 3 --chain yadif --json
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "clvid-bench --pipeline --chain yadif failed (${status}):\n${out}\n${err}")
endif()
execute_process(COMMAND ${BENCH} --size 16x16 --chain yadif,bwdif RESULT_VARIABLE status
                ERROR_VARIABLE err)
if(status EQUAL 0 OR NOT err MATCHES "both hold frames back")
  message(FATAL_ERROR "yadif,bwdif: status ${status}, ${err}")
endif()
# A graph of several inputs (--graph): its output size and a time.
execute_process(COMMAND ${BENCH} --graph "[0][1]vstack[a];[2][3]vstack[b];[a][b]hstack" --size 16x9 --frames 2 --json
                RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "clvid-bench --graph failed (${status}):\n${out}\n${err}")
endif()
string(JSON ow GET "${out}" out_width)
string(JSON oh GET "${out}" out_height)
string(JSON inputs GET "${out}" inputs)
string(JSON ms GET "${out}" ms_per_frame)
if(NOT ow EQUAL 32 OR NOT oh EQUAL 18 OR NOT inputs EQUAL 4 OR NOT ms GREATER 0)
  message(FATAL_ERROR "clvid-bench --graph:\n${out}")
endif()
# A graph's mistake is a usage error (2) with the parser's message.
execute_process(COMMAND ${BENCH} --graph "[0][1]hstak" --size 16x9 RESULT_VARIABLE status
                OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT status EQUAL 2 OR NOT err MATCHES "unknown filter 'hstak'")
  message(FATAL_ERROR "clvid-bench --graph with a mistake: ${status}\n${err}")
endif()
