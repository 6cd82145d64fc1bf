"""The search bot against random bots on every content game: its decisions a second and how
often it wins, with how likely that many wins would be by chance.

    .venv/bin/python bench/search.py [--budget mcts:100] [--games N] [--players P] [--decisions K] [GAME ...]

In game i the searching seat is seat i mod P (every seat in turn), the others random.
"Decisions/s" counts the searching seat's decisions that had a choice (the others are
answered at once). p is the one-sided binomial probability of at least that many wins for
a seat winning 1 game in P, a random seat's share. In a cooperative game (`bot:
cooperative`) every seat searches, and p is the one-sided Fisher exact probability of at
least that many team wins against ten times as many games of random teams. With `--decisions K` only the first K
searched decisions of each game are the bot's (the rest random, quickly): the speed alone.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from rulepress.runtime.agents import make, play_out  # noqa: E402
from rulepress.runtime.flow import new_game  # noqa: E402
from rulepress.runtime.tables import Game  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import content_games, machine  # noqa: E402


def binomial_tail(k: int, n: int, p: float) -> float:
    return sum(math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(k, n + 1))


class Clocked:
    """An agent whose decisions with a choice are timed and counted (up to `limit`; then a
    random bot decides)."""

    def __init__(self, agent, limit=None, seed=0):
        self.agent, self.seconds, self.decisions, self.limit = agent, 0.0, 0, limit
        self.rest = make("random", seed)

    def choose(self, game, seen, seat, options):
        if len(options) == 1:
            return options[0]["id"]
        if self.limit is not None and self.decisions >= self.limit:
            return self.rest.choose(game, seen, seat, options)
        t = time.perf_counter()
        out = self.agent.choose(game, seen, seat, options)
        self.seconds += time.perf_counter() - t
        self.decisions += 1
        return out


def against_random(game, budget, n, players, seed="bench", limit=None):
    """(wins, games, decisions a second of the searching seat)."""
    wins, seconds, decisions = 0, 0.0, 0
    for i in range(n):
        st = new_game(game, players, f"{seed}:{i}")
        me = st["players"][i % players]
        bot = Clocked(make(budget, f"{seed}:{i}:{me}"), limit, f"{seed}:{i}:{me}")
        play_out(game, st, {p: bot if p == me else make("random", f"{seed}:{i}:{p}") for p in st["players"]})
        wins += me in (st["winners"] or ())
        seconds, decisions = seconds + bot.seconds, decisions + bot.decisions
    return wins, n, decisions / seconds if seconds else 0.0


def fisher_tail(a: int, n: int, b: int, m: int) -> float:
    """How likely `a` or more of all a + b wins fall into the first n of n + m games by chance."""
    wins, games = a + b, n + m
    return sum(math.comb(wins, k) * math.comb(games - wins, n - k) for k in range(a, min(wins, n) + 1)) / math.comb(games, n)


def as_a_team(game, spec, n, players, seed="bench", limit=None):
    """(games the team of `spec` seats won, games, decisions a second of its seats)."""
    wins, seconds, decisions = 0, 0.0, 0
    for i in range(n):
        st = new_game(game, players, f"{seed}:{i}")
        bots = {p: Clocked(make(spec, f"{seed}:{i}:{p}"), limit, f"{seed}:{i}:{p}") for p in st["players"]}
        play_out(game, st, bots)
        wins += bool(st["winners"])
        seconds += sum(b.seconds for b in bots.values())
        decisions += sum(b.decisions for b in bots.values())
    return wins, n, decisions / seconds if seconds else 0.0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("games_ids", nargs="*")
    ap.add_argument("--budget", default="mcts:100")
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--decisions", type=int, default=None, help="time only the first K searched decisions of a game")
    a = ap.parse_args()
    print(f"machine: {machine()}")
    print(f"{'game':<20} {'players':>7} {'budget':>10} {'decisions/s':>12} {'wins':>8} {'p':>7}")
    for gid, text in content_games(a.games_ids):
        game = Game(json.loads(text))
        p = min(max(a.players, game.players_min), game.players_max)
        team = bool((game.bot or {}).get("cooperative"))
        play = as_a_team if team else against_random
        wins, n, rate = play(game, a.budget, a.games, p, limit=a.decisions)
        if a.decisions is not None:
            print(f"{gid:<20} {p:>7} {a.budget:>10} {rate:>12.1f} {'-':>8} {'-':>7}", flush=True)
            continue
        if team:  # against teams of random seats, many games of which cost little
            blind, m, _ = as_a_team(game, "random", 10 * n, p, seed="random")
            print(f"{gid:<20} {p:>7} {a.budget:>10} {rate:>12.1f} {wins:>4}/{n:<3} {fisher_tail(wins, n, blind, m):>7.3f}"
                  f"  (random teams {blind}/{m})", flush=True)
            continue
        print(f"{gid:<20} {p:>7} {a.budget:>10} {rate:>12.1f} {wins:>4}/{n:<3} {binomial_tail(wins, n, 1 / p):>7.3f}", flush=True)


if __name__ == "__main__":
    main()
