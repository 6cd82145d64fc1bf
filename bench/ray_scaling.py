"""Random-bot games a second on Ray with 1 and 2 workers, beside the local backend, on the
heavier content games, and the scaling factor of 2 Ray workers over 1 (the goal: 1.8x).

    .venv/bin/python bench/ray_scaling.py [--games N] [--runs R] [GAME ...]

A run is 1000 games by default, a short simulation: about a minute a round for each game.

Ray is started once here (2 CPUs) and every run joins it, as runs on a cluster do: a run's
time is its actors' start and its games, not the start of Ray itself. The figures of one
round are taken one after another (local, Ray 1, Ray 2, local 2) and rounds repeat, so that
the machine's drift falls on each alike; each figure is the median of its runs.

A run's rate alone is not the scaling a simulation sees. Each Ray run starts its workers
afresh (a Ray worker process, its imports, the game's code written from its tables: about
half a second of CPU each, in parallel), once, whatever the number of games; a run of a few
hundred games lasts two to four seconds, so that start weighs twice as much against the
2-worker run as against the 1-worker run (200 games of Arkham: 1.7x over the run, 1.8x
after the start), while a simulation of thousands of games (what Ray is for) hardly sees
it. So each setup also says:
  start     seconds from the call until every worker had played its first game;
  after     games a second from then to the end: the rate a long simulation tends to;
  CPUs      the CPUs its games kept busy (their CPU seconds over the run's time): on a
            machine others are using, this says how much scaling there was to take;
  Ray CPU   CPU seconds of Ray's own processes (raylet, GCS, agents, log monitor: all Ray
            started here but the run's workers) during the run;
  between   CPU seconds the workers spent outside games once started (Ray's calls and
            threads in them): what the backend costs per game in steady play.
and the scaling is given over the whole run and after the start. The machine's load average
is printed beside each game: the figures mean something only on an otherwise idle machine,
and the local backend's own 2/1 says whether it was (1.9x or more when it was).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from typing import NamedTuple

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from rulepress.runtime.simulate import jobs_for, play_one, run_games  # noqa: E402
from rulepress.runtime.tables import Game  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import content_games, machine, yardstick  # noqa: E402  the same lines about the machine as the other benchmarks

HEAVIER = ["arkham-horror", "study-in-emerald"]
SETUPS = [("local, 1 worker", "local", 1), ("ray, 1 worker", "ray", 1), ("ray, 2 workers", "ray", 2),
          ("local, 2 workers", "local", 2)]
TICK = os.sysconf("SC_CLK_TCK")
IDLE_LOCAL = 1.85  # local 2/1 on an idle machine is 1.9x or more; below this, others took the second core


class Played(NamedTuple):
    """When and where one game was played, as its worker saw it."""
    worker: int  # the process id
    began: float  # wall clock (time.time, one clock for every process of this machine)
    ended: float
    cpu: float  # CPU seconds of the game
    process_cpu: float  # CPU seconds of its whole process when the game ended


class Run(NamedTuple):
    rate: float  # games a second over the whole run
    busy: float  # CPUs the games kept busy
    start: float  # seconds until every worker had played its first game
    after: float  # games a second from then on
    ray_cpu: float  # CPU seconds of Ray's own processes during the run
    between: float  # CPU seconds of the workers outside games once started


def play_timed(game, *job):
    """play_one, with when and where it was played."""
    t, c = time.time(), time.process_time()
    result = play_one(game, *job)
    result["played"] = Played(os.getpid(), t, time.time(), time.process_time() - c, time.process_time())
    return result


def run_once(game, n, backend, workers, players) -> Run:
    jobs = jobs_for(n, "bench", players, "random")
    before = ray_processes()
    t = time.time()
    results = run_games(game, jobs, workers=workers, backend=backend, play=play_timed)
    end = time.time()
    after = ray_processes()
    failed = [r for r in results if "error" in r]
    if failed:
        raise SystemExit(f"{game.id}: {len(failed)} games failed: {failed[0]['error']}")
    played = [Played(*r["played"]) for r in results]
    by_worker = {}
    for p in sorted(played, key=lambda p: p.ended):
        by_worker.setdefault(p.worker, []).append(p)
    started = max(games[0].ended for games in by_worker.values())
    later = [p for p in played if p.began >= started]
    # CPU of each worker from its first game's end to its last's, less that of its games then
    between = sum(games[-1].process_cpu - games[0].process_cpu - sum(p.cpu for p in games[1:])
                  for games in by_worker.values())
    workers_now = set(by_worker)
    ray_cpu = sum(cpu - before.get(pid, 0.0) for pid, cpu in after.items() if pid not in workers_now)
    return Run(n / (end - t), sum(p.cpu for p in played) / (end - t), started - t,
               len(later) / (end - started) if end > started else 0.0, ray_cpu, between)


def ray_processes() -> dict:
    """pid -> CPU seconds of every process this one started, and theirs (Linux /proc): the
    Ray started here (its workers among them); the local backend's forks are gone by then."""
    parent = {}
    cpu = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            parent[int(d)] = int(fields[1])
            cpu[int(d)] = (int(fields[11]) + int(fields[12])) / TICK
    me, out = os.getpid(), {}
    for pid in parent:
        p, hops = pid, 0
        while p > 1 and p != me and hops < 64:  # bounded: a chain of parents ends at init
            p, hops = parent.get(p, 0), hops + 1
        if p == me and pid != me:
            out[pid] = cpu[pid]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("games_ids", nargs="*", default=HEAVIER)
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=1)
    a = ap.parse_args()
    import ray
    print(f"machine: {machine()}")
    print(f"ray {ray.__version__}; {a.games} games a run, median of {a.runs} alternating runs")
    print(yardstick())
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    try:
        for gid, text in content_games(a.games_ids):
            game = Game(json.loads(text))
            p = game.players_min if game.players_min > 1 else min(2, game.players_max)
            run_once(game, 4, "ray", 2, p)  # Ray's worker processes started once, before any clock
            runs = {name: [] for name, _b, _w in SETUPS}
            for _ in range(a.runs):
                for name, backend, workers in SETUPS:
                    runs[name].append(run_once(game, a.games, backend, workers, p))
            med = {name: Run(*(statistics.median(col) for col in zip(*r))) for name, r in runs.items()}
            load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
            print(f"\n{gid}, {p} players (load average {load})")
            print(f"  {'':<17} {'games/s':>8} {'CPUs':>5} {'start':>7} {'after':>8} {'Ray CPU':>8} {'between':>8}")
            for name, r in med.items():
                print(f"  {name:<17} {r.rate:>6.1f}/s {r.busy:>5.2f} {r.start:>6.2f}s {r.after:>6.1f}/s "
                      f"{r.ray_cpu:>7.2f}s {r.between:>7.2f}s")
            one, two = med["ray, 1 worker"], med["ray, 2 workers"]
            local = med["local, 2 workers"].rate / med["local, 1 worker"].rate
            print(f"  ray 2/1: {two.rate / one.rate:.2f}x over the run, {two.after / one.after:.2f}x after the start, "
                  f"{two.busy / one.busy:.2f}x in CPUs busy (local 2/1: {local:.2f}x)")
            if local < IDLE_LOCAL:  # two forked processes, the best 2 workers do here, did not scale either
                print(f"  the machine was not idle: local 2/1 below {IDLE_LOCAL}x, so the scaling above says little")
    finally:
        ray.shutdown()
    print(yardstick())


if __name__ == "__main__":
    main()
