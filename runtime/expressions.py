"""Expression IR compiled once per game into closures `f(interp, env)`.

Walking the IR list for every evaluation costs a dispatch per node; a closure tree does
the same work with plain calls. The closures only ever call the interpreter's own
primitives: content still cannot run Python.
"""
from __future__ import annotations

import operator
from typing import NamedTuple

from .analysis import changes_nothing
from .faults import GameFault
from .numbers import LIMIT, LIST_LIMIT, beyond
from .state import Zone
from .tables import COMPILED_LIMIT
from .text import Said, Text


class Absent:
    """A value that is not there (a counter a thing does not have, a `this` a caller did not have)."""
    __slots__ = ()


ABSENT = Absent()


def compiled(game, e):
    """The closure for expression node `e`, built on first use and kept with the game."""
    cache = game.closures
    f = cache.get(id(e))
    if f is None:
        f = _compile(game, e) if game.profile is None else game.profile.aside(_compile, game, e)
        if game.profile is not None and id(e) in game.profile.roots:  # a condition clocked on its own
            f = game.profile.clocked(f, *game.profile.roots[id(e)])
        if len(cache) >= COMPILED_LIMIT:
            cache.clear()
            game.closure_nodes.clear()
        cache[id(e)] = f
        game.closure_nodes.append(e)  # ids stay valid while cached
    return f


_BUILTIN_ATTRS = {"id", "type", "kind", "name", "zone", "location", "owner", "face_up", "contents", "seat", "count"}
# Built-in attributes of a thing in play, read without the general lookup.
_FAST_BUILTINS = {
    "type": lambda it, x: it.g.proto_of.get(x, x),
    "kind": lambda it, x: it.g.kind_of.get(x, "player"),
    "location": lambda it, x: holder(it, x, it.g.locations),
    "contents": lambda it, x: Zone(x),
    "zone": lambda it, x: Zone(_read(it, x, "zone")),
    "face_up": lambda it, x: _read(it, x, "up"),
    "owner": lambda it, x: it.owner_of(x),
    "id": lambda it, x: x,
    "seat": lambda it, x: it.st["players"].index(x) + 1 if x in it.st["players"] else None,
}


def holder(it, x, among):
    """The first holder of thing x (x's zone, that zone's holder, ...) that is in `among`,
    with the reads noted: a piece on a card on a location is at that location; a card in
    a player's zone is theirs. (Interp.holder; a plain function here, as locations are
    read far more often than anything else a thing has.)"""
    ents = it.st["things"]
    z = ents[x]["zone"]
    t = it.track
    if t is not None:
        t[("field", x, "zone")] = z
    if z in among:  # it lies right there: the commonest case (an id has no dot)
        return z
    for _ in range(8):
        head = z.partition(".")[0]
        if head in among:
            return head
        ent = ents.get(head)
        if ent is None:
            return None
        z = ent["zone"]
        if t is not None:
            t[("field", head, "zone")] = z
    return None


def _own_zone(made, x, n):
    """Thing x's zone n (`p.hand`), made once and kept in `made`: a zone is a plain value."""
    z = made[x] = Zone(f"{x}.{n}")
    return z


def _read(it, x, field):
    """A field of a thing in play, noted when a grouping is being made."""
    v = it.st["things"][x][field]
    if it.track is not None:
        it.track[("field", x, field)] = v
    return v


_CMP = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}
_ARITH = {"+": operator.add, "-": operator.sub, "*": operator.mul}


