"""Bots. An agent is anything with `choose(game, seen, seat, options) -> option id`.

An agent is handed only what its seat may know: `seen` (a `Seen`: the seat's view, and
samples of the state consistent with it) and the options as the seat may know them (a
hidden thing offered is a handle, runtime/visibility.py). `options` is a sequence of
{"id", "label"}; for a turn's decision it is a `decision.Choices`, which works each option out
as it is read.
"""
from __future__ import annotations

from . import rng, visibility
from .decision import Choices, Decision
from .flow import apply, branch
from .match import Match
from .reading import num
from .interpreter import Interp
from .search import MctsAgent, parse_budget
from .views import view


class Seen:
    """What a seat knows of the game, and nothing more: the state itself stays out of reach
    of the agent (it is held in a closure, read only through the seat's filter)."""
    __slots__ = ("seat", "view", "sample", "hides")

    def __init__(self, game, st, seat):
        self.seat = seat
        self.view = lambda: view(game, st, seat)
        self.sample = lambda rng_state, lean=False: visibility.sample(game, st, seat, rng_state, lean)
        self.hides = lambda: bool(visibility.hidden_from(game, st, seat)) or _others_hide(game, st, seat)


def _others_hide(game, st, seat) -> bool:
    dec = Decision.of(game, st)
    return dec is not None and any(p != seat for p in dec.picked)


def ask(game, st, agent, seat, options):
    """The agent's choice among `options`, as the thing or option it stands for."""
    offered = visibility.seat_options(game, st, seat, options)
    return visibility.resolve(st, agent.choose(game, Seen(game, st, seat), seat, offered))


class Agent:
    name = "agent"
    remembers = False  # whether it deals worlds by what its seat saw and no longer sees (visibility.remember)

    def choose(self, game, seen, seat, options) -> str:  # pragma: no cover - interface
        raise NotImplementedError


class RandomAgent(Agent):
    """Uniform over the legal choices, from its own seeded generator (not the game's)."""
    name = "random"

    def __init__(self, seed=0):
        self.st = {"rng": rng.seed_state(f"agent:{seed}")}

    def choose(self, game, seen, seat, options):
        if type(options) is Choices:  # a turn's options: only as many checked as the pick needs
            return options.sample(self.st)
        return options[rng.below(self.st, len(options))]["id"]


class FirstLegalAgent(Agent):
    name = "first"

    def choose(self, game, seen, seat, options):
        return options[0]["id"]


class GreedyAgent(Agent):
    """Tries each choice and keeps the one the content's heuristic likes best on average.

    It never tries them on the real state: where something is hidden from its seat it tries
    them on `samples` states dealt at random consistently with what it sees (`Seen.sample`)
    and averages. The heuristic is `game.heuristic` (an expression with `player` bound to the
    seat); without one it falls back to the final-score expression.

    A choice is judged once the questions it leads the same seat into are answered (`finish`),
    not where the first of them is asked: otherwise what the bot sees of an effect depends on
    where the content happens to ask. An income paid district by district in the order the
    districts are declared, asking where a gang only stands, showed the gang whose home was
    declared first its home's income before the first question and hid the others' behind it;
    every greedy seat at that home then returned more often and won most games.
    """
    name = "greedy"
    samples = 8
    follow = 40  # the most follow-up questions answered before a choice is judged

    def __init__(self, seed=0):
        self.tiebreak = RandomAgent(seed)
        self.dealer = {"rng": rng.seed_state(f"deal:{seed}")}
        self.follower = {"rng": rng.seed_state(f"follow:{seed}")}

    def finish(self, game, st, seat):
        """Answers, at random, the questions `st` asks `seat` before anyone else decides or
        its next turn's decision comes: what a choice goes on to do, to be judged whole. At
        random, as one of the choice's likely outcomes: answering them greedily in turn costs
        ten times as much."""
        for _ in range(self.follow):
            dec = Decision.of(game, st)
            if dec is None or dec.turn or dec.simultaneous or dec.waiting != [seat]:
                return
            apply(game, st, dec.sample(seat, self.follower), seat)

    def score(self, game, st, seat):
        expr = game.heuristic or game.scoring.get("score")
        if expr is None:
            return 0
        return num(Interp(game, st).ev(expr, {"player": seat}))  # (a fault is the content's: raised, as in search)

    def choose(self, game, seen, seat, options):
        if len(options) == 1:
            return options[0]["id"]
        totals = {}
        for k in range(self.samples if seen.hides() else 1):
            world = seen.sample(self.dealer)
            for o in options:
                trial = branch(world)  # (a fault here is the content's, as in a search's playout: raised)
                apply(game, trial, visibility.resolve(trial, o["id"]), seat)
                self.finish(game, trial, seat)
                totals[o["id"]] = totals.get(o["id"], 0) + self.score(game, trial, seat)
            if k == 0 and len(set(totals.values())) <= 1:
                break  # a first deal that separates no option is taken to mean the heuristic does not care here
        best = max(totals.values(), default=None)
        best_ids = [o for o in options if o["id"] in totals and totals[o["id"]] == best]
        return self.tiebreak.choose(game, seen, seat, best_ids or options)


AGENTS = {"random": RandomAgent, "first": lambda seed=0: FirstLegalAgent(),
          "greedy": GreedyAgent, "mcts": MctsAgent}
TUNED = {"mcts"}  # the agents that take a budget after a colon: `mcts:200`, `mcts:50ms`


def check(spec: str) -> None:
    """ValueError with the reason where `spec` (`random`, `mcts:200`) names no agent."""
    name, colon, arg = spec.partition(":")
    if name not in AGENTS:
        raise ValueError(f"unknown agent `{spec}`; agents: {', '.join(sorted(AGENTS))}")
    if colon:
        if name not in TUNED:
            raise ValueError(f"agent `{name}` takes no budget (`{spec}`); only {', '.join(sorted(TUNED))} does")
        parse_budget(arg)


def make(spec: str, seed=0) -> Agent:
    check(spec)
    name, colon, arg = spec.partition(":")
    return AGENTS[name](seed, arg) if colon else AGENTS[name](seed)


def step(game, st, agents: dict) -> None:
    """One choice by whoever decides now; of a secret choice, one seat's pick."""
    m = Match(game, st)
    p = m.seats_to_move()[0]
    m.apply(p, ask(game, st, agents[p], p, m.legal(p)))


def play_out(game, st, agents: dict, max_decisions=200_000) -> int:
    """Let agents (seat -> Agent) play until the end; returns the number of decisions (a
    secret pick of several seats is one)."""
    m = Match(game, st)
    n = 0
    if any(getattr(a, "remembers", False) for a in agents.values()):
        visibility.remember(st)
    while st["pending"] is not None:
        n += 1
        if n > max_decisions:
            raise RuntimeError(f"no end after {max_decisions} decisions")
        dec = m.decision
        for p in dec.waiting:  # (one seat, but at a secret pick)
            if st["pending"] is not dec.raw:
                break
            m.apply(p, ask(game, st, agents[p], p, dec.options_for(p)))
    return n
