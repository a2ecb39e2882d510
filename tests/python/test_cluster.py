"""clvid-cluster on Dask: a LocalCluster of 2 workers, and a scheduler with
2 worker processes started here on localhost, one of them killed mid-run."""
import json
import os
import signal
import subprocess
import sys
import time

import pytest

pytest.importorskip("distributed")
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
TOOL = os.path.join(ROOT, "python", "clvid-cluster")
MEDIA = os.environ.get("CLVID_MEDIA", os.path.join(ROOT, "media"))
CLVID = os.environ.get("CLVID_BIN")
CHAIN = "noise=amount=0.2:seed=3,median"


def framemd5(path):
    p = subprocess.run(["ffmpeg", "-v", "error", "-i", str(path), "-map", "0:v", "-f", "framemd5",
                        "-"], capture_output=True, text=True, check=True)
    return [l.split(",")[-1].strip() for l in p.stdout.splitlines() if not l.startswith("#")]


def streams(path):
    p = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "stream=codec_type", "-of",
                        "csv=p=0", str(path)], capture_output=True, text=True, check=True)
    return p.stdout.split()


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    """4 s of the sample, small, with its sound."""
    if not CLVID or not shutil_which("ffmpeg"):
        pytest.skip("needs CLVID_BIN and ffmpeg")
    path = tmp_path_factory.mktemp("clip") / "clip.mp4"
    subprocess.run(["ffmpeg", "-v", "error", "-i", os.path.join(MEDIA, "sample.mp4"), "-t", "4",
                    "-vf", "scale=320:180", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-c:a",
                    "aac", str(path)], check=True)
    return path


def shutil_which(name):
    import shutil
    return shutil.which(name)


def one_run(clip, out):
    subprocess.run([CLVID, "transcode", "-q", "-i", str(clip), "-vf", CHAIN, "-c:v", "ffv1", "-o",
                    str(out)], check=True)


def cluster(*args, **kw):
    return subprocess.run([sys.executable, TOOL, *args], capture_output=True, text=True,
                          timeout=600, **kw)


def test_local_cluster_transcode_equals_one_run(clip, tmp_path):
    one, joined = tmp_path / "one.mkv", tmp_path / "joined.mkv"
    one_run(clip, one)
    # The segments of a job that died (its lock free) go with the next job.
    dead = tmp_path / ".clvid-segments-dead"
    dead.mkdir()
    (dead / ".lock").write_text("")
    (dead / "part00000.mkv").write_bytes(b"x" * 1000)
    p = cluster("transcode", "-i", str(clip), "-vf", CHAIN, "-c:v", "ffv1", "-o", str(joined),
                "--segment-seconds", "1", "--workers", "2")
    assert p.returncode == 0, p.stderr
    assert "segments 4/4" in p.stderr, p.stderr
    assert framemd5(joined) == framemd5(one)
    assert streams(joined) == ["video", "audio"]
    assert not [n for n in os.listdir(tmp_path) if n.startswith(".clvid-segments")]
    p = cluster("transcode", "-i", str(clip), "-vf", CHAIN, "-o", str(joined))
    assert p.returncode == 1 and "already exists" in p.stderr
    p = cluster("transcode", "-i", str(clip), "-vf", "quantize", "-o", str(tmp_path / "q.mkv"))
    assert p.returncode == 2 and "palette" in p.stderr and "no overlap" in p.stderr
    # hqdn3d's output feeds its next frame: every frame before counts, no
    # overlap bounds it, with a deinterlacer beside it too.
    p = cluster("transcode", "-i", str(clip), "-vf", "bwdif,hqdn3d", "-o",
                str(tmp_path / "h.mkv"))
    assert p.returncode == 2 and "-vf: hqdn3d" in p.stderr and "no overlap" in p.stderr, p.stderr
    p = cluster("transcode", "-i", str(clip), "-vf", "medain", "-o", str(tmp_path / "q.mkv"))
    assert p.returncode == 2 and "medain" in p.stderr


