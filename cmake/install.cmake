# install.cmake - what `cmake --install build --prefix P` puts under P: the
# programs, the libraries (shared with a soname, and static), the public
# headers under include/clvid/, pkg-config files and a CMake package
# (find_package(clvid) gives clvid::clvid and clvid::pipeline), the Python
# package, the GStreamer element, manual pages and the bash completion.
include(CMakePackageConfigHelpers)

set(CLVID_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/clvid)
set(CLVID_INSTALL_TARGETS clvid-engine clvid-engine-static)
if(CLVID_CLI)
  list(APPEND CLVID_INSTALL_TARGETS clvid-pipeline)
  install(TARGETS clvid RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(FILES media/sample.mp4 media/README.md DESTINATION ${CMAKE_INSTALL_DATADIR}/clvid)
endif()
install(TARGETS clvid-bench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS ${CLVID_INSTALL_TARGETS} EXPORT clvid-targets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# testing.h (fault injection for clvid's own tests) is not installed.
install(FILES include/clvid/clvid.h include/clvid/opencl.h ${CMAKE_BINARY_DIR}/include/clvid/version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/clvid)
if(CLVID_CLI)
  install(FILES include/clvid/pipeline.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/clvid)
endif()

install(EXPORT clvid-targets NAMESPACE clvid:: DESTINATION ${CLVID_CMAKE_DIR})

# The Python package, where Debian's python3 looks: under /usr (the Debian
# package) in lib/python3/dist-packages, which every python3 version reads;
# under another prefix in lib/python3.X/dist-packages
# (/usr/local/lib/python3.X/dist-packages). The prefix is the one of the
# install, not of the configuration, so it is chosen when installing. It
# finds the libraries from its own place (python/clvid/__init__.py).
find_package(Python3 COMPONENTS Interpreter)
if(CLVID_CLI AND Python3_FOUND)
  set(CLVID_PYTHON_DIR lib/python3.${Python3_VERSION_MINOR}/dist-packages CACHE STRING
      "Where the Python package is installed, under a prefix other than /usr")
  install(CODE "
    if(CMAKE_INSTALL_PREFIX STREQUAL \"/usr\")
      set(clvid_python_dir \"/usr/lib/python3/dist-packages\")
    else()
      set(clvid_python_dir \"\${CMAKE_INSTALL_PREFIX}/${CLVID_PYTHON_DIR}\")
    endif()
    file(INSTALL \"${CMAKE_SOURCE_DIR}/python/clvid\" DESTINATION \"\${clvid_python_dir}\"
         FILES_MATCHING PATTERN \"*.py\")
  ")
  install(PROGRAMS python/clvid-cluster DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
configure_package_config_file(cmake/clvid-config.cmake.in
                              ${CMAKE_BINARY_DIR}/clvid-config.cmake
                              INSTALL_DESTINATION ${CLVID_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/clvid-config-version.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/clvid-config.cmake ${CMAKE_BINARY_DIR}/clvid-config-version.cmake
        DESTINATION ${CLVID_CMAKE_DIR})

# pkg-config: the prefix is found from the .pc file's own place, so that an
# installation under any --prefix (or moved) works.
file(RELATIVE_PATH CLVID_PC_UP /root/${CMAKE_INSTALL_LIBDIR}/pkgconfig /root)
set(CLVID_PC_PREFIX "\${pcfiledir}/${CLVID_PC_UP}")
configure_file(cmake/clvid.pc.in ${CMAKE_BINARY_DIR}/clvid.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/clvid.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(CLVID_CLI)
  configure_file(cmake/clvid-pipeline.pc.in ${CMAKE_BINARY_DIR}/clvid-pipeline.pc @ONLY)
  install(FILES ${CMAKE_BINARY_DIR}/clvid-pipeline.pc
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()

# The GStreamer element: into GStreamer's own plugin directory when installed
# to /usr (the Debian package) or to the /usr/local this build was configured
# for, so that gst-inspect-1.0 clvidfilter finds it; under another --prefix P,
# into P/lib.../gstreamer-1.0 (GST_PLUGIN_PATH=that). It is installed as
# built, its runpath $ORIGIN/.. and the configured libdir (CMakeLists.txt);
# under /usr, where libclvid is in the loader's own path, it has none.
if(TARGET gstclvid)
  install(CODE "
    if(NOT \"${CLVID_GST_SYSTEM_DIR}\" STREQUAL \"\" AND (CMAKE_INSTALL_PREFIX STREQUAL \"/usr\" OR
       (CMAKE_INSTALL_PREFIX STREQUAL \"${CMAKE_INSTALL_PREFIX}\" AND
        CMAKE_INSTALL_PREFIX STREQUAL \"/usr/local\")))
      set(clvid_gst_dir \"${CLVID_GST_SYSTEM_DIR}\")
    else()
      set(clvid_gst_dir \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/gstreamer-1.0\")
    endif()
    file(INSTALL \"$<TARGET_FILE:gstclvid>\" DESTINATION \"\${clvid_gst_dir}\")
    if(CMAKE_INSTALL_PREFIX STREQUAL \"/usr\")
      file(RPATH_REMOVE FILE \"\$ENV{DESTDIR}\${clvid_gst_dir}/$<TARGET_FILE_NAME:gstclvid>\")
    endif()
  ")
endif()

# Manual pages (man/, their version from the project) and the bash
# completion, which the built clvid writes from the filter registry and its
# options (clvid completion bash); the same script completes clvid-bench,
# installed under that name too for bash-completion's lookup by command.
set(CLVID_MAN_PAGES clvid-bench)
if(CLVID_CLI)
  list(APPEND CLVID_MAN_PAGES clvid)
  if(Python3_FOUND)
    list(APPEND CLVID_MAN_PAGES clvid-cluster)
  endif()
  set(CLVID_COMPLETION ${CMAKE_BINARY_DIR}/completions/clvid)
  add_custom_command(
    OUTPUT ${CLVID_COMPLETION}
    COMMAND ${CMAKE_COMMAND} -DCLVID=$<TARGET_FILE:clvid> -DOUTPUT=${CLVID_COMPLETION}
            -P ${CMAKE_SOURCE_DIR}/cmake/completion.cmake
    DEPENDS clvid ${CMAKE_SOURCE_DIR}/cmake/completion.cmake
    COMMENT "Writing the bash completion (clvid completion bash)"
    VERBATIM)
  add_custom_target(clvid-completion ALL DEPENDS ${CLVID_COMPLETION})
  set(CLVID_COMPLETION_DIR ${CMAKE_INSTALL_DATADIR}/bash-completion/completions)
  install(FILES ${CLVID_COMPLETION} DESTINATION ${CLVID_COMPLETION_DIR})
  install(FILES ${CLVID_COMPLETION} DESTINATION ${CLVID_COMPLETION_DIR} RENAME clvid-bench)
endif()
foreach(page ${CLVID_MAN_PAGES})
  configure_file(man/${page}.1.in ${CMAKE_BINARY_DIR}/man/${page}.1 @ONLY)
  install(FILES ${CMAKE_BINARY_DIR}/man/${page}.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endforeach()
