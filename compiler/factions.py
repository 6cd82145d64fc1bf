"""The sides, roles or characters a game's players play: the things its `scoring: faction:`
can name, found by reading the effects, for what differs from one player to another.

`faction: player.gang` reads a player's reference counter: the factions are the things any
`set ... .gang to` puts there, followed through `let`, `for`, `choose`, `draw ... as`, the
arguments a procedure is called with and `random(...)`/`first(...)`, down to the kinds of
`every <kind>` or the cards of a deck. `faction: first([c.type for c in every identity ...])`
names the kind at once. The factions are the named things of those kinds. An expression read
no further (a game option, a number) adds nothing: a game whose factions cannot be found this
way has the same player aid for every seat. The search is flow-insensitive (a name stands for
all a body binds to it) and bounded: so deep, so many expressions."""
from __future__ import annotations

from ..runtime.analysis import ir_nodes
from ..runtime.ir import STATEMENTS, fields

_PASS_THROUGH = {"random", "first", "last", "sorted", "distinct"}  # (their value: one of their arguments or its items)
_BUDGET = 20_000  # expressions looked at, at most: this bounds the time a pathological game takes
_DEPTH = 150      # names followed through names, at most (a chain of a thousand `let`s is no faction)


def _is(node, op) -> bool:
    return isinstance(node, list) and bool(node) and node[0] == op


def _is_body(value) -> bool:
    return isinstance(value, list) and bool(value) and all(isinstance(s, list) and s and s[0] in STATEMENTS for s in value)


class _Sites:
    """Every effect of the game (a statement list), the procedure it is the body of, and in it
    the names it binds, the procedures it calls and the reference counters it sets."""

    def __init__(self, tables: dict):
        self.bodies: list[tuple[list, str | None]] = []
        for key, value in tables.items():
            if key == "procedures" and isinstance(value, dict):
                for pid, proc in value.items():
                    self._find(proc, pid)
            else:
                self._find(value, None)
        self.calls: dict[str, list[tuple[list, int]]] = {}   # procedure -> (call node, body)
        self.sets: dict[str, list[tuple[list, int]]] = {}    # counter -> (value, body)
        self.binders: list[dict[str, list]] = []             # body -> name -> values bound to it
        for i, (body, _proc) in enumerate(list(self.bodies)):
            self._bind(body, i)

    def add(self, expr) -> int:
        """An expression outside every effect (`faction:` itself), as a site of its own."""
        self.bodies.append(([expr], None))
        self._bind(expr, len(self.bodies) - 1)
        return len(self.bodies) - 1

    def _bind(self, body, i):
        names: dict[str, list] = {}
        for node in ir_nodes(body):
            self._index(node, i, names)
        self.binders.append(names)

    def _find(self, value, proc, depth=0):
        if _is_body(value):
            self.bodies.append((value, proc))
        elif depth < 40 and isinstance(value, (dict, list)):
            for v in (value.values() if isinstance(value, dict) else value):
                if isinstance(v, (dict, list)):
                    self._find(v, proc, depth + 1)

    def _index(self, node, i, names):
        op = node[0]
        if op not in STATEMENTS and op not in ("call", "comp", "gen"):
            return
        f = fields(node)
        if op == "call":
            self.calls.setdefault(f["function"], []).append((node, i))
        elif op == "set":
            if _is(f["target"], "attr"):
                self.sets.setdefault(f["target"][3], []).append((f["value"], i))
            elif _is(f["target"], "name"):
                names.setdefault(f["target"][2], []).append(f["value"])
        elif op == "let":
            names.setdefault(f["name"], []).append(f["value"])
        elif op in ("for", "comp", "gen"):
            names.setdefault(f["name"], []).append(["_item", "", f["collection" if op == "for" else "source"]])
        elif op in ("choose", "secret"):
            names.setdefault(f["name"], []).append(["_item", "", f["options"]])
        elif op == "draw" and isinstance(f["name"], str):
            names.setdefault(f["name"], []).append(["_item", "", f["source"]])


