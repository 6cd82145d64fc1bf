"""The names a player reads for what a view of a game can hold: its zones, kinds of thing,
counters, the values of counters that are things or places, and marks, in both languages.
The online table sends them once to each socket (rulepress/table/messages.names) and the
terminal prints with them (rulepress/terminal.py), so the two say the same."""
from __future__ import annotations


def catalogue(game) -> dict:
    """Every name the page prints for this game, in both languages. It names every kind of
    thing, not only those in sight, so it is the same for every seat at every moment: it
    tells nothing of the game in play (the card list is the rulebook's), and the table
    encodes it once a game and sends it once a socket; no view carries names. Where a name
    is missing the page shows the key itself.

    - zones: a zone's, deck's or pool's name by the zone's name (the part after its owner);
      a zone named after a kind of thing (a place's own stack) takes that kind's name;
    - things: each kind of thing's name;
    - counters: each counter's name; `internal`: the counters the game marks as its
      bookkeeping (the rulebook leaves them out, so does the table);
    - values: a counter's value that is a place or zone, by its name (a kind of thing as a
      value is named from `things`; value_name reads both);
    - marks: the game's terms, by which marks are named;
    - cards: the kinds of thing that are cards (printed, drawn as cards; any other is a piece)."""
    def names(*tables) -> dict:
        out = {}
        for table in tables:
            for key, d in table.items():
                n = (d or {}).get("name")
                if isinstance(n, dict) and key not in out:
                    out[key] = n
        return out
    things, counters = names(game.protos), names(game.counters)
    terms = game.data["game"].get("terms") or {}
    return {
        "zones": names(game.zones, game.decks, game.pools),
        "things": things,
        "counters": {c: counters.get(c) or {"en": c} for c in game.counters},
        "internal": sorted(c for c, d in game.counters.items() if d.get("internal")),
        "values": {k: n for k, n in names(game.locations, game.zones).items() if k not in things},
        "marks": {k: n for k, n in terms.items() if isinstance(n, dict)},
        "cards": sorted(k for k, p in game.protos.items() if p.get("section") == "cards"),
    }


def zone_label(cat: dict, name: str):
    """A zone's name by its name without an owner (None: not named)."""
    return cat["zones"].get(name) or cat["things"].get(name)


def value_name(cat: dict, value):
    """A counter's value that is a kind of thing, a place or a zone, by its name (None: not one)."""
    if not isinstance(value, str):
        return None
    return cat["things"].get(value) or cat["values"].get(value)
