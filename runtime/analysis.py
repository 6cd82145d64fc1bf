"""What an effect might change, worked out from its IR.

A loop whose conditions change nothing may work a value out once for all its things
(see expressions._quick_filter). The procedures that change nothing are worked out once
per game and kept with it.
"""
from __future__ import annotations

from typing import NamedTuple

from . import ir
from .ir import DRAWING, EXPRESSIONS, FUNCTIONS, STATEMENTS, view


def ir_nodes(block):
    """Every IR node in a block or expression, statements and expressions alike."""
    stack = [block]
    pop, push = stack.pop, stack.append
    while stack:
        n = pop()
        if type(n) is dict:
            stack.extend(n.values())
            continue
        if type(n) is not list:  # an absent block (None) or a lone value: no nodes
            continue
        if len(n) > 1 and type(n[0]) is str and type(n[1]) is str and n[1].count(":") >= 2:
            yield n
        for x in n:
            t = type(x)
            if t is list or t is dict:  # IR is plain JSON data: exact types suffice
                push(x)


# Statements that change nothing a later expression can read: a procedure made only of these
# (and of calls to other such procedures) gives the same value for the same arguments in the
# same state.
_PURE_STATEMENTS = frozenset(op for op, d in STATEMENTS.items() if set(d.writes) <= {"names"} and not (d.decides or d.runs))
_IMPURE_FUNCTIONS = DRAWING  # they draw from the game's generator
_READS_EFFECTS = frozenset(f for f, d in FUNCTIONS.items() if "effects" in d.reads)  # `usable`: a window's conditions


class _Scan(NamedTuple):
    """What some IR does, as far as changing the state goes."""
    callees: set  # the content's procedures it calls
    changes: bool  # whether it changes something itself (or draws from the generator)
    usable: bool  # whether it calls `usable`, which works out a window's action conditions


def _scan(game, roots) -> _Scan:
    procs = game.procedures
    callees, changes, usable = set(), False, False
    for root in roots:
        for n in ir_nodes(root):
            op = n[0]
            if op == "call" or op == "gen":
                f = n[_FUNCTION]  # (`function` stands at the same place in both)
                if f in procs:
                    callees.add(f)
                elif op == "call" and f in _IMPURE_FUNCTIONS:
                    changes = True
                elif op == "call" and f in _READS_EFFECTS:
                    usable = True
            elif op == "set":
                t = view(n).target  # a name `let` gave changes nothing outside the effect
                if not (t[0] == "name" and (name := view(t).name) not in game.counters and name != "first_player"):
                    changes = True
            elif op not in _EXPRESSIONS and op not in _PURE_STATEMENTS:
                changes = True
    return _Scan(callees, changes, usable)


def _scan_with_windows(game, roots) -> _Scan:
    """_scan, with the conditions of every window's actions where the IR calls `usable`."""
    found = _scan(game, roots)
    if not found.usable:
        return found
    windowed = [a for acts in game.windows.values() for a in acts]
    w = _scan(game, [r for a in windowed for r in condition_roots(game.actions[a])])
    return _Scan(found.callees | w.callees, found.changes or w.changes, True)


def condition_roots(act):
    """The IR that decides whether an action may be taken: its `if` and its cost's top-level payments."""
    roots = [act["if"]] if "if" in act else []
    for s in act.get("cost") or ():
        if s[0] == "pay":
            roots.extend(ir.children(s))  # its amount and whose counter
    return roots


def pure_procedures(game) -> frozenset:
    """The procedures that change nothing (nor call one that does); worked out once per game."""
    if game.cache.pure_procedures is not None:
        return game.cache.pure_procedures
    scans = {pid: _scan_with_windows(game, [proc["effect"]]) for pid, proc in game.procedures.items()}
    impure = {pid for pid, sc in scans.items() if sc.changes}
    changed = True
    while changed:  # a procedure that calls an impure one is impure
        changed = False
        for pid, sc in scans.items():
            if pid not in impure and sc.callees & impure:
                impure.add(pid)
                changed = True
    game.cache.pure_procedures = frozenset(scans.keys() - impure)
    return game.cache.pure_procedures


def changes_nothing(game, e) -> bool:
    """Whether working out this expression changes nothing (a random draw is a change)."""
    found = _scan_with_windows(game, [e])
    return not found.changes and found.callees <= pure_procedures(game)


