"""Expression IR compiled once per game into closures `f(interp, env)`.

Walking the IR list for every evaluation costs a dispatch per node; a closure tree does
the same work with plain calls. The closures only ever call the interpreter's own
primitives: content still cannot run Python.
"""
from __future__ import annotations

import operator

from .state import Zone


class Absent:
    """A value that is not there (a counter a thing does not have, a `this` a caller did not have)."""
    __slots__ = ()


ABSENT = Absent()


def compiled(game, e):
    """The closure for expression node `e`, built on first use and kept with the game."""
    cache = game.closures
    f = cache.get(id(e))
    if f is None:
        f = cache[id(e)] = _compile(game, e)
        game.__dict__.setdefault("_keep", []).append(e)  # ids stay valid while cached
    return f


_BUILTIN_ATTRS = {"id", "type", "kind", "name", "zone", "location", "owner", "face_up", "contents", "seat", "count"}
# Built-in attributes of a thing in play, read without the general lookup.
_FAST_BUILTINS = {
    "type": lambda it, x: it.g.proto_of.get(x, x),
    "kind": lambda it, x: it.g.kind_of.get(x, "player"),
    "location": lambda it, x: it.location_of(x),
    "contents": lambda it, x: Zone(x),
    "zone": lambda it, x: Zone(_read(it, x, "z")),
    "face_up": lambda it, x: _read(it, x, "up"),
    "owner": lambda it, x: it.owner_of(x),
    "id": lambda it, x: x,
}


def _read(it, x, field):
    """A field of a thing in play, noted when a remembered value is being worked out."""
    v = it.st["e"][x][field]
    if it.track is not None:
        it.track[("E", x, field)] = v
    return v


_CMP = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}
_ARITH = {"+": operator.add, "-": operator.sub, "*": operator.mul}


