"""What one seat may see. Every payload for a seat or a spectator is built here.

Hidden: cards in other players' `owner` zones, everything in decks, hidden pools and
hidden zones (only counts show), face-down things anywhere, hidden counters of other
players, other players' pending secret choices, and the saved task (it holds the full
state). Hidden things appear as numbered placeholders, never by id.
"""
from __future__ import annotations

from .flow import decision
from .state import zone_name, zone_owner


def _zone_visible(game, key: str, seat) -> bool:
    name = zone_name(key)
    if name in game.hidden_zone_names:
        return False
    if name in game.owner_zone_names:
        return seat is not None and zone_owner(key) == seat
    return True


def can_see(game, st, eid: str, seat) -> bool:
    ent = st["things"][eid]
    if seat is not None and seat in ent.get("shown_to", ()):
        return True  # shown to this player (`show X to P`) since it last moved
    key = ent["zone"]
    if not _zone_visible(game, key, seat):
        return False
    name = zone_name(key)
    if name in game.owner_zone_names and zone_owner(key) == seat:
        return True
    return ent["up"]


def view(game, st, seat=None) -> dict:
    """The state as `seat` sees it (None: a spectator, who sees only what is public)."""
    zones = {}
    things = {}
    for key in sorted(st["zones"]):
        shown, hidden = [], 0
        for eid in st["zones"][key]:
            if can_see(game, st, eid, seat):
                shown.append(eid)
            else:
                hidden += 1
        zones[key] = {"things": shown, "hidden": hidden}
        for eid in shown:
            ent = st["things"][eid]
            t = {"type": game.proto_of.get(eid, eid), "up": ent["up"]}
            if ent["counters"]:
                t["counters"] = dict(ent["counters"])
            if ent["marks"]:
                t["marks"] = sorted(ent["marks"])
            things[eid] = t
    players = {}
    for p in st["players"]:
        ent = st["things"][p]
        cs = {c: v for c, v in ent["counters"].items() if p == seat or not game.counters[c]["hidden"]}
        players[p] = {"counters": cs, "marks": sorted(ent["marks"])}
    out = {
        "game": st["game"], "seat": seat, "round": st["round"], "first_player": st["first"],
        "players": players, "counters": {c: v for c, v in st["game_counters"].items() if not game.counters[c]["hidden"]},
        "zones": zones, "things": things, "over": st["over"], "scores": st["scores"], "winners": st["winners"],
        "log": list(st["log"][-50:]), "decision": _decision(game, st, seat),
    }
    return out


def _decision(game, st, seat):
    d = st["pending"]
    if d is None:
        return None
    if d["kind"] == "secret":
        mine = seat in d["who"] and seat not in d["collected"]
        return {"kind": "secret", "waiting_for": [p for p in d["who"] if p not in d["collected"]],
                "options": d["options"][seat] if mine else None}
    if d["who"] == seat:
        return {k: v for k, v in decision(game, st).items() if k not in ("at", "actions")}
    return {"kind": d["kind"], "who": d["who"]}
