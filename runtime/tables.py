"""A compiled game loaded for play: the tables from game.json, indexed once."""
from __future__ import annotations

import hashlib
import heapq
import json
import math

from . import ir
from .analysis import ir_nodes

SUPPORTED_FORMAT = 1
KNOWN_LIMIT = 10_000  # answers kept per game for values met in play (options, places, distances)


class TablesError(Exception):
    pass


def _not_a_number(word):
    raise TablesError(f"game tables hold {word}, which is not a number a build writes")


def checked(data) -> dict:
    """`data` if it is game tables as a build made them: the format this runtime reads, the
    content hash of the rest, the sections the runtime indexes in their shapes, and effects
    made only of the IR's operations with their fields.

    A game.json is content like the YAML it was built from: anyone can write one, and its
    content hash, unkeyed, only says it was not changed by accident (a forger recomputes it).
    So nothing here trusts it: its values reach the game's code only as constants
    (runtime/pysource.py), and what the runtime reads by shape is checked here."""
    if not isinstance(data, dict) or data.get("format") != SUPPORTED_FORMAT:
        found = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise TablesError(f"game tables have format {found}; this runtime reads format {SUPPORTED_FORMAT}: rebuild with `rulepress build`")
    body = json.dumps({k: v for k, v in data.items() if k != "content_hash"}, sort_keys=True,
                      ensure_ascii=False, separators=(",", ":"))
    if hashlib.sha256(body.encode("utf-8")).hexdigest()[:16] != data.get("content_hash"):
        raise TablesError("changed since it was built (its content hash does not match): rebuild with `rulepress build`")
    _shape(data)
    for node in ir_nodes(data):
        op = ir.OPERATIONS.get(node[0])
        if op is None or len(node) - 2 != len(op.fields):
            raise TablesError(f"an effect at {node[1]} is `{node[0]}` with {len(node) - 2} fields, which no build makes")
    return data


# The sections Game indexes, each a table of entries of these fields (name -> exact type).
_SECTIONS = {
    "counters": {"of": str}, "zones": {"of": str, "visibility": str}, "decks": {"of": str, "discard": str},
    "pools": {"of": str, "visibility": str}, "locations": {}, "protos": {"kind": str, "attrs": dict},
    "actions": {}, "procedures": {"params": list, "effect": list}, "triggers": None, "flow": None, "scoring": None,
}


def _shape(data) -> None:
    def need(ok, where):
        if not ok:
            raise TablesError(f"game tables hold a `{where}` of a shape no build writes")
    g = data.get("game")
    need(type(g) is dict and type(g.get("id")) is str and type(g.get("players")) is dict, "game")
    need(type(g["players"].get("min")) is int and type(g["players"].get("max")) is int, "game.players")
    need(type(g.get("options", {})) is dict, "game.options")
    facts = g.get("mark_facts", {})
    need(type(facts) is dict and all(type(d) is dict and all(type(d.get(k, {})) is dict and all(type(v) in (str, int, bool) for v in d.get(k, {}).values())
                                                            for k in ("tells", "rules_out")) for d in facts.values()), "game.mark_facts")
    for section, fields in _SECTIONS.items():
        table = data.get(section)
        need(type(table) is dict, section)
        for entry in table.values() if fields is not None else ():
            need(type(entry) is dict and all(type(entry.get(f)) is t for f, t in fields.items()), section)
    need(all(type(p) is str for d in data["procedures"].values() for p in d["params"]), "procedures")
    need(all(type(d["discard"]) is str for d in data["decks"].values()), "decks")
    need(type(data.get("instances")) is list, "instances")
    for row in data["instances"]:
        need(type(row) is list and len(row) == 4 and type(row[0]) is str and type(row[1]) is str
             and row[1] in data["protos"], "instances")


