"""What a game's generated code calls to read the state: numbers, attributes, `every K`.

The code runtime/pysource.py writes for a game's effects reads the state through these few
functions (and the interpreter's primitives), so the generated lines stay short and every
read a grouping must note (see Interp.grouped) is noted in one place.
"""
from __future__ import annotations

from typing import NamedTuple

from .faults import STEP_BUDGET, GameFault
from .ir import ATTRIBUTES
from .numbers import LIMIT, LIST_LIMIT, beyond
from .state import Zone


class Absent:
    """A value that is not there (a counter a thing does not have, a `this` a caller did not have)."""
    __slots__ = ()


ABSENT = Absent()

# The built-in attributes (a counter or a zone of that name is read first): the IR's table.
BUILTIN_ATTRS = frozenset(ATTRIBUTES)


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


# ---- arithmetic: each result held within the game's numbers (numbers.LIMIT) ----

def lt(x, y):
    return x < y if type(x) is int and type(y) is int else num(x) < num(y)


def le(x, y):
    return x <= y if type(x) is int and type(y) is int else num(x) <= num(y)


def gt(x, y):
    return x > y if type(x) is int and type(y) is int else num(x) > num(y)


def ge(x, y):
    return x >= y if type(x) is int and type(y) is int else num(x) >= num(y)


def plus(x, y, pos):
    if isinstance(x, list) and isinstance(y, list):  # two lists join
        if len(x) + len(y) > LIST_LIMIT:
            raise GameFault(pos, f"the joined list would hold more than {LIST_LIMIT} items")
        return x + y
    return within(num(x) + num(y), pos)


def minus(x, y, pos):
    return within(num(x) - num(y), pos)


def times(x, y, pos):
    return within(num(x) * num(y), pos)


def divided(x, y, pos):
    x, y = num(x), num(y)
    if y == 0:
        raise GameFault(pos, "division by zero")
    r = within(x / y, pos)
    return int(r) if r == int(r) else r


def modulo(x, y):
    x, y = num(x), num(y)
    return x % y if y else 0


def within(r, pos):
    if -LIMIT <= r <= LIMIT:
        return r
    raise GameFault(pos, beyond(r))


def total(values, pos):
    """`sum(...)` of a loop's values."""
    return within(sum(num(v) for v in values), pos)


def no_operator(o):
    raise ValueError(f"unknown operator {o}")


# ---- attributes ----

def fixed(it, x, n, pos):
    """`x.n` for an attribute printed on things (no counter, zone or built-in has its name)."""
    if type(x) is str:
        a = it.g.attrs_of.get(x)
        if a is not None:
            return a.get(n)
    return it.attr(x, n, pos)


def counter(it, x, n, pos):
    """`x.n` for a counter: the thing's own where it has it, else printed on it."""
    if type(x) is str:
        ent = it.st["things"].get(x)
        if ent is not None:
            c = ent["counters"]
            if it.track is not None:
                it.track[("counter", x, n)] = c.get(n, ABSENT)
            if n in c:
                return c[n]
            a = it.g.attrs_of.get(x)
            if a is not None:
                return a.get(n)
    return it.attr(x, n, pos)


def owned(it, x, n, pos, scope):
    """`p.hand`: a zone of a player or a thing (scope: "player" or the kind that has it)."""
    if type(x) is str and x in it.st["things"] and (
            x in it.st["players"] if scope == "player" else it.g.kind_of.get(x) == scope):
        return Zone(f"{x}.{n}")
    return it.attr(x, n, pos)


def _read(it, x, field):
    """A field of a thing in play, noted when a grouping is being made."""
    v = it.st["things"][x][field]
    if it.track is not None:
        it.track[("field", x, field)] = v
    return v


