# cli.cmake - the command line as a user meets it: exit statuses and the
# words of its messages.
function(expect_run)
  cmake_parse_arguments(E "" "STATUS;OUT;ERR" "COMMAND" ${ARGN})
  execute_process(COMMAND ${E_COMMAND} RESULT_VARIABLE status OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(NOT status EQUAL E_STATUS)
    message(FATAL_ERROR "${E_COMMAND}: exit ${status}, expected ${E_STATUS}\n${out}\n${err}")
  endif()
  if(E_OUT AND NOT out MATCHES "${E_OUT}")
    message(FATAL_ERROR "${E_COMMAND}: stdout lacks '${E_OUT}':\n${out}")
  endif()
  if(E_ERR AND NOT err MATCHES "${E_ERR}")
    message(FATAL_ERROR "${E_COMMAND}: stderr lacks '${E_ERR}':\n${err}")
  endif()
  message(STATUS "ok: ${E_COMMAND} -> ${status}")
endfunction()

expect_run(COMMAND ${CLVID} filters STATUS 0
           OUT "median +8(/16)? +per-channel median.*radius +integer 1\\.\\.7, default 1")
expect_run(COMMAND ${CLVID} filters STATUS 0 OUT "quantize.*colors +integer 1\\.\\.256")
expect_run(COMMAND ${CLVID} devices STATUS 0 OUT "\\* +0 ")
expect_run(COMMAND ${CLVID} --help STATUS 0 OUT "usage: clvid")
expect_run(COMMAND ${CLVID} STATUS 2 ERR "usage: clvid")
expect_run(COMMAND ${CLVID} frobnicate STATUS 2 ERR "unknown command 'frobnicate'")
expect_run(COMMAND ${CLVID} filters extra STATUS 2 ERR "unexpected .extra.")
expect_run(COMMAND ${CLVID} filters --help STATUS 0 OUT "usage: clvid filters")
expect_run(COMMAND ${CLVID} filters --file STATUS 2 ERR "--file needs a value")
expect_run(COMMAND ${CLVID} devices -h STATUS 0 OUT "usage: clvid devices")
expect_run(COMMAND ${CLVID} devices extra STATUS 2 ERR "takes no arguments .unexpected .extra..")
expect_run(COMMAND ${BENCH} --chain medain STATUS 2
           ERR "unknown filter 'medain'; did you mean 'median'\\?")
expect_run(COMMAND ${BENCH} --chain median=radius=9 STATUS 2
           ERR "filter 'median' parameter 'radius': 9 is out of range \\(allowed: 1 to 7\\)")
expect_run(COMMAND ${BENCH} --size 0x5 STATUS 2 ERR "--size 0x5: expected WxH")
expect_run(COMMAND ${BENCH} --frames -3 STATUS 2 ERR "--frames -3: expected an integer")
expect_run(COMMAND ${BENCH} --device 99 STATUS 2 ERR "--device 99: no device with that index")
expect_run(COMMAND ${BENCH} --device nosuchdevice STATUS 2
           ERR "--device 'nosuchdevice': no device name contains it")

# No OpenCL platform at all (an ICD loader that finds no vendor file): a
# message that says how to install one, exit 1.
file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/no-vendors)
expect_run(COMMAND ${CMAKE_COMMAND} -E env OCL_ICD_VENDORS=${CMAKE_CURRENT_BINARY_DIR}/no-vendors
           ${CLVID} devices STATUS 1 ERR "no OpenCL platform found.*apt-get install pocl-opencl-icd")
expect_run(COMMAND ${CMAKE_COMMAND} -E env OCL_ICD_VENDORS=${CMAKE_CURRENT_BINARY_DIR}/no-vendors
           ${BENCH} --frames 1 STATUS 1 ERR "no OpenCL platform found")