_EXPRESSIONS = EXPRESSIONS.keys()
_FUNCTION = ir.at("call", "function")
assert _FUNCTION == ir.at("gen", "function")


# ---- which effects may stop for a decision ----------------------------------

ASKING = frozenset({"choose", "may", "secret", "offer"})  # statements that ask a player
MOVING = frozenset({"move", "draw", "discard", "shuffle", "remove", "putback", "swap"})  # may fire `enter`
COUNTING = frozenset({"set", "gain", "lose", "pay"})  # may run a counter's thresholds and on_change


class Deciding:
    """What of a game's IR may stop for a decision, worked out once per game (kept with its
    code): the procedures, events, counters and blocks whose running may ask a player. The
    code generator writes these as generators (`answer = yield decision`) and the rest as plain
    functions. It errs only towards deciding: what it calls deciding and never asks costs a
    generator, nothing more."""

    def __init__(self, game):
        self.g = game
        self._memo = {}  # id(statement or block) -> whether it may decide
        # Each root read once for what it may reach (procedures called, events emitted,
        # counters written, `perform`, moves), then those links followed until nothing is added.
        roots = {("p", pid): [p["effect"]] for pid, p in game.procedures.items()}
        roots.update({("e", e): [t["effect"] for t in ts] for e, ts in game.triggers.items()})
        roots.update({("c", c): [d.get("on_change"), *[eff for _at, eff in d.get("thresholds", ())]]
                      for c, d in game.counters.items() if "on_change" in d or d.get("thresholds")})
        roots[("perform",)] = [b for a in game.actions.values() for b in (a.get("cost"), a.get("effect"))] + \
            [b for p in game.protos.values() for b in (p.get("effect"), *(p.get("activation") or {}).values())]
        links = {key: self._links(blocks) for key, blocks in roots.items()}
        links[("perform",)].add(("e", "action"))
        deciding = {key for key, reach in links.items() if True in reach}
        grew = True
        while grew:  # bounded: each pass adds a root, or ends
            grew = False
            for key, reach in links.items():
                if key not in deciding and not reach.isdisjoint(deciding):
                    deciding.add(key)
                    grew = True
        self.procs = {k[1] for k in deciding if k[0] == "p"}
        self.events = {k[1] for k in deciding if k[0] == "e"}
        self.counters = {k[1] for k in deciding if k[0] == "c"}
        self.perform = ("perform",) in deciding
        self.enter = "enter" in self.events

    def _links(self, blocks) -> set:
        """What running these blocks may reach: True where they ask, and the keys of the
        procedures, events, counters and `perform` they may run."""
        out = set()
        for b in blocks:
            if type(b) is not list:
                continue
            for n in ir_nodes(b):
                op = n[0]
                if op in ASKING:
                    out.add(True)
                elif (op == "call" or op == "gen") and type(n[2]) is str:
                    out.add(("p", n[2]))
                elif op == "perform":
                    out.add(("perform",))
                elif op == "emit" and type(n[2]) is str:
                    out.add(("e", n[2]))
                elif op in MOVING:
                    out.add(("e", "enter"))
                elif op in COUNTING:
                    out.add(("c", self.counter_of(n)))
        return out

    def block(self, block) -> bool:
        """Whether running this block (or statement, or expression) may ask a player."""
        if type(block) is not list or not block:
            return False
        key = id(block)
        hit = self._memo.get(key)
        if hit is None:
            hit = self._memo[key] = any(self._node(n) for n in ir_nodes(block))
        return hit

    statement = block

    def _node(self, n) -> bool:
        op = n[0]
        if op in ASKING:
            return True
        if op == "call" or op == "gen":
            return type(n[2]) is str and n[2] in self.procs
        if op == "perform":
            return self.perform
        if op == "emit":
            return type(n[2]) is str and n[2] in self.events
        if op in MOVING:
            return self.enter
        if op in COUNTING:
            return self.counter_of(n) in self.counters
        return False

    def counter_of(self, s):
        """The counter a set, gain, lose or pay statement writes (None: a name bound by `let`)."""
        if s[0] != "set":
            return s[3]
        t = s[2]
        if t[0] == "name":
            return t[2] if t[2] in self.g.counters else None
        return t[3] if type(t[3]) is str else None
