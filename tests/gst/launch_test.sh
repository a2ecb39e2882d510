#!/bin/bash
# launch_test.sh - clvidfilter from gst-launch-1.0, as a user types it: the
# RGBA output of 30 buffers equals the C references' (clvid-ref) on the same
# input, recorded through a tee; gst-inspect-1.0 documents every property; a
# bad chain is an error naming the parameter and range, exit non-zero.
# usage: launch_test.sh CLVID_REF
set -euo pipefail
ref=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

inspect=$(gst-inspect-1.0 clvidfilter)
for p in chain device kernel-ms; do
  grep -q "^  $p " <<<"$inspect" || fail "gst-inspect-1.0 clvidfilter does not document $p"
done
grep -q "changeable in NULL, READY, PAUSED or PLAYING" <<<"$inspect" || fail "chain not changeable while PLAYING"

gst-launch-1.0 -q videotestsrc num-buffers=30 pattern=ball ! \
  video/x-raw,format=RGBA,width=641,height=359 ! tee name=t \
  t. ! queue ! filesink location="$tmp/in.rgba" \
  t. ! queue ! clvidfilter chain=median,sharpen ! filesink location="$tmp/out.rgba"
"$ref" median,sharpen 641 359 30 <"$tmp/in.rgba" >"$tmp/want.rgba"
size=$(stat -c %s "$tmp/out.rgba")
[ "$size" -eq $((641 * 359 * 4 * 30)) ] || fail "output is $size bytes, not 30 frames"
cmp -s "$tmp/out.rgba" "$tmp/want.rgba" || fail "the output differs from the references: $(cmp "$tmp/out.rgba" "$tmp/want.rgba" | head -1)"
echo "30 RGBA 641x359 buffers through median,sharpen equal the references"

# Two devices (PoCL's "pthread pthread"): the same bytes, in order.
POCL_DEVICES="pthread pthread" gst-launch-1.0 -q filesrc location="$tmp/in.rgba" ! \
  rawvideoparse format=rgba width=641 height=359 framerate=25/1 ! clvidfilter chain=median,sharpen device=all ! filesink location="$tmp/out2.rgba"
cmp -s "$tmp/out2.rgba" "$tmp/want.rgba" || fail "device=all differs from the references: $(cmp "$tmp/out2.rgba" "$tmp/want.rgba" | head -1)"
echo "the same 30 buffers with device=all (two devices) equal the references"

# A deinterlacer (send_frame) holds a buffer back: every buffer comes out,
# the last at EOS, equal to the references run the same way.
gst-launch-1.0 -q filesrc location="$tmp/in.rgba" ! \
  rawvideoparse format=rgba width=641 height=359 framerate=25/1 ! clvidfilter chain=yadif=send_frame ! filesink location="$tmp/deint.rgba"
"$ref" yadif=send_frame 641 359 30 <"$tmp/in.rgba" >"$tmp/want-deint.rgba"
size=$(stat -c %s "$tmp/deint.rgba")
[ "$size" -eq $((641 * 359 * 4 * 30)) ] || fail "yadif=send_frame: $size bytes, not 30 frames"
cmp -s "$tmp/deint.rgba" "$tmp/want-deint.rgba" || fail "yadif=send_frame differs from the references: $(cmp "$tmp/deint.rgba" "$tmp/want-deint.rgba" | head -1)"
echo "30 buffers through yadif=send_frame: 30 out, equal to the references"
# send_field (bwdif's default): two buffers out of each, one per field, the
# last buffer's at EOS, equal to the references; the caps at twice the rate,
# progressive; each pair at pts and pts + duration / 2, half a duration each.
for chain in bwdif yadif=send_field; do
  gst-launch-1.0 -q filesrc location="$tmp/in.rgba" ! \
    rawvideoparse format=rgba width=641 height=359 framerate=25/1 ! clvidfilter chain=$chain ! \
    filesink location="$tmp/fields.rgba"
  "$ref" $chain 641 359 30 <"$tmp/in.rgba" >"$tmp/want-fields.rgba"
  size=$(stat -c %s "$tmp/fields.rgba")
  [ "$size" -eq $((641 * 359 * 4 * 60)) ] || fail "$chain: $size bytes, not 60 frames"
  cmp -s "$tmp/fields.rgba" "$tmp/want-fields.rgba" || fail "$chain differs from the references: $(cmp "$tmp/fields.rgba" "$tmp/want-fields.rgba" | head -1)"
  echo "30 buffers through $chain: 60 out, equal to the references"
done
out=$(gst-launch-1.0 -v videotestsrc num-buffers=10 ! \
  video/x-raw,format=I420,width=64,height=48,framerate=25/1,interlace-mode=interleaved ! \
  clvidfilter chain=bwdif ! fakesink silent=false 2>&1) || fail "bwdif on interlaced caps: $out"
caps=$(grep -m1 'clvidfilter0.GstPad:src: caps' <<<"$out")
grep -q 'framerate=(fraction)50/1' <<<"$caps" && grep -q 'interlace-mode=(string)progressive' <<<"$caps" ||
  fail "bwdif's source caps: $caps"
times=$(grep -o 'pts: [0-9:.]*, duration: [0-9:.]*' <<<"$out" | sed 's/pts: //; s/ duration: //' | tr '\n' ' ')
want=""
for ((i = 0; i < 20; i++)); do
  want+=$(printf '0:00:00.%09d,0:00:00.020000000 ' $((i * 20000000)))
done
[ "$times" = "$want" ] || fail "bwdif's timestamps: $times (wanted $want)"
echo "bwdif on 10 interlaced 25 fps buffers: 20 progressive at 50 fps, 20 ms apart"
if out=$(gst-launch-1.0 videotestsrc num-buffers=3 ! clvidfilter chain=median=radius=9 ! fakesink 2>&1); then
  fail "a bad chain ran: $out"
fi
grep -q "filter 'median' parameter 'radius': 9 is out of range (allowed: 1 to 7)" <<<"$out" ||
  fail "the bad chain's message: $out"
echo "a bad chain: $(grep -m1 'clvidfilter chain' <<<"$out")"
echo PASS