def _compile(game, e):
    op = e[0]
    C = lambda x: _compile(game, x) if x is not None else None  # noqa: E731
    if op in ("num", "str"):
        v = e[2]
        return lambda it, env: v
    if op == "none":
        return lambda it, env: None
    if op == "text":
        parts = [(Said(p), None) if isinstance(p, str) else (None, C(p)) for p in e[2]]
        return lambda it, env: Text(t if f is None else f(it, env) for t, f in parts)
    if op == "name":
        n = e[2]
        slow = _name_slow(game, n, e)

        def name(it, env):
            if n in env:
                return env[n]
            return slow(it, env)
        return name
    if op == "attr":
        sub, n, pos = C(e[2]), e[3], e[1]
        if e[2][0] == "name":  # `x.a`, the commonest shape: x read here, not through its closure
            v, slow = e[2][2], _name_slow(game, e[2][2], e[2])
            if n not in game.counters and n not in game.owned_zones and n not in _BUILTIN_ATTRS:
                attrs_of = game.attrs_of

                def fixed_of_name(it, env):
                    x = env[v] if v in env else slow(it, env)
                    if type(x) is str:
                        a = attrs_of.get(x)
                        if a is not None:
                            return a.get(n)
                    return it.attr(x, n, pos)
                return fixed_of_name
            if n in game.counters and n not in game.owned_zones and n not in _BUILTIN_ATTRS:
                attrs_of = game.attrs_of

                def counter_of_name(it, env):
                    x = env[v] if v in env else slow(it, env)
                    if type(x) is str:
                        ent = it.st["things"].get(x)
                        if ent is not None:
                            c = ent["counters"]
                            if it.track is not None:
                                it.track[("counter", x, n)] = c.get(n, ABSENT)
                            if n in c:
                                return c[n]
                            a = attrs_of.get(x)
                            if a is not None:
                                return a.get(n)
                    return it.attr(x, n, pos)
                return counter_of_name
            if n in game.owned_zones and n not in game.counters and n not in _BUILTIN_ATTRS:
                scope, kind_of, made = game.owned_zones[n], game.kind_of, {}

                def owned_of_name(it, env):
                    x = env[v] if v in env else slow(it, env)
                    if type(x) is str and x in it.st["things"] and (
                            x in it.st["players"] if scope == "player" else kind_of.get(x) == scope):
                        return made.get(x) or _own_zone(made, x, n)
                    return it.attr(x, n, pos)
                return owned_of_name
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
                    ent = it.st["things"].get(x)
                    if ent is not None:
                        c = ent["counters"]
                        if it.track is not None:
                            it.track[("counter", x, n)] = c.get(n, ABSENT)
                        if n in c:
                            return c[n]
                        a = attrs_of.get(x)
                        if a is not None:
                            return a.get(n)
                return it.attr(x, n, pos)
            return counter
        if n in game.owned_zones and n not in game.counters and n not in _BUILTIN_ATTRS:
            # a zone that belongs to a player or a thing: `p.hand`
            scope, kind_of, made = game.owned_zones[n], game.kind_of, {}

            def owned(it, env):
                x = sub(it, env)
                if type(x) is str and x in it.st["things"] and (
                        x in it.st["players"] if scope == "player" else kind_of.get(x) == scope):
                    return made.get(x) or _own_zone(made, x, n)
                return it.attr(x, n, pos)
            return owned
        if n in _FAST_BUILTINS and n not in game.counters and n not in game.owned_zones:
            read = _FAST_BUILTINS[n]

            def builtin(it, env):
                x = sub(it, env)
                if type(x) is str and x in it.st["things"]:
                    return read(it, x)
                return it.attr(x, n, pos)
            return builtin
        return lambda it, env: it.attr(sub(it, env), n, pos)
    if op == "op":
        o, a, b = e[2], C(e[3]), C(e[4])
        lit = e[4][0] in ("num", "str", "none")  # `... == 3`: the literal is used as it is
        y0 = _literal(e[4]) if lit else None
        if o == "==":
            if lit:
                return lambda it, env: a(it, env) == y0
            return lambda it, env: a(it, env) == b(it, env)
        if o == "!=":
            if lit:
                return lambda it, env: a(it, env) != y0
            return lambda it, env: a(it, env) != b(it, env)
        if o in _CMP:
            f = _CMP[o]
            if lit and type(y0) is int:
                def compare_int(it, env):
                    x = a(it, env)
                    if type(x) is int:
                        return f(x, y0)
                    return f(num(x), y0)
                return compare_int

            def compare(it, env):
                x, y = a(it, env), b(it, env)
                if type(x) is int and type(y) is int:  # what num() would give them anyway
                    return f(x, y)
                return f(num(x), num(y))
            return compare
        pos = e[1]
        # Each result is held within the game's numbers (numbers.LIMIT), where it is made.
        if o == "+":
            def plus(it, env):
                x, y = a(it, env), b(it, env)
                if isinstance(x, list) and isinstance(y, list):
                    if len(x) + len(y) > LIST_LIMIT:
                        raise GameFault(pos, f"the joined list would hold more than {LIST_LIMIT} items")
                    return x + y  # two lists join
                r = num(x) + num(y)
                if -LIMIT <= r <= LIMIT:
                    return r
                raise GameFault(pos, beyond(r))
            return plus
        if o in _ARITH:
            f = _ARITH[o]

            def arith(it, env):
                r = f(num(a(it, env)), num(b(it, env)))
                if -LIMIT <= r <= LIMIT:
                    return r
                raise GameFault(pos, beyond(r))
            return arith
        if o == "/":
            def div(it, env):
                x, y = num(a(it, env)), num(b(it, env))
                if y == 0:
                    raise GameFault(pos, "division by zero")
                r = x / y
                if not -LIMIT <= r <= LIMIT:
                    raise GameFault(pos, beyond(r))
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
        if e[2] == "player":
            return lambda it, env: it.order()
        live = _in_play(game, e)
        return lambda it, env: list(live(it))  # a list of its own: the game's is shared
    if op == "in":
        a, b = C(e[2]), C(e[3])
        return lambda it, env: it.member(a(it, env), b(it, env))
    if op == "has":
        a, mark = C(e[2]), e[3]

        def has(it, env):
            x = a(it, env)
            ent = it.st["things"].get(x) if isinstance(x, str) else None
            if ent is None:
                return False
            if it.track is not None:
                it.track[("mark", x, mark)] = mark in ent["marks"]
            return mark in ent["marks"]
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
        body, var, src, where = C(e[2]), e[3], _source(game, e[4], C), C(e[5])
        quick = _quick_filter(game, e, e[5], var, C, e[4])
        if quick is not None:
            if e[2][0] == "name" and e[2][2] == var:  # `[x for x in ... where ...]`: the things themselves
                def select(it, env):
                    inner = dict(env)
                    keep, xs = quick(it, env, where, src)
                    out = []
                    for x in xs:
                        inner[var] = x
                        if keep(it, inner, x):
                            out.append(x)
                    return out
                return select

            def comp_quick(it, env):
                inner = dict(env)
                keep, xs = quick(it, env, where, src)
                out = []
                for x in xs:
                    inner[var] = x
                    if keep(it, inner, x):
                        out.append(body(it, inner))
                return out
            return comp_quick

        def comp(it, env):
            inner = dict(env)
            out = []
            for x in src(it, env):
                inner[var] = x
                if where is None or where(it, inner):
                    out.append(body(it, inner))
            return out
        return comp
    if op == "gen":
        return _gen(game, e, C)
    if op == "call":
        name, args, pos = e[2], [C(a) for a in e[3]], e[1]
        if name in game.procedures:
            return _call_closure("procedure", name, args, pos)
        if name == "count" and len(args) == 1:
            a0 = args[0]
            return lambda it, env: it.size(a0(it, env))
        if name == "usable" and len(args) == 2:  # a window's actions: asked after every step in some games
            a0, a1 = args
            return lambda it, env: it.usable(a0(it, env), a1(it, env))
        if name == "first" and len(args) == 1 and e[3][0][0] == "comp" and _steady(e[3][0][2], None) \
                and _steady(e[3][0][5], None):
            return _first(game, e[3][0], C)
        return _call_closure("function", name, args, pos)
    raise ValueError(f"unknown expression `{op}`")


