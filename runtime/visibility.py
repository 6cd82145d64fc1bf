"""Visibility: what one seat may know, and how everything it is handed is cut down to that.

A seat may see a thing when it lies in a public place face up, in a zone whose
`visibility` names that seat (`owner`: its player's own; `others`: every player's but its
holder's; `[p1, p3]`: those seats', face up or down), or was shown to it since it last
moved, unless it was hidden from that seat (`hide X from P`) since. Everything else is
hidden from it, and every value handed to the seat (its view, the options of its
decisions, its log lines, a bot's look-ahead) goes through this module:

- options that name a hidden thing become handles ("card 2 of Player 2's Hand"): the
  handle names a place, never the thing, and maps back to the thing only here;
- counters marked `hidden` show only to their owner (the player, or the player whose zone
  holds the thing they are on; nobody for the game's own);
- counters marked `public` and the game's `public_marks` are facts everyone knows about a
  thing even while it is hidden (`facts`): a view shows them on the thing's handle;
- a log line that names a hidden thing is written for that seat with the thing unnamed, and
  a line written `to` some players is read only by them;
- a bot looks ahead on a sample: the things hidden from it dealt again at random among the
  places hidden from it (`sample`), never the real state; what its seat saw and still knows
  (`knowledge`, `observe`) it is not dealt again.

Nothing here reads the compiler; the state stays plain data.
"""
from __future__ import annotations

import marshal

from . import rng
from .ir import at
from .state import plain, zone_name, zone_owner
from .words import handle_label, place_label

HANDLE = "?"  # handles start with it; no content id does (ids are names, `#` and digits)


def zone_sight(game, key: str, seat):
    """What `seat` sees of what lies in zone `key` by the zone's `visibility`: all of it
    (True, face up or down), its face-up things ("up": a public place) or nothing (False)."""
    name = zone_name(key)
    if name in game.hidden_zone_names:
        return False
    if name in game.owner_zone_names:
        return seat is not None and zone_owner(key) == seat
    if name in game.others_zone_names:  # a spectator is no player: it sees only what is public
        return seat is not None and zone_owner(key) != seat
    seats = game.seats_zone_names.get(name)
    if seats is not None:
        return seat in seats
    return "up"


def can_see(game, st, eid: str, seat, sight=None) -> bool:
    """Whether `seat` (None: a spectator) may know what thing `eid` is. `sight`: the
    seat's zone_sight of the thing's zone, where a caller going through a zone has it."""
    ent = st["things"][eid]
    blind = ent.get("hidden_from")
    if blind and (seat is None or seat in blind):
        return False  # hidden from this player (`hide X from P`) since it last moved
    if seat is not None and seat in ent.get("shown_to", ()):
        return True  # shown to this player (`show X to P`) since it last moved
    if sight is None:
        sight = zone_sight(game, ent["zone"], seat)
    return ent["up"] if sight == "up" else sight


def facts(game, ent) -> dict:
    """What everyone knows about a thing, seen or not: its `public` counters that are no
    longer where they start and the game's `public_marks` on it ({} when it has none)."""
    out = {}
    if game.public_counters:
        cs = {c: v for c, v in ent["counters"].items() if c in game.public_counters and v != game.counters[c]["initial"]}
        if cs:
            out["counters"] = cs
    if game.public_marks:
        ms = sorted(m for m in ent["marks"] if m in game.public_marks)
        if ms:
            out["marks"] = ms
    return out


def hidden_from(game, st, seat) -> set:
    """The ids of every thing `seat` may not see now."""
    players = set(st["players"])
    out = set()
    for key, ids in st["zones"].items():
        sight = zone_sight(game, key, seat)  # (once for all a zone holds)
        out.update(eid for eid in ids if eid not in players and not can_see(game, st, eid, seat, sight))
    return out


