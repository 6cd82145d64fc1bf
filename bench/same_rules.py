"""Whether bench/plain_love_letter.py plays the rules of docs/examples/love-letter: their
distributions over many random-bot games, side by side.

    .venv/bin/python bench/same_rules.py [--games N] [--plain M] [--players 2 3 4]

The two use different generators, so no game is the same; what must agree is every figure a
rule change would move: hands, turns and decisions per game (means), the share of games each
seat wins and the share shared by several. Each difference is printed in points and in
standard errors of the difference; a rule written differently shows as many standard errors.

Then the stronger check: runtime games played again by the plain game with the decks the
runtime dealt and the choices its bots made (`replayed`) must end alike, game by game.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import sys
from typing import NamedTuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import plain_love_letter as plain  # noqa: E402

EXAMPLE = os.path.join(ROOT, "docs", "examples", "love-letter")


def content_game():
    from rulepress.compiler.pipeline import compile_game
    from rulepress.runtime.tables import Game
    text, _g, rep = compile_game(EXAMPLE)
    if text is None:
        raise SystemExit(f"love-letter does not compile ({len(rep.errors)} errors)")
    return Game(json.loads(text))


def rulepress_games(game, players: int, games: int, seed: str = "rulepress"):
    """The runtime's games as plain.Result, played as `rulepress simulate` plays them."""
    from rulepress.runtime.agents import RandomAgent, play_out
    from rulepress.runtime.flow import new_game
    out = []
    for i in range(games):
        s = f"{seed}:{i}"
        st = new_game(game, players, s)
        decisions = play_out(game, st, {p: RandomAgent(f"{s}:{p}") for p in st["players"]})
        turns = sum(1 for _who, c in st["history"] if c == "play")
        out.append(plain.Result(st["round"], turns, decisions,
                                tuple(st["players"].index(w) for w in st["winners"])))
    return out


class Figure(NamedTuple):
    name: str
    rulepress: float
    plain: float
    sigmas: float  # the difference in standard errors of the difference


def _mean_figure(name, a, b) -> Figure:
    ma, mb = statistics.fmean(a), statistics.fmean(b)
    se = math.sqrt(statistics.pvariance(a) / len(a) + statistics.pvariance(b) / len(b)) or 1e-9
    return Figure(name, ma, mb, (ma - mb) / se)


def _share_figure(name, hits_a, n_a, hits_b, n_b) -> Figure:
    pa, pb = hits_a / n_a, hits_b / n_b
    se = math.sqrt(pa * (1 - pa) / n_a + pb * (1 - pb) / n_b) or 1e-9
    return Figure(name, pa, pb, (pa - pb) / se)


def compare(players: int, ours, theirs) -> list[Figure]:
    """The figures of the runtime's games (`ours`) against the plain ones (`theirs`)."""
    figs = [_mean_figure(f, [getattr(r, f) for r in ours], [getattr(r, f) for r in theirs])
            for f in ("rounds", "turns", "decisions")]
    for seat in range(players):
        figs.append(_share_figure(f"p{seat + 1} wins", sum(seat in r.winners for r in ours), len(ours),
                                  sum(seat in r.winners for r in theirs), len(theirs)))
    figs.append(_share_figure("shared wins", sum(len(r.winners) > 1 for r in ours), len(ours),
                              sum(len(r.winners) > 1 for r in theirs), len(theirs)))
    return figs


def report(players, figs, n_ours, n_theirs) -> str:
    lines = [f"{players} players: {n_ours} rulepress games, {n_theirs} plain games",
             f"  {'figure':<12} {'rulepress':>10} {'plain':>10} {'difference':>11} {'in s.e.':>8}"]
    for f in figs:
        share = f.name.endswith("wins")
        diff = f"{(f.rulepress - f.plain) * 100:+.2f} pt" if share else f"{f.rulepress - f.plain:+.3f}"
        fmt = (lambda v: f"{v * 100:.2f}%") if share else (lambda v: f"{v:.3f}")
        lines.append(f"  {f.name:<12} {fmt(f.rulepress):>10} {fmt(f.plain):>10} {diff:>11} {f.sigmas:>+8.2f}")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--games", type=int, default=5000, help="rulepress games per player count")
    ap.add_argument("--plain", type=int, default=100000, help="plain games per player count")
    ap.add_argument("--players", type=int, nargs="*", default=[2, 3, 4])
    ap.add_argument("--seed", default="rulepress", help="seeds of the runtime's games (game i: SEED:i)")
    a = ap.parse_args()
    game = content_game()
    worst = 0.0
    for n in a.players:
        ours, theirs = rulepress_games(game, n, a.games, a.seed), plain.play_many(n, a.plain, a.seed)
        figs = compare(n, ours, theirs)
        worst = max([worst] + [abs(f.sigmas) for f in figs])
        print(report(n, figs, len(ours), len(theirs)), flush=True)
        again = min(a.games, 1000)
        differ = sum(x != y for x, y in (replayed(game, n, f"{a.seed}:replay:{i}") for i in range(again)))
        print(f"  {again} runtime games replayed by the plain game: {differ} end otherwise", flush=True)
    print(f"largest difference: {worst:.2f} standard errors")



class _Deals:
    """A generator for plain.play that deals the decks the runtime dealt, hand by hand."""

    def __init__(self, decks):
        self.decks = iter(decks)

    def shuffle(self, deck):
        deck[:] = next(self.decks)


class _Choices:
    """A bot for plain.play that makes the choices the runtime's bots made, in order."""

    def __init__(self, picks):
        self.picks = iter(picks)

    def choose(self, options):
        pick = next(self.picks)
        if pick not in options:
            raise AssertionError(f"the runtime chose {pick!r} where the plain game offers {options}")
        return pick


def replayed(game, players: int, seed: str):
    """One runtime game, and the same game played by plain.play with the runtime's deals and
    choices: (runtime's Result, plain Result). Equal results for every seed say the two
    play the same rules, not only the same distributions."""
    from rulepress.runtime.agents import RandomAgent, step
    from rulepress.runtime.flow import new_game
    st = new_game(game, players, seed)
    agents = {p: RandomAgent(f"{seed}:{p}") for p in st["players"]}
    seats = st["players"]
    value = lambda card: game.attrs_of[card]["value"]  # noqa: E731
    decks, picks, decisions, hand = [], {p: [] for p in range(players)}, 0, 0
    while st["pending"] is not None:
        if st["round"] != hand:  # the first decision of a hand: the deck as dealt, read back
            hand = st["round"]
            z = st["zones"]
            first = z[f"{seats[0]}.hand"]  # the first seat's dealt card, then the one drawn on its turn
            dealt = z["aside"] + [first[0]] + [z[f"{p}.hand"][0] for p in seats[1:]] + [first[1]] + z.get("court", [])
            decks.append([value(c) for c in reversed(dealt)])  # plain.play draws from the end
        d = st["pending"]
        who = seats.index(d["who"])
        step(game, st, agents)
        decisions += 1
        choice = st["history"][-1][1]
        picks[who].append(value(choice) if choice in game.attrs_of else
                          seats.index(choice) if choice in seats else
                          int(choice) if choice.isdigit() else choice)
    turns = sum(1 for _who, c in st["history"] if c == "play")
    ours = plain.Result(st["round"], turns, decisions, tuple(seats.index(w) for w in st["winners"]))
    theirs = plain.play(players, _Deals(decks), [_Choices(picks[p]) for p in range(players)])
    return ours, theirs


if __name__ == "__main__":
    main()