# Built-in attributes of a thing in play, read without the general lookup.
FAST_BUILTINS = {
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


def builtin(it, x, n, pos):
    if type(x) is str and x in it.st["things"]:
        return FAST_BUILTINS[n](it, x)
    return it.attr(x, n, pos)


# The built-in attributes read most, each without the look-up in FAST_BUILTINS.
def location(it, x, pos):
    if type(x) is str and x in it.st["things"]:
        return holder(it, x, it.g.locations)
    return it.attr(x, "location", pos)


def contents(it, x, pos):
    if type(x) is str and x in it.st["things"]:
        return Zone(x)
    return it.attr(x, "contents", pos)


def owner(it, x, pos):
    if type(x) is str and x in it.st["things"]:
        return holder(it, x, it.st["players"])
    return it.attr(x, "owner", pos)


def type_of(it, x, pos):
    if type(x) is str and x in it.st["things"]:
        return it.g.proto_of.get(x, x)
    return it.attr(x, "type", pos)


SPECIAL_BUILTINS = {"location": location, "owner": owner, "contents": contents, "type": type_of}


def reader(game, n, pos):
    """read(it, x): `x.n` for any x, as the generated code reads that attribute."""
    if n not in game.counters and n not in game.owned_zones and n not in BUILTIN_ATTRS:
        return lambda it, x: fixed(it, x, n, pos)
    if n in game.counters and n not in game.owned_zones and n not in BUILTIN_ATTRS:
        return lambda it, x: counter(it, x, n, pos)
    if n in game.owned_zones and n not in game.counters and n not in BUILTIN_ATTRS:
        scope = game.owned_zones[n]
        return lambda it, x: owned(it, x, n, pos, scope)
    if n in FAST_BUILTINS and n not in game.counters and n not in game.owned_zones:
        special = SPECIAL_BUILTINS.get(n)
        if special is not None:
            return lambda it, x: special(it, x, pos)
        return lambda it, x: builtin(it, x, n, pos)
    return lambda it, x: it.attr(x, n, pos)


def holder(it, x, among):
    """The first holder of thing x (x's zone, that zone's holder, ...) that is in `among`,
    with the reads noted: a piece on a card on a location is at that location; a card in
    a player's zone is theirs."""
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


def has(it, x, mark):
    ent = it.st["things"].get(x) if isinstance(x, str) else None
    if ent is None:
        return False
    if it.track is not None:
        it.track[("mark", x, mark)] = mark in ent["marks"]
    return mark in ent["marks"]


def index(it, x, i):
    if isinstance(x, dict):
        return x.get(i)
    xs = it.items(x)
    i = int(i)
    return xs[i] if -len(xs) <= i < len(xs) else None


def game_counter(it, n):
    v = it.st["game_counters"].get(n)
    if it.track is not None:
        it.track[("game_counter", n)] = v
    return v


def arguments(env, params, args):
    """A procedure's names: the caller's `player` and `this`, then its parameters."""
    inner = {}
    if "player" in env:
        inner["player"] = env["player"]
    if "this" in env:
        inner["this"] = env["this"]
    for k, v in zip(params, args):
        inner[k] = v
    return inner


def bound(env, var, x):
    """env with one more name: a loop's, where the loop's body hands env on whole."""
    inner = dict(env)
    inner[var] = x
    return inner


# ---- `every K`, and its things grouped by an attribute ----

def in_play(game, kind):
    """live(it): `every K` as the runtime reads it: the things of kind K, less those removed
    from the game (callers must not change the list).

    What lies in `removed` says which are out; while nothing does, the game's own list serves.
    The read noted is ("removed", K) -> the things of kind K in `removed` (see removed_of_kind):
    taking out a thing of another kind does not upset it.
    """
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
    known = game.cache.removed_kinds.get(key)
    if known is None:
        if len(game.cache.removed_kinds) >= 64:
            game.cache.removed_kinds.clear()
        kind_of, by_kind = game.kind_of, {}
        for x in removed:
            by_kind.setdefault(kind_of.get(x), []).append(x)
        known = game.cache.removed_kinds[key] = {k: tuple(xs) for k, xs in by_kind.items()}
    return known.get(kind, ())


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


def counter_groups(game, n, pos):
    """For an index by counter n: things grouped by its value in one loop, with the reads the
    counter reader would note. None for other attributes."""
    if n not in game.counters or n in game.owned_zones or n in BUILTIN_ATTRS:
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


class Index(NamedTuple):
    """`every K where x.a == v`: the things of kind K in play by the value of `a`."""
    key: tuple  # (K, a)
    read: object  # read(it, x): x.a
    live: object  # live(it): every K
    bulk: object  # bulk(it, things, reads) or None: see counter_groups


def index_of(game, kind, n, pos) -> Index:
    return Index((kind, n), reader(game, n, pos), in_play(game, kind), counter_groups(game, n, pos))


WALKED = f"this expression walked more than {STEP_BUDGET} things (loops within loops?)"


def spent(it, things, pos):
    """The things an expression's loop walks, each counted against the task's step budget
    before the loop starts, so loops nested in loops end with a fault, never a hang."""
    it.steps += len(things)
    if it.steps > STEP_BUDGET:
        raise GameFault(pos, WALKED)
    return things


def among(it, ix, value):
    """The things of an Index whose attribute equals value, in table order: the grouping where
    the value can be a key, else a look at each thing."""
    group = it.grouped(ix.key, ix.read, ix.live, value, ix.bulk)
    if group is not None:
        return group
    read = ix.read
    return [x for x in ix.live(it) if read(it, x) == value]


def among_settled(it, ix, value):
    """`among`, with a value worked out (by `value()`) only if any thing of the kind is in play."""
    if not ix.live(it):
        return ()
    return among(it, ix, value())