def _call_closure(kind, name, args, pos):
    """A call with its arguments worked out in order: of a procedure of the content
    (kind "procedure") or of a built-in function ("function")."""
    if kind == "procedure":
        return lambda it, env: it.call_procedure(name, [f(it, env) for f in args], env)
    return lambda it, env: it.function(name, [f(it, env) for f in args], pos)


def _name_slow(game, n, e):
    """A name the caller did not bind, as Interp.e_name reads it. A counter of the game, a zone
    of the game or a fixed id is read here straight away: e_name would test the names of the
    flow first, then come to the same (these tables never change during a game)."""
    if n == "players":  # the seats from the first player on: asked in most loops over players
        return lambda it, env: it.order()
    if n not in ("players", "others", "round", "first_player", "player_count"):
        if n in game.global_counters:
            def counter(it, env):
                v = it.st["game_counters"].get(n)
                if it.track is not None:
                    it.track[("game_counter", n)] = v
                return v
            return counter
        if n in game.game_zones:
            zone = Zone(n)
            return lambda it, env: zone
        if n in game.proto_of or n in game.protos or n in game.actions:
            return lambda it, env: n

    def slow(it, env):
        return it.e_name(e, env)
    return slow


def _gen(game, e, C):
    name, body, var, src, where, pos = e[2], C(e[3]), e[4], _source(game, e[5], C), C(e[6]), e[1]
    quick = _quick_filter(game, e, e[6], var, C, e[5])

    def plain(it, env):
        inner = dict(env)
        for x in src(it, env):
            inner[var] = x
            if where is None or where(it, inner):
                yield body(it, inner)

    def filtered(it, env):  # the same, with the quick filter
        inner = dict(env)
        keep, xs = quick(it, env, where, src)
        for x in xs:
            inner[var] = x
            if keep(it, inner, x):
                yield body(it, inner)

    # `any(x.attr == v and ... for x in ...)`: the body is a test, and the quick filter gives
    # the same true or false for each thing
    # (`any` and `count` need only the things that pass the first test, where an index has them)
    test = _quick_filter(game, e, e[3], var, C, e[5] if name != "all" else None) \
        if quick is None and e[6] is None and name in ("any", "all", "count") else None

    def tested(it, env):
        inner = dict(env)
        keep, xs = test(it, env, body, src)
        for x in xs:
            inner[var] = x
            yield keep(it, inner, x)

    values = filtered if quick is not None else tested if test is not None else plain

    if name == "count":  # the true values
        return lambda it, env: sum(1 for v in values(it, env) if v)
    if name == "any":  # stops at the first true value
        return lambda it, env: any(values(it, env))
    if name == "all":
        return lambda it, env: all(values(it, env))
    if name == "sum":
        def total(it, env):
            r = sum(num(v) for v in values(it, env))
            if -LIMIT <= r <= LIMIT:
                return r
            raise GameFault(pos, beyond(r))
        return total
    return lambda it, env: it.function(name, [list(values(it, env))], pos, aggregate=True)


