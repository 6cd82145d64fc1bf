"""The table's WebSocket messages: what a client may send, and what each socket is sent.

Every `table` message is made on the server for the one seat it goes to: the seat's view
(runtime/views.view), its options (already cut down by runtime/visibility.seat_options) and
its log lines (runtime/visibility.log_for). A spectator gets the public view (seat None).
Nothing is filtered in the browser: what a seat may not see never leaves the server. The
names the page prints come once a socket, before its first table, in a `names` message: the
game's whole catalogue (naming.catalogue), the same for everyone at every moment.
"""
from __future__ import annotations

import hashlib
import json
import weakref
from typing import NamedTuple

from ..naming import catalogue
from ..runtime.views import view
from .limits import MESSAGE_BYTES, Refused


class Message(NamedTuple):
    type: str
    fields: dict


# type -> {field: (accepted Python types, required)}. A field not listed is refused, so a
# client's typo is an error it reads rather than a message quietly ignored.
SHAPES = {
    "hello": {"token": ((str,), False), "watch": ((bool,), False)},
    "move": {"version": ((int,), True), "choice": ((str,), True)},
    "host": {"action": ((str,), True), "seat": ((str,), False)},
    "signal": {"to": ((str,), True), "data": ((dict,), True)},
    "ping": {},
}


def parse(text) -> Message:
    """A client's frame as a Message, or Refused with the line the client is told."""
    if not isinstance(text, str):
        raise Refused("messages are JSON text frames")
    if len(text.encode("utf-8", "replace")) > MESSAGE_BYTES:
        raise Refused(f"a message of at most {MESSAGE_BYTES // 1024} KiB", 1009)
    try:
        data = json.loads(text, parse_constant=_no_constant)
    except (ValueError, RecursionError):
        raise Refused("a message is a JSON object") from None
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise Refused('a message is a JSON object with a "type"')
    kind = data["type"]
    shape = SHAPES.get(kind)
    if shape is None:
        raise Refused(f"message types: {', '.join(SHAPES)}")
    fields = {k: v for k, v in data.items() if k != "type"}
    for k, v in fields.items():
        if k not in shape:
            raise Refused(f"a {kind} message has no field `{str(k)[:40]}`")
        types, _ = shape[k]
        if not isinstance(v, types) or (bool not in types and isinstance(v, bool)):
            raise Refused(f"a {kind} message's `{k}` is {_KINDS[types[0]]}")
        if isinstance(v, int) and not isinstance(v, bool) and not -2**53 < v < 2**53:
            raise Refused(f"a {kind} message's `{k}` is out of range")
    for k, (_, required) in shape.items():
        if required and k not in fields:
            raise Refused(f"a {kind} message needs `{k}`")
    return Message(kind, fields)


_KINDS = {int: "a whole number", str: "a text", dict: "an object", bool: "true or false"}


def _no_constant(word):
    raise ValueError(word)


def dumps(message: dict) -> str:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"))


def peers(connected: set) -> str:
    """The `peers` message: the seats connected, for the voice's links."""
    return dumps({"type": "peers", "seats": sorted(connected, key=_order)})


def error(text: str) -> str:
    return dumps({"type": "error", "message": text})


_NAMES: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()  # game -> its `names` message


def names(game) -> str:
    """The `names` message: every name the page prints for the game (naming.catalogue),
    encoded once a game. A view carries none: a move's tables cost no names (they were
    two fifths of each table's bytes, worked out for every seat at every move)."""
    text = _NAMES.get(game)
    if text is None:
        text = _NAMES[game] = dumps({"type": "names", "labels": catalogue(game)})
    return text


SIGHTS_KEPT = 16  # versions a seat's sight is remembered for (a move made further back is stale)
FRAMES_KEPT = 256  # frames of one version kept for re-sending (seats x who is connected)


def at(room) -> tuple:
    return (room.version, room.row.game_no, room.status)


def _frames(room) -> dict:
    now = at(room)
    if room.frames.get("at") != now:
        room.frames = {"at": now}
    return room.frames


def missing(room, seats) -> list:
    """The seats whose part of this version's `table` message is not made yet."""
    frames = _frames(room)
    return [s for s in dict.fromkeys(seats) if ("part", s) not in frames]


class Part(NamedTuple):
    """A seat's part of its `table` message as made where the game is: the message's JSON
    text but its last fields (`text` is open: no closing brace), what the seat could see of
    it as a digest (`sight`), and what its cards' pictures are named from (`sees`: the
    kinds of card in sight and the zones holding hidden things; None without a view).
    Made as text once, so the server only appends who is connected and never encodes a
    view again (nor the worker's pipe carries it as objects)."""
    text: str
    sight: str
    sees: tuple | None


def keep(room, seat, part: Part) -> None:
    """A seat's part of this version's `table` message, and its sight, as made where the game is."""
    faces = "null"
    if room.faces is not None and part.sees is not None:
        # the cards' pictures, named here where the server's faces and their keys are (a
        # part may be made in a worker process, which has neither)
        faces = room.faces.for_kinds(room.code, room.game, *part.sees)
    _frames(room)[("part", seat)] = part.text + ',"faces":' + faces
    if seat is not None:
        sights = room.sights.setdefault(seat, {})
        sights[room.version] = part.sight
        for old in sorted(sights)[:-SIGHTS_KEPT]:
            del sights[old]