def counter_visible(game, st, owner: str, counter: str, seat) -> bool:
    """A counter's value on a player, a thing or the game (owner None), as `seat` may know it."""
    if not game.counters[counter]["hidden"]:
        return True  # (on a thing the seat does not see, only a `public` counter shows: `facts`)
    if seat is None or owner is None:
        return False
    if owner == seat:
        return True
    ent = st["things"].get(owner)
    if ent is None or owner in st["players"]:
        return False
    return zone_owner(ent["zone"]) == seat  # a thing's owner: the player whose zone holds it


# ---- options: hidden things offered as handles ----------------------------------

def handle_of(game, st, eid: str, i=None, place=None) -> dict:
    """A hidden thing as an option: its place and its position there, nothing of what it is.
    `i` (its index in its zone) and `place` (the zone's place_label): where a caller going
    through the zone has them."""
    key = st["things"][eid]["zone"]
    if i is None:
        i = st["zones"][key].index(eid)
    kind = game.kind_of.get(eid, "thing")
    said = game.terms.get(kind)  # (a kind the game names in its words: "Omen 2 of ...", not its id)
    if isinstance(said, dict):
        said = {lang: w if isinstance(w, str) else w.get("nom", "") for lang, w in said.items()}
    return {"id": f"{HANDLE}{key}#{i + 1}", "label": handle_label(kind, i + 1, place or place_label(game, key), said)}


def seat_options(game, st, seat, options):
    """The options of a decision as `seat` may know them, in the same order.

    A turn's options (actions, pass) are never secret and come back as they are, so a bot
    that picks by position picks the same option it would among the real ones."""
    if type(options) is not list or not options:  # (a turn's Choices: not worked out here)
        return options
    e = st["things"]
    kinds = offers_kinds(game, st, options)
    out = None
    for i, o in enumerate(options):
        oid = o["id"]
        if kinds and oid in game.protos:
            continue  # a card of one copy offered as its kind: its name, not where it lies
        if oid in e and oid not in st["players"] and not can_see(game, st, oid, seat):
            if out is None:
                out = list(options)
            out[i] = handle_of(game, st, oid)
    return options if out is None else out


def offers_kinds(game, st, options) -> bool:
    """Whether a decision offers kinds of card rather than things where they lie: it says
    so (its options were written as kinds), or one of them is a kind of several copies,
    which no single thing is. Then a card of one copy, whose id is its kind's, is offered
    as that kind: a handle would tell where the card is."""
    d = st["pending"]
    if d is not None and d.get("kinds"):
        return True
    things = st["things"]
    return any(o["id"] in game.protos and o["id"] not in things for o in options)


def resolve(st, choice: str) -> str:
    """The thing a handle stands for; any other choice is itself. A handle that names no
    place comes back as it is (and is then refused as not a legal choice)."""
    if not isinstance(choice, str) or not choice.startswith(HANDLE):
        return choice
    key, _, pos = choice[1:].rpartition("#")
    things = st["zones"].get(key)
    if things is None or not pos.isdigit() or not 1 <= int(pos) <= len(things):
        return choice
    return things[int(pos) - 1]


# ---- log lines ----------------------------------------------------------------

def named(st, v) -> list:
    """The things a logged value names, in order (in lists and in texts with values)."""
    if isinstance(v, (list, tuple)):
        return [x for item in v for x in named(st, item)]
    if isinstance(v, str) and v in st["things"] and v not in st["players"]:
        return [v]
    return []


_PARTS = at("text", "parts")  # (a list's items stand there too)
_ATTRIBUTE = at("attr", "attribute")
assert _PARTS == at("list", "items")


def named_types(game, v, ir=None) -> list:
    """The kinds of card a logged value names as kinds (`claims the {role}`, role = `duke`):
    words of the rules, not any one card. A kind read off a thing (`{c.type}`) is news of
    that thing, not a word of the rules: left out where the line's own parts show it."""
    if isinstance(v, (list, tuple)):
        parts = ir[_PARTS] if type(ir) is list and len(ir) > 2 and ir[0] in ("text", "list") else None
        if parts is not None and len(parts) == len(v):
            return [x for item, part in zip(v, parts) if not _reads_kind(part) for x in named_types(game, item, part)]
        return [x for item in v for x in named_types(game, item)]
    if type(v) is str and v in game.protos and v not in game.proto_of:  # (a single card's id is the card; Said is words)
        return [v]
    return []


