"""clvid-cluster: clvid jobs spread over a Dask cluster.

    clvid-cluster transcode -i IN -vf CHAIN -o OUT [encoder options] [--scheduler ADDR]
                  [--segment-seconds S] [--workers N]
    clvid-cluster transcode -i IN -i LOGO ... -filter_complex GRAPH [-map '[out]'] -o OUT ...
    clvid-cluster batch 'in/*.mp4' -vf CHAIN -o 'out/{stem}.mkv' [-y] [--scheduler ADDR]

transcode cuts the input into segments of S seconds (frame-exact: each
segment starts between two frames and is told its first frame's index, so
per-frame filters such as noise match a one-machine run), filters and
encodes each segment as a Dask task without sound, and joins the segments
without re-encoding (clv_join) with the input's sound and subtitles copied.
A deinterlacer (yadif, bwdif) reads the frame before and after each one:
its segments overlap by that much (each decodes the frames each side of it
that the input has, runs the chain over them and drops their outputs), so
the joined output equals one run frame for frame, a frame per field too.
With several inputs and a graph (-filter_complex) the segments are the
first input's; each other input is cut to match each segment (from a little
before its start, its timestamps moved back by as much, so that its frame at
the segment's first output time is there), a still picture (one frame) is
given whole. A graph that hands the output over to another input (xfade) or
whose overlay reads t (which counts from each segment's start) is refused:
run it with clvid transcode on one machine. The sound is the first input's.
batch runs one task per file. Without --scheduler (or DASK_SCHEDULER_ADDRESS)
a LocalCluster is started on this machine: the same code path. Paths must
be the same on every worker (shared storage). A task that fails is retried;
a worker lost mid-run has its tasks run again elsewhere; Ctrl-C cancels the
tasks and leaves no partial output.

Before any work it makes the checks `clvid transcode` makes: an output that
exists needs -y, an output that is an input's file is refused (by inode),
two inputs of a batch that map to one output are refused, and transcode
refuses a chain with a filter that carries state from frame to frame with
no bound (its descriptor says so: quantize, hqdn3d, a kernel reading the
previous frame), since segments cannot start mid-video and match one run. A mistake in the
arguments is one line and exit status 2; a failed run, one line and 1.
"""
from __future__ import annotations

import argparse
import fcntl
import glob
import os
import re
import shutil
import signal
import sys
import tempfile
import time
from typing import Dict, List, Optional

import clvid

# Encoder options passed through to each segment (the command line's names).
ENCODER_OPTIONS = ("c:v", "crf", "preset", "b:v", "pix_fmt", "aspect")
_EEXIST = -12


class UsageError(Exception):
    """A mistake in the command line: one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """argparse that raises UsageError instead of printing its usage and
    exiting, so that every mistake is one line."""

    def error(self, message):
        raise UsageError(message)


def _check_output(inputs: List[str], output: str, overwrite: bool) -> bool:
    """clvid transcode's own checks: False when output exists and may not
    be overwritten; UsageError when it is an input's file (or a folder)."""
    try:
        clvid.check_output(inputs, output, overwrite=overwrite)
    except ValueError as e:
        raise UsageError(str(e))
    except clvid.Error as e:
        if e.code == _EEXIST:
            return False
        raise
    return True


def _python_name(option: str) -> str:
    return {"c:v": "codec", "b:v": "bitrate"}.get(option, option)


def _cut(more: Optional[List[dict]], start: float, seconds: Optional[float]) -> Optional[list]:
    """The other inputs of a graph for a segment whose input 0 starts at
    `start` s (-ss) and lasts `seconds` (None: to the end): each cut from a
    little before start (its frame at or before start is there) with its
    timestamps moved back by as much (-itsoffset), so that they line up
    with input 0's as in one run; a still picture whole."""
    if more is None:
        return None
    out = []
    for m in more:
        if m["still"] or start <= 0:
            out.append(m["path"])
            continue
        back = min(start, max(0.1, 2.0 / m["rate"]) if m["rate"] else 1.0)
        cut = {"path": m["path"], "ss": "%.6f" % (start - back), "itsoffset": -back}
        if seconds is not None:
            cut["t"] = "%.6f" % (back + seconds + 1.0)
        out.append(cut)
    return out


