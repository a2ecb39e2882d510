#!/bin/bash
# package_test.sh BUILD_DIR SOURCE_DIR - makes the Debian package with
# `cpack -G DEB`, checks its control fields and contents, unpacks it into an
# empty root and runs what it holds from there only: the programs, the
# Python module, the GStreamer element, the manual pages and the bash
# completion. Exit 77 (skipped) without cpack, dpkg-deb or dpkg-shlibdeps.
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }
for tool in cpack dpkg-deb dpkg-shlibdeps readelf; do
  command -v "$tool" >/dev/null || { echo "SKIP: no $tool (apt-get install cmake dpkg-dev binutils)"; exit 77; }
done
tmp=$(mktemp -d /tmp/clvid-package-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

# 1. The package, made outside the build tree (cpack's staging goes there too).
(cd "$build" && cpack -G DEB -B "$tmp/out" >"$tmp/cpack.log" 2>&1) ||
  { cat "$tmp/cpack.log" >&2; fail "cpack -G DEB failed"; }
debs=("$tmp"/out/*.deb)
[ ${#debs[@]} = 1 ] && [ -f "${debs[0]}" ] || fail "not one .deb: ${debs[*]}"
deb=${debs[0]}
echo "package: $(basename "$deb")"

# 2. The control fields. Whole outputs into grep: `cmd | grep -q` under
# pipefail fails when grep stops reading before cmd has written everything.
info=$(dpkg-deb -I "$deb")
field() { sed -n "s/^ $1: //p" <<<"$info"; }
version=$(sed -n 's/^set(CPACK_PACKAGE_VERSION "\(.*\)")$/\1/p' "$build/CPackConfig.cmake")
[ -n "$version" ] || fail "no CPACK_PACKAGE_VERSION in CPackConfig.cmake"
[ "$(field Package)" = clvid ] || fail "Package: $(field Package)"
[ "$(field Version)" = "$version" ] || fail "Version: $(field Version), not $version"
[ "$(field Section)" = video ] || fail "Section: $(field Section)"
[ -n "$(field Maintainer)" ] || fail "no Maintainer"
[ -n "$(field Description)" ] || fail "no Description"
depends=$(field Depends)
echo "Depends: $depends"
# dpkg-shlibdeps' part names the C library, OpenCL's loader and, for the
# command and the pipeline library, FFmpeg's; the Python module's part is
# written in cmake/package.cmake.
deps="python3 python3-numpy libc6 ocl-icd-libopencl1 libavcodec[0-9]+ libavformat[0-9]+"
[ ! -e "$build/gst/libgstclvid.so" ] || deps+=" libgstreamer1.0-0"
for dep in $deps; do
  grep -qE "(^|, |\| )$dep( |,|$)" <<<"$depends" || fail "Depends lacks $dep: $depends"
done
! grep -q 'clvid' <<<"$depends" || fail "the package depends on itself: $depends"
grep -q '^libclvid 2 clvid' <<<"$(dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./shlibs)" ||
  fail "no shlibs entry for libclvid.so.2"

# 3. The files, where Debian looks for them.
multiarch=$(gcc -print-multiarch 2>/dev/null || dpkg-architecture -qDEB_HOST_MULTIARCH)
contents=$(dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|')
for f in /usr/bin/clvid /usr/bin/clvid-bench /usr/bin/clvid-cluster \
         /usr/lib/libclvid.so /usr/lib/libclvid.so.2 /usr/lib/libclvid-pipeline.so \
         /usr/lib/libclvid-pipeline.so.2 /usr/include/clvid/clvid.h /usr/include/clvid/pipeline.h \
         /usr/include/clvid/version.h /usr/lib/pkgconfig/clvid.pc \
         /usr/lib/pkgconfig/clvid-pipeline.pc /usr/lib/cmake/clvid/clvid-config.cmake \
         /usr/lib/python3/dist-packages/clvid/__init__.py \
         /usr/lib/python3/dist-packages/clvid/cluster.py \
         /usr/lib/python3/dist-packages/clvid/control.py \
         /usr/share/man/man1/clvid.1 /usr/share/man/man1/clvid-bench.1 \
         /usr/share/man/man1/clvid-cluster.1 /usr/share/bash-completion/completions/clvid \
         /usr/share/bash-completion/completions/clvid-bench; do
  grep -qxF "$f" <<<"$contents" || fail "$f is not in the package"
done
if [ -e "$build/gst/libgstclvid.so" ]; then
  grep -qxF "/usr/lib/$multiarch/gstreamer-1.0/libgstclvid.so" <<<"$contents" ||
    fail "the GStreamer plugin is not in /usr/lib/$multiarch/gstreamer-1.0"
fi
! grep -qvE '^/usr(/|$)' <<<"$contents" || fail "files outside /usr: $(grep -vE '^/usr(/|$)' <<<"$contents")"
! grep -q '__pycache__' <<<"$contents" || fail "compiled Python files in the package"
echo "contents: $(wc -l <<<"$contents") entries, all under /usr"

# 4. Unpacked into an empty root. Every program and library lives in /usr
# of the target, so none carries a runpath (least of all into this build).
root=$tmp/root
mkdir "$root"
dpkg-deb -x "$deb" "$root"
while IFS= read -r -d '' f; do
  if [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ]; then
    dyn=$(readelf -d "$f")
    ! grep -qE 'RPATH|RUNPATH' <<<"$dyn" ||
      fail "${f#"$root"} has a runpath: $(grep -E 'RPATH|RUNPATH' <<<"$dyn")"
  fi
done < <(find "$root" -type f -print0)

# From here on, the unpacked files only.
plugins=$root/usr/lib/$multiarch/gstreamer-1.0
export PATH=$root/usr/bin:$PATH LD_LIBRARY_PATH=$root/usr/lib
export PYTHONPATH=$root/usr/lib/python3/dist-packages
export GST_PLUGIN_PATH=$plugins GST_PLUGIN_SYSTEM_PATH_1_0=$plugins GST_REGISTRY=$tmp/registry.bin
unset CLVID_LIBRARY_DIR
[ "$(command -v clvid)" = "$root/usr/bin/clvid" ] || fail "clvid is $(command -v clvid)"

first=$(clvid --version | head -1)
[ "$first" = "clvid $version" ] || fail "clvid --version: $first"
filters=$(clvid filters)
registry=$(awk '/^Filters of graphs/ {exit} /^  [a-z]/ {print $1}' <<<"$filters" | grep -vx opencl)
[ -n "$registry" ] || fail "clvid filters lists nothing: $filters"
clvid-bench --help >/dev/null || fail "clvid-bench --help"
echo "programs: $first; $(wc -w <<<"$registry") filters"

# 5. The Python module, with Debian's python3: it finds the libraries from
# its own place, also without LD_LIBRARY_PATH.
if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
  for ld in "$LD_LIBRARY_PATH" ""; do
    out=$(LD_LIBRARY_PATH=$ld /usr/bin/python3 -c 'import clvid; print(clvid.version())
print(clvid.__file__); print(clvid._engine._name)')
    { read -r v; read -r file; read -r lib; } <<<"$out"
    [ "$v" = "$version" ] || fail "clvid.version() is $v"
    case "$file:$lib" in "$root"/*:"$root"/*) ;; *) fail "python loaded $file with $lib" ;; esac
  done
  clvid-cluster --help >/dev/null || fail "clvid-cluster --help"
  echo "python: clvid.version() $version from the unpacked root"
else
  echo "python: skipped (no python3-numpy on this machine)"
fi

# 6. The GStreamer element, from the unpacked plugin folder only.
if [ -e "$build/gst/libgstclvid.so" ] && command -v gst-inspect-1.0 >/dev/null; then
  inspect=$(gst-inspect-1.0 clvidfilter) || fail "gst-inspect-1.0 clvidfilter"
  grep -qF "$plugins/libgstclvid.so" <<<"$inspect" || fail "the element is not the package's: $inspect"
  echo "gstreamer: gst-inspect-1.0 clvidfilter from $plugins"
fi

# 7. The manual pages: they format without warnings, and each option a
# command's --help names is in its page (the text before the description
# of each option line of the help).
man1=$root/usr/share/man/man1
for page in "$man1"/*.1; do
  if command -v man >/dev/null; then
    MANWIDTH=80 man --warnings -l "$page" >"$tmp/page.txt" 2>"$tmp/page.err" || fail "man -l $page"
  elif command -v groff >/dev/null; then
    groff -man -ww -Tutf8 "$page" >"$tmp/page.txt" 2>"$tmp/page.err" || fail "groff $page"
  else
    echo "man pages: not formatted (no man or groff)"
    break
  fi
  [ ! -s "$tmp/page.err" ] || fail "$(basename "$page"): $(cat "$tmp/page.err")"
  [ -s "$tmp/page.txt" ] || fail "$(basename "$page") is empty"
done
help_options() { # the options of --help's option lines
  sed -nE '/^ {1,4}-/{s/^ +//; s/  .*//; p}' | grep -oE '(^|[ [,])--?[a-z][a-z0-9:_-]*' |
    sed -E 's/^[ [,]//; s/:$//' | sort -u
}
page_text() { sed 's/\\-/-/g' "$man1/$1.1"; }
check_page() { # PAGE HELP_TEXT
  local text; text=$(page_text "$1")
  for o in $(help_options <<<"$2"); do
    grep -qF -- "$o" <<<"$text" || fail "$1.1 does not describe $o"
  done
}
for c in transcode play webcam; do check_page clvid "$(clvid $c --help)"; done
check_page clvid-bench "$(clvid-bench --help)"
if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
  for c in transcode batch; do check_page clvid-cluster "$(clvid-cluster $c --help)"; done
fi
for f in $registry; do grep -qw "$f" <<<"$(page_text clvid)" || fail "clvid.1 does not name $f"; done
echo "man pages: $(cd "$man1" && echo *.1) format cleanly and describe every option"

# 8. The bash completion: registered for both programs, the file the
# installed clvid writes, completing commands, options, filters and devices.
completion=$root/usr/share/bash-completion/completions/clvid
cmp -s "$completion" <(clvid completion bash) || fail "the installed completion is not clvid's"
registered=$(bash -c "source '$completion' && complete -p clvid && complete -p clvid-bench")
grep -q -- '-F _clvid clvid$' <<<"$registered" || fail "complete -p clvid: $registered"
complete_line() { # LINE [FUNCTION]: the words the completion offers at the end of LINE
  bash -c 'source "$1"; COMP_LINE=$2; COMP_POINT=${#2}; "$3"; echo "${COMPREPLY[*]}"' _ \
    "$completion" "$1" "${2:-_clvid}"
}
has_word() { grep -qxF -- "$2" <<<"${1// /$'\n'}"; } # LIST WORD
expect() { # LINE EXPECTED [FUNCTION]
  local got; got=$(complete_line "$1" "${3:-}")
  [ "$got" = "$2" ] || fail "completing '$1': '$got', not '$2'"
}
expect "clvid transc" transcode
expect "clvid transcode --no-auto" --no-autorotate
expect "clvid transcode -i a.mp4 -vf med" median
# Bash completes the text after the last = or : (COMP_WORDBREAKS), so the
# offers are cut there.
expect "clvid transcode -vf median,sha" median,sharpen
expect "clvid play -vf median=rad" radius=
expect "clvid transcode -vf equalize=mode=g" gray
expect "clvid-bench --sha" --shape _clvid_bench
expect "clvid-bench --shape " "row gpu" _clvid_bench
offered=$(complete_line "clvid transcode -vf ")
for f in $registry opencl; do has_word "$offered" "$f" || fail "-vf does not offer $f: $offered"; done
devices=$(complete_line "clvid transcode --device ")
has_word "$devices" gpu || fail "--device offers: $devices"
for c in transcode play webcam; do
  offered=$(complete_line "clvid $c -")
  for o in $(help_options <<<"$(clvid $c --help)"); do
    has_word "$offered" "$o" || fail "clvid $c: $o does not complete ($offered)"
  done
done
offered=$(complete_line "clvid-bench -" _clvid_bench)
for o in $(help_options <<<"$(clvid-bench --help)"); do
  has_word "$offered" "$o" || fail "clvid-bench: $o does not complete ($offered)"
done
echo "completion: commands, options of every --help, filters, devices (${devices})"
echo "1 passed, 0 failed"
