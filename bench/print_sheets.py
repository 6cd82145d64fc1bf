"""`rulepress print` of the four content games' card sheets, this tree against another (main).

    .venv/bin/python bench/print_sheets.py --base ../rulepress-main [--runs N]

For each run, each game is printed by the base tree (`print --png`: the rulebook, the sheets,
the contact sheet and a 300 dpi PNG per card, as `print` did before measured fit and TTS) and
by this tree (`print --png`, then `print --png --tts`), one after the other, so that the
machine's drift falls on all of them alike. Each is a separate process, with its own empty
cache; the figure is its CPU time (user+sys) and wall time. Prints the machine, a yardstick
of its speed before and after, the medians and the ratios to the base.
"""
from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

from run import machine, yardstick  # noqa: E402

GAMES = ("android", "study-in-emerald", "arkham-horror", "night-city")


def _timed(tree: str, game: str, extra: list[str]) -> tuple[float, float]:
    """CPU and wall seconds of one `rulepress print` of a game of `tree` by `tree`'s own venv."""
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, RULEPRESS_CACHE_DIR=os.path.join(tmp, "cache"), PYTHONDONTWRITEBYTECODE="1")
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        done = subprocess.run([os.path.join(tree, ".venv", "bin", "rulepress"), "print", os.path.join(tree, "content", game),
                               "--png", *extra, "-o", os.path.join(tmp, "out")], cwd=tmp, env=env,
                              capture_output=True, check=False)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{tree}: print {game} failed: {done.stderr.decode(errors='replace')[-400:]}")
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--base", required=True, help="the tree to compare with: a checkout of the commit before, with its own .venv")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--games", nargs="+", default=list(GAMES), choices=GAMES, help="default: all four")
    ap.add_argument("--no-tts", dest="tts", action="store_false", help="leave out `print --png --tts`")
    args = ap.parse_args()
    print(machine())
    print(f"yardstick before: {yardstick()}")
    kinds = {"base --png": (args.base, []), "this --png": (ROOT, [])}
    if args.tts:
        kinds["this --png --tts"] = (ROOT, ["--tts"])
    cpu: dict = {k: [] for k in kinds}
    wall: dict = {k: [] for k in kinds}
    for run in range(args.runs):
        for kind, (tree, extra) in kinds.items():
            c = w = 0.0
            for game in args.games:
                gc, gw = _timed(tree, game, extra)
                c, w = c + gc, w + gw
            cpu[kind].append(c)
            wall[kind].append(w)
            print(f"run {run + 1}: {kind:18} cpu {c:6.1f} s  wall {w:6.1f} s", flush=True)
    print(f"yardstick after: {yardstick()}")
    base = statistics.median(cpu["base --png"])
    for kind in kinds:
        m = statistics.median(cpu[kind])
        print(f"{kind:18} median cpu {m:6.1f} s (range {min(cpu[kind]):.1f}-{max(cpu[kind]):.1f}), "
              f"wall {statistics.median(wall[kind]):6.1f} s; × {m / base:.2f} of the base")


if __name__ == "__main__":
    main()
