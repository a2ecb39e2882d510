#!/usr/bin/env python3
"""ipc_control.py - drives a running clvid through its control socket
(docs/ipc.md): prints the run's figures, cycles it through a few chains,
listening to its events, and optionally ends it.

    clvid play clip.mp4 --ipc /tmp/clvid.sock &        # or transcode, or webcam
    python3 examples/ipc_control.py /tmp/clvid.sock --quit

Needs the clvid Python package (for clvid.Control, which itself uses only
the standard library)."""
import argparse
import time

import clvid


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("socket", help="the path given to --ipc")
    ap.add_argument("--chains", default="median,sharpen;gray;median=radius=2,emboss",
                    help="chains to show one after another, ';' between them")
    ap.add_argument("--seconds", type=float, default=2.0, help="how long each is shown")
    ap.add_argument("--quit", action="store_true", help="end the run afterwards")
    args = ap.parse_args()

    def on_event(event):  # on the client's own thread, as events come
        print("event:", event)

    with clvid.Control(args.socket, on_event=on_event) as c:
        s = c.stats()
        print("running %r on %s: %d frames, %.1f fps" % (s["chain"], s["device"], s["frames"],
                                                         s["fps"]))
        before = c.get("chain")
        for chain in args.chains.split(";"):
            try:
                print("now:", c.set_chain(chain))
            except clvid.ControlError as e:  # a chain the run refused: it goes on as it was
                print("refused:", e)
            time.sleep(args.seconds)
        c.set_chain(before)
        if args.quit:
            c.quit()
            c.wait_event("end", timeout=60)


if __name__ == "__main__":
    main()
