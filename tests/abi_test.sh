#!/bin/bash
# abi_test.sh BUILD_DIR SOURCE_DIR - the libraries' ABI against the release's
# record (abi/*.abi, abidw's XML of the public headers' types and symbols):
# a change that breaks programs built against the release, with the same
# soname, fails; additions pass and are listed. After an intended break:
# raise CLVID_SOVERSION in CMakeLists.txt, say what broke in CHANGELOG.md,
# and record the new ABI: scripts/abi-record.sh BUILD_DIR.
set -u
build=$1
src=$2
command -v abidiff >/dev/null || { echo "SKIP: abidiff is needed (apt-get install abigail-tools)"; exit 77; }
status=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The opaque types (declared, never defined, in the public headers) change
# freely behind their pointers: their changes are no ABI change.
opaque=$(grep -ho 'typedef struct \(clv_[a-z_]*\) \1;' "$src"/include/clvid/*.h | awk '{print $3}' |
         paste -sd'|')
printf '[suppress_type]\n  type_kind = struct\n  name_regexp = ^(%s)$\n  accessed_through = pointer\n' \
       "$opaque" > "$work/opaque.suppr"
# The options structs that start with struct_size (filled by their _init,
# read only as far as the caller's struct_size reaches) grow at their end
# without breaking anyone: a member added there is no ABI change.
versioned=$(grep -ho 'sizeof(clv_[a-z_]*) as the caller knows it' "$src"/include/clvid/*.h |
            sed 's/sizeof(\(clv_[a-z_]*\)).*/\1/' | paste -sd'|')
printf '[suppress_type]\n  type_kind = struct\n  name_regexp = ^(%s)$\n  has_data_member_inserted_at = end\n' \
       "$versioned" >> "$work/opaque.suppr"
# The status a run fills and hands to its callback is read through that
# pointer only (a caller never makes or copies one): members added at its
# end are no ABI change either.
printf '[suppress_type]\n  type_kind = struct\n  name_regexp = ^(clv_transcode_status)$\n  has_data_member_inserted_at = end\n' \
       >> "$work/opaque.suppr"
for lib in libclvid libclvid-pipeline; do
  record="$src/abi/$lib.abi"
  built=$(ls "$build/$lib.so."[0-9]* 2>/dev/null | grep -E '\.so\.[0-9]+$' | sort -V | tail -1)
  [ -f "$record" ] || { echo "FAIL: no $record (scripts/abi-record.sh $build)"; status=1; continue; }
  [ -n "$built" ] || { echo "FAIL: $lib.so.N not built in $build"; status=1; continue; }
  soname=$(basename "$built")
  if ! grep -q "soname='$soname'" "$record"; then
    echo "FAIL: $record records $(grep -o "soname='[^']*'" "$record" | head -1), the build is $soname:"
    echo "      an ABI break raises the soname; record the new ABI (scripts/abi-record.sh) with it"
    status=1
    continue
  fi
  abidw --no-show-locs --no-corpus-path --headers-dir "$src/include/clvid" \
        --out-file "$work/$lib.abi" "$built" || { echo "FAIL: abidw $built"; status=1; continue; }
  # Functions and variables added are compatible; anything else (a symbol
  # gone, a public struct's member moved or resized) breaks programs.
  report=$(abidiff --no-show-locs --no-added-syms --suppressions "$work/opaque.suppr" \
                   "$record" "$work/$lib.abi" 2>&1)
  rc=$?
  added=$(abidiff --no-show-locs --suppressions "$work/opaque.suppr" "$record" "$work/$lib.abi" \
          2>/dev/null | grep -E '^  \[A\]' | head -20)
  if (( rc & 3 )); then
    echo "FAIL: abidiff could not compare $record and $built ($rc):"
    echo "$report"
    status=1
  elif (( rc != 0 )); then
    echo "FAIL: $soname breaks its ABI against $record:"
    echo "$report" | head -60
    status=1
  else
    echo "ok $soname: the record's ABI${added:+, with these added:}"
    [ -n "$added" ] && echo "$added"
  fi
done
[ $status = 0 ] && echo "1 passed, 0 failed" || echo "0 passed, 1 failed"
exit $status