def test_cluster_with_several_inputs_equals_one_run(clip, tmp_path):
    """-i A -i B -i LOGO -filter_complex: the segments are the clip's; the
    other clip (10 fps, another size) is cut to match each, the picture
    given whole: the joined output equals one run frame for frame. A
    handover (xfade) and overlay's t are refused before any work."""
    other, logo = tmp_path / "other.mkv", tmp_path / "logo.png"
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i",
                    "testsrc2=size=96x90:rate=10:duration=5", "-c:v", "ffv1", str(other)],
                   check=True)
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i",
                    "color=c=red@0.5:size=40x20,format=rgba", "-frames:v", "1", str(logo)],
                   check=True)
    graph = "[1]scale=160:180[b];[0][b]hstack[s];[s][2]overlay=x=W-w-5:y=n[out]"
    one, joined = tmp_path / "one.mkv", tmp_path / "joined.mkv"
    subprocess.run([CLVID, "transcode", "-q", "-i", str(clip), "-i", str(other), "-i", str(logo),
                    "-filter_complex", graph, "-map", "[out]", "-c:v", "ffv1", "-o", str(one)],
                   check=True)
    p = cluster("transcode", "-i", str(clip), "-i", str(other), "-i", str(logo),
                "-filter_complex", graph, "-map", "[out]", "-c:v", "ffv1", "-o", str(joined),
                "--segment-seconds", "1.3", "--workers", "2")
    assert p.returncode == 0, p.stderr
    want, got = framemd5(one), framemd5(joined)
    assert len(got) == len(want) and got == want, (len(got), len(want), [k for k in range(min(len(got), len(want))) if got[k] != want[k]])
    assert streams(joined) == ["video", "audio"]
    out = tmp_path / "x.mkv"
    one_line_error(cluster("transcode", "-i", str(clip), "-i", str(other), "-filter_complex",
                           "[0][1]xfade=offset=1", "-o", str(out)), 2, "handed over to input 1")
    one_line_error(cluster("transcode", "-i", str(clip), "-i", str(logo), "-filter_complex",
                           "[0][1]overlay=x=t*10", "-o", str(out)), 2, "reads t")
    one_line_error(cluster("transcode", "-i", str(clip), "-i", str(logo), "-o", str(out)), 2,
                   "no -filter_complex")
    one_line_error(cluster("transcode", "-i", str(clip), "-i", str(logo), "-filter_complex",
                           "[0][2]overlay", "-o", str(out)), 2, "no input 2")
    assert not out.exists()


def timed_frames(path):
    """(pts, md5) of each video frame, and the stream's time base."""
    p = subprocess.run(["ffmpeg", "-v", "error", "-i", str(path), "-map", "0:v", "-f", "framemd5",
                        "-"], capture_output=True, text=True, check=True)
    base = [l for l in p.stdout.splitlines() if l.startswith("#tb")]
    rows = [l.split(",") for l in p.stdout.splitlines() if not l.startswith("#")]
    return base, [(r[2].strip(), r[-1].strip()) for r in rows]


@pytest.mark.parametrize("chain,rate", [("yadif", 1), ("yadif=mode=send_field", 2),
                                        ("bwdif=mode=send_frame", 1), ("bwdif", 2),
                                        ("noise=amount=0.2:seed=3,bwdif,noise=seed=5", 2)])
def test_cluster_with_a_deinterlacer_equals_one_run(clip, tmp_path, chain, rate):
    """A deinterlacer reads the frame before and after each one: each
    segment decodes those beyond its ends as context and drops their
    outputs, so the joined file equals one run frame for frame (field for
    field at send_field, with the same timestamps), the segments' first and
    last frames included; on two devices too."""
    one, joined = tmp_path / "one.mkv", tmp_path / "joined.mkv"
    subprocess.run([CLVID, "transcode", "-q", "-i", str(clip), "-vf", chain, "-c:v", "ffv1", "-o",
                    str(one)], check=True)
    env = None
    if chain == "bwdif":  # the chain held on one of two devices, in order
        env = dict(os.environ, POCL_DEVICES="pthread pthread", CLVID_DEVICE="all")
    p = cluster("transcode", "-i", str(clip), "-vf", chain, "-c:v", "ffv1", "-o", str(joined),
                "--segment-seconds", "0.5", "--workers", "2", env=env)
    assert p.returncode == 0, p.stderr
    assert "segments 8/8" in p.stderr, p.stderr
    want, got = timed_frames(one), timed_frames(joined)
    assert len(got[1]) == 4 * 30 * rate
    assert got == want


