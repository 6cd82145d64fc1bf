"""A decision in rulepress against the same decision in plain Python, on whole games.

    .venv/bin/python bench/versus_plain.py [--games N] [--runs R] [--players 2 4]

docs/examples/love-letter is played by the runtime (random bots, as `rulepress simulate`
plays) and by bench/plain_love_letter.py (the same rules by hand, the same kind of bots; see
bench/same_rules.py for the proof that they agree), in one process, taking turns: run by run,
N runtime games, then 20 N plain ones (of about the same length), so that the machine's
drift falls on both. Prints
the median microseconds of CPU a decision of each over R runs, and their ratio.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import plain_love_letter as plain  # noqa: E402
from run import machine, yardstick  # noqa: E402
from same_rules import content_game, rulepress_games  # noqa: E402


def _plain_games(players, games, seed):
    return sum(g.decisions for g in plain.play_many(players, games, seed))


def per_decision(work) -> float:
    """CPU seconds a decision: `work` plays its games and returns how many decisions they took.
    The process's CPU time, not the wall clock: on a shared machine the wall clock also
    counts the time others' processes ran."""
    t = time.process_time()
    n = work()
    return (time.process_time() - t) / n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=100, help="rulepress games a run (plain plays 20 times as many)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--players", type=int, nargs="*", default=[2, 4])
    a = ap.parse_args()
    game = content_game()
    print(f"machine: {machine()}")
    print(yardstick())
    print(f"{'players':>7} {'rulepress us/decision':>22} {'plain us/decision':>18} {'ratio':>7}")
    for n in a.players:
        rulepress_games(game, n, 5, seed="warm")  # what the runtime works out once per game
        ours, theirs = [], []
        for r in range(a.runs):
            ours.append(per_decision(lambda: sum(g.decisions for g in rulepress_games(game, n, a.games, seed=f"run{r}"))))
            theirs.append(per_decision(lambda: _plain_games(n, a.games * 20, f"run{r}")))
        o, t = statistics.median(ours), statistics.median(theirs)
        print(f"{n:>7} {o * 1e6:>22.2f} {t * 1e6:>18.2f} {o / t:>6.1f}x", flush=True)
    print(yardstick())


if __name__ == "__main__":
    main()