def _compile(game, e):
    from .interpreter import GameFault, num  # late: the interpreter imports this module

    op = e[0]
    C = lambda x: _compile(game, x) if x is not None else None  # noqa: E731
    if op in ("num", "str"):
        v = e[2]
        return lambda it, env: v
    if op == "none":
        return lambda it, env: None
    if op == "name":
        n = e[2]
        slow = _name_slow(n, e)

        def name(it, env):
            if n in env:
                return env[n]
            return slow(it, env)
        return name
    if op == "attr":
        sub, n, pos = C(e[2]), e[3], e[1]
        if n not in game.counters and n not in game.owned_zones and n not in _BUILTIN_ATTRS:
            # a fixed attribute printed on the thing: read it straight from its prototype
            attrs_of = game.attrs_of

            def fixed(it, env):
                x = sub(it, env)
                if type(x) is str:
                    a = attrs_of.get(x)
                    if a is not None:
                        return a.get(n)
                return it.attr(x, n, pos)
            return fixed
        if n in game.counters and n not in game.owned_zones and n not in _BUILTIN_ATTRS:
            attrs_of = game.attrs_of

            def counter(it, env):  # a counter where the thing has it, else a fixed attribute
                x = sub(it, env)
                if type(x) is str:
                    ent = it.st["e"].get(x)
                    if ent is not None:
                        c = ent["c"]
                        if it.track is not None:
                            it.track[("C", x, n)] = c.get(n, ABSENT)
                        if n in c:
                            return c[n]
                        a = attrs_of.get(x)
                        if a is not None:
                            return a.get(n)
                return it.attr(x, n, pos)
            return counter
        if n in game.owned_zones and n not in game.counters and n not in _BUILTIN_ATTRS:
            # a zone that belongs to a player or a thing: `p.hand`
            scope, kind_of = game.owned_zones[n], game.kind_of

            def owned(it, env):
                x = sub(it, env)
                if type(x) is str and x in it.st["e"] and (
                        x in it.st["players"] if scope == "player" else kind_of.get(x) == scope):
                    return Zone(f"{x}.{n}")
                return it.attr(x, n, pos)
            return owned
        if n in _FAST_BUILTINS and n not in game.counters:
            read = _FAST_BUILTINS[n]

            def builtin(it, env):
                x = sub(it, env)
                if type(x) is str and x in it.st["e"]:
                    return read(it, x)
                return it.attr(x, n, pos)
            return builtin
        return lambda it, env: it.attr(sub(it, env), n, pos)
    if op == "op":
        o, a, b = e[2], C(e[3]), C(e[4])
        if o == "==":
            return lambda it, env: a(it, env) == b(it, env)
        if o == "!=":
            return lambda it, env: a(it, env) != b(it, env)
        if o in _CMP:
            f = _CMP[o]

            def compare(it, env):
                x, y = a(it, env), b(it, env)
                if type(x) is int and type(y) is int:  # what num() would give them anyway
                    return f(x, y)
                return f(num(x), num(y))
            return compare
        if o == "+":
            def plus(it, env):
                x, y = a(it, env), b(it, env)
                if isinstance(x, list) and isinstance(y, list):
                    return x + y  # two lists join
                return num(x) + num(y)
            return plus
        if o in _ARITH:
            f = _ARITH[o]
            return lambda it, env: f(num(a(it, env)), num(b(it, env)))
        if o == "/":
            pos = e[1]

            def div(it, env):
                x, y = num(a(it, env)), num(b(it, env))
                if y == 0:
                    raise GameFault(pos, "division by zero")
                r = x / y
                return int(r) if r == int(r) else r
            return div
        if o == "%":
            def mod(it, env):
                x, y = num(a(it, env)), num(b(it, env))
                return x % y if y else 0
            return mod
        raise ValueError(f"unknown operator {o}")
    if op == "and":
        a, b = C(e[2]), C(e[3])
        return lambda it, env: bool(a(it, env)) and bool(b(it, env))
    if op == "or":
        a, b = C(e[2]), C(e[3])
        return lambda it, env: bool(a(it, env)) or bool(b(it, env))
    if op == "not":
        a = C(e[2])
        return lambda it, env: not a(it, env)
    if op == "neg":
        a = C(e[2])
        return lambda it, env: -num(a(it, env))
    if op == "cond":
        c, a, b = C(e[2]), C(e[3]), C(e[4])
        return lambda it, env: a(it, env) if c(it, env) else b(it, env)
    if op == "list":
        items = [C(x) for x in e[2]]
        return lambda it, env: [f(it, env) for f in items]
    if op == "every":
        kind = e[2]

        def every(it, env):
            if kind == "player":
                return it.order()
            ents = it.st["e"]
            if it.track is not None:  # which of them are out of the game: what lies in `removed`
                it.track[("Z", "removed")] = list(it.st["zones"].get("removed", ()))
            return [i for i in it.g.of_kind.get(kind, ()) if ents[i]["z"] != "removed"]
        return every
    if op == "in":
        a, b = C(e[2]), C(e[3])
        return lambda it, env: it.member(a(it, env), b(it, env))
    if op == "has":
        a, mark = C(e[2]), e[3]

        def has(it, env):
            x = a(it, env)
            ent = it.st["e"].get(x) if isinstance(x, str) else None
            if ent is None:
                return False
            if it.track is not None:
                it.track[("M", x, mark)] = mark in ent["m"]
            return mark in ent["m"]
        return has
    if op == "index":
        a, b = C(e[2]), C(e[3])

        def index(it, env):
            x, i = a(it, env), b(it, env)
            if isinstance(x, dict):
                return x.get(i)
            xs = it.items(x)
            i = int(i)
            return xs[i] if -len(xs) <= i < len(xs) else None
        return index
    if op == "comp":
        body, var, src, where = C(e[2]), e[3], C(e[4]), C(e[5])
        quick = _quick_filter(game, e, e[5], var, C)
        if quick is not None:
            def comp_quick(it, env):
                inner = dict(env)
                keep = quick(it, env, where)
                out = []
                for x in it.items(src(it, env)):
                    inner[var] = x
                    if keep(it, inner, x):
                        out.append(body(it, inner))
                return out
            return comp_quick

        def comp(it, env):
            inner = dict(env)
            out = []
            for x in it.items(src(it, env)):
                inner[var] = x
                if where is None or where(it, inner):
                    out.append(body(it, inner))
            return out
        return comp
    if op == "gen":
        return _gen(game, e, C, num)
    if op == "call":
        name, args, pos = e[2], [C(a) for a in e[3]], e[1]
        if name in game.procedures:
            return lambda it, env: it.call_procedure(name, [f(it, env) for f in args], env, pos)
        return lambda it, env: it.function(name, [f(it, env) for f in args], pos)
    raise ValueError(f"unknown expression `{op}`")


def _name_slow(n, e):
    def slow(it, env):
        return it.e_name(e, env)
    return slow


