"""How far the interpreter is from the same rule written in plain Python.

    .venv/bin/python bench/ceiling.py [--states N] [--runs R]

One condition that the flow checks at nearly every decision of A Study in Emerald, claim
a card (`any(can_claim(player, c) for c in every location)`: a city with cards left where
the player has the majority and the pieces the top card asks), is worked out on the states
of random games two ways: by the runtime as it plays, and by a Python function that says
the same rule directly. The two must agree on every state, or the benchmark stops. The gap is what a faster engine
(the content compiled to Python, or a native core) could win on such conditions; the
other work of a game (effects, the flow, the bots) is not in it.

Prints the median of R runs per figure, with the machine and the yardstick.
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
from rulepress.runtime.agents import RandomAgent, step  # noqa: E402
from rulepress.runtime.flow import new_game  # noqa: E402
from rulepress.runtime.interpreter import Interp  # noqa: E402
from rulepress.runtime.state import clone  # noqa: E402
from rulepress.runtime.tables import Game  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run import machine, yardstick  # noqa: E402

GAME = "study-in-emerald"
ACTION = "claim_card"


def can_claim_somewhere(game, st, p) -> bool:
    """The rule of claim_card's condition, in Python (see content/study-in-emerald)."""
    ents, zones, attrs_of = st["things"], st["zones"], game.attrs_of

    def pieces_at(q, c):  # agents and cubes of q in city c
        return sum(1 for x in zones.get(c, ()) if ents[x]["counters"].get("belongs") == q)

    for c in game.of_kind["location"]:
        stack = zones.get(f"{c}.stack")
        if not stack:
            continue
        mine = pieces_at(p, c)
        if mine >= 1 and all(pieces_at(q, c) < mine for q in st["players"] if q != p) \
                and mine >= attrs_of[stack[0]]["req"]:
            return True
    return False


def states(game, n):
    """(state, seat) at the first n action decisions of random games, in play order."""
    out, g = [], 0
    while len(out) < n:
        st = new_game(game, 2, f"ceiling:{g}")
        agents = {p: RandomAgent(f"{g}:{p}") for p in st["players"]}
        while st["pending"] is not None and len(out) < n:
            d = st["pending"]
            if d["kind"] == "action":
                out.append((clone(st), d["who"]))
            step(game, st, agents)
        g += 1
    return out


def fresh_game():
    text, _g, rep = compile_game(os.path.join(ROOT, "content", GAME))
    if text is None:
        raise SystemExit(f"{GAME} does not compile ({len(rep.errors)} errors)")
    return Game(json.loads(text))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--states", type=int, default=400)
    ap.add_argument("--runs", type=int, default=5)
    a = ap.parse_args()
    print(f"machine: {machine()}")
    print(yardstick())
    game = fresh_game()
    cond = game.actions[ACTION]["if"]
    sample = states(game, a.states)

    def runtime(g):
        return [bool(Interp(g, st).ev(g.actions[ACTION]["if"], {"player": p, "this": ACTION})) for st, p in sample]

    def python():
        return [can_claim_somewhere(game, st, p) for st, p in sample]

    want = python()
    if runtime(game) != want:
        raise SystemExit("the runtime and the Python function disagree: the benchmark is out of date")
    file, line, _col = cond[1].rsplit(":", 2)
    with open(os.path.join(ROOT, "content", GAME, file), encoding="utf-8") as fh:
        text = fh.read().splitlines()[int(line) - 1].strip()
    print(f"{GAME}: the condition of {ACTION} ({cond[1]}: {text}) on {len(sample)} states of random games, "
          f"{sum(want)} where it holds")
    rows = [("runtime, as in play", lambda: runtime(game)), ("plain Python", python)]
    figures = {}
    for label, work in rows:
        times = []
        for _ in range(a.runs):
            t = time.perf_counter()
            work()
            times.append((time.perf_counter() - t) / len(sample))
        figures[label] = statistics.median(times)
    base = figures["plain Python"]
    for label, _w in rows:
        print(f"{label:<22} {figures[label] * 1e6:8.1f} us a check {figures[label] / base:6.1f}x plain Python")
    print(yardstick())


if __name__ == "__main__":
    main()
