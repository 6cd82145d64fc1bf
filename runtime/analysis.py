"""What an effect might do, worked out once per game from its IR.

A task that can neither stop for a decision nor fail needs no snapshot to roll back to.
A procedure, condition or expression that changes nothing can have its value remembered
(see Interp.remembered).
"""
from __future__ import annotations

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
    """True unless the block surely runs to its end without a decision or a failure."""
    cache = game.__dict__.setdefault("_may_stop", {})
    key = id(block)
    if key not in cache:
        cache[key] = True  # assume the worst while working it out (recursion guard)
        cache[key] = _may_stop(game, block)
        game.__dict__.setdefault("_keep_blocks", []).append(block)
    return cache[key]


def _may_stop(game, block) -> bool:
    for n in ir_nodes(block):
        op = n[0]
        if op in _STOPPING or op == "perform":
            return True
        if op in ("call", "gen") and n[2] in game.procedures:
            if may_stop(game, game.procedures[n[2]]["effect"]):
                return True
        if op == "emit" and any(may_stop(game, t["effect"]) or ("when" in t and may_stop(game, [t["when"]]))
                                for t in game.triggers.get(n[2], ())):
            return True
        if op in ("move", "draw", "swap", "shuffle", "discard", "remove", "putback") and any(
                may_stop(game, t["effect"]) for t in game.triggers.get("enter", ())):
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
# same state, so its value can be remembered until the state changes.
_PURE_STATEMENTS = {"let", "if", "for", "repeat", "while", "return", "do", "stop", "fail"}
_IMPURE_FUNCTIONS = {"random", "roll"}  # they draw from the game's generator


def _scan(game, roots):
    """What some IR calls, which of `player`/`this` it names, and whether it changes anything."""
    procs = game.procedures
    callees, names, bad, usable = set(), set(), False, False
    for root in roots:
        for n in ir_nodes(root):
            op = n[0]
            if op == "call" or op == "gen":
                if n[2] in procs:
                    callees.add(n[2])
                elif op == "call" and n[2] in _IMPURE_FUNCTIONS:
                    bad = True
                elif op == "call" and n[2] == "usable":
                    usable = True
            elif op == "name":
                if n[2] in ("player", "this"):
                    names.add(n[2])
            elif op == "set":
                t = n[2]
                if not (t[0] == "name" and t[2] not in game.counters and t[2] != "first_player"):
                    bad = True
            elif op not in _EXPRESSIONS and op not in _PURE_STATEMENTS:
                bad = True
    return callees, names, bad, usable


def condition_roots(act):
    """The IR that decides whether an action may be taken: its `if` and its cost's top-level payments."""
    roots = [act["if"]] if "if" in act else []
    for s in act.get("cost") or ():
        if s[0] == "pay":
            roots.extend(x for x in (s[2], s[4]) if x is not None)
    return roots


def pure_procedures(game) -> dict:
    """Procedure id -> (reads `player`, reads `this`) for every procedure that changes nothing.

    A procedure sees its caller's `player` and `this`; the flags say whether its value may
    depend on them (a name `player` or `this` anywhere in it or in what it calls). `usable`
    works out the conditions of the window's actions, so it is as pure as they are.
    """
    cached = game.__dict__.get("_pure")
    if cached is not None:
        return cached
    procs = game.procedures
    windowed = [a for acts in game.windows.values() for a in acts]
    w_calls, _n, w_bad, _u = _scan(game, [r for a in windowed for r in condition_roots(game.actions[a])])
    calls, reads, impure = {}, {}, set()
    for pid, proc in procs.items():
        callees, names, bad, usable = _scan(game, [proc["effect"]])
        if usable:
            callees |= w_calls
            bad = bad or w_bad
        calls[pid], reads[pid] = callees, names
        if bad:
            impure.add(pid)
    changed = True
    while changed:  # a procedure that calls an impure one is impure; what it reads grows likewise
        changed = False
        for pid in procs:
            if pid not in impure and calls[pid] & impure:
                impure.add(pid)
                changed = True
            for q in calls[pid]:
                if not reads[q] <= reads[pid]:
                    reads[pid] |= reads[q]
                    changed = True
    out = {pid: ("player" in reads[pid], "this" in reads[pid]) for pid in procs if pid not in impure}
    game.__dict__["_pure"] = out
    return out


