"""Random-bot games a second on Ray with 1 and 2 workers, beside the local backend, on the
heavier content games, and the scaling factor of 2 Ray workers over 1 (the goal: 1.8x).

    .venv/bin/python bench/ray_scaling.py [--games N] [--runs R] [GAME ...]

Ray is started once here (2 CPUs) and every run joins it, as runs on a cluster do: a run's
time is its actors' start (each builds the game from its tables) and its games, not the
start of Ray itself. The figures of one round are taken one after another (local, Ray 1,
Ray 2, local 2) and rounds repeat, so that the machine's drift falls on each alike; each
figure is the median of its runs, beside the CPUs its games kept busy (their CPU seconds over
the run's time): on a machine others are using, that says what scaling there was to take.
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
from rulepress.runtime.simulate import jobs_for, play_one, run_games  # noqa: E402
from rulepress.runtime.tables import Game  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import machine, yardstick  # noqa: E402  the same lines about the machine as the other benchmarks

HEAVIER = ["arkham-horror", "study-in-emerald"]
SETUPS = [("local, 1 worker", "local", 1), ("ray, 1 worker", "ray", 1), ("ray, 2 workers", "ray", 2),
          ("local, 2 workers", "local", 2)]


def play_timed(game, *job):
    """play_one, with the CPU seconds its worker spent on the game."""
    t = time.process_time()
    result = play_one(game, *job)
    result["cpu"] = time.process_time() - t
    return result


def games_per_second(game, n, backend, workers, players) -> tuple[float, float]:
    """(games a second, CPUs the games kept busy): the second is what the machine gave the run,
    so a run on a machine others are using says how much of its scaling was there to take."""
    jobs = jobs_for(n, "bench", players, "random")
    t = time.perf_counter()
    results = run_games(game, jobs, workers=workers, backend=backend, play=play_timed)
    dt = time.perf_counter() - t
    failed = [r for r in results if "error" in r]
    if failed:
        raise SystemExit(f"{game.id}: {len(failed)} games failed: {failed[0]['error']}")
    return n / dt, sum(r["cpu"] for r in results) / dt


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("games_ids", nargs="*", default=HEAVIER)
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    import ray
    root = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "content")
    print(f"machine: {machine()}")
    print(f"ray {ray.__version__}; {a.games} games a run, median of {a.runs} alternating runs")
    print(yardstick())
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    try:
        print(f"{'game':<18} {'players':>7} " + " ".join(f"{name:>17}" for name, _b, _w in SETUPS) + f" {'ray 2/1':>8}")
        for gid in a.games_ids:
            text, _g, rep = compile_game(os.path.join(root, gid))
            if text is None:
                print(f"{gid:<18} does not compile ({len(rep.errors)} errors)")
                continue
            game = Game(json.loads(text))
            p = game.players_min if game.players_min > 1 else min(2, game.players_max)
            games_per_second(game, 4, "ray", 2, p)  # Ray's worker processes started once, before any clock
            runs = {name: [] for name, _b, _w in SETUPS}
            for _ in range(a.runs):
                for name, backend, workers in SETUPS:
                    runs[name].append(games_per_second(game, a.games, backend, workers, p))
            rate = {name: statistics.median(g for g, _c in r) for name, r in runs.items()}
            busy = {name: statistics.median(c for _g, c in r) for name, r in runs.items()}
            print(f"{gid:<18} {p:>7} " + " ".join(f"{rate[name]:>6.1f}/s {busy[name]:>4.2f} CPU"[-17:] for name, _b, _w in SETUPS)
                  + f" {rate['ray, 2 workers'] / rate['ray, 1 worker']:>7.2f}x")
    finally:
        ray.shutdown()
    print(yardstick())


if __name__ == "__main__":
    main()