class Cache:
    """What a game works out while it is played, and the tools watching its play: owned by
    the one Game it belongs to and dropped with it (as Jinja2's Environment owns its
    templates' code), so that the rules themselves never change. Nothing here changes how
    a game plays: each entry is worked out again the same wherever it is missing."""

    def __init__(self):
        self.code = None  # the game's effects as Python (runtime/pysource.py), written on first use
        self.offered = {}  # (type, value) -> the value as a decision's option, up to a bound (interpreter.offered)
        self.prompts = {}  # a prompt's text -> its two languages (interpreter.prompt_text)
        self.spoken = {}  # id of a `log` statement -> (it, how its text's words are written: Interp.spoken)
        self.pure_procedures = None  # the procedures that change nothing: analysis.pure_procedures
        self.groupings = {}  # (kind, attribute) -> the last Grouping made of them (Interp.grouped)
        self.removed_kinds = {}  # the `removed` zone's things -> {kind: those of that kind}: removed_of_kind
        self.within = {}  # (location, range) -> the locations that near: Game.within
        self.distances = {}  # location -> the distances from it: Game.distances_from
        self.start = {}  # seats -> a new state's counters, things and zones (state._start)
        self.printed = {}  # attribute -> its value printed on each thing (pysource: fixed_table)
        self.cards = None  # card id -> its card type (simulate.cards_of)
        self.profile = None  # a runtime.profile.Profile (or coverage Recording) while the lines are clocked
        # Told of every log line an effect writes, as (state, index in the log), when set: the
        # leak scan notes what each seat could see as the line was written. Play leaves it unset.
        self.log_hook = None


