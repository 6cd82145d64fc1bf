"""What an effect might do, worked out once per game from its IR.

A task that can neither stop for a decision nor fail needs no snapshot to roll back to.
A loop whose conditions change nothing may work a value out once for all its things
(see expressions._quick_filter).

Every answer is kept with the game, keyed by what it is about (a procedure's or an
event's name) or by a block of the game's own tables, which live as long as the game.
"""
from __future__ import annotations

from typing import NamedTuple

from .ir import EXPRESSIONS

_STOPPING = {"choose", "may", "secret", "fail", "pay"}


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


def may_stop(game, block) -> bool:
    """True unless the block surely runs to its end without a decision or a failure.

    `block` is one of the game's own (a procedure's, a trigger's, the flow's): the answer is
    kept by its identity, with the block itself so that the identity stays its own. The
    blocks of the game's tables are finitely many; past a bound (blocks made afresh by a
    caller) the answers start afresh."""
    known = game.stoppable
    hit = known.get(id(block))
    if hit is not None and hit.block is block:
        return hit.may_stop
    if len(known) >= _KNOWN_BLOCKS:
        known.clear()
    known[id(block)] = Stoppable(block, True)  # assume the worst while working it out (recursion guard)
    stops = _may_stop(game, block)
    known[id(block)] = Stoppable(block, stops)
    return stops


class Stoppable(NamedTuple):
    """What may_stop keeps of a block: the block itself, so that its identity stays its own."""
    block: list
    may_stop: bool


def event_may_stop(game, event) -> bool:
    """Whether some trigger of this event may stop for a decision or fail, in its condition
    or its effect. Kept with the game by the event's name."""
    known = game.event_stoppable
    if event not in known:
        known[event] = any(may_stop(game, t["effect"]) or ("when" in t and may_stop(game, t["when"]))
                           for t in game.triggers.get(event, ()))
    return known[event]


_KNOWN_BLOCKS = 100_000


def _may_stop(game, block) -> bool:
    for n in ir_nodes(block):
        op = n[0]
        if op in _STOPPING or op == "perform":
            return True
        if op in ("call", "gen") and n[2] in game.procedures:
            if may_stop(game, game.procedures[n[2]]["effect"]):
                return True
        if op == "emit" and event_may_stop(game, n[2]):
            return True
        if op in ("move", "draw", "swap", "shuffle", "discard", "remove", "putback") and event_may_stop(game, "enter"):
            return True
        if op in ("gain", "lose", "set"):
            for c in game.counters.values():
                if any(may_stop(game, eff) for _at, eff in c.get("thresholds", ())):
                    return True
                if "on_change" in c and may_stop(game, c["on_change"]):
                    return True
    return False


# Statements that change nothing a later expression can read: a procedure made only of these
# (and of calls to other such procedures) gives the same value for the same arguments in the
# same state.
_PURE_STATEMENTS = {"let", "if", "for", "repeat", "while", "return", "do", "stop", "fail"}
_IMPURE_FUNCTIONS = {"random", "roll"}  # they draw from the game's generator


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
                if n[2] in procs:
                    callees.add(n[2])
                elif op == "call" and n[2] in _IMPURE_FUNCTIONS:
                    changes = True
                elif op == "call" and n[2] == "usable":
                    usable = True
            elif op == "set":
                t = n[2]
                if not (t[0] == "name" and t[2] not in game.counters and t[2] != "first_player"):
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
            roots.extend(x for x in (s[2], s[4]) if x is not None)
    return roots


def pure_procedures(game) -> frozenset:
    """The procedures that change nothing (nor call one that does); worked out once per game."""
    if game.pure_procedures is not None:
        return game.pure_procedures
    scans = {pid: _scan_with_windows(game, [proc["effect"]]) for pid, proc in game.procedures.items()}
    impure = {pid for pid, sc in scans.items() if sc.changes}
    changed = True
    while changed:  # a procedure that calls an impure one is impure
        changed = False
        for pid, sc in scans.items():
            if pid not in impure and sc.callees & impure:
                impure.add(pid)
                changed = True
    game.pure_procedures = frozenset(scans.keys() - impure)
    return game.pure_procedures


def changes_nothing(game, e) -> bool:
    """Whether working out this expression changes nothing (a random draw is a change)."""
    found = _scan_with_windows(game, [e])
    return not found.changes and found.callees <= pure_procedures(game)


_EXPRESSIONS = EXPRESSIONS.keys()
