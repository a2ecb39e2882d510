#!/bin/bash
# abi-record.sh BUILD_DIR - records the built libraries' ABI (the public
# headers' types and the exported symbols) as abi/*.abi, the reference
# tests/abi_test.sh compares later builds with. Run it for a release, and
# after an intended ABI break (with CLVID_SOVERSION raised). A build with
# debug information (RelWithDebInfo) is needed.
set -euo pipefail
build=$1
src=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$src/abi"
for lib in libclvid libclvid-pipeline; do
  built=$(ls "$build/$lib.so."[0-9]* | grep -E '\.so\.[0-9]+$' | sort -V | tail -1)
  abidw --no-show-locs --no-corpus-path --headers-dir "$src/include/clvid" --out-file "$src/abi/$lib.abi" "$built"
  echo "recorded $(basename "$built") in abi/$lib.abi"
done
