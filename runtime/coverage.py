"""Which parts of a game's content played games used: runs of each statement, the two ways
of each condition, the choices made at each decision, the things that moved.

`attach(game)` plugs a `Recording` into the hook `runtime/profile.py` uses (`game.cache.profile`):
the game's code is written again with a counter around each statement and with a tally
of true and false around each condition. Without `attach`, nothing of this is in the
code: plain play pays nothing for it. `play(...)` plays one bot game as
`simulate.play_one` does (same seeds, same agents, same games) and also notes each
decision's choice and what moved where.

Counts are of runs, not time, so they are the same on every run of the same games.
"""
from __future__ import annotations

from collections import Counter

from . import ir
from .agents import ask, make
from .match import Match

STATEMENTS = frozenset(ir.STATEMENTS)  # the statement ops of the IR (the others are expressions)
_DECISIONS_LIMIT = 200_000  # as agents.play_out: a game that asks more never ends


class Recording:
    """What ran: filled by the code `attach` has written and by `play`."""

    def __init__(self):
        self.runs = {}  # statement position -> [times it ran]
        self.truth = {}  # condition position -> [times false, times true]
        self.roots = {}  # id of a condition node -> (its position, what it is): see attach
        self.decided = {}  # decision position -> Counter of the options chosen there
        self.taken = Counter()  # action id -> times taken in played games
        self.games = 0  # bot games played
        self.errors = []  # (players, game number, message) of bot games that stopped on an error
        self.first = {}  # thing -> the zone the game's tables put it in
        self.still = set()  # things not seen moving yet
        self.empty = set()  # locations nothing has moved into yet

    # -- the interface of runtime/profile.Profile that the generated code calls --

    def clocked(self, f, pos, what):
        """f(it, env), counted under `pos`: a statement's runs, or a condition's outcomes."""
        if what in STATEMENTS:  # a statement (its op); a condition's `what` is a phrase, see conditions
            cell = self.runs.setdefault(pos, [0])

            def counted(it, env):
                cell[0] += 1
                return f(it, env)
            return counted
        tally = self.truth.setdefault(pos, [0, 0])

        def weighed(it, env):
            r = f(it, env)
            tally[1 if r else 0] += 1
            return r
        return weighed

    def aside(self, make, *args):
        return make(*args)

    # -- what the bot games did --

    def watch(self, st):
        """Note the things not yet seen moving that are no longer where they began, and the
        locations not yet entered that something moved into: both sets only shrink, so this
        costs less as games go on."""
        ents, first, still, empty = st["things"], self.first, self.still, self.empty
        gone = [x for x in still if x in ents and ents[x]["zone"] != first[x]]
        if gone:
            still.difference_update(gone)
        zones = st["zones"]
        reached = [loc for loc in empty if any(first.get(x) != loc for x in zones.get(loc, ()))]
        if reached:
            empty.difference_update(reached)


def attach(game) -> Recording:
    """Record this game's content from now on: its code is written again, with counters."""
    rec = Recording()
    game.cache.profile = rec
    game.forget_code()
    for pos, node, what in conditions(game.data):
        rec.roots[id(node)] = (pos, what)
    rec.first = {iid: z for iid, _pid, z, _up in game.instances}
    rec.still = set(rec.first)
    rec.empty = set(game.locations)
    return rec


def conditions(data):
    """(position, node, what it is) of each condition the runtime weighs on its own: an
    action's `if`, a trigger's `when`, a phase's `if`/`until`/`can_pass`, the game's `end`,
    and each arm of an `if` statement and each `while`, wherever they are in the IR."""
    out = []
    for aid, act in data["actions"].items():
        if "if" in act:
            out.append((act["if"], f"condition of action {aid}"))
    for event, ts in data["triggers"].items():
        out.extend((t["when"], f"when of trigger {t.get('id', event)}") for t in ts if "when" in t)
    for ph in data["flow"].get("phases", ()):
        out.extend((ph[k], f"{k} of phase {ph.get('id')}") for k in ("if", "until", "can_pass") if k in ph)
    if "end" in data["flow"]:
        out.append((data["flow"]["end"], "end of the game"))
    if "round_until" in data["flow"]:
        out.append((data["flow"]["round_until"], "end of a round"))
    for s in statements(data):
        if s[0] == "if":
            out.extend((cond, "arm of an if") for cond, _body in ir.view(s).branches)
        elif s[0] == "while":
            out.append((ir.view(s).condition, "condition of a while"))
    return [(e[1], e, what) for e, what in out if isinstance(e, list) and len(e) > 1 and isinstance(e[1], str)]


def statements(data):
    """Every statement of the IR, found by shape: a block is a list of [op, "FILE:LINE:COL", ...]
    with a statement op; what else holds lists (an expression, a table) is looked through."""
    out, todo = [], [data]
    while todo:  # bounded: each node of the (finite, acyclic) JSON is taken once
        x = todo.pop()
        if isinstance(x, dict):
            todo.extend(x.values())
        elif isinstance(x, list):
            if x and all(isinstance(s, list) and len(s) > 1 and isinstance(s[0], str) and s[0] in STATEMENTS
                         and isinstance(s[1], str) for s in x):
                out.extend(x)
            todo.extend(y for y in x if isinstance(y, (list, dict)))
    return out


def play(game, rec: Recording, i, seed, players, seats: dict):
    """Bot game i as simulate.play_one plays it ("<seed>:<i>", agents by seat), recorded."""
    from .interpreter import GameFault
    s = f"{seed}:{i}"
    rec.games += 1
    try:
        m = Match.new(game, players, s)
        st = m.state
        agents = {p: make(kind, f"{s}:{p}") for p, kind in seats.items()}
        n = 0
        while not m.is_over:  # agents.play_out, with notes at each decision
            n += 1
            if n > _DECISIONS_LIMIT:
                raise RuntimeError(f"no end after {_DECISIONS_LIMIT} decisions")
            rec.watch(st)
            dec = m.decision
            for p in dec.waiting:  # (one seat, but at a secret pick)
                if st["pending"] is not dec.raw:
                    break
                c = ask(game, st, agents[p], p, m.legal(p))  # (from what the seat may see)
                if not dec.turn:
                    rec.decided.setdefault(dec.position, Counter())[c] += 1
                elif c != "pass":
                    rec.taken[c] += 1
                m.apply(p, c)
        rec.watch(st)
    except (GameFault, RuntimeError) as exc:
        rec.errors.append((players, i, str(exc)))
