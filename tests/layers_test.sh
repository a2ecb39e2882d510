#!/bin/bash
# layers_test.sh SOURCE_DIR - the include graph goes one way: cli -> player /
# (cli and bench -> env: the engine's settings from the environment)
# pipeline -> present / io -> core -> filters (core and filters share the
# internal header), and only src/io, src/pipeline and src/player include
# FFmpeg, only src/present SDL.
set -euo pipefail
cd "$1/src"
bad=0
allowed() { # FOLDER: the folders its files may include
  case $1 in
    cli) echo "cli pipeline player env" ;;
    player) echo "player pipeline present io" ;;
    pipeline) echo "pipeline io" ;;
    present) echo "present" ;;
    io) echo "io" ;;
    core) echo "core" ;;
    filters) echo "filters core" ;;
    bench) echo "bench env" ;;
    env) echo "env" ;;
  esac
}
for dir in cli player pipeline present io core filters bench env; do
  for f in "$dir"/*.[ch]; do
    while IFS= read -r inc; do
      target=$(echo "$inc" | sed -n 's|.*"\.\./\([a-z]*\)/.*|\1|p')
      [ -n "$target" ] || continue
      if ! grep -qw "$target" <<<"$(allowed "$dir")"; then
        echo "$f includes $inc: $dir may not depend on $target"
        bad=1
      fi
    done < <(grep -h '^#include "' "$f")
    # Third-party layers: FFmpeg below the pipeline, SDL in present only.
    if grep -q '^#include <lib\(av\|sw\)' "$f" && ! grep -qw "$dir" <<<"io pipeline player"; then
      echo "$f includes FFmpeg"; bad=1
    fi
    if grep -q '^#include <SDL' "$f" && [ "$dir" != present ]; then
      echo "$f includes SDL"; bad=1
    fi
  done
done
# The command line makes no decode/encode, stage or SDL call of its own.
if grep -nE '\b(avcodec_|avformat_|av_read_frame|sws_|clv_stage_|SDL_|clv_decoder_|clv_encoder_)' \
     cli/*.c; then
  echo "src/cli calls a layer below the pipeline and the player"; bad=1
fi
[ $bad = 0 ] && echo "1 passed, 0 failed" || { echo "0 passed, 1 failed"; exit 1; }