class _Kinds:
    def __init__(self, tables: dict):
        self.t = tables
        self.sites = _Sites(tables)
        self.protos = tables.get("protos") or {}
        self.kinds = {p.get("kind") for p in self.protos.values() if p.get("kind")}
        self.decks = tables.get("decks") or {}
        self.counters = tables.get("counters") or {}
        self.seen: set = set()
        self.budget, self.depth = _BUDGET, 0

    def of(self, e, site: int) -> set:
        """The kinds of thing expression `e` (in effect `site`) may stand for."""
        if not isinstance(e, list) or not e or not isinstance(e[0], str) or self.budget <= 0 or self.depth >= _DEPTH:
            return set()
        key = (id(e), site)
        if key in self.seen:
            return set()
        self.seen.add(key)
        self.budget -= 1
        self.depth += 1
        try:
            return self._of(e, site)
        finally:
            self.depth -= 1

    def _of(self, e, site: int) -> set:
        op = e[0]
        if op == "_item":  # an item of a collection: the collection's kinds
            return self.of(e[2], site)
        if op == "every":
            return {e[2]} & self.kinds
        if op == "name":
            return self._name(e[2], site)
        if op == "attr":
            if e[3] == "type":  # a thing's type is the id of what it is a copy of: the same kind
                return self.of(e[2], site)
            c = self.counters.get(e[3]) or {}
            if c.get("type") != "ref":
                return set()
            out = set()
            for value, i in self.sites.sets.get(e[3], []):
                out |= self.of(value, i)
            return out
        if op in ("index", "cond", "list", "comp"):
            f = fields(e)
            parts = {"index": ["of"], "cond": ["then", "otherwise"], "list": [], "comp": ["body"]}[op]
            items = f["items"] if op == "list" else [f[p] for p in parts]
            return set().union(*(self.of(x, site) for x in items))
        if op == "call":
            f = fields(e)
            if f["function"] in _PASS_THROUGH:
                return set().union(*(self.of(a, site) for a in f["args"]))
            body = (self.t.get("procedures") or {}).get(f["function"])
            if isinstance(body, dict):
                i = next((n for n, (b, _p) in enumerate(self.sites.bodies) if b is body.get("effect")), None)
                if i is not None:
                    return set().union(*(self.of(fields(r)["value"], i) for r in ir_nodes(body["effect"]) if r[0] == "return"))
        return set()

    def _name(self, name: str, site: int) -> set:
        if name in self.sites.binders[site]:
            return set().union(*(self.of(v, site) for v in self.sites.binders[site][name]))
        proc = self.sites.bodies[site][1]
        params = ((self.t.get("procedures") or {}).get(proc) or {}).get("params") or [] if proc else []
        if name in params:
            at = params.index(name)
            out = set()
            for call, i in self.sites.calls.get(proc, []):
                args = fields(call)["args"]
                if at < len(args):
                    out |= self.of(args[at], i)
            return out
        if name in self.decks:
            return {p["kind"] for p in self.protos.values() if p.get("deck") == name and p.get("kind")}
        if name in self.protos and self.protos[name].get("kind"):
            return {self.protos[name]["kind"]}
        return set()


def faction_kinds(tables: dict) -> set:
    """The kinds of thing `scoring: faction:` names (empty when it is not given or leads to none)."""
    expr = (tables.get("scoring") or {}).get("faction")
    if not isinstance(expr, list):
        return set()
    kinds = _Kinds(tables)
    return kinds.of(expr, kinds.sites.add(expr))


def factions(tables: dict) -> list[str]:
    """The things a player may play as (ids): those of the faction kinds with a name in words."""
    kinds = faction_kinds(tables)
    return [pid for pid, p in (tables.get("protos") or {}).items()
            if p.get("kind") in kinds and (p.get("name") or {}) not in ({}, {"en": pid})]
