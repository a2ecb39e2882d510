#!/bin/bash
# install_test.sh BUILD_DIR SOURCE_DIR - installs the build into a temporary
# prefix and uses it as someone else's project would: the examples built
# with pkg-config and, as a separate CMake project, with find_package(clvid);
# each run, and its output checked against the installed clvid command.
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
tmp=$(mktemp -d /tmp/clvid-install-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" >/dev/null
libdir=$(dirname "$(find "$prefix" -name 'libclvid.so' | head -1)")
[ -n "$libdir" ] || fail "no libclvid.so installed"
for f in include/clvid/clvid.h include/clvid/pipeline.h include/clvid/version.h bin/clvid \
         bin/clvid-bench share/clvid/sample.mp4; do
  [ -e "$prefix/$f" ] || fail "$f not installed"
done
for f in libclvid.so.2 libclvid-pipeline.so.2 libclvid.a pkgconfig/clvid.pc \
         pkgconfig/clvid-pipeline.pc cmake/clvid/clvid-config.cmake; do
  [ -e "$libdir/$f" ] || fail "$libdir/$f not installed"
done
# A soname, and no symbol outside the public API.
# Whole outputs into grep: `cmd | grep -q` under pipefail fails when grep
# stops reading before cmd has written everything (SIGPIPE).
grep -q 'SONAME.*libclvid.so.2' <<<"$(readelf -d "$libdir/libclvid.so")" || fail "libclvid has no soname"
hidden=$(nm -D --defined-only "$libdir/libclvid.so" "$libdir/libclvid-pipeline.so" |
         awk '$2 == "T" || $2 == "D" || $2 == "B" || $2 == "R" {print $3}' | grep -v '^clv_[a-z]' || true)
[ -z "$hidden" ] || fail "symbols outside the public API exported: $hidden"
grep -q ' T clv_chain_run$' <<<"$(nm -D --defined-only "$libdir/libclvid.so")" || fail "clv_chain_run not exported"

export LD_LIBRARY_PATH=$libdir PKG_CONFIG_PATH=$libdir/pkgconfig
clvid=$prefix/bin/clvid
cd "$tmp"
ffmpeg -v error -f lavfi -i "testsrc2=size=641x359,format=rgba" -frames:v 1 in.png
ffmpeg -v error -f lavfi -i "testsrc2=size=320x240:rate=25:duration=8" -pix_fmt yuv420p -c:v libx264 clip.mp4
# The installed command runs from anywhere (kernels embedded), its sample too.
"$clvid" transcode -q -i in.png -vf 'median,sharpen' -o ref.png
"$clvid" transcode -q -i "$prefix/share/clvid/sample.mp4" --frames 5 -vf gray -o s.mkv

same_picture() {
  cmp -s <(ffmpeg -v error -i "$1" -f rawvideo -pix_fmt rgba -) \
         <(ffmpeg -v error -i "$2" -f rawvideo -pix_fmt rgba -) || fail "$1 differs from $2"
}
check_examples() { # DIR: the two programs built one way
  "$1/filter_png" in.png 'median,sharpen' out.png
  same_picture out.png ref.png
  "$1/filter_png" in.png 'median=radius=99' bad.png 2>err.txt && fail "a bad chain was accepted"
  grep -q "radius" err.txt || fail "the bad chain's message: $(cat err.txt)"
  "$1/transcode_progress" clip.mp4 sharpen out.mp4 >progress.txt
  grep -q "^progress: " progress.txt || fail "no progress callback: $(cat progress.txt)"
  grep -q "^done: 200 frames" progress.txt || fail "not 200 frames: $(cat progress.txt)"
  [ "$(ffprobe -v error -count_frames -select_streams v -show_entries stream=nb_read_frames \
       -of csv=p=0 out.mp4)" = 200 ] || fail "out.mp4 has not 200 frames"
  rm -f out.png out.mp4
}

# 1. pkg-config
mkdir pc
cc -std=c11 -Wall -Werror "$src/examples/filter_png.c" -o pc/filter_png \
   $(pkg-config --cflags --libs clvid libpng)
cc -std=c11 -Wall -Werror "$src/examples/transcode_progress.c" -o pc/transcode_progress \
   $(pkg-config --cflags --libs clvid-pipeline)
check_examples pc
echo "pkg-config: both examples built and ran"

# 2. find_package(clvid) in a project of its own
cmake -S "$src/examples" -B cm -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build cm >/dev/null
check_examples cm
echo "find_package: both examples built and ran"
# 3. The Python package from the prefix, finding the libraries beside it.
pydir=$(find "$prefix" -type d -path '*dist-packages/clvid' | head -1)
[ -n "$pydir" ] || fail "the Python package is not installed"
if /usr/bin/python3 -c "import numpy" 2>/dev/null; then
  env -u LD_LIBRARY_PATH PYTHONPATH="$(dirname "$pydir")" /usr/bin/python3 -c "
import numpy as np, clvid
img = np.arange(48 * 64 * 3, dtype=np.uint32).reshape(48, 64, 3).astype(np.uint8)
assert clvid.__file__.startswith('$prefix'), clvid.__file__
assert np.array_equal(clvid.Chain('median,sharpen')(img), clvid.reference('median,sharpen', img))
print('python: installed package ran, equal to the reference')"
fi
# 4. The GStreamer element, when it was built: under the prefix (not the
# system's plugin folder), found through GST_PLUGIN_PATH, loading the
# installed libclvid beside it, filtering.
if [ -e "$build/gst/libgstclvid.so" ]; then
  plugin=$(find "$prefix" -name libgstclvid.so | head -1)
  [ -n "$plugin" ] || fail "libgstclvid.so not installed under the prefix"
  case "$plugin" in */gstreamer-1.0/libgstclvid.so) ;; *) fail "plugin at $plugin" ;; esac
  env -u LD_LIBRARY_PATH GST_PLUGIN_PATH="$(dirname "$plugin")" GST_REGISTRY="$tmp/registry.bin" \
    gst-launch-1.0 -q videotestsrc num-buffers=3 ! video/x-raw,format=RGBA,width=64,height=48 ! \
    clvidfilter chain=median ! fakesink || fail "the installed element did not run"
  grep -q "$libdir/libclvid.so.2" <<<"$(ldd "$plugin")" || fail "the plugin does not load the installed libclvid: $(ldd "$plugin" | grep clvid)"
  echo "gstreamer: the installed element ran from $plugin"
fi
echo "1 passed, 0 failed"