class Game:
    """Immutable rules of one game. Every state of that game refers to one of these; what
    play works out of them is kept in its `cache`."""

    def __init__(self, data: dict):
        if data.get("format") != SUPPORTED_FORMAT:
            raise TablesError(f"game tables have format {data.get('format')}; this runtime reads format {SUPPORTED_FORMAT}: rebuild with `rulepress build`")
        self.data = data
        self.id = data["game"]["id"]
        # whether its texts are written in Russian too: its log lines are then kept in both
        self.russian = "ru" in (data["game"].get("languages") or ("en", "ru"))
        self.terms = data["game"].get("terms") or {}  # words for id-like values (`light`: Light, Светлая)
        self.hash = data.get("content_hash", "")
        self.version = data["game"].get("version")
        self.players_min = data["game"]["players"]["min"]
        self.players_max = data["game"]["players"]["max"]
        self.counters = data["counters"]
        self.zones = data["zones"]
        self.decks = data["decks"]
        self.pools = data["pools"]
        self.locations = data["locations"]
        self.protos = data["protos"]
        self.instances = data["instances"]
        self.actions = data["actions"]
        self.procedures = data["procedures"]
        self.triggers = data["triggers"]
        self.flow = data["flow"]
        self.scoring = data["scoring"]
        self.heuristic = data.get("heuristic")
        self.bot = data.get("bot")  # the `bot:` section: extra evaluation terms for the search bot
        self.options = data["game"].get("options") or {}
        self.proto_of = {iid: pid for iid, pid, _z, _u in self.instances}
        self.kind_of = {iid: self.protos[pid]["kind"] for iid, pid, _z, _u in self.instances}
        self.cache = Cache()
        self.attrs_of = {iid: self.protos[pid]["attrs"] for iid, pid, _z, _u in self.instances}
        self.of_kind = {}
        for iid, kind in self.kind_of.items():
            self.of_kind.setdefault(kind, []).append(iid)
        # counters by owner scope, and per-entity zone names, for attribute lookup
        self.player_counters = {c for c, d in self.counters.items() if d["of"] == "player"}
        self.global_counters = {c for c, d in self.counters.items() if d["of"] == "game"}
        self.kind_counters = {}
        for c, d in self.counters.items():
            if d["of"] not in ("game", "player"):
                self.kind_counters.setdefault(d["of"], set()).add(c)
        self.owned_zones = {}  # zone name -> scope, for zones that belong to a player or entity
        for z, d in self.zones.items():
            if d["of"] != "game":
                self.owned_zones[z] = d["of"]
        for z, d in self.decks.items():
            if d["of"] != "game":
                self.owned_zones[z] = d["of"]
                self.owned_zones[d["discard"]] = d["of"]
        for z, d in self.pools.items():
            if d["of"] != "game":
                self.owned_zones[z] = d["of"]
        self.game_zones = {z for z, d in self.zones.items() if d["of"] == "game"}
        self.game_zones |= {z for z, d in self.decks.items() if d["of"] == "game"}
        self.game_zones |= {d["discard"] for d in self.decks.values() if d["of"] == "game"}
        self.game_zones |= {z for z, d in self.pools.items() if d["of"] == "game"}
        self.game_zones |= {"supply", "removed"}
        self.hidden_zone_names = {z for z, d in self.decks.items()}
        self.hidden_zone_names |= {z for z, d in self.pools.items() if d["visibility"] == "hidden"}
        self.hidden_zone_names |= {z for z, d in self.zones.items() if d["visibility"] == "hidden"}
        self.owner_zone_names = {z for z, d in self.zones.items() if d["visibility"] == "owner"}
        self.others_zone_names = {z for z, d in self.zones.items() if d["visibility"] == "others"}
        # zones some seats alone see, whoever holds them: zone name -> those seats
        self.seats_zone_names = {z: frozenset(d["visibility"]) for z, d in self.zones.items() if type(d["visibility"]) is list}
        # facts everyone knows about a thing while the thing itself is hidden (visibility.facts)
        self.public_counters = {c for c, d in self.counters.items() if d.get("public")}
        self.public_marks = frozenset(data["game"].get("public_marks") or ())
        # public marks that say what a hidden thing is or is not: mark -> [(attribute, value, "is"/"not")]
        self.fact_marks = {m: [(a, v, "is") for a, v in d.get("tells", {}).items()] + [(a, v, "not") for a, v in d.get("rules_out", {}).items()]
                           for m, d in (data["game"].get("mark_facts") or {}).items()}
        # public counters that say what a hidden thing is or is not: counter -> (attribute, "is"/"not")
        self.fact_counters = {c: (d["tells"], "is") if d.get("tells") else (d["rules_out"], "not")
                              for c, d in self.counters.items() if d.get("public") and (d.get("tells") or d.get("rules_out"))}
        # actions with neither condition nor cost: always legal (flow.Choices.any_action)
        self.free_actions = {a for a, d in self.actions.items() if "if" not in d and not d.get("cost")}
        self.windows = {}
        for a, d in self.actions.items():
            if d.get("window"):
                self.windows.setdefault(d["window"], []).append(a)

    def within(self, a, r) -> list:
        """The locations other than `a` at most `r` from it, in table order; worked out once
        for each place and distance (callers must not change the list)."""
        cache = self.cache.within
        if (a, r) not in cache:
            if len(cache) >= KNOWN_LIMIT:
                cache.clear()
            d = self.distances_from(a)
            cache[a, r] = [l for l in self.locations if l != a and d.get(l, math.inf) <= r]
        return cache[a, r]

    def distances_from(self, a) -> dict:
        """Shortest distances from `a` over links (their lengths) or adjacency (1 a step).

        The map never changes during a game, so each source is worked out once.
        """
        cache = self.cache.distances
        if a in cache:
            return cache[a]
        if len(cache) >= KNOWN_LIMIT:
            cache.clear()
        locs = self.locations
        dist, todo = {a: 0}, [(0, a)]
        while todo:
            d, x = heapq.heappop(todo)
            if d > dist.get(x, math.inf):
                continue
            edges = dict(locs[x]["links"]) if x in locs else {}
            for y in locs.get(x, {}).get("adjacent", ()):
                edges.setdefault(y, 1)
            for y, w in edges.items():
                nd = d + w
                if nd < dist.get(y, math.inf):
                    dist[y] = nd
                    heapq.heappush(todo, (nd, y))
        cache[a] = dist
        return dist

    def __getstate__(self):
        """A game sent to another process goes without its cache: worked out there on use."""
        return dict(self.__dict__, cache=Cache())

    def forget_code(self) -> None:
        """Drop the game's generated code, so that it is written anew on its next use (as a
        profile or a coverage recording has it, with its counters around each line)."""
        self.cache.code = None

    @classmethod
    def load(cls, path: str) -> "Game":
        """A game.json as `rulepress build` wrote it. A file is untrusted: one whose text was
        changed since (its content hash no longer matches) or whose effects hold what no
        build makes is refused with a TablesError, never played into a crash."""
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh, parse_constant=_not_a_number)
        checked(data)
        return cls(data)

    def name(self, eid, lang="en") -> str:
        p = self.protos.get(self.proto_of.get(eid, eid))
        if p is None:
            return str(eid)
        n = p.get("name") or {}
        return n.get(lang) or n.get("en") or next(iter(n.values()), str(eid))
