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
if out=$(gst-launch-1.0 videotestsrc num-buffers=3 ! clvidfilter chain=bwdif ! fakesink 2>&1); then
  fail "bwdif's send_field ran: $out"
fi
grep -q "send_field makes two frames of each buffer" <<<"$out" || fail "bwdif's send_field refused with: $out"
echo "send_field: $(grep -m1 'clvidfilter chain' <<<"$out")"

if out=$(gst-launch-1.0 videotestsrc num-buffers=3 ! clvidfilter chain=median=radius=9 ! fakesink 2>&1); then
  fail "a bad chain ran: $out"
fi
grep -q "filter 'median' parameter 'radius': 9 is out of range (allowed: 1 to 7)" <<<"$out" ||
  fail "the bad chain's message: $out"
echo "a bad chain: $(grep -m1 'clvidfilter chain' <<<"$out")"
echo PASS