def _reads_kind(part) -> bool:
    return type(part) is list and part[:1] == ["attr"] and part[_ATTRIBUTE] == "type"


def log_entry(game, st, text: str, things, to=None, unnamed=None, at=None, types=(), ru=None, unnamed_ru=None) -> dict:
    """A log line. Where it names things hidden from some seat it carries, for those seats,
    the same line with the things unnamed (`unnamed`), and the seats (and "*" for a
    spectator) that may read it as written. A line `to` some players is theirs alone.
    `named`: the things and kinds its values name (the leak scan reads it: a card's name
    said while everyone could see the card, or a kind's name, gives nothing away). `ru`: the
    line in Russian, where the game says it so (and `unnamed_ru`)."""
    entry = {"r": st["round"], "text": text}
    if ru is not None:
        entry["ru"] = ru
    if things or types:
        entry["named"] = list(things) + [x for x in types if x not in things]
    if to is not None:
        entry["to"] = list(to)  # told on purpose: they read it as written, whatever it names
    elif things:
        seen = [p for p in st["players"] if all(can_see(game, st, x, p) for x in things)]
        if all(can_see(game, st, x, None) for x in things):
            seen.append("*")
        if len(seen) <= len(st["players"]):  # someone may not read it as written
            entry["seen"] = seen
            entry["unnamed"] = unnamed if unnamed is not None else text
            if ru is not None:
                entry["unnamed_ru"] = unnamed_ru if unnamed_ru is not None else ru
    if at is not None:
        entry["at"] = at  # the content line, for `rulepress secrets` to name
    return entry


def log_lines(st, seat, last=50) -> list:
    """Where in the state's log the lines `log_for` hands `seat` are."""
    start = max(0, len(st["log"]) - last)
    return [i for i in range(start, len(st["log"]))
            if "to" not in st["log"][i] or (seat is not None and seat in st["log"][i]["to"])]


def log_for(st, seat, last=50) -> list:
    """The last log lines as `seat` (None: a spectator) may read them: `text` in English and,
    where the line was written in Russian too, `ru`."""
    me = "*" if seat is None else seat
    out = []
    for i in log_lines(st, seat, last):
        entry = st["log"][i]
        if "seen" in entry and me not in entry["seen"]:
            line = {"r": entry["r"], "text": entry["unnamed"]}  # its position stays the server's
            if "unnamed_ru" in entry:
                line["ru"] = entry["unnamed_ru"]
        else:
            line = {"r": entry["r"], "text": entry["text"]}
            if "ru" in entry:
                line["ru"] = entry["ru"]
            if "to" in entry:
                line["private"] = True
        out.append(line)
    return out


# ---- what a seat knows of things it no longer sees ---------------------------------
#
# A seat that saw a thing at a decision and sees it go out of sight (turned face down,
# hidden from it, put back in a hand or on a deck) still knows which thing it is, until it
# can no longer tell where the thing went. The state keeps that beside itself, out of its
# hash (`knowledge`; its `known` is replaced, never changed in place, so copies of the state
# share it): `saw`, for each thing that moved, turned or was shown or hidden since
# the last decision, the seats that saw it then; `known`, thing -> {seat: group}: the seat
# knows that the things of one group lie in the places they lie in, in some order (one
# thing: exactly where), or, in place of a group, a zone's key: the seat knows the thing
# lies somewhere in that zone (a card it saw go into a pile, and the pile was shuffled).
# Players see the table only at decisions, so what an effect shows and hides again before
# anyone decides is never seen (`observe`). A seat loses track of a group where a thing it
# could not tell apart leaves a place where one of them lies (a card it did not see taken
# from a hand: which one?), or where that place is shuffled; of what lies in a pile, where
# a thing it cannot tell leaves the pile (`moved`: the top card drawn to a hand it does not
# see may have been the one).