def test_cluster_at_a_new_size(clip, tmp_path):
    """A chain that changes the size: every segment is made at the chain's
    size and the joined file equals one run, frame for frame."""
    chain = "scale=iw*3/4:-2,transpose=clock,pad=iw+8:ih:4:0:navy"
    one, joined = tmp_path / "one.mkv", tmp_path / "joined.mkv"
    subprocess.run([CLVID, "transcode", "-q", "-i", str(clip), "-vf", chain, "-c:v", "ffv1", "-o",
                    str(one)], check=True)
    p = cluster("transcode", "-i", str(clip), "-vf", chain, "-c:v", "ffv1", "-o", str(joined),
                "--segment-seconds", "1", "--workers", "2")
    assert p.returncode == 0, p.stderr
    size = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "stream=width,height", "-of",
                           "csv=p=0", "-select_streams", "v", str(joined)], capture_output=True,
                          text=True, check=True).stdout.strip()
    assert size == "144,240", size  # 320x180 -> 240x136 -> 136x240 -> 144x240
    assert framemd5(joined) == framemd5(one)


def test_batch_with_a_broken_file(clip, tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    for name in ("a", "b"):
        os.link(clip, src / ("%s.mp4" % name))
    (src / "broken.mp4").write_bytes(b"not a video at all" * 100)
    out = tmp_path / "out"
    p = cluster("batch", str(src / "*.mp4"), "-vf", "sharpen", "-o", str(out / "{stem}.mkv"),
                "--workers", "2")
    assert p.returncode == 1, p.stderr
    assert "broken.mp4" in p.stderr and "2 of 3 files done, 1 failed" in p.stderr
    assert sorted(os.listdir(out)) == ["a.mkv", "b.mkv"]
    p = cluster("batch", str(src / "*.mp4"), "-vf", "sharpen", "-o", str(out / "{stem}.mkv"),
                "--workers", "1")
    assert "exists, skipped" in p.stderr


def test_worker_killed_mid_run(clip, tmp_path):
    """A scheduler and two workers on localhost; one worker is killed while
    segments run: the job completes, frame for frame the one-run output."""
    env = dict(os.environ)
    sched_file = tmp_path / "scheduler.json"
    procs = []

    def start(*args):
        p = subprocess.Popen([sys.executable, "-m", *args], env=env, start_new_session=True,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        procs.append(p)
        return p
    try:
        start("distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0",
              "--no-dashboard", "--scheduler-file", str(sched_file))
        deadline = time.time() + 60
        while not sched_file.exists() and time.time() < deadline:
            time.sleep(0.2)
        address = json.loads(sched_file.read_text())["address"]
        workers = [start("distributed.cli.dask_worker", address, "--nthreads", "1",
                         "--no-nanny", "--no-dashboard") for _ in range(2)]
        one, joined = tmp_path / "one.mkv", tmp_path / "joined.mkv"
        one_run(clip, one)
        job = subprocess.Popen([sys.executable, TOOL, "transcode", "-i", str(clip), "-vf", CHAIN,
                                "-c:v", "ffv1", "-o", str(joined), "--segment-seconds", "0.5",
                                "--scheduler", address], stderr=subprocess.PIPE, text=True)
        # Kill a worker once the first segments are done.
        deadline = time.time() + 300
        while time.time() < deadline and job.poll() is None:
            parts = [p for d in tmp_path.glob(".clvid-segments-*") for p in d.iterdir()]
            if len(parts) >= 2:
                os.killpg(workers[0].pid, signal.SIGKILL)
                break
            time.sleep(0.05)
        _, err = job.communicate(timeout=600)
        assert job.returncode == 0, err
        assert framemd5(joined) == framemd5(one)
    finally:
        for p in procs:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def one_line_error(p, status, words):
    """A mistake: exit status, one line naming it, no traceback."""
    lines = p.stderr.strip().splitlines()
    assert p.returncode == status, p.stderr
    assert len(lines) == 1 and words in lines[0] and "Traceback" not in p.stderr, p.stderr


def test_the_command_line_rules(clip, tmp_path):
    """The cluster keeps clvid transcode's rules, checked before any work."""
    copy = tmp_path / "clip.mp4"
    os.link(clip, copy)
    one_line_error(cluster("transcode", "-i", str(copy), "-o", str(copy), "-y"), 2, "input")
    alias = tmp_path / "alias.mp4"
    os.symlink(copy, alias)
    one_line_error(cluster("transcode", "-i", str(copy), "-o", str(alias), "-y"), 2, "input")
    # Temporal by the descriptor: a kernel reading prev is refused for
    # segments; a kernel file named like quantize is not quantize.
    motion = tmp_path / "motion.cl"
    motion.write_text(open(os.path.join(ROOT, "examples", "kernels", "motion.cl")).read())
    one_line_error(cluster("transcode", "-i", str(copy), "-vf", "opencl=file=%s" % motion, "-o",
                           str(tmp_path / "m.mkv")), 2, "carries its state")
    # fps's ticks count from a segment's first frame: refused for segments
    one_line_error(cluster("transcode", "-i", str(copy), "-vf", "hflip,fps=12", "-o",
                           str(tmp_path / "f.mkv")), 2, "fps and framestep pick their frames")
    assert not (tmp_path / "f.mkv").exists()
    look = tmp_path / "quantize_look.cl"
    look.write_text(open(os.path.join(ROOT, "examples", "kernels", "vignette.cl")).read())
    taken = tmp_path / "taken.mkv"
    taken.write_bytes(b"the user's")
    one_line_error(cluster("transcode", "-i", str(copy), "-vf", "opencl=file=%s" % look, "-o",
                           str(taken)), 1, "already exists")
    assert taken.read_bytes() == b"the user's"
    # Batch: two inputs into one output, an output that is an input.
    for d in ("x", "y"):
        (tmp_path / d).mkdir()
        os.link(clip, tmp_path / d / "same.mp4")
    out = tmp_path / "out"
    one_line_error(cluster("batch", str(tmp_path / "*" / "same.mp4"), "-o",
                           str(out / "{stem}.mkv")), 2, "would both be written")
    assert not out.exists(), "work began before the refusal"
    one_line_error(cluster("batch", str(tmp_path / "x" / "*.mp4"), "-o",
                           str(tmp_path / "x" / "{name}"), "-y"), 2, "input")
    # Bad arguments: one line, exit 2.
    one_line_error(cluster("transcode", "-i", str(copy), "-o", str(tmp_path / "s.mkv"),
                           "--segment-seconds", "-1"), 2, "--segment-seconds")
    one_line_error(cluster("transcode", "-i", str(copy), "-o", str(tmp_path / "s.mkv"),
                           "--workers", "0"), 2, "--workers")
    one_line_error(cluster("transcode", "-i", str(copy), "-o", str(tmp_path / "s.mkv"),
                           "--bogus"), 2, "--bogus")
    one_line_error(cluster("transcode", "-o", str(tmp_path / "s.mkv")), 2, "-i")
    one_line_error(cluster("transcode", "-i", str(copy), "-vf", "median=radius=99", "-o",
                           str(tmp_path / "s.mkv")), 2, "radius")
    one_line_error(cluster("batch", str(tmp_path / "none-*.mp4"), "-o", str(out / "{stem}.mkv")),
                   2, "no file matches")
    one_line_error(cluster("batch", str(tmp_path / "x" / "*.mp4"), "-o", str(out / "{bogus}.mkv")),
                   2, "{stem} and {name}")
    one_line_error(cluster("transcode", "-i", str(tmp_path / "missing.mp4"), "-o",
                           str(tmp_path / "s.mkv")), 1, "missing.mp4")