def segment_task(input: str, output: str, chain: Optional[str], first: int, count: Optional[int],
                 rate: float, options: Dict[str, str], overlap: int = 0,
                 graph: Optional[str] = None, more: Optional[List[dict]] = None,
                 map: Optional[str] = None) -> Dict[str, float]:
    """One segment on a worker: the outputs of frames [first, first + count)
    of input (count None: to the end). With overlap (a deinterlacer's
    delay), up to that many frames before and after are decoded and run as
    context, their outputs dropped, so that the segment's first and last
    frames see the neighbours they see in one run. With a graph, more are
    its other inputs (path, rate, still), cut to match (_cut)."""
    lead = min(overlap, first)
    trail = overlap if count is not None else 0  # a segment follows: the input has them
    begin = first - lead
    start = max(0.0, (begin - 0.5) / rate) if begin else 0.0
    frames = None if count is None else lead + count + trail
    extra = {}
    if graph is not None:
        extra = {"filter_complex": graph, "map": map,
                 "inputs": _cut(more, start, None if frames is None else frames / rate)}
    t0 = time.time()
    status = clvid.transcode(input, output, vf=chain, no_audio=True, no_subtitles=True,
                             overwrite=True, ss=("%.6f" % start) if begin else None,
                             frames=frames, frame_index=begin, lead_frames=lead or None,
                             keep_frames=count if overlap and count is not None else None,
                             quiet=True, **extra, **options)
    return {"frames": status.get("frames", 0), "seconds": time.time() - t0}


def file_task(input: str, output: str, chain: Optional[str], options: Dict[str, str]):
    t0 = time.time()
    status = clvid.transcode(input, output, vf=chain, overwrite=True, quiet=True, **options)
    return {"frames": status.get("frames", 0), "seconds": time.time() - t0}


def _client(args):
    from dask.distributed import Client, LocalCluster
    address = args.scheduler or os.environ.get("DASK_SCHEDULER_ADDRESS")
    if address:
        return Client(address), None
    cluster = LocalCluster(n_workers=args.workers or min(4, os.cpu_count() or 1),
                           threads_per_worker=1, processes=True, dashboard_address=None)
    return Client(cluster), cluster


def _resources(client) -> Optional[Dict[str, int]]:
    """Ask for a GPU when the workers advertise GPUs (dask worker --resources GPU=1)."""
    workers = client.scheduler_info().get("workers", {})
    if any(w.get("resources", {}).get("GPU") for w in workers.values()):
        return {"GPU": 1}
    return None


class _Bar:
    """One line for the whole job: done / total, frames/s, ETA."""

    def __init__(self, total: int, what: str):
        self.total, self.what, self.done, self.frames = total, what, 0, 0
        self.start = time.time()
        self.tty = sys.stderr.isatty()

    def step(self, frames: float):
        self.done += 1
        self.frames += frames
        elapsed = time.time() - self.start
        fps = self.frames / elapsed if elapsed > 0 else 0
        eta = elapsed / self.done * (self.total - self.done) if self.done else 0
        line = "%s %d/%d  %.1f frames/s  elapsed %.1fs  eta %.0fs" % (
            self.what, self.done, self.total, fps, elapsed, eta)
        if self.tty:
            sys.stderr.write("\r" + line + "\033[K" + ("\n" if self.done == self.total else ""))
        else:
            sys.stderr.write(line + "\n")
        sys.stderr.flush()


def _encoder_options(args) -> Dict[str, str]:
    out = {}
    for name in ENCODER_OPTIONS:
        value = getattr(args, name.replace(":", "_"))
        if value is not None:
            out[_python_name(name)] = value
    return out


