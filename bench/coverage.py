"""What `rulepress coverage` costs a bot game: N games with and without its counters.

    .venv/bin/python bench/coverage.py [--games N] [--runs R] [GAME ...]

Each run plays the same N games (same seeds, same agents) twice, plain
(`simulate.simulate`, one worker) and recorded (`runtime.coverage.play`), in turn, each on
a freshly loaded game so both pay for writing their code; the order alternates from run
to run, as the machine's speed drifts. Prints the median time of each and their ratio
(the issue's bound: at most 2x).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from rulepress.compiler.pipeline import compile_game  # noqa: E402
from rulepress.runtime.coverage import attach, play  # noqa: E402
from rulepress.runtime.simulate import seat_agents, simulate  # noqa: E402
from rulepress.runtime.tables import Game  # noqa: E402


def plain(data, n, players):
    game = Game(data)
    t = time.perf_counter()
    simulate(game, n, seed="bench", players=players)
    return time.perf_counter() - t


def recorded(data, n, players):
    game = Game(data)
    t = time.perf_counter()
    rec = attach(game)
    seats = seat_agents("random", [f"p{k + 1}" for k in range(players)])
    for i in range(n):
        play(game, rec, i, "bench", players, seats)
    return time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("games_ids", nargs="*")
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    root = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "content")
    ids = a.games_ids or sorted(d for d in os.listdir(root) if os.path.isfile(os.path.join(root, d, "game.yaml")))
    print(f"{'game':<20} {'players':>7} {'plain s':>8} {'coverage s':>11} {'ratio':>6}")
    for gid in ids:
        text, _g, _rep = compile_game(os.path.join(root, gid))
        if text is None:
            print(f"{gid:<20} does not compile")
            continue
        data = json.loads(text)
        p = data["game"]["players"]["min"]
        p = p if p > 1 else min(2, data["game"]["players"]["max"])
        times = {"plain": [], "coverage": []}
        for r in range(a.runs):
            order = [("plain", plain), ("coverage", recorded)]
            for name, f in order if r % 2 == 0 else order[::-1]:
                times[name].append(f(json.loads(text), a.games, p))
        t0, t1 = statistics.median(times["plain"]), statistics.median(times["coverage"])
        print(f"{gid:<20} {p:>7} {t0:>8.2f} {t1:>11.2f} {t1 / t0:>5.2f}x")


if __name__ == "__main__":
    main()
