"""The names a player reads for what a view holds: its zones, things, counters, the values
of counters that are things or places, and marks, in both languages. The online table sends
them with each view (rulepress/table/messages.py) and the terminal prints with them
(rulepress/terminal.py), so the two say the same."""
from __future__ import annotations

from .runtime.state import zone_name


def labels(game, v) -> dict:
    """The names the page prints, in both languages: of the zones, counters and players in
    the view and of the kinds of thing in sight (only those: the name of a hidden card's
    kind would say what it is)."""
    def name(table, key):
        n = (table.get(key) or {}).get("name")
        return n if isinstance(n, dict) else None
    zones = {}
    for key in v["zones"]:
        zn = zone_name(key)
        zones[zn] = (name(game.zones, zn) or name(game.decks, zn) or name(game.pools, zn)
                     or name(game.protos, zn) or {"en": zn})
    things = {}
    for t in v["things"].values():
        if t["type"] not in things:
            things[t["type"]] = name(game.protos, t["type"]) or {"en": t["type"]}
    fixed = game.cache.labels
    if fixed is None:  # the same for every view of the game: worked out once
        fixed = game.cache.labels = (
            {c: name(game.counters, c) or {"en": c} for c in game.counters},
            # a counter the game marks `internal` is its bookkeeping: the rulebook leaves it out, so does the table
            sorted(c for c, d in game.counters.items() if d.get("internal")))
    counters, internal = fixed
    # a counter whose value is a kind of thing or a place (a gang, a district) is shown by
    # that one's name; only values in sight are named
    values = {}
    shown = [v["counters"]] + [p["counters"] for p in v["players"].values()] \
        + [t.get("counters") or {} for t in v["things"].values()]
    for cs in shown:
        for value in cs.values():
            if isinstance(value, str) and value not in values:
                n = name(game.protos, value) or name(game.locations, value) or name(game.zones, value)
                if n is not None:
                    values[value] = n
    terms = game.data["game"].get("terms") or {}
    marks = {}
    for holder in list(v["things"].values()) + list(v["players"].values()):
        for mark in holder.get("marks") or ():
            marks.setdefault(mark, terms.get(mark) if isinstance(terms.get(mark), dict) else {"en": mark})
    # the kinds in sight that are cards (printed, drawn as cards); any other thing is a piece
    cards = sorted(k for k in things if (game.protos.get(k) or {}).get("section") == "cards")
    return {"zones": zones, "things": things, "counters": counters, "values": values, "marks": marks,
            "internal": internal, "cards": cards}