def _first(game, e, C):
    """`first([x for x in ... where ...])` as a loop that stops at the first value the list
    would begin with. Only where the condition and the value call nothing (see _steady): then
    the rest of the list would cost no steps and change nothing, and is not worked out."""
    body, var, src, where = C(e[2]), e[3], _source(game, e[4], C), C(e[5])
    quick = _quick_filter(game, e, e[5], var, C, e[4])

    def first(it, env):
        inner = dict(env)
        if quick is not None:
            keep, xs = quick(it, env, where, src)
            for x in xs:
                inner[var] = x
                if keep(it, inner, x):
                    return body(it, inner)
            return None
        for x in src(it, env):
            inner[var] = x
            if where is None or where(it, inner):
                return body(it, inner)
        return None
    return first


def _in_play(game, e):
    """`every K` as the runtime reads it: the things of kind K, less those removed from the game.

    What lies in `removed` says which are out; while nothing does, the game's own list serves
    (callers must not change it). The read noted is ("removed", K) -> the things of kind K in
    `removed` (see removed_of_kind): taking out a thing of another kind does not upset it.
    """
    kind = e[2]
    ids = game.of_kind.get(kind, [])
    cache = {}  # the things of kind K in `removed` -> the things still in play

    def live(it):
        key = removed_of_kind(game, it.st, kind)
        if it.track is not None:
            it.track[("removed", kind)] = key
        if not key:
            return ids
        out = cache.get(key)
        if out is None:
            if len(cache) > 256:
                cache.clear()
            out = set(key)
            out = cache[key] = [i for i in ids if i not in out]
        return out
    return live