def _check_chain(chain: Optional[str], whole_files: bool) -> int:
    """A bad chain is a usage error before any work; so is, for segments,
    a filter whose descriptor says it depends on every frame before (no
    overlap of segments bounds what it reads). Returns the frames each
    segment needs each side of it (a deinterlacer's delay), 0 for none."""
    try:
        stateful = clvid.temporal_filters(chain or "")
        overlap = clvid.cadence(chain or "")[0]
        # A filter that holds a bounded number of frames (a deinterlacer)
        # says so by its delay; the others carry their state for ever.
        unbounded = [f for f in stateful if clvid.cadence(f)[0] == 0]
    except ValueError as e:
        raise UsageError("-vf: %s" % str(e).splitlines()[0])
    if not whole_files and clvid.frame_rate(chain or "") is not None:
        raise UsageError(
            "-vf: fps and framestep pick their frames counting from each segment's first "
            "frame, so the segments would not join as one run does: use clvid transcode on one "
            "machine, or clvid-cluster batch over whole files")
    if unbounded and not whole_files:
        raise UsageError(
            "-vf: %s carries its state from frame to frame (the previous palette, the "
            "previous output, the previous frame it reads): each frame's output depends on "
            "every frame before it, so no overlap of segments makes them equal one run: use "
            "clvid transcode on one machine, or clvid-cluster batch over whole files"
            % " and ".join(unbounded))
    return overlap


def _check_graph(args) -> Optional[List[dict]]:
    """With several inputs: the graph checked for segments (a bad graph, a
    handover, overlay's t, a filter carrying its state for ever are usage
    errors before any work), and the other inputs' path, rate and whether
    each is a still picture. None with one input and no graph."""
    inputs, graph = args.input, args.filter_complex
    if graph is None:
        if len(inputs) > 1:
            raise UsageError("%d inputs (-i) and no -filter_complex: give a graph that joins "
                             "them" % len(inputs))
        if args.map is not None:
            raise UsageError("-map %s: without -filter_complex there is no graph output to "
                             "pick" % args.map)
        return None
    if args.vf is not None:
        raise UsageError("-vf and -filter_complex together: give the chain in the graph")
    if args.map is not None and not (args.map.startswith("[") and args.map.endswith("]")):
        raise UsageError("-map %s: expected the graph's output label, '[out]' (the sound is "
                         "the first input's)" % args.map)
    try:
        timing = clvid.graph_timing(graph, len(inputs), args.map)
    except ValueError as e:
        raise UsageError("-filter_complex: %s" % str(e).splitlines()[0])
    for i, s in enumerate(timing):
        if s is not None and i and (s["drive_from"] < s["drive_until"] or s["offset"] != 0):
            raise UsageError(
                "-filter_complex: the output is handed over to input %d at %g s (xfade): the "
                "segments of the first input cannot carry a handover (each would start its "
                "own transition); run it on one machine with clvid transcode"
                % (i, s["drive_from"]))
    text = clvid._GraphDesc(graph, args.map.strip("[]") if args.map else None).text()
    for part in re.split(r"[;,]", re.sub(r"\[[^\]]*\]", "", text)):
        name = part.split("=", 1)[0].strip()
        if name == "overlay" and re.search(r"(?:^|[=:])[xy]=[^:]*\bt\b",
                                                  (part + "=").split("=", 1)[1]):
            raise UsageError("-filter_complex: overlay's x or y reads t, which counts from each "
                             "segment's start on a cluster; run it on one machine with clvid "
                             "transcode (n, the frame number, is the whole video's)")
        try:
            stateful = [f for f in clvid.temporal_filters(part) if clvid.cadence(f)[0] == 0]
        except ValueError:
            continue  # a filter of several inputs: no chain takes it
        if stateful:
            raise UsageError("-filter_complex: %s carries its state from frame to frame: no "
                             "overlap of segments makes them equal one run: use clvid "
                             "transcode on one machine" % " and ".join(stateful))
    more = []
    for path in inputs[1:]:
        info = clvid.probe(path)
        # a picture: one frame, or no duration (png, jpg say none)
        still = info["frames"] == 1 or not info["duration"] > 0
        more.append({"path": path, "rate": info["rate"], "still": still})
    return more