def seers(game, st, eid) -> list:
    """The seats that may see thing `eid` now (`can_see`, seat by seat)."""
    return [p for p in st["players"] if can_see(game, st, eid, p)]


def sighted(game, st, eid) -> None:
    """Thing `eid` is about to move, turn, or be shown or hidden: who saw it at the last
    decision, noted the first time (nothing before the first decision was seen)."""
    k = st.get("knowledge")
    if k is not None and eid not in k["saw"]:
        k["saw"][eid] = seers(game, st, eid)


def moving(game, st, eid, key, by_place=False, followed=()) -> None:
    """Thing `eid` is about to leave zone `key` (noted as `sighted` does). Taken `by_place` (a
    deck's top card), everyone can tell which one left. Else a seat that neither saw it at
    the last decision and sees it still (one that saw it go into a hand it does not see
    cannot tell it from the others there) nor picked it (`followed`) cannot tell which of
    the zone's things left, and forgets where each of them is."""
    k = st["knowledge"]
    saw, players = k["saw"], st["players"]
    before = saw.get(eid)
    if before is None:  # untouched since the last decision: seen now as then
        before = now = saw[eid] = seers(game, st, eid)
    elif by_place:
        return
    else:
        now = seers(game, st, eid) if before else ()
    if by_place or (len(now) == len(players) and len(before) == len(players)):
        return  # everyone can tell which thing it is
    blind = [p for p in players if not (p in before and p in now) and p not in followed]
    if blind:  # (what lies somewhere in the zone is `moved`'s: the thing may be seen where it goes)
        _forget_places(k, [eid, *st["zones"].get(key, ())], blind, piles=False)


def moved(game, st, eid, key, followed=()) -> None:
    """Thing `eid` has left zone `key`. A seat that knew things lay somewhere in the zone
    (`shuffled`) still knows they do if it can tell which thing left: it sees the thing
    now, picked it (`followed`), or saw it at the last decision and has not lost track of it
    since (a card laid on the pile as everyone watched, then drawn). Else the thing that
    left may have been any of them, and the seat no longer knows where they are. Nobody
    knows the thing itself to lie in the zone any longer."""
    k = st["knowledge"]
    known = k["known"]
    if not known:
        return
    here = [x for x in (eid, *st["zones"].get(key, ())) if x in known and key in known[x].values()]
    if not here:
        return
    seats = {p for x in here for p, g in known[x].items() if g == key}
    tell = k["saw"].get(eid) or ()
    blind = {p for p in seats if p not in tell and p not in followed and not can_see(game, st, eid, p)}
    out = dict(known)  # (a new table: copies of the state share the old one)
    for x in here:
        mine = {p: g for p, g in known[x].items() if g != key or (x != eid and p not in blind)}
        if mine:
            out[x] = mine
        else:
            del out[x]
    k["known"] = out


def shuffled(game, st, key) -> None:
    """Zone `key` is shuffled: where each of its things lies is news to everyone. A seat that
    could tell a thing went there (it saw it at the last decision and has not lost track of
    it since, or knew where it lay in the zone, alone or in a group all of whose things lie
    there, or knew it lay somewhere in the zone) still knows it lies somewhere in the zone."""
    k = st.get("knowledge")
    if k is None:
        return
    things = st["zones"].get(key, ())
    known, saw = k["known"], k["saw"]
    here = set(things)
    groups = {(p, g) for x in things for p, g in known.get(x, {}).items()}
    if groups:  # a group with things elsewhere too: which of them are in the zone is lost
        split = {(p, g) for x, mine in known.items() if x not in here for p, g in mine.items() if (p, g) in groups}
        groups = {(p, g) for p, g in groups - split if type(g) is not str or g == key}
    tells = {}
    for x in things:
        sighted(game, st, x)
        seats = [p for p in saw[x]] + [p for p, g in known.get(x, {}).items() if (p, g) in groups and p not in saw[x]]
        if seats:
            tells[x] = seats
        saw[x] = []
    _forget_places(k, things, st["players"])
    if tells:
        out = dict(k["known"])
        for x, seats in tells.items():
            out[x] = {**out.get(x, {}), **{p: key for p in seats}}
        k["known"] = out


