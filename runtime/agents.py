"""Bots. An agent is anything with `choose(game, state, seat, options) -> option id`.

`options` is a sequence of {"id", "label"}; for a turn's decision it is a `flow.Choices`,
which works each option out as it is read.
"""
from __future__ import annotations

from . import rng
from .flow import Choices, apply, choices
from .expressions import num
from .interpreter import Interp
from .state import clone


class Agent:
    name = "agent"

    def choose(self, game, st, seat, options) -> str:  # pragma: no cover - interface
        raise NotImplementedError


class RandomAgent(Agent):
    """Uniform over the legal choices, from its own seeded generator (not the game's)."""
    name = "random"

    def __init__(self, seed=0):
        self.st = {"rng": rng.seed_state(f"agent:{seed}")}

    def choose(self, game, st, seat, options):
        if type(options) is Choices:  # a turn's options: only as many checked as the pick needs
            return options.sample(self.st)
        return options[rng.below(self.st, len(options))]["id"]


class FirstLegalAgent(Agent):
    name = "first"

    def choose(self, game, st, seat, options):
        return options[0]["id"]


class ScriptedAgent(Agent):
    """Plays the given choices in order, then falls back to another agent."""
    name = "scripted"

    def __init__(self, script, fallback=None):
        self.script = list(script)
        self.fallback = fallback or FirstLegalAgent()

    def choose(self, game, st, seat, options):
        ids = [o["id"] for o in options]
        while self.script:
            c = self.script.pop(0)
            if c in ids:
                return c
        return self.fallback.choose(game, st, seat, options)


class GreedyAgent(Agent):
    """Tries each choice on a copy and keeps the one the content's heuristic likes best.

    The heuristic is `game.heuristic` (an expression with `player` bound to the seat);
    without one it falls back to the final-score expression.
    """
    name = "greedy"

    def __init__(self, seed=0):
        self.tiebreak = RandomAgent(seed)

    def score(self, game, st, seat):
        expr = game.heuristic or game.scoring.get("score")
        if expr is None:
            return 0
        try:
            return num(Interp(game, st).ev(expr, {"player": seat}))
        except Exception:  # a heuristic that cannot be evaluated here says nothing
            return 0

    def choose(self, game, st, seat, options):
        if len(options) == 1:
            return options[0]["id"]
        best, best_ids = None, []
        for o in options:
            trial = clone(st)
            try:
                apply(game, trial, o["id"], seat)
            except Exception:
                continue
            v = self.score(game, trial, seat)
            if best is None or v > best:
                best, best_ids = v, [o]
            elif v == best:
                best_ids.append(o)
        return self.tiebreak.choose(game, st, seat, best_ids or options)


AGENTS = {"random": RandomAgent, "first": lambda seed=0: FirstLegalAgent(),
          "greedy": GreedyAgent}


def make(name: str, seed=0) -> Agent:
    if name not in AGENTS:
        raise ValueError(f"unknown agent `{name}`; agents: {', '.join(sorted(AGENTS))}")
    return AGENTS[name](seed)


def step(game, st, agents: dict) -> None:
    """One choice by whoever decides now; of a secret choice, one seat's pick."""
    d = st["pending"]
    if d["kind"] == "secret":
        p = next(x for x in d["who"] if x not in d["collected"])
        apply(game, st, agents[p].choose(game, st, p, d["options"][p]), p)
    else:
        apply(game, st, agents[d["who"]].choose(game, st, d["who"], choices(game, st)), d["who"])


def play_out(game, st, agents: dict, max_decisions=200_000) -> int:
    """Let agents (seat -> Agent) play until the end; returns the number of decisions."""
    n = 0
    opts = None  # a turn's options as the last choice left them (see flow.apply)
    while st["pending"] is not None:
        n += 1
        if n > max_decisions:
            raise RuntimeError(f"no end after {max_decisions} decisions")
        d = st["pending"]
        if d["kind"] == "secret":
            for p in list(d["who"]):
                if p not in d["collected"] and st["pending"] is d:
                    apply(game, st, agents[p].choose(game, st, p, d["options"][p]), p)
            opts = None
        else:
            if type(opts) is not Choices or opts.d is not d:
                opts = choices(game, st)
            opts = apply(game, st, agents[d["who"]].choose(game, st, d["who"], opts), d["who"], opts)
    return n