def table_text(room, seat, connected: set) -> str:
    """The `table` message for `seat` (None: a spectator) as sent: made once for a version,
    a seat and the seats connected, whoever comes and goes (a reconnecting crowd costs no
    new view)."""
    frames = _frames(room)
    key = (seat, frozenset(connected))
    text = frames.get(key)
    if text is None:
        if len(frames) > FRAMES_KEPT:
            room.frames = frames = {k: v for k, v in frames.items() if k == "at" or k[0] == "part"}
        seats = [{"seat": s.seat, "name": s.name, "connected": s.seat in connected, "bot": s.bot,
                  "host": s.host} for s in sorted(room.seats.values(), key=lambda s: _order(s.seat))]
        text = frames[key] = _part(room, seat) + ',"seats":' + dumps(seats) + "}"
    return text


def _part(room, seat) -> str:
    part = _frames(room).get(("part", seat))
    if part is None:  # (not prepared: Room.prepare makes it where the game is, off the event loop)
        keep(room, seat, room.part_now(seat))
        part = room.frames[("part", seat)]
    return part


def sight(room, seat) -> str:
    """What `seat` can see of the room now, as a digest: its view (but the log and who is
    still picking) and its options."""
    _part(room, seat)
    return room.sights[seat][room.version]


def made_part(room, seat) -> Part:
    """A seat's Part, made where the game is. Each piece is encoded once: the view without
    its decision, the decision, the rest; the sight is the digest of the view, the decision
    but who is still picking (another seat's secret pick changes nothing this seat sees),
    the options and the status."""
    out = _seat_part(room, seat)
    v = out.pop("view")
    if v is None:
        seen = dumps({"view": None, "options": out["options"], "status": out["status"]})
        return Part(dumps(out)[:-1] + ',"view":null', _digest(seen), None)
    v = dict(v)
    d = v.pop("decision", None)
    view_text = dumps(v)
    sighted = None if d is None else {k: x for k, x in d.items() if k != "waiting_for"}
    seen = view_text + dumps(sighted) + dumps(out["options"]) + dumps(out["status"])
    text = dumps(out)[:-1] + ',"view":' + view_text[:-1] + ',"decision":' + dumps(d) + "}"
    sees = (sorted({t["type"] for t in v["things"].values()}),
            sorted(k for k, z in v["zones"].items() if z.get("hidden")))
    return Part(text, _digest(seen), sees)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _seat_part(room, seat) -> dict:
    """Everything of a seat's `table` message but who is connected."""
    game, st = room.game, room.st
    info = game.data["game"]
    out = {
        "type": "table", "code": room.code, "version": room.version, "status": room.status, "you": seat,
        "host": seat is not None and room.seats[seat].host,
        "game": {"id": game.id, "title": info.get("name") or {"en": game.id}, "players": room.row.players,
                 "layout": info.get("table")},  # (how the game lays its table out, if it says: docs/table.md)
        "view": None, "options": [], "deciding": room.deciding(), "log": [], "result": None,
        # said on every page, so that players know what the spectators are shown
        "spectators": "all" if room.spectators_see_all else "public",
    }
    if st is None:
        return out
    v = seen_by_all(game, st) if seat is None and room.spectators_see_all else view(game, st, seat)
    out["log"] = v.pop("log")  # handed once, at the top
    d = v.get("decision")
    if seat is not None and seat in out["deciding"] and d is not None and d.get("options"):
        out["options"] = [{"id": o["id"], "label": o.get("label") or {"en": o["id"]}} for o in d["options"]]
        out["prompt"] = d.get("prompt")
    out["view"] = v
    if st["over"]:
        out["result"] = {"scores": st["scores"], "winners": st["winners"]}
    return out


def seen_by_all(game, st) -> dict:
    """The view of a spectator the host lets see everything the seats see: every thing some
    seat sees (a hand, a face-down card of its own), with the counters they see of it, and
    each player's counters as that player sees them. What no seat sees (a deck's order, a
    card face down to all) stays hidden; the log and the decision are the public ones."""
    public = view(game, st, None)
    views = [view(game, st, p) for p in st["players"]]
    for key, zone in public["zones"].items():
        seen = set().union(*(set(v["zones"][key]["things"]) for v in views)) | set(zone["things"])
        shown = [e for e in st["zones"][key] if e in seen]
        if len(shown) != len(zone["things"]):
            public["zones"][key] = {"things": shown, "hidden": len(st["zones"][key]) - len(shown)}
            if zone.get("facts") and public["zones"][key]["hidden"]:
                public["zones"][key]["facts"] = zone["facts"]  # (handles of what is still hidden)
        for eid in shown:
            for v in views:
                t = v["things"].get(eid)
                if t is None:
                    continue
                have = public["things"].setdefault(eid, {k: x for k, x in t.items() if k != "counters"})
                if t.get("counters"):
                    have["counters"] = {**have.get("counters", {}), **t["counters"]}
    for p, v in zip(st["players"], views):
        public["players"][p] = v["players"][p]
    return public


def _order(seat: str):
    return int(seat[1:]) if seat[1:].isdigit() else 0