def _forget_places(k, things, seats, piles=True) -> None:
    """`seats` no longer know where `things` lie: each group one of them is in is lost, and
    (`piles`) what they knew lay somewhere in a zone (one of them may have been taken)."""
    known, saw = k["known"], k["saw"]
    for x in things:
        if x in saw and saw[x]:
            saw[x] = [p for p in saw[x] if p not in seats]
    groups = {(p, g) for x in things for p, g in known.get(x, {}).items() if p in seats and (piles or type(g) is not str)}
    if not groups:
        return
    out = {}
    for x, mine in known.items():  # a group's other things: where they lie is no longer known either
        if any((p, g) in groups for p, g in mine.items()):
            mine = {p: g for p, g in mine.items() if (p, g) not in groups}
        if mine:
            out[x] = mine
    k["known"] = out


def remember(st) -> dict:
    """Have the state note, from now on, what each seat saw and no longer sees (`observe`),
    for a searching bot to deal its worlds by (`sample`). Only a seat played by such a bot
    needs it (agents with `remembers`: runtime/agents.py), so a game played without one
    notes nothing. Returns the state."""
    st.setdefault("knowledge", {"saw": {}, "known": {}, "n": 0})
    return st


def observe(game, st) -> None:
    """A decision: what the seats see now is what they saw. The things each seat saw at the
    last decision and does not see now (the same for all of them: one group) it knows."""
    k = st.get("knowledge")
    if k is None:  # nobody asked for it (remember): nothing noted, at no cost
        return
    saw = k["saw"]
    if not saw:
        return
    known = k["known"]
    changed: dict = {}  # thing -> what the seats know of it now ({}: nothing)
    gone: dict = {}
    for eid, before in saw.items():
        mine = known.get(eid)
        if (not before and mine is None) or eid not in st["things"]:
            continue  # (nobody saw it, nobody knows it: nothing to learn or forget)
        now = seers(game, st, eid)
        if mine is not None and any(p in now for p in mine):
            changed[eid] = {p: g for p, g in mine.items() if p not in now}  # seen again: no longer a guess to make
        for p in before:
            if p not in now:
                gone.setdefault(p, []).append(eid)
    for p in st["players"]:
        if p in gone:
            k["n"] += 1
            for eid in gone[p]:
                changed[eid] = {**changed.get(eid, known.get(eid, {})), p: k["n"]}
    if changed:
        # (a new table, never changed in place: snapshots and look-aheads share the old one)
        known = {x: g for x, g in known.items() if x not in changed}
        known.update((x, g) for x, g in changed.items() if g)
        k["known"] = known
    k["saw"] = {}


def known_to(st, seat) -> dict:
    """Thing -> group, of the things `seat` knows though it does not see them."""
    k = st.get("knowledge")
    if not k:
        return {}
    return {x: g[seat] for x, g in k["known"].items() if seat in g}


# ---- a bot's look-ahead: samples consistent with what it sees --------------------

_PAST = ("log", "history")  # what happened before: no rule reads it, and it is most of a long game's state


