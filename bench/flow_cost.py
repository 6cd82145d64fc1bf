"""What the flow does for each decision: interpreters built and flow steps taken.

    .venv/bin/python bench/flow_cost.py [--games N] [ROOT]

Plays N seeded games of every content and example game with random bots (as the
differential check does), in the rulepress this Python imports, and counts, per decision,
the interpreters built (`Interp`), the passes of `flow.advance`'s loop (each pass takes
one step of the flow), the evaluations of the flow's `end` and `round_until`, and the Python
function calls of the whole game (cProfile's count, in a run of its own). The counts are of work, not time: they are the same on any machine.
Run it with another checkout's Python to compare (its tree is given as ROOT, for the games).
"""
from __future__ import annotations

import argparse
import json
import os
import sys


def calls(root, games) -> dict:
    """game -> Python function calls a decision (cProfile's count: the same on any machine),
    the whole game: the flow, the effects, the bots' picks."""
    import cProfile
    import pstats
    from rulepress.compiler.pipeline import compile_game
    from rulepress.runtime import flow
    from rulepress.runtime.agents import RandomAgent, play_out
    from rulepress.runtime.tables import Game
    out = {}
    for path in GAMES:
        text, _g, _rep = compile_game(os.path.join(root, path))
        game = Game(json.loads(text))
        flow.new_game(game, game.players_min, "warm")  # the generated module, made once
        decisions = 0
        prof = cProfile.Profile()
        for i in range(games):
            players = game.players_min + i % (game.players_max - game.players_min + 1)
            prof.enable()
            st = flow.new_game(game, players, f"cost:{i}")
            try:
                play_out(game, st, {p: RandomAgent(f"cost:{i}:{p}") for p in st["players"]}, max_decisions=20_000)
            except Exception:
                pass
            prof.disable()
            decisions += len(st["history"])
        out[path] = pstats.Stats(prof).total_calls / decisions
    return out


GAMES = ("content/android", "content/arkham-horror", "content/night-city", "content/study-in-emerald",
         "docs/examples/love-letter", "docs/examples/coup")


def counts(root, games):
    from rulepress.compiler.pipeline import compile_game
    from rulepress.runtime import flow, interpreter
    from rulepress.runtime.agents import RandomAgent, play_out
    from rulepress.runtime.tables import Game

    built = [0]
    init = interpreter.Interp.__init__

    def counting(self, *a, **k):
        built[0] += 1
        init(self, *a, **k)
    interpreter.Interp.__init__ = counting

    looked = [0]  # evaluations of the flow's `end` and `round_until`
    watched = []
    ev = interpreter.Interp.ev

    def evaluating(self, expr, *a, **k):
        if any(expr is w for w in watched):
            looked[0] += 1
        return ev(self, expr, *a, **k)
    interpreter.Interp.ev = evaluating

    # a pass of advance's loop is a line event on its `guard += 1`
    code = flow.advance.__code__
    src, start = __import__("inspect").getsourcelines(flow.advance)
    line = start + next(i for i, s in enumerate(src) if s.strip() == "guard += 1")
    passes = [0]

    def local(frame, event, arg):
        if event == "line" and frame.f_lineno == line:
            passes[0] += 1
        return local

    def glob(frame, event, arg):
        return local if frame.f_code is code else None

    out = {}
    for path in GAMES:
        text, _g, _rep = compile_game(os.path.join(root, path))
        game = Game(json.loads(text))
        built[0] = passes[0] = looked[0] = 0
        watched[:] = [x for x in (game.flow.get("end"), game.flow.get("round_until")) if x is not None]
        decisions = 0
        for i in range(games):
            players = game.players_min + i % (game.players_max - game.players_min + 1)
            st = flow.new_game(game, players, f"cost:{i}")
            agents = {p: RandomAgent(f"cost:{i}:{p}") for p in st["players"]}
            sys.settrace(glob)
            try:
                play_out(game, st, agents, max_decisions=20_000)
            except Exception:
                pass
            finally:
                sys.settrace(None)
            decisions += len(st["history"])
        out[path] = (decisions, built[0] / decisions, passes[0] / decisions, looked[0] / decisions)
    return out


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("root", nargs="?", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--games", type=int, default=20)
    a = ap.parse_args()
    per_call = calls(a.root, a.games)
    print(f"{'game':28} {'decisions':>9} {'interps':>8} {'passes':>7} {'end/round_until':>16} {'calls':>7}  (each a decision)")
    for path, (n, i, p, c) in counts(a.root, a.games).items():
        print(f"{path:28} {n:9d} {i:8.2f} {p:7.2f} {c:16.2f} {per_call[path]:7.0f}")
