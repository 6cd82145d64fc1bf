"""A process's memory over a long simulation: it must stay flat.

    .venv/bin/python bench/memory.py [FOLDER] [--games N] [--first K] [--players P] [--agent SPEC]

Plays N random-bot games one after another in one process (as `rulepress simulate` does with
one worker) and prints the resident memory after game K and after game N, and their ratio.
Whatever the runtime keeps with a game (its generated code, answers worked out once) must
stop growing once the game's rules have all been met: 1.00x is flat. By default the small
card game tests/games/watch for four, whose every turn starts and ends with a conditional
trigger. `--agent p1=mcts:20,random` puts the search bot in a seat: every playout leaves a
world whose effect waits for a decision, and none of them may stay in memory.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from rulepress.compiler.pipeline import compile_game  # noqa: E402
from rulepress.runtime.simulate import play_one  # noqa: E402
from rulepress.runtime.tables import Game  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import machine  # noqa: E402


def resident_mb() -> float:
    """This process's resident memory in MB, after a full collection (Linux /proc)."""
    gc.collect()
    with open("/proc/self/statm", encoding="ascii") as fh:
        pages = int(fh.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 1e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("folder", nargs="?", default=os.path.join(ROOT, "tests", "games", "watch"))
    ap.add_argument("--games", type=int, default=20_000)
    ap.add_argument("--first", type=int, default=1_000, help="the game after which memory is first read")
    ap.add_argument("--players", type=int, default=None, help="seats (default: the most the game takes)")
    ap.add_argument("--agent", default="random", help="the bots, as `rulepress simulate --agent` takes them")
    a = ap.parse_args()
    if not 0 < a.first < a.games:
        ap.error("--first must be between 0 and --games")
    text, _g, rep = compile_game(a.folder)
    if text is None:
        raise SystemExit(f"{a.folder} does not compile ({len(rep.errors)} errors)")
    game = Game(json.loads(text))
    players = a.players or game.players_max
    print(f"machine: {machine()}")
    t = time.perf_counter()
    first = None
    for i in range(a.games):
        r = play_one(game, i, "memory", players, a.agent)
        if "error" in r:
            raise SystemExit(f"{game.id}: game {i} failed: {r['error']}")
        if i + 1 == a.first:
            first = resident_mb()
    last = resident_mb()
    print(f"{game.id}, {players} players ({a.agent}), {a.games} games in {time.perf_counter() - t:.0f} s: "
          f"{first:.1f} MB after game {a.first}, {last:.1f} MB after game {a.games}, {last / first:.2f}x")


if __name__ == "__main__":
    main()
