"""Random-bot full games per second for every content game, and the speed-up of 2 workers.

    .venv/bin/python bench/play.py [--games N] [--runs R] [GAME ...]

Prints the median of R runs per figure, with the machine it ran on and a yardstick of its
speed before and after (see run.yardstick).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from rulepress.runtime.simulate import simulate  # noqa: E402
from rulepress.runtime.tables import Game  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import content_games, machine, yardstick  # noqa: E402  the same lines about the machine as the compiler benchmark


def games_per_second(game, n, workers, players):
    """(games a second, decisions a second): the second compares runtimes whose bots play
    other games from the same seed."""
    t = time.perf_counter()
    r = simulate(game, n, seed="bench", players=players, workers=workers)
    dt = time.perf_counter() - t
    if r["errors"]:
        raise SystemExit(f"{game.id}: {len(r['errors'])} games failed: {r['errors'][0]['error']}")
    return n / dt, r["decisions"]["mean"] * n / dt


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("games_ids", nargs="*")
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    print(f"machine: {machine()}")
    print(yardstick())
    print(f"{'game':<20} {'players':>7} {'games/s (1 worker)':>19} {'decisions/s':>12} {'games/s (2 workers)':>20} {'speed-up':>9}")
    for gid, text in content_games(a.games_ids):
        game = Game(json.loads(text))
        p = game.players_min if game.players_min > 1 else min(2, game.players_max)
        ones = [games_per_second(game, a.games, 1, p) for _ in range(a.runs)]
        one, per_decision = statistics.median(g for g, _d in ones), statistics.median(d for _g, d in ones)
        two = statistics.median(games_per_second(game, a.games, 2, p)[0] for _ in range(a.runs))
        print(f"{gid:<20} {p:>7} {one:>19.1f} {per_decision:>12.0f} {two:>20.1f} {two / one:>8.2f}x")
    print(yardstick())


if __name__ == "__main__":
    main()
