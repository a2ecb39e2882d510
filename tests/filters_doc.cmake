# filters_doc.cmake - docs/filters.md is what `clvid filters --markdown`
# writes from the registry: a filter or parameter changed without the page
# regenerated fails here, with the command that regenerates it.
execute_process(COMMAND ${CLVID} filters --markdown RESULT_VARIABLE status
                OUTPUT_VARIABLE generated ERROR_VARIABLE err)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "clvid filters --markdown: exit ${status}\n${err}")
endif()
file(READ ${SOURCE_DIR}/docs/filters.md committed)
if(NOT generated STREQUAL committed)
  file(WRITE ${WORK_DIR}/filters.md "${generated}")
  message("docs/filters.md (-) against what clvid filters --markdown writes (+):")
  execute_process(COMMAND diff -u ${SOURCE_DIR}/docs/filters.md ${WORK_DIR}/filters.md)
  message(FATAL_ERROR "docs/filters.md is not what the filter registry gives. Regenerate it "
                      "in the source tree with `./build/clvid filters --markdown > "
                      "docs/filters.md` (the clvid of your build folder) and commit it.")
endif()
message(STATUS "ok: docs/filters.md is what clvid filters --markdown writes")
