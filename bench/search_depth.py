"""Two bots side by side on one game: how often A beats B, and how fast each decides.

    .venv/bin/python bench/search_depth.py GAME_DIR --a mcts:100:depth0 --b mcts:100 [--games N] [--players P] [--seed S] [--json]

Rival games (the usual case): the games come in groups of P with one seed per group, A in
a different seat each game of the group and B in the others, so every deal and every seat
is played by A as often as by B. A's result in a game is 1 for a win alone, 1/k for a win
shared by k seats, 0 otherwise; the two-sided p is the exact binomial (sign) test of the
games A won against those B won, shared ones aside, and the interval the normal 95% one
of A's mean result.

Cooperative games (`bot: cooperative`): every seat is A in one game and B in another of
the same seed; the games won and the mean of the seats' scores, with McNemar's exact test
on the seeds one team won and the other did not, and the sign test on the seeds' scores.

Speed is the CPU time (process_time) of each bot's decisions that had a choice: decisions
a second, and the mean of all decisions, as `simulate` counts them, a CPU second of the
whole run.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from rulepress.compiler.pipeline import compile_game  # noqa: E402
from rulepress.runtime.agents import make, play_out  # noqa: E402
from rulepress.runtime.flow import new_game  # noqa: E402
from rulepress.runtime.tables import Game  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import machine  # noqa: E402


class Clocked:
    """An agent whose decisions with a choice are timed (CPU) and counted."""

    def __init__(self, agent, clock):
        self.agent, self.clock = agent, clock

    def choose(self, game, seen, seat, options):
        if len(options) == 1:
            return options[0]["id"]
        t = time.process_time()
        out = self.agent.choose(game, seen, seat, options)
        self.clock[0] += time.process_time() - t
        self.clock[1] += 1
        return out


def sign_test(k: int, n: int) -> float:
    """Two-sided exact binomial p of k successes in n at one half."""
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(k, n - k) + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def rivals(game, a, b, groups, players, seed):
    clocks = {"a": [0.0, 0], "b": [0.0, 0]}
    results, won, lost, decisions = [], 0, 0, 0
    for g in range(groups):
        for seat in range(players):
            st = new_game(game, players, f"{seed}:{g}")
            me = st["players"][seat]
            bots = {p: Clocked(make(a if p == me else b, f"{seed}:{g}:{seat}:{p}"), clocks["a" if p == me else "b"])
                    for p in st["players"]}
            decisions += play_out(game, st, bots)
            winners = st["winners"] or []
            x = 1 / len(winners) if me in winners else 0.0
            results.append(x)
            won += x == 1.0
            lost += bool(winners) and me not in winners
            print(json.dumps({"group": g, "seat": me, "a": x, "winners": winners}), file=sys.stderr, flush=True)
    n = len(results)
    mean = sum(results) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in results) / (n - 1)) if n > 1 else 0.0
    half = 1.96 * sd / math.sqrt(n)
    return {"games": n, "a_won": won, "b_won": lost, "a_result": round(mean, 3),
            "ci95": [round(mean - half, 3), round(mean + half, 3)], "p": round(sign_test(won, won + lost), 4),
            "fair_share": round(1 / players, 3), "decisions": decisions, **speeds(clocks)}


def team(game, a, b, n, players, seed):
    clocks = {"a": [0.0, 0], "b": [0.0, 0]}
    out = {"a": [], "b": []}
    decisions = 0
    for i in range(n):
        for side, spec in (("a", a), ("b", b)):
            st = new_game(game, players, f"{seed}:{i}")
            decisions += play_out(game, st, {p: Clocked(make(spec, f"{seed}:{i}:{p}"), clocks[side]) for p in st["players"]})
            scores = st["scores"] or {}
            out[side].append((bool(st["winners"]), sum(scores.values()) / max(len(scores), 1)))
            print(json.dumps({"seed": i, "side": side, "won": out[side][-1][0], "score": out[side][-1][1]}), file=sys.stderr, flush=True)
    only_a = sum(1 for x, y in zip(out["a"], out["b"]) if x[0] and not y[0])
    only_b = sum(1 for x, y in zip(out["a"], out["b"]) if y[0] and not x[0])
    higher = sum(1 for x, y in zip(out["a"], out["b"]) if x[1] > y[1])
    lower = sum(1 for x, y in zip(out["a"], out["b"]) if x[1] < y[1])
    return {"games": n, "a_won": sum(w for w, _ in out["a"]), "b_won": sum(w for w, _ in out["b"]),
            "p_wins": round(sign_test(only_a, only_a + only_b), 4),
            "a_score": round(sum(s for _, s in out["a"]) / n, 3), "b_score": round(sum(s for _, s in out["b"]) / n, 3),
            "a_scored_higher": higher, "b_scored_higher": lower, "p_scores": round(sign_test(higher, higher + lower), 4),
            "decisions": decisions, **speeds(clocks)}


def speeds(clocks):
    return {f"{k}_decisions_per_s": round(c[1] / c[0], 1) if c[0] else None for k, c in clocks.items()} | \
        {f"{k}_cpu_s": round(c[0], 2) for k, c in clocks.items()}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("game")
    ap.add_argument("--a", required=True)
    ap.add_argument("--b", required=True)
    ap.add_argument("--games", type=int, default=10, help="seeds (groups of P games, one per seat of A)")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--seed", default="depth")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    text, _g, rep = compile_game(args.game)
    if text is None:
        sys.exit(f"{args.game} does not compile")
    game = Game(json.loads(text))
    players = min(max(args.players, game.players_min), game.players_max)
    t = time.process_time()
    if (game.bot or {}).get("cooperative"):
        res = team(game, args.a, args.b, args.games, players, args.seed)
    else:
        res = rivals(game, args.a, args.b, args.games, players, args.seed)
    res = {"game": os.path.basename(os.path.normpath(args.game)), "players": players, "a": args.a, "b": args.b,
           "seed": args.seed, **res, "cpu_s": round(time.process_time() - t, 1)}
    if not args.json:
        print(f"machine: {machine()}")
    print(json.dumps(res), flush=True)


if __name__ == "__main__":
    main()