def removed_of_kind(game, st, kind):
    """The things of kind `kind` in `removed`, in its order: the value of an ("removed", kind) read.

    What lies in `removed` seldom changes (the pieces a game with fewer players leaves out),
    while loops over every thing of a kind ask all the time: the game keeps the answer for
    each content of the zone it met lately, every kind at once."""
    removed = st["zones"].get("removed")
    if not removed:
        return ()
    key = tuple(removed)
    known = game.removed_kinds.get(key)
    if known is None:
        if len(game.removed_kinds) >= 64:
            game.removed_kinds.clear()
        kind_of, by_kind = game.kind_of, {}
        for x in removed:
            by_kind.setdefault(kind_of.get(x), []).append(x)
        known = game.removed_kinds[key] = {k: tuple(xs) for k, xs in by_kind.items()}
    return known.get(kind, ())


def _source(game, src, C):
    """What a comprehension walks: `every K` straight from the game's table, else the items of a value."""
    if src[0] == "every" and src[2] != "player":
        live = _in_play(game, src)
        return lambda it, env: live(it)
    f = C(src)
    return lambda it, env: it.items(f(it, env))


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


def _quick_filter(game, e, where, var, C, src=None):
    """A faster `where` for `x for x in ... where x.attr == value and ...`.

    The filter reads `x.attr` without going through the name and comparison closures, and
    works `value` out once per loop rather than once per thing. That is the same when the
    value cannot change during the loop: a name bound by the caller, a literal, or any
    expression when the whole comprehension changes nothing (and it does not name `x`).
    Otherwise None: the plain filter is used. The other conditions of the `and` that test one
    attribute of `x` (`x.a == v`, `x.a != v`, `x.a`, `not x.a`) are read the same way.

    `start(it, env, plain, source)` gives (keep, things): the things to walk, and the test for each.
    Where the loop walks `every K` and the value is known at the start, the things are those
    whose `x.attr` has that value, from the interpreter's index (see Interp.grouped), and keep
    tests only the other conditions. Where `x.attr` is fixed (see _fixed_values), the things
    are picked out of the source's by a look-up in a table as the loop walks them, in the same
    order as keep would test them. Otherwise they are the source's, and keep tests all the
    conditions.
    """

    if where is None:
        return None
    conj = _conjuncts(where)
    first = conj[0]
    settled = changes_nothing(game, e)
    if not (first[0] == "op" and first[2] == "==" and first[3][0] == "attr" and first[3][2][0] == "name"
            and first[3][2][2] == var and not _names(first[4], var)):
        # `x.a and ...`, `not x.a and ...`, `x.a != v and ...`: each condition read as below
        if _attr_test(game, first, var) is None:
            return None
        kind, conj = "none", [None] + conj
    else:
        rhs_ir = first[4]
        if rhs_ir[0] in ("num", "str", "none"):
            kind = "literal"
        elif rhs_ir[0] == "name":
            kind = "name"
        elif settled:
            kind = "settled"
        else:
            return None
        read = _attr_reader(game, first[3][3], first[3][1])
        rhs = C(rhs_ir)
    rest = []
    for c in conj[1:]:
        quick = _attr_test(game, c, var)
        if quick is not None and quick.value is not None and quick.value[0] not in ("num", "str", "none", "name") \
                and not (settled and _steady(quick.value, var)):
            quick = None
        rest.append((quick, C(c), C(quick.value) if quick is not None and quick.value is not None else None))
    rname = rhs_ir[2] if kind == "name" else None
    # An index serves where the value can be worked out before the loop without a difference:
    # it costs no steps and reads nothing that the loop could change.
    if kind == "none":
        index = None
    else:
        index = (src[2], first[3][3]) if src is not None and src[0] == "every" and src[2] != "player" and (
            kind != "settled" or _steady(rhs_ir, var)) else None
    live = _in_play(game, src) if index is not None else None
    bulk = _counter_groups(game, index[1], first[3][1]) if index is not None else None
    # Not for `all` (no src): there a thing that fails the test still counts.
    table = _fixed_values(game, first[3][3]) if kind in ("literal", "name") and src is not None else None

    def tests_for(env):
        """Each other condition as (reader, test, value), or (None, closure, None); a value still
        to be worked out is a _Later, worked out where it is first needed."""
        tests = []
        for quick, general, want in rest:
            if quick is not None:
                rd, test, ir = quick
                if ir is None or ir[0] in ("num", "str", "none"):
                    tests.append((rd, test, None if ir is None else _literal(ir)))
                    continue
                if ir[0] != "name":
                    tests.append((rd, test, _Later(want)))
                    continue
                if ir[2] in env:
                    tests.append((rd, test, env[ir[2]]))
                    continue
            tests.append((None, general, None))
        return tests

    def checker(tests):
        if not tests:
            return _pass_all
        if len(tests) == 1 and tests[0][0] is not None and type(tests[0][2]) is not _Later:
            (rd, test, want), = tests

            def other(it, inner, x):  # the usual one more condition, without the loop
                return test(rd(it, x), want)
            return other

        def others(it, inner, x):
            for rd, test, want in tests:
                if rd is None:
                    if not test(it, inner):
                        return False
                    continue
                if type(want) is _Later:
                    want = want.value(it, inner)
                if not test(rd(it, x), want):
                    return False
            return True
        return others

    def keeper(value, tests):
        if not tests:
            def keep_one(it, inner, x):
                v = read(it, x)
                if not value:
                    value.append(rhs(it, inner))
                return v == value[0]
            return keep_one
        others = checker(tests)

        def keep(it, inner, x):
            v = read(it, x)
            if not value:
                value.append(rhs(it, inner))
            if not (v == value[0]):
                return False
            return others(it, inner, x)
        return keep

    # Where nothing depends on the caller's names or waits to be worked out, the filter is
    # made once here rather than for every loop.
    fixed = None
    static = all(q is None or q.value is None or q.value[0] in ("num", "str", "none") for q, _g, _w in rest)
    if static:
        tests0 = tests_for({})  # the same for every loop: made once
        check0 = checker(tests0)
        if kind == "none":
            fixed = check0
        elif kind == "literal":
            fixed = keeper([_literal(rhs_ir)], tests0)
        if fixed is not None and index is None and table is None:
            return lambda it, env, plain, source: (fixed, source(it, env))

    def start(it, env, plain, source):
        if kind == "name":
            if rname not in env:  # a name of the game, not of the caller: the plain way
                return (lambda it, inner, x: plain(it, inner)), source(it, env)
            value = [env[rname]]
        elif kind == "literal":
            value = [rhs(it, env)]
        else:
            value = []
        tests = tests0 if static else tests_for(env)
        check = check0 if static else checker(tests)
        if kind == "none":
            return check, source(it, env)
        if index is not None:
            if not value:
                if not live(it):
                    return check, ()
                value.append(rhs(it, env))
            group = it.grouped(index, read, live, value[0], bulk)
            if group is not None:
                return check, group
        if table is not None:
            v = value[0]
            # a generator: each thing is tested just before the loop comes to it, and
            # `first(...)` stops at the first thing that has it
            return check, (x for x in source(it, env) if (table[x] if x in table else read(it, x)) == v)
        return keeper(value, tests), source(it, env)
    return start