def sample(game, st, seat, rng_state, lean=False, told=True) -> dict:
    """A copy of the state in which the things hidden from `seat` are dealt again at random
    among the places they could be: each hidden thing takes the place of another hidden
    thing of the same kind and deck or pool (a combat card for a combat card, a token of a
    bag for a token of that bag). What the seat sees is the same as in the real state; what
    it does not is a guess, and agrees with every public fact about the hidden things: a
    counter that `tells` an attribute (a clue: this card is red) or `rules_out` values of it
    (it is not blue), or a public mark that says so (`public_marks: [{id: red_told, tells:
    {colour: red}}]`), takes only a thing that agrees (`told`: False deals as if there were
    none, the bot that ignores what it was told). A thing the seat saw and no longer sees
    but still knows (`known_to`: a card shown to all and put back in a hand) stays that
    thing; a group of them, whose order it lost, is dealt again among their own places; one
    it knows lies somewhere in a zone (it saw it go into a pile, then the pile was shuffled)
    is dealt, with the things it does not know, into a place of that zone.

    The deal is a renaming of ids throughout the copy, the waiting effect's snapshot
    included, so an effect that replays from its snapshot replays in the sampled world.
    The dice's generator is seeded afresh from `rng_state`: the real one would tell what
    the dice and shuffles to come will give. `lean`: without the log and the history (a
    bot's look-ahead plays on from the sample and never reads them), several times cheaper
    late in a game.
    """
    hidden = hidden_from(game, st, seat)
    known = {x: g for x, g in known_to(st, seat).items() if x in hidden} if told else {}
    # The hidden things are listed by their places, not their ids: a deal then depends on
    # what the seat sees alone, so two states it cannot tell apart give the very same sample.
    at = {eid: (key, i) for key in sorted(st["zones"]) for i, eid in enumerate(st["zones"][key]) if eid in hidden}
    by_kind: dict = {}
    piles = {}  # thing -> the zone the seat knows it lies somewhere in
    for eid in sorted(hidden, key=lambda e: (at.get(e, ("", 0)), e)):  # a card of one deck only ever stands in for a card of the same deck
        proto = game.protos.get(game.proto_of.get(eid, ""), {})
        group = known.get(eid, 0)
        if type(group) is str:  # (somewhere in a zone: dealt with the things it does not know, into that zone)
            if at.get(eid, ("",))[0] == group:
                piles[eid] = group
            group = 0
        # (a thing the seat knows is dealt only among the things of its group)
        by_kind.setdefault((group, game.kind_of.get(eid, ""), proto.get("deck"), proto.get("pool")), []).append(eid)
    facts_told = told and bool(game.fact_counters or game.fact_marks)
    rename = {}
    for key in sorted(by_kind, key=str):
        places = by_kind[key]
        dealt = sorted(places)
        for i in range(len(dealt) - 1, 0, -1):
            j = rng.below(rng_state, i + 1)
            dealt[i], dealt[j] = dealt[j], dealt[i]
        bound = {b: piles[b] for b in places if b in piles} if piles else None
        if facts_told or bound:
            dealt = _agreeing(game, st, places, dealt, rng_state, facts_told, bound, at)
        rename.update((a, b) for a, b in zip(places, dealt) if a != b)
    if lean:
        copy = marshal.loads(marshal.dumps(plain({k: v for k, v in st.items() if k not in _PAST})))
        copy["log"], copy["history"] = [], []
    else:
        copy = marshal.loads(marshal.dumps(plain(st)))
    copy["rng"] = rng.below(rng_state, 1 << 62)
    task = copy.get("task")
    if task is not None and isinstance(task.get("snap"), bytes):
        task["snap"] = marshal.loads(task["snap"])
    snap = task.get("snap") if task is not None else None
    # What the seat knows goes with its world (its snapshot's too); the others' is not its to read.
    k = _seat_knowledge(copy.pop("knowledge", None), seat, told)
    k_snap = _seat_knowledge(snap.pop("knowledge", None), seat, told) if isinstance(snap, dict) else None
    _forget(game, st, copy, seat, rng_state, hidden)
    if task is not None:
        # The waiting effect replays from its snapshot, whose generator is the real game's as
        # the effect began (its rolls so far must come out the same): the flow hands the
        # replay the copy's own from the decision on, and keeps it where the effect fails.
        task["dealt"] = True
    if rename:
        copy = _renamed_state(copy, rename)
    # (not renamed: it says which things the seat knows, and the deal kept each of them where
    # the seat knows it is; renamed, it would name the things dealt to their places)
    if k is not None:
        copy["knowledge"] = k
    if k_snap is not None:
        copy["task"]["snap"]["knowledge"] = k_snap
    return copy


