"""How long the runtime takes to write and compile each content game's module (runtime/pysource.py).

    .venv/bin/python bench/pysource.py [--runs R]

A game's module is written afresh each time the game is loaded and never read back from a
file, so this is paid once per loaded game (goal: under 0.5 s for the largest). Prints the
median of R runs per game, with the machine and the yardstick.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from rulepress.compiler.pipeline import compile_game  # noqa: E402
from rulepress.runtime import pysource  # noqa: E402
from rulepress.runtime.tables import Game  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import machine, yardstick  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    print(f"machine: {machine()}")
    print(yardstick())
    root = os.path.join(ROOT, "content")
    for gid in sorted(d for d in os.listdir(root) if os.path.isfile(os.path.join(root, d, "game.yaml"))):
        text, _g, _rep = compile_game(os.path.join(root, gid))
        data = json.loads(text)
        times = []
        for _ in range(a.runs):
            game = Game(data)
            t = time.perf_counter()
            c = pysource.code(game)
            times.append(time.perf_counter() - t)
        lines = len(pysource.source(Game(data)).splitlines()) if hasattr(pysource, "source") else len(c.source.splitlines())
        print(f"{gid:<20} {len(text) // 1024:5d} KiB of tables -> {lines:6d} lines "
              f"in {statistics.median(times):.3f} s")
    print(yardstick())


if __name__ == "__main__":
    main()