def _pass_all(it, inner, x):
    return True


class Grouping(NamedTuple):
    """Things in play grouped by the value of one attribute (Interp.grouped)."""
    groups: dict | None  # value -> the things that have it, in table order; None: a value is no key
    reads: dict  # what grouping them read -> the value read: it holds while these do


def group_by(it, things, read):
    """value -> the things whose `read(it, x)` is that value, in their order."""
    groups = {}
    for x in things:
        v = read(it, x)
        g = groups.get(v)
        if g is None:
            groups[v] = [x]
        else:
            g.append(x)
    return groups


def _fixed_values(game, n):
    """Thing in play -> its attribute n, where no change of the state can change it: its type,
    its kind, or an attribute printed on it. Each value is the one _attr_reader reads for that
    thing. None for other attributes (counters, zones, the other built-in ones)."""
    if n in game.counters or n in game.owned_zones:
        return None
    if n == "type":
        return game.proto_of
    if n == "kind":
        return game.kind_of
    if n in _BUILTIN_ATTRS:
        return None
    tables = game.__dict__.setdefault("_fixed_values", {})
    if n not in tables:
        tables[n] = {x: a.get(n) for x, a in game.attrs_of.items()}
    return tables[n]


def _counter_groups(game, n, pos):
    """For an index by counter n: things grouped by its value in one loop, with the reads the
    counter reader (see _attr_reader) would note. None for other attributes."""
    if n not in game.counters or n in game.owned_zones or n in _BUILTIN_ATTRS:
        return None
    attrs_of = game.attrs_of

    def bulk(it, things, reads):
        ents = it.st["things"]
        groups = {}
        for x in things:
            ent = ents.get(x)
            if ent is None:
                v = it.attr(x, n, pos)
            else:
                v = ent["counters"].get(n, ABSENT)
                reads[("counter", x, n)] = v
                if v is ABSENT:
                    a = attrs_of.get(x)
                    v = a.get(n) if a is not None else it.attr(x, n, pos)
            g = groups.get(v)
            if g is None:
                groups[v] = [x]
            else:
                g.append(x)
        return groups
    return bulk


