"""What one seat may see. Every payload for a seat or a spectator is built here.

Hidden: cards in other players' `owner` zones, everything in decks, hidden pools and
hidden zones (only counts show), face-down things anywhere, hidden counters of other
players and of things not in the seat's own zones, other players' pending secret
choices, options that are hidden things (handles instead), log lines to other players or
naming hidden things (written unnamed), and the saved task (it holds the full state).
Hidden things appear only as counts and handles, never by id; a hidden thing that
carries public facts (`public` counters, the game's `public_marks`) is listed under its
zone's `facts` by its handle ("card 2 of Player 3's Hand": red, 5). The rules of what is
hidden are in runtime/visibility.py.
"""
from __future__ import annotations

from .decision import Decision
from .visibility import can_see, counter_visible, facts, handle_of, log_for, zone_sight
from .words import place_label

__all__ = ["can_see", "view"]


def view(game, st, seat=None) -> dict:
    """The state as `seat` sees it (None: a spectator, who sees only what is public)."""
    zones = {}
    things = {}
    for key in sorted(st["zones"]):
        shown, hidden, known = [], 0, []
        sight, place = zone_sight(game, key, seat), None
        for i, eid in enumerate(st["zones"][key]):
            if can_see(game, st, eid, seat, sight):
                shown.append(eid)
            else:
                hidden += 1
                fact = facts(game, st["things"][eid])
                if fact:
                    place = place or place_label(game, key)
                    h = handle_of(game, st, eid, i, place)
                    known.append({"id": h["id"], "label": h["label"], **fact})
        zones[key] = {"things": shown, "hidden": hidden}
        if known:
            zones[key]["facts"] = known
        for eid in shown:
            ent = st["things"][eid]
            t = {"type": game.proto_of.get(eid, eid), "up": ent["up"]}
            cs = {c: v for c, v in ent["counters"].items() if counter_visible(game, st, eid, c, seat)}
            if cs:
                t["counters"] = cs
            if ent["marks"]:
                t["marks"] = sorted(ent["marks"])
            things[eid] = t
    players = {}
    for p in st["players"]:
        ent = st["things"][p]
        cs = {c: v for c, v in ent["counters"].items() if counter_visible(game, st, p, c, seat)}
        players[p] = {"counters": cs, "marks": sorted(ent["marks"])}
    out = {
        "game": st["game"], "seat": seat, "round": st["round"], "first_player": st["first"],
        "players": players, "counters": {c: v for c, v in st["game_counters"].items() if not game.counters[c]["hidden"]},
        "zones": zones, "things": things, "over": st["over"], "scores": st["scores"], "winners": st["winners"],
        "log": log_for(st, seat), "decision": _decision(game, st, seat),
    }
    return out


def _decision(game, st, seat):
    dec = Decision.of(game, st)
    return None if dec is None else dec.seen_by(seat)
