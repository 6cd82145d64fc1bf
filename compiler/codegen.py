"""The resolved model as game.json: plain tables plus effect IR, byte-identical on rebuild."""
from __future__ import annotations

import hashlib
import json

from .content import LANGUAGES, game_languages
from .icons import SPELLED_RE
from .lint import mark_names
from .model import Model

FORMAT = 1


def _plain(v):
    """Strip position-carrying types so the output is ordinary JSON values; an icon spelled
    `{icon:id}` becomes `[id]`, the one spelling the tables' readers know."""
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_plain(x) for x in v]
    if isinstance(v, str):
        return SPELLED_RE.sub(r"[\1]", v) if "{icon:" in v else str(v)
    return v


def _text(v):
    return _plain(v) if v is not None else None


def _mark_facts(listed) -> dict:
    out = {}
    for x in listed or ():
        if isinstance(x, dict):
            said = {k: {str(a): _plain(v) for a, v in x[k].items()} for k in ("tells", "rules_out") if isinstance(x.get(k), dict)}
            if said:
                out[str(x["id"])] = said
    return out


def tables(m: Model) -> dict:
    ir = m.ir
    sec = m.by_section
    g = _plain(m.game)
    protos, instances = {}, []

    def add_proto(pid, kind, d, section, copies, zone, up=True):
        p = {"kind": kind, "section": section, "name": _text(d.get("name")) or {"en": pid},
             "attrs": _plain(d.get("attrs") or {}), "count": copies}
        if d.get("text") is not None:
            p["text"] = _plain(d["text"])
        for f in ("effect", "if"):
            if (section, pid, f) in ir:
                p[f] = ir[(section, pid, f)]
        protos[pid] = p
        for i in range(copies):
            instances.append([pid if copies == 1 else f"{pid}#{i + 1}", pid, zone, up])

    for lid, d in sec["locations"].items():
        add_proto(lid, "location", d, "locations", 1, "supply", True)
        act = d.get("activation")
        if act is not None:
            protos[lid]["activation"] = {k: ir[("locations", lid, "activation." + k)]
                                         for k in ("if", "cost", "effect") if ("locations", lid, "activation." + k) in ir}
            if act.get("text") is not None:
                protos[lid]["activation"]["text"] = _plain(act["text"])
    decks = {}
    for did, d in sec["decks"].items():
        decks[did] = {"of": d.get("of", "game"), "discard": d.get("discard") or did + "_discard",
                      "reshuffle": d.get("reshuffle", True), "shuffle": d.get("shuffle", True),
                      "name": _text(d.get("name")) or {"en": did}}
        if d.get("back") is not None:
            decks[did]["back"] = _plain(d["back"])
        if d.get("face"):
            decks[did]["face"] = _plain(d["face"])
    for cid, d in sec["cards"].items():
        deck = d.get("deck")
        zone = deck if deck and decks.get(deck, {}).get("of") == "game" else "supply"
        add_proto(cid, d.get("kind") or "card", d, "cards", d.get("count", 1), zone)
        if deck:
            protos[cid]["deck"] = deck
    pools = {}
    for pid, d in sec["pools"].items():
        pools[pid] = {"of": d.get("of", "game"), "visibility": d.get("visibility", "hidden"),
                      "name": _text(d.get("name")) or {"en": pid}, "total": sum(t.get("count", 1) for t in d["tokens"])}
        for t in d["tokens"]:
            add_proto(t["id"], d.get("kind") or "token", t, "tokens", t.get("count", 1), pid if pools[pid]["of"] == "game" else "supply")
            protos[t["id"]]["pool"] = pid
    for pid, d in sec["pieces"].items():
        add_proto(pid, d["kind"], d, "pieces", d.get("count", 1), d.get("at") or "supply", True)
    locations = {}
    for lid, d in sec["locations"].items():
        locations[lid] = {"adjacent": sorted(set(d.get("adjacent") or [])),
                          "links": {l["to"]: l["distance"] for l in d.get("links") or []}}
    # links and adjacency are symmetric: a road goes both ways
    for lid, loc in locations.items():
        for other in loc["adjacent"]:
            if other in locations and lid not in locations[other]["adjacent"]:
                locations[other]["adjacent"] = sorted(locations[other]["adjacent"] + [lid])
        for other, dist in loc["links"].items():
            if other in locations:
                locations[other]["links"].setdefault(lid, dist)
    for loc in locations.values():
        loc["links"] = dict(sorted(loc["links"].items()))
    counters = {}
    for cid, d in sec["counters"].items():
        c = {"of": d.get("of", "player"), "initial": _plain(d.get("initial", 0 if d.get("type", "number") == "number" else None)),
             "type": d.get("type", "number"), "hidden": d.get("hidden", False), "name": _text(d.get("name")) or {"en": cid}}
        if d.get("public"):  # (only where said: other games' tables stay as they were)
            c["public"] = True
        for k in ("tells", "rules_out"):
            if d.get(k):
                c[k] = str(d[k])
        for k in ("min", "max", "icon", "internal"):
            if d.get(k) is not None:
                c[k] = d[k]
        if d.get("thresholds"):
            c["thresholds"] = [[t["at"], ir[("counters", cid, f"thresholds.{i}")]] for i, t in enumerate(d["thresholds"])
                               if ("counters", cid, f"thresholds.{i}") in ir]
        if ("counters", cid, "on_change") in ir:
            c["on_change"] = ir[("counters", cid, "on_change")]
        counters[cid] = c
    zones = {zid: {"of": d.get("of", "game"), "visibility": _plain(d.get("visibility", "public")),
                   "name": _text(d.get("name")) or {"en": zid}} for zid, d in sec["zones"].items()}
    actions = {}
    for aid, d in sec["actions"].items():
        a = {"name": _text(d.get("name")) or {"en": aid}}
        for k in ("phase", "limit", "window"):
            if d.get(k) is not None:
                a[k] = d[k]
        for f in ("if", "cost", "effect"):
            if ("actions", aid, f) in ir:
                a[f] = ir[("actions", aid, f)]
        if d.get("text") is not None:
            a["text"] = _plain(d["text"])
        actions[aid] = a
    procedures = {pid: {"params": list(d.get("params") or []), "effect": ir.get(("procedures", pid, "effect"), [])}
                  for pid, d in sec["procedures"].items()}
    for pid, d in sec["procedures"].items():
        if d.get("text") is not None:
            procedures[pid]["text"] = _plain(d["text"])
    triggers = {}
    for tid, d in sorted(sec["triggers"].items(), key=lambda kv: (-(kv[1].get("priority") or 0), kv[0])):
        t = {"id": tid, "effect": ir.get(("triggers", tid, "effect"), [])}
        if ("triggers", tid, "when") in ir:
            t["when"] = ir[("triggers", tid, "when")]
        if d.get("text") is not None:
            t["text"] = _plain(d["text"])
        triggers.setdefault(d["on"], []).append(t)
    flow = {}
    if m.flow is not None:
        flow = {"rounds": m.flow.get("rounds"), "first_player": m.flow.get("first_player", "random"),
                "round_name": _text(m.flow.get("round_name")) or {"en": "Round", "ru": "Раунд"},
                "max_steps": m.flow.get("max_steps", 100000), "phases": []}
        for f in ("setup", "end", "round_until"):
            if ("flow", "flow", f) in ir:
                flow[f] = ir[("flow", "flow", f)]
        for f in ("text", "end_text", "setup_text", "rounds_cap"):
            if m.flow.get(f) is not None:
                flow[f] = _plain(m.flow[f])
        for ph in m.flow.get("phases") or []:
            p = {"id": ph["id"], "mode": ph.get("mode", "once"), "name": _text(ph.get("name")) or {"en": ph["id"]}}
            for k in ("max_actions", "rotate", "text"):
                if ph.get(k) is not None:
                    p[k] = _plain(ph[k])
            p["actions"] = list(ph.get("actions") or [a for a, d in actions.items()
                                                     if d.get("phase") in (None, ph["id"]) and not d.get("window")])
            for f in ("effect", "until", "if", "can_pass"):
                if ("flow", f"phase:{ph['id']}", f) in ir:
                    p[f] = ir[("flow", f"phase:{ph['id']}", f)]
            flow["phases"].append(p)
    scoring = {}
    if m.scoring is not None:
        scoring = {"tie": m.scoring.get("tie", "share")}
        if m.scoring.get("text") is not None:
            scoring["text"] = _plain(m.scoring["text"])
        for f in ("effect", "score", "tiebreak", "faction", "wins"):
            if ("scoring", "scoring", f) in ir:
                scoring[f] = ir[("scoring", "scoring", f)]
    heuristic = ir.get(("game", "game", "heuristic"))
    bot = None
    if m.bot is not None:
        bot = {"cooperative": bool(m.bot.get("cooperative", False)),
               "terms": [{"value": ir[("bot", f"term:{i}", "heuristic")], "weight": t["weight"]}
                         for i, t in enumerate(m.bot.get("terms") or [])]}
    out = {
        "format": FORMAT,
        "game": {"id": g.get("id"), "name": g.get("name"), "version": g.get("version"), "players": g.get("players"),
                 "summary": g.get("summary"), "notes": g.get("notes") or [],
                 "options": {k: v.get("default") for k, v in (g.get("options") or {}).items()},
                 **({"option_texts": {k: _plain(v["text"]) for k, v in g["options"].items() if v.get("text")}}
                    if any(v.get("text") for v in (g.get("options") or {}).values()) else {}),
                 # the languages of its rulebooks, where it declares fewer than all
                 **({"languages": list(game_languages(g))} if game_languages(g) != LANGUAGES else {}),
                 **({"terms": {k: _plain(v) for k, v in g["terms"].items()}} if g.get("terms") else {}),
                 **({"public_marks": sorted(str(x) for x in mark_names(g["public_marks"]))} if g.get("public_marks") else {}),
                 # what a public mark tells of its thing: mark -> {"tells" or "rules_out": {attribute: value}}
                 **({"mark_facts": _mark_facts(g["public_marks"])} if _mark_facts(g.get("public_marks")) else {}),
                 # (only where the game lays its table out: other games' tables stay as they were)
                 **({"table": _plain(g["table"])} if g.get("table") else {})},
        "counters": counters, "zones": zones, "decks": decks, "pools": pools, "locations": locations,
        "protos": protos, "instances": instances, "actions": actions, "procedures": procedures,
        "triggers": triggers, "flow": flow, "scoring": scoring, "heuristic": heuristic,
        "icons": {i: _plain(d) for i, d in sec["icons"].items()},
    }
    if bot is not None:  # (only where the content has the section: other games' tables stay as they were)
        out["bot"] = bot
    forms = _forms_given(out)
    if forms:  # (only where a name gives its forms by hand: other games' tables stay as they were)
        out["forms"] = forms
    return out


