# median_networks.cmake - cl/median_networks.cl is generated: writes it
# again with scripts/gen-median-networks.py into WORK and compares.
#   cmake -DPYTHON=python3 -DSOURCE=<source dir> -DWORK=<empty dir> -P median_networks.cmake
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
execute_process(COMMAND "${PYTHON}" "${SOURCE}/scripts/gen-median-networks.py" --out "${WORK}"
                RESULT_VARIABLE status ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "scripts/gen-median-networks.py failed (${status}):\n${err}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${SOURCE}/cl/median_networks.cl"
                        "${WORK}/median_networks.cl" RESULT_VARIABLE differ)
if(NOT differ EQUAL 0)
  find_program(DIFF diff)
  if(DIFF)
    execute_process(COMMAND ${DIFF} -u "${SOURCE}/cl/median_networks.cl"
                            "${WORK}/median_networks.cl")
  endif()
  message(FATAL_ERROR "cl/median_networks.cl is not what scripts/gen-median-networks.py "
                      "writes; run it (it writes cl/ by default) rather than editing the file")
endif()
message(STATUS "cl/median_networks.cl is as generated")