def _sweep_segments(folder: str) -> None:
    """Removes the segment folders of jobs that died (SIGKILL, a lost
    machine): their lock is free. A folder without a lock yet is a job
    starting, and is left."""
    for work in glob.glob(os.path.join(glob.escape(folder), ".clvid-segments-*")):
        try:
            with open(os.path.join(work, ".lock"), "r") as f:
                fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
                shutil.rmtree(work, ignore_errors=True)
        except OSError:
            pass


def transcode_main(args) -> int:
    if args.segment_seconds <= 0:
        raise UsageError("--segment-seconds %g: expected more than 0" % args.segment_seconds)
    overlap = _check_chain(args.vf, whole_files=False)
    more = _check_graph(args)
    inputs = args.input
    args.input = inputs[0]
    if not _check_output(inputs, args.output, args.y):
        print("clvid-cluster: '%s' already exists; use -y to overwrite it" % args.output,
              file=sys.stderr)
        return 1
    info = clvid.probe(args.input)
    rate = info["rate"]
    if not rate:
        print("clvid-cluster: '%s': no frame rate to cut segments by" % args.input,
              file=sys.stderr)
        return 1
    per = max(1, int(round(args.segment_seconds * rate)))
    total = info["frames"] or int(round(info["duration"] * rate))
    count = max(1, -(-total // per))
    options = _encoder_options(args)
    folder = os.path.dirname(os.path.abspath(args.output))
    _sweep_segments(folder)
    work = tempfile.mkdtemp(prefix=".clvid-segments-", dir=folder)  # beside the output: shared
    lock = open(os.path.join(work, ".lock"), "w")  # held while this job lives
    fcntl.flock(lock, fcntl.LOCK_EX)
    ext = os.path.splitext(args.output)[1] or ".mkv"
    parts = [os.path.join(work, "part%05d%s" % (k, ext)) for k in range(count)]
    client, cluster = _client(args)
    futures = []
    try:
        resources = _resources(client)
        for k in range(count):
            last = k == count - 1
            futures.append(client.submit(segment_task, args.input, parts[k], args.vf, k * per,
                                         None if last else per, rate, options, overlap,
                                         args.filter_complex, more, args.map, retries=2,
                                         resources=resources, pure=False, key="segment-%d-%s"
                                         % (k, os.path.basename(work))))
        from dask.distributed import as_completed
        bar = _Bar(count, "segments")
        for future in as_completed(futures):
            bar.step(future.result()["frames"])
        clvid.join(parts, args.output, streams_from=None if args.an else args.input,
                   overwrite=args.y)
        return 0
    except KeyboardInterrupt:
        client.cancel(futures)
        print("\nclvid-cluster: interrupted; '%s' not written" % args.output, file=sys.stderr)
        return 130
    except (clvid.Error, ValueError) as e:
        client.cancel(futures)
        print("clvid-cluster: %s" % e, file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
        lock.close()
        client.close()
        if cluster is not None:
            cluster.close()


def batch_main(args) -> int:
    inputs = sorted(glob.glob(args.input))
    if not inputs:
        raise UsageError("no file matches '%s'" % args.input)
    _check_chain(args.vf, whole_files=True)
    planned = []
    for path in inputs:
        stem = os.path.splitext(os.path.basename(path))[0]
        try:
            out = args.output.format(stem=stem, name=os.path.basename(path))
        except (KeyError, IndexError, ValueError) as e:
            raise UsageError("-o %s: a pattern takes {stem} and {name} only (%s)"
                             % (args.output, e))
        planned.append((path, out))
    # Every check before any work: two inputs into one output, an output
    # that is one of the inputs.
    writers: Dict[str, str] = {}
    for path, out in planned:
        key = os.path.realpath(out)
        if key in writers:
            raise UsageError("'%s' and '%s' would both be written to '%s'; make -o name each "
                             "output apart (with {name}, or more of the path)"
                             % (writers[key], path, out))
        writers[key] = path
    jobs = []
    for path, out in planned:
        if not _check_output(inputs, out, args.y):
            print("clvid-cluster: '%s' exists, skipped (-y overwrites)" % out, file=sys.stderr)
            continue
        jobs.append((path, out))
    for _, out in jobs:
        os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    if not jobs:
        return 0
    options = _encoder_options(args)
    client, cluster = _client(args)
    futures = []
    failed = 0
    try:
        resources = _resources(client)
        futures = [client.submit(file_task, i, o, args.vf, options, retries=1,
                                 resources=resources, pure=False) for i, o in jobs]
        which = {f.key: job for f, job in zip(futures, jobs)}
        from dask.distributed import as_completed
        bar = _Bar(len(futures), "files")
        for future in as_completed(futures):
            try:
                bar.step(future.result()["frames"])
            except Exception as e:  # one broken file: reported, the others go on
                failed += 1
                bar.step(0)
                print("clvid-cluster: %s: %s" % (which[future.key][0], e), file=sys.stderr)
        print("clvid-cluster: %d of %d files done, %d failed" % (len(jobs) - failed, len(jobs),
                                                                  failed), file=sys.stderr)
        return min(failed, 100)
    except KeyboardInterrupt:
        client.cancel(futures)
        print("\nclvid-cluster: interrupted", file=sys.stderr)
        return 130
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def main(argv: Optional[List[str]] = None) -> int:
    try:
        return _main(argv)
    except UsageError as e:
        print("clvid-cluster: %s" % e, file=sys.stderr)
        return 2
    except (clvid.Error, OSError) as e:
        print("clvid-cluster: %s" % str(e).splitlines()[0], file=sys.stderr)
        return 1


def _main(argv: Optional[List[str]]) -> int:
    ap = _Parser(prog="clvid-cluster", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    for name in ("transcode", "batch"):
        p = sub.add_parser(name)
        if name == "transcode":
            p.add_argument("-i", dest="input", required=True, action="append",
                           help="an input file; several with -filter_complex (the segments "
                           "are the first's)")
            p.add_argument("-filter_complex", "-lavfi", dest="filter_complex", default=None,
                           help="a graph over the inputs, ffmpeg's syntax (docs/graphs.md)")
            p.add_argument("-map", dest="map", default=None,
                           help="the graph's output label, '[out]'")
        else:
            p.add_argument("input", help="a glob pattern of inputs, quoted: 'in/*.mp4'")
        p.add_argument("-o", dest="output", required=True,
                       help="output file; batch: a pattern with {stem} or {name}")
        p.add_argument("-vf", dest="vf", default=None, help="the filter chain, clvid's syntax")
        p.add_argument("-y", action="store_true", help="overwrite outputs that exist")
        for option in ENCODER_OPTIONS:
            p.add_argument("-" + option, dest=option.replace(":", "_"), default=None)
        p.add_argument("--scheduler", default=None, help="Dask scheduler address "
                       "(default: DASK_SCHEDULER_ADDRESS, else a LocalCluster here)")
        p.add_argument("--workers", type=int, default=None,
                       help="LocalCluster workers (default: cores, at most 4)")
        if name == "transcode":
            p.add_argument("--segment-seconds", type=float, default=10.0)
            p.add_argument("-an", action="store_true", help="leave the sound out")
    args = ap.parse_args(argv)
    if args.workers is not None and args.workers < 1:
        raise UsageError("--workers %d: expected 1 or more" % args.workers)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    return transcode_main(args) if args.command == "transcode" else batch_main(args)


if __name__ == "__main__":
    sys.exit(main())
