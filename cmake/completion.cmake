# completion.cmake - runs `CLVID completion bash` into OUTPUT at build time
# (cmake -DCLVID=... -DOUTPUT=... -P completion.cmake), failing the build
# when the command fails, so that no empty script is installed.
get_filename_component(dir ${OUTPUT} DIRECTORY)
file(MAKE_DIRECTORY ${dir})
execute_process(COMMAND ${CLVID} completion bash OUTPUT_FILE ${OUTPUT}.tmp RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  file(REMOVE ${OUTPUT}.tmp)
  message(FATAL_ERROR "${CLVID} completion bash failed: ${status}")
endif()
file(RENAME ${OUTPUT}.tmp ${OUTPUT})