def pure_expression(game, e) -> bool:
    """Whether working out this expression changes nothing (so its value can be remembered)."""
    cache = game.__dict__.setdefault("_pure_expr", {})
    key = id(e)
    if key not in cache:
        callees, _names, bad, usable = _scan(game, [e])
        if usable:
            windowed = [a for acts in game.windows.values() for a in acts]
            w_calls, _n, w_bad, _u = _scan(game, [r for a in windowed for r in condition_roots(game.actions[a])])
            callees |= w_calls
            bad = bad or w_bad
        cache[key] = not bad and callees <= pure_procedures(game).keys()
        game.__dict__.setdefault("_keep_blocks", []).append(e)
    return cache[key]


def worth_remembering(game, e) -> bool:
    """Whether a flow expression's value is worth remembering: it changes nothing, and it calls
    or loops over things. One that only reads a few names and attributes (`result != 0`, or
    `any(p.score >= 25 for p in players)`, checked at every step of the flow) is worked out
    sooner than looked up in a new interpreter's memory."""
    cache = game.__dict__.setdefault("_worth", {})
    key = id(e)
    if key not in cache:
        cache[key] = pure_expression(game, e) and any(map(_costly, ir_nodes(e)))
    return cache[key]  # e is kept alive by pure_expression's cache, so its id stays its own


def _costly(n) -> bool:
    """A call, or a loop over anything but the players (a few of them, read as names are)."""
    op = n[0]
    if op == "call":
        return True
    if op == "gen" or op == "comp":
        src = n[5] if op == "gen" else n[4]
        return not (src[0] == "name" and src[2] == "players" or src[0] == "every" and src[2] == "player")
    return False


def pure_actions(game) -> set:
    """The actions whose legality changes nothing to work out (so it can be remembered)."""
    cached = game.__dict__.get("_pure_actions")
    if cached is not None:
        return cached
    pure = pure_procedures(game)
    windowed = [a for acts in game.windows.values() for a in acts]
    w_calls, _n, w_bad, _u = _scan(game, [r for a in windowed for r in condition_roots(game.actions[a])])
    out = set()
    for aid, act in game.actions.items():
        callees, _names, bad, usable = _scan(game, condition_roots(act))
        if usable:
            callees |= w_calls
            bad = bad or w_bad
        if not bad and callees <= pure.keys():
            out.add(aid)
    game.__dict__["_pure_actions"] = out
    return out


_EXPRESSIONS = {"num", "str", "none", "name", "attr", "index", "call", "gen", "list", "comp", "every",
                "op", "and", "or", "not", "neg", "in", "has", "cond"}


# A loop's body is counted as if it ran this many times; `usable` works out a window's
# conditions, counted as this many nodes.
_LOOP_TIMES = 8
_USABLE_NODES = 50
_LOOPS = {"gen", "comp", "for", "repeat", "while"}


def cheap_first(game, phase) -> list:
    """A phase's actions, those cheapest to check first (in the phase's order where alike):
    where any one legal action will do, the cheap ones are tried first.

    The measure is fixed and rough: the IR nodes of an action's condition and cost, with
    those of the procedures they call, a loop's body counted several times."""
    cache = game.__dict__.setdefault("_cheap_first", {})
    order = cache.get(phase["id"])
    if order is None:
        procs = {}  # procedure id -> its nodes, each worked out once
        order = cache[phase["id"]] = sorted(phase["actions"], key=lambda a: sum(
            _cost(game, r, procs) for r in condition_roots(game.actions[a])))
    return order


def _cost(game, n, procs) -> int:
    """The nodes of IR n, as cheap_first counts them. A procedure still being counted (one
    that calls itself) counts nothing where it is called again."""
    if type(n) is dict:
        return sum(_cost(game, v, procs) for v in n.values())
    if type(n) is not list:
        return 0
    if not (len(n) > 1 and type(n[0]) is str and type(n[1]) is str and n[1].count(":") >= 2):
        return sum(_cost(game, x, procs) for x in n)
    op = n[0]
    inner = sum(_cost(game, x, procs) for x in n[2:])
    if op in _LOOPS:
        inner *= _LOOP_TIMES
    if op in ("call", "gen") and n[2] in game.procedures:
        if n[2] not in procs:
            procs[n[2]] = 0
            procs[n[2]] = _cost(game, game.procedures[n[2]]["effect"], procs)
        inner += procs[n[2]]
    elif op == "call" and n[2] == "usable":
        inner += _USABLE_NODES
    return 1 + inner