class _Later:
    """A value of a loop's condition, worked out where it is first needed (then kept)."""
    __slots__ = ("work", "v")

    def __init__(self, work):
        self.work = work

    def value(self, it, inner):
        if self.work is not None:
            self.v = self.work(it, inner)
            self.work = None
        return self.v


def _steady(ir, var) -> bool:
    """Whether an expression can be worked out once for a loop over `var`: it does not name
    `var` and calls nothing (a call counts steps and may nest)."""
    stack = [ir]
    while stack:
        n = stack.pop()
        if isinstance(n, list):
            if len(n) > 2 and n[0] in ("call", "gen", "comp"):
                return False
            if len(n) > 2 and n[0] == "name" and n[2] == var:
                return False
            stack.extend(x for x in n if isinstance(x, list))
    return True


_TESTS = {"==": operator.eq, "!=": operator.ne,
          "attr": lambda v, want: bool(v), "not": lambda v, want: not v}


class _AttrTest(NamedTuple):
    """A condition on one attribute of a loop's thing, read without its closures."""
    read: object  # read(it, x): x's attribute
    test: object  # test(attribute, value) -> whether x passes
    value: list | None  # the IR of the value it is compared with (None: `x.a`, `not x.a`)


def _attr_test(game, c, var):
    """The _AttrTest of a condition on one attribute of `var`: `var.a == v`, `var.a != v`,
    `var.a`, `not var.a`, where v does not name `var`; else None."""
    def own_attr(a):
        return a[0] == "attr" and a[2][0] == "name" and a[2][2] == var
    if c[0] == "op" and c[2] in ("==", "!=") and own_attr(c[3]) and not _names(c[4], var):
        return _AttrTest(_attr_reader(game, c[3][3], c[3][1]), _TESTS[c[2]], c[4])
    if own_attr(c):
        return _AttrTest(_attr_reader(game, c[3], c[1]), _TESTS["attr"], None)
    if c[0] == "not" and own_attr(c[2]):
        return _AttrTest(_attr_reader(game, c[2][3], c[2][1]), _TESTS["not"], None)
    return None


def _literal(ir):
    return None if ir[0] == "none" else ir[2]


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
                ent = it.st["things"].get(x)
                if ent is not None:
                    c = ent["counters"]
                    if it.track is not None:
                        it.track[("counter", x, n)] = c.get(n, ABSENT)
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
            if type(x) is str and x in it.st["things"]:
                return table.get(x, x if default is None else default)
            return it.attr(x, n, pos)
        return fixed_builtin
    if n == "location" and n not in game.counters:
        locations = game.locations

        def location(it, x):
            if type(x) is str and x in it.st["things"]:
                return holder(it, x, locations)
            return it.attr(x, n, pos)
        return location
    if n in _FAST_BUILTINS and n not in game.counters and n not in game.owned_zones:
        read = _FAST_BUILTINS[n]

        def builtin(it, x):
            if type(x) is str and x in it.st["things"]:
                return read(it, x)
            return it.attr(x, n, pos)
        return builtin
    return lambda it, x: it.attr(x, n, pos)


def num(v):
    if type(v) is int:
        return v
    if v is None:
        return 0
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, (int, float)):
        return v
    if isinstance(v, list):
        return len(v)
    raise TypeError(f"`{v}` is not a number")

