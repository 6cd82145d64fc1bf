"""Game state as plain data, and the small operations every verb is built from."""
from __future__ import annotations

import marshal

from . import rng

STATE_FORMAT = 2  # 2: the state's keys are words (things, zone, counters, marks, shown_to, game_counters)


class Zone(str):
    """A zone key used as a value: iterates as its contents, is a destination for moves."""
    __slots__ = ()


class Task(dict):
    """A waiting effect: plain data (`spec`, `answers`, `snap`) that saves, copies and replays
    as a dict, and, in the process that runs it, `live`: the effect's generator, paused at the
    decision, with its interpreter (runtime/flow.py). A copy is a plain dict, without it."""
    __slots__ = ("live",)

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.live = None

    def __reduce__(self):  # copy.deepcopy and pickle: the data alone
        return dict, (dict(self),)


def clone(state: dict) -> dict:
    """A deep copy of plain data; marshal is the fastest exact copier in the standard library."""
    return marshal.loads(marshal.dumps(plain(state)))


def plain(st):
    """The state as data alone: its waiting tasks without their live effects (marshal copies
    nothing else)."""
    if type(st) is not dict:
        return st
    task, stack = st.get("task"), st.get("interrupted")
    if type(task) is not Task and not stack:
        return st
    out = dict(st)
    if type(task) is Task:
        out["task"] = dict(task)
    if stack:
        out["interrupted"] = [dict(b, task=dict(b["task"])) if type(b.get("task")) is Task else b for b in stack]
    return out


FLAT = {str, int, float, bool, type(None)}


def copy_small(v):
    """A deep copy of a small piece of plain data. For a few dozen values a walk in Python is
    faster than marshal's round trip, whose set-up costs more than the copying itself."""
    t = type(v)
    if t is dict:
        if FLAT.issuperset(map(type, v.values())):  # the usual table of plain values, looked at in C
            return v.copy()
        return {k: x if type(x) in FLAT else copy_small(x) for k, x in v.items()}
    if t is list:
        if FLAT.issuperset(map(type, v)):
            return v.copy()
        return [x if type(x) in FLAT else copy_small(x) for x in v]
    if t in FLAT:
        return v
    if t is Task:
        return copy_small(dict(v))
    return marshal.loads(marshal.dumps(v))  # anything else as clone() would copy it (or refuse it)


def new_state(game, players: int, seed, options=None) -> dict:
    g, e, zones = _start(game, players)
    pids = list(zones["players"])  # the very ids the things are kept under
    st = {
        "format": STATE_FORMAT, "game": game.id, "content_hash": game.hash, "seed": seed,
        "rng": rng.seed_state(seed), "players": pids, "first": pids[0], "round": 0,
        "options": dict(game.options, **(options or {})), "game_counters": dict(g),
        "things": {x: {"zone": ent["zone"], "up": ent["up"], "counters": dict(ent["counters"]), "marks": {}} for x, ent in e.items()},
        "zones": {z: list(xs) for z, xs in zones.items()},
        "flow": {"stage": "init"}, "task": None, "pending": None, "over": False,
        "scores": None, "winners": None, "log": [], "history": [], "dice": [], "steps": 0,
    }
    for did, d in sorted(game.decks.items()):
        if d["of"] == "game" and d["shuffle"] and did in st["zones"]:
            rng.shuffle(st, st["zones"][did])
    return st


def _start(game, players: int):
    """The counters, things and zones of a game with this many players before any shuffle,
    made once per game and seat count and copied for each new state (a copy is made several
    times faster). The copies share their ids with the game's tables, which look them up."""
    made = game.cache.start
    if players not in made:
        g, e, zones = {}, {}, {}
        for c in sorted(game.global_counters):
            g[c] = game.counters[c]["initial"]
        for p in (f"p{i + 1}" for i in range(players)):
            e[p] = {"zone": "players", "up": True, "counters": {c: game.counters[c]["initial"] for c in sorted(game.player_counters)}}
            zones.setdefault("players", []).append(p)
        for iid, pid, zone, up in game.instances:
            kind = game.protos[pid]["kind"]
            e[iid] = {"zone": zone, "up": up, "counters": {c: game.counters[c]["initial"] for c in sorted(game.kind_counters.get(kind, ()))}}
            zones.setdefault(zone, []).append(iid)
        made[players] = g, e, zones
    return made[players]


def zone_owner(key: str) -> str | None:
    return key.split(".", 1)[0] if "." in key else None


def zone_name(key: str) -> str:
    return key.split(".", 1)[1] if "." in key else key


def place(st: dict, eid: str, key: str, top: bool = False) -> str:
    """Move an entity into a zone; returns the zone it left."""
    ent = st["things"][eid]
    old = ent["zone"]
    ent.pop("shown_to", None)  # what was shown to some players is unknown again once it moves
    ent.pop("hidden_from", None)  # and what was hidden from some is as its new place says
    lst = st["zones"].get(old)
    if lst is not None:
        try:
            lst.remove(eid)
        except ValueError:
            pass
        if not lst:
            del st["zones"][old]
    ent["zone"] = key
    dest = st["zones"].setdefault(key, [])
    if top:
        dest.insert(0, eid)
    else:
        dest.append(eid)
    return old


def contents(st: dict, key: str) -> list:
    return list(st["zones"].get(key, ()))