def _gen(game, e, C, num):
    name, body, var, src, where, pos = e[2], C(e[3]), e[4], C(e[5]), C(e[6]), e[1]
    quick = _quick_filter(game, e, e[6], var, C)

    def plain(it, env):
        inner = dict(env)
        for x in it.items(src(it, env)):
            inner[var] = x
            if where is None or where(it, inner):
                yield body(it, inner)

    def filtered(it, env):  # the same, with the quick filter
        inner = dict(env)
        keep = quick(it, env, where)
        for x in it.items(src(it, env)):
            inner[var] = x
            if keep(it, inner, x):
                yield body(it, inner)

    # `any(x.attr == v and ... for x in ...)`: the body is a test, and the quick filter gives
    # the same true or false for each thing
    test = _quick_filter(game, e, e[3], var, C) if quick is None and e[6] is None and name in ("any", "all", "count") else None

    def tested(it, env):
        inner = dict(env)
        keep = test(it, env, body)
        for x in it.items(src(it, env)):
            inner[var] = x
            yield keep(it, inner, x)

    values = filtered if quick is not None else tested if test is not None else plain

    if name == "count":
        return lambda it, env: sum(1 for v in values(it, env) if v)
    if name == "any":  # stops at the first true value
        return lambda it, env: any(values(it, env))
    if name == "all":
        return lambda it, env: all(values(it, env))
    if name == "sum":
        return lambda it, env: sum(num(v) for v in values(it, env))
    return lambda it, env: it.function(name, [list(values(it, env))], pos, aggregate=True)


def _conjuncts(e):
    return _conjuncts(e[2]) + _conjuncts(e[3]) if e[0] == "and" else [e]


def _names(e, var) -> bool:
    """Whether the name `var` occurs anywhere in expression `e`."""
    stack = [e]
    while stack:
        n = stack.pop()
        if isinstance(n, list):
            if len(n) > 2 and n[0] == "name" and n[2] == var:
                return True
            stack.extend(x for x in n if isinstance(x, list))
    return False


def _quick_filter(game, e, where, var, C):
    """A faster `where` for `x for x in ... where x.attr == value and ...`.

    The filter reads `x.attr` without going through the name and comparison closures, and
    works `value` out once per loop rather than once per thing. That is the same when the
    value cannot change during the loop: a name bound by the caller, a literal, or any
    expression when the whole comprehension changes nothing (and it does not name `x`).
    Otherwise None: the plain filter is used.
    """
    from .analysis import pure_expression

    if where is None:
        return None
    conj = _conjuncts(where)
    first = conj[0]
    if not (first[0] == "op" and first[2] == "==" and first[3][0] == "attr" and first[3][2][0] == "name"
            and first[3][2][2] == var and not _names(first[4], var)):
        return None
    rhs_ir = first[4]
    if rhs_ir[0] in ("num", "str", "none"):
        kind = "literal"
    elif rhs_ir[0] == "name":
        kind = "name"
    elif pure_expression(game, e):
        kind = "settled"
    else:
        return None
    read = _attr_reader(game, first[3][3], first[3][1])
    rhs = C(rhs_ir)
    rest = [C(c) for c in conj[1:]]
    rname = rhs_ir[2] if kind == "name" else None

    def start(it, env, plain):
        if kind == "name":
            if rname not in env:  # a name of the game, not of the caller: the plain way
                return lambda it, inner, x: plain(it, inner)
            value = [env[rname]]
        elif kind == "literal":
            value = [rhs(it, env)]
        else:
            value = []

        def keep(it, inner, x):
            v = read(it, x)
            if not value:
                value.append(rhs(it, inner))
            if not (v == value[0]):
                return False
            for r in rest:
                if not r(it, inner):
                    return False
            return True
        return keep
    return start


def _attr_reader(game, n, pos):
    """`x.n` for a given x: the same reads as the `attr` closure for this attribute."""
    attrs_of = game.attrs_of
    if n not in game.counters and n not in game.owned_zones and n not in _BUILTIN_ATTRS:
        def fixed(it, x):
            if type(x) is str:
                a = attrs_of.get(x)
                if a is not None:
                    return a.get(n)
            return it.attr(x, n, pos)
        return fixed
    if n in game.counters and n not in game.owned_zones and n not in _BUILTIN_ATTRS:
        def counter(it, x):
            if type(x) is str:
                ent = it.st["e"].get(x)
                if ent is not None:
                    c = ent["c"]
                    if it.track is not None:
                        it.track[("C", x, n)] = c.get(n, ABSENT)
                    if n in c:
                        return c[n]
                    a = attrs_of.get(x)
                    if a is not None:
                        return a.get(n)
            return it.attr(x, n, pos)
        return counter
    if n in ("type", "kind") and n not in game.counters:
        table, default = (game.proto_of, None) if n == "type" else (game.kind_of, "player")

        def fixed_builtin(it, x):  # the same as _FAST_BUILTINS, without the extra call
            if type(x) is str and x in it.st["e"]:
                return table.get(x, x if default is None else default)
            return it.attr(x, n, pos)
        return fixed_builtin
    if n in _FAST_BUILTINS and n not in game.counters:
        read = _FAST_BUILTINS[n]

        def builtin(it, x):
            if type(x) is str and x in it.st["e"]:
                return read(it, x)
            return it.attr(x, n, pos)
        return builtin
    return lambda it, x: it.attr(x, n, pos)


__all__ = ["compiled", "Zone"]
