"""What an effect might do, worked out once per game from its IR.

A task that can neither stop for a decision nor fail needs no snapshot to roll back to,
and a snapshot is the most expensive thing a small task does.
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
