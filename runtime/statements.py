"""Effect blocks compiled once per game into closures `f(interp, env)`, like expressions.

Running a block used to look each statement's handler up by name at every step; a compiled
block is a list of ready closures. A closure returns None, or a 1-tuple holding the value of
a `return` that ends the enclosing procedure, which every block statement hands upwards.
The common statements (`let`, `if`, `for`, `return`, `do`) are built here; the others call
the interpreter's handler for their operation (see `handle`). Content still cannot run Python.
"""
from __future__ import annotations

from . import ir
from .expressions import compiled
from .faults import EVALUATION_ERRORS as _CATCH, STEP_BUDGET, GameFault, LoopStop
from .tables import COMPILED_LIMIT

BUILT_HERE = {"let", "if", "for", "return", "do"}
_HANDLERS = {}  # every other statement's operation -> its handler, handler(interp, node, env)


def handle(handlers: dict) -> None:
    """The interpreter's handlers, one for each statement of the IR not built here."""
    missing = ir.STATEMENTS.keys() - BUILT_HERE - handlers.keys()
    if missing:
        raise ValueError(f"no handler for the statements {sorted(missing)}")
    _HANDLERS.update(handlers)


def compiled_block(game, block):
    """The closure for a block (a list of statements), built on first use and kept with the game."""
    cache = game.blocks
    f = cache.get(id(block))
    if f is None:
        f = _block(game, block) if game.profile is None else game.profile.aside(_block, game, block)
        if len(cache) >= COMPILED_LIMIT:
            cache.clear()
            game.block_nodes.clear()
        cache[id(block)] = f
        game.block_nodes.append(block)  # ids stay valid while cached
    return f


def _block(game, block):
    steps = [(_statement(game, s), s[1]) for s in block]
    if game.profile is not None:  # each statement clocked (runtime/profile.py)
        steps = [(game.profile.clocked(f, pos, s[0]), pos) for (f, pos), s in zip(steps, block)]
    msg = f"this effect ran more than {STEP_BUDGET} steps; is there an endless loop?"
    if not steps:
        return lambda it, env: None
    if len(steps) == 1:
        (f, pos), = steps

        def one(it, env):
            it.steps += 1
            if it.steps > STEP_BUDGET:
                raise GameFault(pos, msg)
            return f(it, env)
        return one

    def run(it, env):
        for f, pos in steps:
            it.steps += 1
            if it.steps > STEP_BUDGET:
                raise GameFault(pos, msg)
            r = f(it, env)
            if r is not None:
                return r
        return None
    return run


def _guarded(game, e):
    """An expression as the interpreter's `ev` evaluates it: Python errors become faults at `e`."""
    f = compiled(game, e)
    pos, op = e[1], e[0]

    def ev(it, env):
        try:
            return f(it, env)
        except _CATCH as exc:
            raise GameFault(pos, f"cannot evaluate `{op}`: {exc}") from None
    return ev


def _statement(game, s):
    op = s[0]
    if op == "let":
        var, e = s[2], s[3]
        f, pos, what = compiled(game, e), e[1], e[0]

        def let(it, env):
            try:
                env[var] = f(it, env)
            except _CATCH as exc:
                raise GameFault(pos, f"cannot evaluate `{what}`: {exc}") from None
        return let
    if op == "do":
        e = s[2]
        f, pos, what = compiled(game, e), e[1], e[0]

        def do(it, env):
            try:
                f(it, env)
            except _CATCH as exc:
                raise GameFault(pos, f"cannot evaluate `{what}`: {exc}") from None
        return do
    if op == "return":
        if s[2] is None:
            return lambda it, env: (None,)
        e = s[2]
        f, pos, what = compiled(game, e), e[1], e[0]

        def ret(it, env):
            try:
                return (f(it, env),)
            except _CATCH as exc:
                raise GameFault(pos, f"cannot evaluate `{what}`: {exc}") from None
        return ret
    if op == "if":
        other = _block(game, s[3]) if s[3] else None
        if len(s[2]) == 1:  # the commonest: its condition is called here, not through _guarded
            (cond_ir, body_ir), = s[2]
            cond, body = compiled(game, cond_ir), _block(game, body_ir)
            cpos, cop = cond_ir[1], cond_ir[0]

            def if1(it, env):
                try:
                    holds = cond(it, env)
                except _CATCH as exc:
                    raise GameFault(cpos, f"cannot evaluate `{cop}`: {exc}") from None
                if holds:
                    return body(it, env)
                if other is not None:
                    return other(it, env)
            return if1
        arms = [(_guarded(game, cond), _block(game, body)) for cond, body in s[2]]

        def if_(it, env):
            for cond, body in arms:
                if cond(it, env):
                    return body(it, env)
            if other is not None:
                return other(it, env)
        return if_
    if op == "for":
        var, src, where, body = s[2], _guarded(game, s[3]), s[4], _block(game, s[5])
        where = _guarded(game, where) if where is not None else None

        def for_(it, env):
            try:
                for x in list(it.items(src(it, env))):
                    env[var] = x
                    if where is not None and not where(it, env):
                        continue
                    r = body(it, env)
                    if r is not None:
                        return r
            except LoopStop:
                pass
        return for_
    handler = _HANDLERS.get(op)
    if handler is None:
        def unknown(it, env):
            raise KeyError(op)
        return unknown
    return lambda it, env: handler(it, s, env)
