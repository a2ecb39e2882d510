# package.cmake - `cpack -G DEB` in the build tree: one clvid package of
# what `cmake --install` puts under a prefix, installed to /usr (the default
# prefix of `cmake --install` stays /usr/local).
#
# The package is installed through DESTDIR with the prefix /usr, as
# `DESTDIR=root cmake --install build --prefix /usr` would: the install
# rules that depend on the prefix (the Python package into
# lib/python3/dist-packages, the GStreamer plugin into the system's plugin
# folder, cmake/install.cmake) then see /usr rather than the staging folder.
# The libraries keep this build's libdir (lib for the default prefix), which
# the loader, pkg-config and find_package all search under /usr.
set(CPACK_PACKAGE_NAME clvid)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "real-time OpenCL video filters, exact to the bit")
set(CPACK_PACKAGE_DESCRIPTION
    "clvid filters video on any OpenCL device (GPU, or CPU through PoCL): convolution,\n"
    "sharpen, emboss, Prewitt edges, median, erode/dilate, threshold, gray, histogram\n"
    "equalization, noise, k-means colour quantization and your own kernels, each\n"
    "equal to its C reference.\n"
    "\n"
    "This package holds the clvid command (live window, webcam, headless\n"
    "transcoding), clvid-bench, clvid-cluster (transcodes over a Dask cluster),\n"
    "the libraries libclvid and libclvid-pipeline with their headers, pkg-config\n"
    "and CMake files, the Python module clvid and the GStreamer element\n"
    "clvidfilter.")
string(REPLACE ";" "" CPACK_PACKAGE_DESCRIPTION "${CPACK_PACKAGE_DESCRIPTION}")
set(CLVID_DEB_MAINTAINER
    "clvid maintainers <maintainers@users.noreply.a-seed-ca786f3d.example>"
    CACHE STRING "The Maintainer field of the Debian package")
set(CPACK_PACKAGE_CONTACT "${CLVID_DEB_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${CLVID_DEB_MAINTAINER}")
set(CPACK_GENERATOR DEB)
set(CPACK_SET_DESTDIR ON)
set(CPACK_INSTALL_PREFIX /usr)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION video)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# The libraries the programs, libraries and plugin link come from
# dpkg-shlibdeps (dpkg-dev); the Python module loads its libraries with
# ctypes, so what it needs is named here. clvid-cluster needs Dask only
# when it runs a job.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "python3, python3-numpy")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3-distributed")
# A shlibs file, so that other packages' dpkg-shlibdeps name this one for
# libclvid.so.2 and libclvid-pipeline.so.2, and the ldconfig trigger.
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")

include(CPack)