def _seat_knowledge(k, seat, told):
    """What one seat knows of the table `k` (the whole `knowledge`), for a world dealt for it."""
    if k is None:
        return None
    return {"saw": {x: [seat] if seat in ps else [] for x, ps in k["saw"].items()},
            "known": {x: {seat: g[seat]} for x, g in k["known"].items() if seat in g and told}, "n": k["n"]}


TRIES = 50  # random deals tried before a deal that agrees with every fact is given up


def _agrees(game, ent, thing) -> bool:
    """Whether `thing` may lie where `ent` lies, by the public facts `ent` carries."""
    attrs = game.attrs_of.get(thing) or {}
    if game.fact_marks:
        for m in ent["marks"]:
            for attr, v, how in game.fact_marks.get(m, ()):
                if (attrs.get(attr) == v) != (how == "is"):
                    return False
    initial = game.counters
    for c, (attr, how) in game.fact_counters.items():
        v = ent["counters"].get(c)
        if v is None or v == initial[c]["initial"]:
            continue
        if how == "is" and attrs.get(attr) != v:
            return False
        if how == "not" and type(v) is list and attrs.get(attr) in v:
            return False
    return True


def _agreeing(game, st, places, dealt, rng_state, facts=True, piles=None, at=None) -> list:
    """`dealt` (the things to lie in `places`, in order) where it agrees with the facts the
    places carry (`facts`) and puts each thing the seat knows lies somewhere in a zone
    (`piles`: thing -> zone; `at`: thing -> (zone, index)) in a place of that zone; else a
    deal that does, made at random: those things first, each in a place of its zone left
    that agrees, then the places most told, each taking one of the things left that agree.
    The real deal always agrees, so one is found but for bad luck; after TRIES, `dealt` as
    it was."""
    things = st["things"]
    told = [i for i, a in enumerate(places) if facts and (
        any(things[a]["counters"].get(c) not in (None, game.counters[c]["initial"]) for c in game.fact_counters)
        or any(m in game.fact_marks for m in things[a]["marks"]))]
    piles = piles or {}
    zone = [at[a][0] if a in at else None for a in places] if piles else ()

    def fits(i, b):
        return (b not in piles or zone[i] == piles[b]) and (not facts or _agrees(game, things[places[i]], b))
    told_at = set(told)
    if all(fits(i, b) for i, b in enumerate(dealt) if i in told_at or b in piles):
        return dealt
    where = {b: [i for i in range(len(places)) if fits(i, b)] for b in sorted(piles)}
    bound = sorted(piles, key=lambda b: (len(where[b]), b))
    takes = {i: [b for b in dealt if b not in piles and fits(i, b)] for i in told}
    order = sorted(told, key=lambda i: (len(takes[i]), i))
    for _ in range(TRIES):
        out, left = [None] * len(places), set(dealt)
        for b in bound:
            free = [i for i in where[b] if out[i] is None]
            if not free:
                break
            out[free[rng.below(rng_state, len(free))]] = b
            left.discard(b)
        else:
            for i in order:
                if out[i] is not None:
                    continue
                free = [b for b in takes[i] if b in left]
                if not free:
                    break
                out[i] = free[rng.below(rng_state, len(free))]
                left.discard(out[i])
            else:
                rest = [b for b in dealt if b in left]  # the places left take the rest, in the shuffled order
                for i in range(len(places)):
                    if out[i] is None:
                        out[i] = rest.pop(0)
                return out
    return dealt