_NAMED = ("protos", "counters", "zones", "decks", "pools", "actions", "icons")


def _forms_given(out: dict) -> dict:
    """A name's case forms given by hand (`name: {ru: {nom: …, gen: …}}`) leave the name as its
    nominative, which is all the runtime and the table read, and are kept apart for the
    rulebooks: language -> nominative -> forms."""
    forms: dict = {}

    def flat(name):
        if not isinstance(name, dict):
            return name
        for lang, v in list(name.items()):
            if isinstance(v, dict):
                name[lang] = v["nom"]
                forms.setdefault(lang, {})[v["nom"]] = v
        return name

    for section in _NAMED:
        for entry in (out.get(section) or {}).values():
            if isinstance(entry, dict):
                flat(entry.get("name"))
    for ph in (out.get("flow") or {}).get("phases") or []:
        flat(ph.get("name"))
    for term in ((out.get("game") or {}).get("terms") or {}).values():
        flat(term)
    return forms


def to_json(t: dict) -> str:
    """Canonical text: sorted keys, no floats formatted by locale, a content hash inside."""
    split = pieces(t)
    if split is None:  # keys that are not strings: the plain way
        body = json.dumps(t, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        t = dict(t)
        t["content_hash"] = content_hash(body)
        return _dump(t, 0) + "\n"
    layout, values = split
    encoded = encode(values)
    return text_of(layout, encoded, content_hash(body_of(layout, encoded)))


# The text is made in parts: `pieces` lays it out and
# lists the values encoded one by one, `encode` encodes any share of them, and `body_of`
# and `text_of` put them together. The hashed text (the body) is the compact dump of the
# whole; the written text shares every value below the second level with it, so each of
# those is encoded once for both.

def pieces(t: dict):
    """(layout, values) of game.json's text: for each key at the top, in order, the keys
    below it that are written one per line (or None), and every value encoded on its own,
    in the order of the text. None when a key there is not a string (json would write it
    differently)."""
    if not all(isinstance(k, str) for k in t):
        return None
    layout, values = [], []
    for k in sorted(t):
        x = t[k]
        if isinstance(x, dict) and x:
            if not all(isinstance(kk, str) for kk in x):
                return None
            keys = sorted(x)
            layout.append((k, keys))
            values += [x[kk] for kk in keys]
        else:
            layout.append((k, None))
            values.append(x)
    return layout, values


def encode(values: list) -> list[str]:
    return [_COMPACT(v) for v in values]


def body_of(layout, encoded: list[str]) -> str:
    """The compact text of the whole, whose hash is game.json's content_hash."""
    out, i = ["{"], 0
    for k, keys in layout:
        out += (_key(k), ":")
        if keys is None:
            out.append(encoded[i])
            i += 1
        else:
            out.append("{")
            for kk in keys:
                out += (_key(kk), ":", encoded[i], ",")
                i += 1
            out[-1] = "}"
        out.append(",")
    out[-1] = "}"
    return "".join(out)  # one string made once: a text this big costs most in fresh memory


def text_of(layout, encoded: list[str], content_hash: str) -> str:
    """game.json's text: two levels of keys one per line (readable diffs), everything
    deeper on one line."""
    tops, i = [("content_hash", [_key(content_hash)])], 0
    for k, keys in layout:
        if keys is None:
            part = [encoded[i]]
            i += 1
        else:
            part = ["{\n"]
            for kk in keys:
                part += ("  ", _key(kk), ": ", encoded[i], ",\n")
                i += 1
            part[-1] = "\n }"
        if k != "content_hash":  # (the hash of the rest takes its place)
            tops.append((k, part))
    out = ["{\n"]
    for k, part in sorted(tops, key=lambda kp: kp[0]):
        out += (" ", _key(k), ": ", *part, ",\n")
    out[-1] = "\n}\n"
    return "".join(out)


def read_body(body: str, content_hash: str) -> dict:
    """The tables as reading game.json gives them, from its body: the same values, keys in
    the same order."""
    read = json.loads(body)
    read["content_hash"] = content_hash
    return dict(sorted(read.items()))


def content_hash(body: str) -> str:
    return hashlib.sha256(body.encode("utf-8")).hexdigest()[:16]


def _compact_encoder():
    """json.dumps(v, sort_keys=True, ensure_ascii=False, separators=(",", ":")), with the C
    encoder made once rather than per value, and without the check for circular references
    (a quarter of the time): the loader refuses an alias that refers to itself, so tables
    have none."""
    from json import encoder
    if encoder.c_make_encoder is None:
        return json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode
    make = encoder.c_make_encoder(None, json.JSONEncoder().default, encoder.encode_basestring, None,
                                  ":", ",", True, False, True)
    return lambda v: "".join(make(v, 0))


_COMPACT = _compact_encoder()
_key = json.JSONEncoder(ensure_ascii=False).encode


def _dump(v, depth):
    """Two levels of keys one per line (readable diffs), everything deeper on one line."""
    if isinstance(v, dict) and v and depth < 2:
        pad = " " * (depth + 1)
        inner = (",\n").join(f"{pad}{json.dumps(k, ensure_ascii=False)}: {_dump(v[k], depth + 1)}" for k in sorted(v))
        return "{\n" + inner + "\n" + " " * depth + "}"
    return json.dumps(v, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
