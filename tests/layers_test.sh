#!/bin/bash
# layers_test.sh SOURCE_DIR [BUILD_DIR] - the include graph goes one way: cli
# -> player / (cli and bench -> env: the engine's settings from the
# environment) pipeline -> present / io -> core -> filters (core and filters
# share the internal header; clvid-bench, a tool at the top as cli is,
# times the pipeline's decoder: bench -> pipeline, io), and only src/io,
# src/pipeline, src/player and the bench's decode include FFmpeg, only
# src/present SDL. With BUILD_DIR the calls are checked
# too, on the symbols of the built objects (nm): see the end.
set -euo pipefail
build=${2:+$(cd "$2" && pwd)}
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
    bench) echo "bench env pipeline io" ;;
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
    if grep -q '^#include <lib\(av\|sw\)' "$f" && ! grep -qw "$dir" <<<"io pipeline player bench"; then
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

# ---- Calls, by the symbols of the objects src/DIR/NAME.c.o in BUILD_DIR.
# A symbol an object uses and another object of src defines is a call from
# the one folder to the other. Above core, a folder calls its own, what it
# may include (allowed), and the installed libraries below it through their
# API (include/clvid: clvid.h, opencl.h and testing.h, the engine of core
# and filters; pipeline.h, the pipeline library of pipeline and io). The core calls into src/filters
# only through the registry table. A filter calls only core's leaves below
# the registry, never the chain parser and runner or the stage; and the
# leaves call only leaves.
core_leaves="error color colors device expr frame fused geometry param program"
api() { # HEADER: the functions it declares for the library's users
  grep -ho 'CLV_API[^(]*(' "../include/clvid/$1" | sed 's/.*[^a-z0-9_]\([a-z0-9_]*\)($/\1/'  | grep "^clv_"
}
engine_api=$(api clvid.h; api graph.h; api opencl.h; api testing.h)
pipeline_api=$(api pipeline.h)
if [ -n "$build" ]; then
  objects=$(find "$build" -path '*/src/*/*.c.o' -type f | LC_ALL=C sort)
  defs=$(mktemp)
  trap 'rm -f "$defs"' EXIT
  for o in $objects; do # "symbol dir file" for every symbol defined
    rel=${o#*/src/}
    nm -g --defined-only "$o" | awk -v d="${rel%%/*}" -v f="$(basename "$o" .c.o)" \
      'NF == 3 { print $3, d, f }'
  done | LC_ALL=C sort -u >"$defs"
  grep -q ' core ' "$defs" && grep -q ' filters ' "$defs" ||
    { echo "no objects of src/core and src/filters under $build"; bad=1; }
  seen_leaf_call=0
  for o in $objects; do
    rel=${o#*/src/}
    dir=${rel%%/*} file=$(basename "$o" .c.o)
    while read -r sym tdir tfile; do
      [ "$tdir" = "$dir" ] && [ "$dir" != core ] && continue
      why=
      case $dir in
        core)
          if [ "$tdir" = filters ]; then
            [ "$sym" = clv__filters ] || [ "$sym" = clv__filter_count ] ||
              [ "$sym" = clv__graph_filters ] || [ "$sym" = clv__graph_filter_count ] ||
              why="core calls into src/filters past the registry table"
          elif grep -qw "$file" <<<"$core_leaves" && ! grep -qw "$tfile" <<<"$core_leaves"; then
            why="a leaf of core calls $tfile.c, above it"
          fi ;;
        filters)
          if [ "$tdir" = core ] && grep -qw "$tfile" <<<"$core_leaves"; then
            seen_leaf_call=1
          else
            why="a filter calls $tdir/$tfile.c (the chain parser, runner or stage are above filters)"
          fi ;;
        *)
          if grep -qw "$tdir" <<<"$(allowed "$dir")"; then
            :
          elif [ "$tdir" = core ] || [ "$tdir" = filters ]; then
            grep -qx "$sym" <<<"$engine_api" || why="$dir calls an engine internal"
          elif [ "$tdir" = io ] && grep -qw pipeline <<<"$(allowed "$dir")" &&
            grep -qx "$sym" <<<"$pipeline_api"; then
            : # the pipeline library's API, defined in io
          else
            why="$dir may not depend on $tdir"
          fi ;;
      esac
      if [ -n "$why" ]; then
        echo "src/$dir/$file.c calls $sym of src/$tdir/$tfile.c: $why"
        bad=1
      fi
    done < <(nm -u "$o" | awk '{ print $NF }' | LC_ALL=C sort -u | LC_ALL=C join - "$defs")
  done
  # The check must see the calls it judges: filters do call core's leaves.
  [ $seen_leaf_call = 1 ] || { echo "no call from src/filters to core seen (nm?)"; bad=1; }
fi
[ $bad = 0 ] && echo "1 passed, 0 failed" || { echo "0 passed, 1 failed"; exit 1; }