def _forget(game, st, copy, seat, rng_state, hidden) -> None:
    """What the seat cannot know besides where things are: other players' secret picks made
    so far (picked again at random among their options), hidden counters it may not read
    (set back to where they start), and of a thing hidden from it, every mark and counter
    but the public ones (`facts`): they would tell the search what the seat was never shown.
    A reference is no exception (a secret target kept on a face-down card is as secret as
    a number): one that says what everyone knows of the hidden thing (whose deck its back
    says it is from) is declared `public`, and stays."""
    d = copy["pending"]
    picked = d.get("collected") if d is not None else None  # (a secret pick's, so far: Decision.picked)
    for p in list(picked or ()):
        if p != seat:
            opts = d["options"][p]
            picked[p] = opts[rng.below(rng_state, len(opts))]["id"]
    task = copy.get("task")
    snap = task.get("snap") if task is not None else None
    for things in [copy["things"]] + ([snap["things"]] if isinstance(snap, dict) else []):  # (the replay starts from the snapshot)
        for eid in hidden:
            ent = things.get(eid)
            if ent is None:
                continue
            for c, v in ent["counters"].items():
                t = game.counters[c]
                if c not in game.public_counters and v != t["initial"]:
                    ent["counters"][c] = t["initial"]
            if ent["marks"] and any(m not in game.public_marks for m in ent["marks"]):
                ent["marks"] = {m: x for m, x in ent["marks"].items() if m in game.public_marks}
    hidden_counters = [c for c, t in game.counters.items() if t["hidden"]]
    if not hidden_counters:
        return
    for c in hidden_counters:
        if c in copy["game_counters"]:  # a hidden counter of the game: nobody reads it
            copy["game_counters"][c] = game.counters[c]["initial"]
    for eid, ent in copy["things"].items():
        for c in hidden_counters:
            if c in ent["counters"] and not counter_visible(game, st, eid, c, seat):
                ent["counters"][c] = game.counters[c]["initial"]


def _renamed(v, rename):
    t = type(v)
    if t is str:
        return rename.get(v, v)
    if t is dict:
        return {rename.get(k, k) if type(k) is str else k: _renamed(x, rename) for k, x in v.items()}
    if t is list:
        return [_renamed(x, rename) for x in v]
    return v


def _renamed_state(st, rename, done=None):
    """_renamed for a state (or a task's snapshot of one), as fast as its shape allows: the
    things' entries hold numbers and words besides their zone, and the zones hold ids.

    An entry the state shares with its waiting task's snapshot (one the task has not
    changed) is renamed once and stays shared: `done`, id of an entry -> the entry renamed."""
    g = rename.get
    done = {} if done is None else done
    out = {}
    for k, v in st.items():
        if k == "things" and type(v) is dict:
            things = {}
            for eid, ent in v.items():
                new = done.get(id(ent))
                if new is None:
                    cs = type(ent) is dict and ent.get("counters")
                    if type(ent.get("zone")) is str and not ent.get("marks") and type(cs) is dict and FLAT.issuperset(map(type, cs.values())):
                        ent["zone"] = g(ent["zone"], ent["zone"])
                        if str in map(type, cs.values()):  # a counter may hold a thing's id
                            ent["counters"] = {c: g(x, x) if type(x) is str else x for c, x in cs.items()}
                        new = ent
                    else:
                        new = _renamed(ent, rename)
                    done[id(ent)] = new
                things[g(eid, eid)] = new
            out[k] = things
        elif k == "zones" and type(v) is dict:
            out[k] = {g(z, z): [g(x, x) for x in ids] if type(ids) is list and all(type(x) is str for x in ids)
                      else _renamed(ids, rename) for z, ids in v.items()}
        elif k == "task" and type(v) is dict and type(v.get("snap")) is dict:
            out[k] = {tk: _renamed_state(tv, rename, done) if tk == "snap" else _renamed(tv, rename) for tk, tv in v.items()}
        else:
            out[g(k, k) if type(k) is str else k] = _renamed(v, rename)
    return out


FLAT = {int, float, bool, str, type(None)}
