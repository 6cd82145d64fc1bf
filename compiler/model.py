"""From loaded sections to the resolved game model: ids linked, effects parsed and checked."""
from __future__ import annotations

from .content import GameSource, LIST_SECTIONS, RowBlock
from .diagnostics import Pos, Report, did_you_mean
from . import dsl, secrecy
from .dsl import DslError, parse, parse_expr
from .icons import check_icons
from .lint import lint
from .names import AGGREGATES, BUILTIN_ATTRS, BUILTIN_NAMES, EVENTS, FUNCTIONS
from ..runtime import ir
from ..runtime.ir import view
from ..runtime.analysis import ir_nodes as _walk

from .source import PList, PMap, PStr

BUILTIN_KINDS = ("player", "location", "card", "token")
BUILTIN_ZONES = ("supply", "removed")
EFFECT_FIELDS = {"effect", "cost", "setup", "on_change"}
EXPR_FIELDS = {"if", "when", "until", "round_until", "end", "score", "tiebreak", "heuristic", "faction", "wins"}
_SITE_FIELDS = sorted(EFFECT_FIELDS | EXPR_FIELDS)
_SITE_SET = frozenset(_SITE_FIELDS)


def _pos(node, key=None) -> Pos:
    if key is not None and isinstance(node, PMap):
        return node.val_pos.get(key) or node.pos
    return getattr(node, "pos", None) or Pos("?", 0, 0)


class Model:
    """Everything the code generator needs, already checked."""

    def __init__(self, src: GameSource):
        self.src = src
        self.game = dict(src.single.get("game") or {})
        self.flow = src.single.get("flow")
        self.scoring = src.single.get("scoring")
        self.bot = src.single.get("bot")
        self.ids: dict[str, tuple[str, Pos]] = {}        # id -> (section, position)
        self.by_section = {s: {} for s in LIST_SECTIONS}  # section -> id -> PMap
        self.kinds: set[str] = set(BUILTIN_KINDS)
        self.attrs: set[str] = set(BUILTIN_ATTRS)
        self.counters_of: dict[str, str] = {}             # counter id -> scope
        self.zones_of: dict[str, str] = {}                # zone/deck id -> scope
        self.emitted: dict[str, set] = {}                 # custom event -> names bound
        self.used_names: set[str] = set()
        self.calls: set[str] = set()
        self.ir: dict = {}                                # (section, id, field) -> IR
        self.facts: dict = {}                             # (section, id, field) -> Facts of its IR
        self.statements: dict = {}                        # a statement's position -> (op, its text, index): see said
        self.sites: list = []                             # every DSL text: see _effect_sites
        self.shown_of: dict = {}                          # a file's name in IR positions -> its shown path
        self.pooled: dict | None = None                   # see build_model
        self.known: dict | None = None                    # see build_model
        self._known: set | None = None
        self.marks_by_file: dict = {}                     # file -> marks its effects set or test: see lint

    def checker_known(self) -> set:
        """Every name any effect may use (once the effects' events are known): made once."""
        if self._known is None:
            opts = set((self.game.get("options") or {}).keys())
            self._known = (set(BUILTIN_NAMES) | set(self.ids) | set(self.counters_of)
                           | set(self.zones_of) | opts | set(self.emitted.get("__all__", ())))
        return self._known


def build_model(src: GameSource, report: Report, only=None, check=True, pooled=None, known=None) -> Model:
    """`only`: the files whose findings are wanted (all when None). Checks that look at one
    file at a time skip the others; checks across files still read every file.
    `check=False`, for a game whose findings are known: the checks that only report are left
    out (the effects are still parsed, and what they are parsed into is the same).
    `pooled`: what effects the game has but `src` leaves out use ({"n": names, "e": {event:
    names given}}), as the validation cache keeps it for unchanged files; `known`: the
    facts of effects `src` holds only as facts ({(section, id, field): facts}), the same way."""
    m = Model(src)
    m.pooled, m.known = pooled, known
    _collect_ids(m, report)
    _check_references(m, report, only)
    _parse_effects(m, report, check)
    if check:
        _unused(m, report)
        lint(m, report, only)
        check_icons(m.src, m.by_section["icons"], report, only)
    return m


def _collect_ids(m: Model, report: Report) -> None:
    ids = m.ids
    row_types = []  # (attribute, type) of entries known as rows
    for section in LIST_SECTIONS:
        mine = m.by_section[section]
        for item in m.src.items[section]:
            d = item.data
            if type(d) is RowBlock:
                _claim_rows(m, report, section, d.rows, item.file)
                row_types += zip(d.types[0::2], d.types[1::2])
                continue
            iid = d.get("id")
            if not isinstance(iid, str):
                continue
            if section == "pools":
                for tok in d.get("tokens") or []:
                    if isinstance(tok, PMap) and isinstance(tok.get("id"), str):
                        _claim(m, report, tok["id"], "tokens", _pos(tok, "id"))
                        m.by_section.setdefault("tokens", {})[tok["id"]] = tok
            if iid in BUILTIN_NAMES or iid in BUILTIN_ZONES:
                report.error(_pos(d, "id"), "R003", f"`{iid}` is a built-in name of the effect language; choose another id")
                continue
            if iid in ids or type(d) is not PMap:
                _claim(m, report, iid, section, _pos(d, "id"))
            else:  # _claim of a new id, inline: a big game has tens of thousands
                ids[iid] = (section, d.val_pos.get("id") or d.pos)
            mine[iid] = d
    for d in m.by_section["counters"].values():
        m.counters_of[d["id"]] = d.get("of", "player")
    for sec in ("zones", "decks"):
        for d in m.by_section[sec].values():
            m.zones_of[d["id"]] = d.get("of", "game")
    default_kind = {"cards": "card", "pieces": "piece", "pools": "token", "locations": "location", "tokens": "token"}
    for sec in ("cards", "pieces", "pools"):
        m.kinds.update(d.get("kind") or default_kind[sec] for d in m.by_section[sec].values())
    m.attr_types = attr_types = {}
    pairs = []  # (attribute, type) of every entry's attributes
    scoped = set(m.counters_of) | set(m.zones_of)
    for sec in ("cards", "pieces", "locations", "tokens"):
        for d in (m.by_section.get(sec) or {}).values():
            attrs = d.get("attrs")
            if not attrs:
                continue
            for k, v in attrs.items():
                pairs.append((k, attr_type(v, ids)))
                if k in scoped:
                    kind = d.get("kind") or default_kind[sec]
                    if m.counters_of.get(k) == kind or m.zones_of.get(k) == kind:
                        report.warning(attrs.key_pos.get(k, _pos(d)), "W004",
                                       f"attribute `{k}` has the name of a counter or zone, which `x.{k}` reads first; rename one")
    for k, t in pairs + row_types:
        types = attr_types.get(k)
        if types is None:
            m.attrs.add(k)
            types = attr_types[k] = set()
        types.add(t)
    m.attrs.update(k for k, s in m.counters_of.items() if s != "game")
    m.attrs.update(k for k, s in m.zones_of.items() if s != "game")
    m.attrs.update(k + "_discard" for k, s in m.zones_of.items() if s != "game" and k in m.by_section["decks"])


def _claim_rows(m, report, section, rows, file) -> None:
    """Entries known as rows (see content.Rows): their ids claimed in order, each standing in
    by_section as a map of its kind alone."""
    ids, mine, stand_in = m.ids, m.by_section[section], {}

    def of_kind(kind):
        d = stand_in.get(kind)
        if d is None:
            d = stand_in[kind] = PMap() if kind is None else PMap(kind=kind)
            d.pos, d.key_pos, d.val_pos = Pos(file, 0, 0), {}, {}
        return d
    names = [r[0] for r in rows]
    if all(r[3] is None for r in rows) and ids.keys().isdisjoint(names) and len(set(names)) == len(names):
        # the usual: no id claimed before, and no kind: the same, a table at a time
        ids.update(zip(names, [(section, _new_pos(Pos, (file, r[1], r[2]))) for r in rows]))
        mine.update(dict.fromkeys(names, of_kind(None)))
        return
    for iid, line, col, kind in rows:
        if iid in ids:
            _claim(m, report, iid, section, Pos(file, line, col))
        else:
            ids[iid] = (section, _new_pos(Pos, (file, line, col)))
        mine[iid] = of_kind(kind)


_new_pos = tuple.__new__  # Pos(...) without the Python-level constructor: one per row adds up


def attr_type(v, ids) -> str:
    """The type of an attribute's value; text naming a thing of the game (a location, say)
    is a reference to it."""
    t = _TYPE_OF.get(type(v)) or _value_type(v)
    if t == "text" and isinstance(v, str) and v in ids:
        return "thing"
    return t


_TYPE_OF = {bool: "bool", int: "number", float: "number", list: "list", str: "text", PStr: "text"}


def _value_type(v) -> str:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, list):
        return "list"
    return "text"


_FN_TYPES = {name: f.gives for name, f in ir.FUNCTIONS.items() if f.gives != "unknown"}
_BUILTIN_ATTR_TYPES = {name: a.gives for name, a in ir.THING_ATTRIBUTES.items()}
_NAME = ir.at("name", "name")
_NOT_A_NUMBER = {"text", "zone", "thing"}
_NOT_A_COLLECTION = {"number", "bool", "text", "none"}
_NOT_A_PLACE = {"number", "bool", "text", "list", "none"}


def _claim(m, report, iid, section, pos):
    if iid in m.ids:
        sec0, pos0 = m.ids[iid]
        report.error(pos, "R001", f"id `{iid}` is already used by a {sec0[:-1] if sec0.endswith('s') else sec0} at {pos0}; ids are unique across the whole game")
    else:
        m.ids[iid] = (section, pos)


def _ref(m, report, node, key, sections, what):
    val = node.get(key)
    if val is None:
        return
    if not any(val in m.by_section.get(s, ()) for s in sections if isinstance(val, str)):
        ok = [i for s in sections for i in m.by_section.get(s, {})]
        report.error(_pos(node, key), "R002", f"unknown {what} `{val}`{did_you_mean(val, ok)}")


def _check_face(m, report, did, deck) -> None:
    """A deck's `face:` promotes attributes its cards have: one no card of it has would print nothing."""
    face = deck.get("face")
    if not isinstance(face, PMap):
        return
    have = sorted({k for c in m.by_section["cards"].values() if c.get("deck") == did for k in (c.get("attrs") or {})})
    if isinstance(face.get("corner"), str) and face["corner"] not in have:
        report.error(_pos(face, "corner"), "R002", f"unknown attribute `{face['corner']}`: no card of deck `{did}` has it"
                                                    f"{did_you_mean(face['corner'], have)}")
    stats = face.get("stats")
    for i, a in enumerate(stats if isinstance(stats, PList) else []):
        if isinstance(a, str) and a not in have:
            report.error(stats.item_pos[i], "R002", f"unknown attribute `{a}`: no card of deck `{did}` has it{did_you_mean(a, have)}")


def _check_table(m, report, g) -> None:
    """The online table's layout names zones the game has, and puts locations on its map."""
    table = g.get("table") if isinstance(g, PMap) else None
    if not isinstance(table, PMap):
        return
    zones = sorted(set(m.zones_of) | set(m.by_section["decks"]) | set(m.by_section["pools"]) | set(m.by_section["locations"])
                   | set(BUILTIN_ZONES))
    hidden = table.get("hidden")
    for i, z in enumerate(hidden if isinstance(hidden, PList) else []):
        if isinstance(z, str) and z not in zones:
            report.error(hidden.item_pos[i], "R002", f"unknown zone `{z}`{did_you_mean(z, zones)}")
    where = table.get("map")
    if isinstance(where, PMap):
        seen = {}
        for loc, at in where.items():
            if loc not in m.by_section["locations"]:
                report.error(_pos(where, loc), "R002", f"unknown location `{loc}`: the map places locations"
                                                        f"{did_you_mean(loc, m.by_section['locations'])}")
            elif isinstance(at, PList) and len(at) == 2 and tuple(at) in seen:
                report.error(_pos(where, loc), "R008", f"`{loc}` and `{seen[tuple(at)]}` are both at {list(at)} on the "
                                                        f"table's map: give each its own column and row")
            if isinstance(at, PList) and len(at) == 2:
                seen.setdefault(tuple(at), loc)


def _check_scope(m, report, node, key="of"):
    val = node.get(key)
    if val is None or val in ("game", "player") or val in m.kinds:
        return
    report.error(_pos(node, key), "R002", f"unknown owner `{val}`: use game, player or a kind ({', '.join(sorted(m.kinds))}){did_you_mean(val, m.kinds)}")


def _check_references(m: Model, report: Report, only=None) -> None:
    g = m.src.single.get("game")
    if g is not None:
        pl = g.get("players") or {}
        if isinstance(pl, PMap) and isinstance(pl.get("min"), int) and isinstance(pl.get("max"), int) and pl["min"] > pl["max"]:
            report.error(_pos(pl), "R004", f"players: min {pl['min']} is more than max {pl['max']}")
    if m.flow is None and g is not None:
        report.error(_pos(g), "G005", "the game has no `flow:` section (setup, rounds, phases)")
    if m.scoring is None and g is not None:
        report.error(_pos(g), "G006", "the game has no `scoring:` section")
    # A card's deck is checked where its findings are wanted: a game's cards are most of it.
    decks = m.by_section["decks"]
    for d in m.by_section["cards"].values():
        deck = d.get("deck")
        if deck is not None and not (isinstance(deck, str) and deck in decks) and (only is None or d.pos.file in only):
            _ref(m, report, d, "deck", ["decks"], "deck")
    for sec in ("counters", "zones", "decks", "pools"):
        for d in m.by_section[sec].values():
            _check_scope(m, report, d)
    _check_visibility(m, report, g)
    for did, d in m.by_section["decks"].items():
        if d.get("discard") is not None:
            _ref(m, report, d, "discard", ["zones", "decks"], "discard pile")
        _check_face(m, report, did, d)
    for d in m.by_section["pieces"].values():
        at = d.get("at")
        places = list(m.by_section["locations"]) + [z for z, s in m.zones_of.items() if s == "game"] + list(BUILTIN_ZONES)
        if at is not None and at not in places:
            report.error(_pos(d, "at"), "R002", f"unknown place `{at}`: a location or a game zone{did_you_mean(at, places)}")
    _check_table(m, report, g)
    for d in m.by_section["locations"].values():
        for i, a in enumerate(d.get("adjacent") or []):
            if a not in m.by_section["locations"]:
                report.error(d["adjacent"].item_pos[i], "R002", f"unknown location `{a}`{did_you_mean(a, m.by_section['locations'])}")
        for link in d.get("links") or []:
            if isinstance(link, PMap):
                _ref(m, report, link, "to", ["locations"], "location")
    for d in m.by_section["pools"].values():
        total = d.get("total")
        counted = sum(t.get("count", 0) for t in d.get("tokens") or [] if isinstance(t, PMap) and isinstance(t.get("count"), int))
        if isinstance(total, int) and total != counted:
            report.error(_pos(d, "total"), "R005", f"pool `{d['id']}` says {total} tokens but its tokens add up to {counted}")
    phases = {}
    if isinstance(m.flow, PMap):
        for ph in m.flow.get("phases") or []:
            if isinstance(ph, PMap) and isinstance(ph.get("id"), str):
                phases[ph["id"]] = ph
                for i, a in enumerate(ph.get("actions") or []):
                    if a not in m.by_section["actions"]:
                        report.error(ph["actions"].item_pos[i], "R002", f"unknown action `{a}`{did_you_mean(a, m.by_section['actions'])}")
                if ph.get("mode") == "turns" and not ph.get("actions") and not any(
                        (a.get("phase") in (None, ph["id"])) and not a.get("window") for a in m.by_section["actions"].values()):
                    report.error(_pos(ph), "R006", f"phase `{ph['id']}` gives turns but no action can be taken in it")
    for d in m.by_section["actions"].values():
        if d.get("phase") is not None and d["phase"] not in phases:
            report.error(_pos(d, "phase"), "R002", f"unknown phase `{d['phase']}`{did_you_mean(d['phase'], phases)}")
    for d in m.by_section["counters"].values():
        lo, hi, ini = d.get("min"), d.get("max"), d.get("initial")
        if isinstance(lo, (int, float)) and isinstance(hi, (int, float)) and lo > hi:
            report.error(_pos(d, "min"), "R004", f"counter `{d['id']}`: min {lo} is more than max {hi}")
        if isinstance(ini, (int, float)) and not isinstance(ini, bool):
            if (isinstance(lo, (int, float)) and ini < lo) or (isinstance(hi, (int, float)) and ini > hi):
                report.error(_pos(d, "initial"), "R004", f"counter `{d['id']}` starts at {ini}, outside its bounds")
    m.phases = phases


def _check_visibility(m, report, g) -> None:
    """Who sees what, as the designer says it, must name someone the game has (R007)."""
    most = (g.get("players") or {}).get("max") if g is not None and isinstance(g.get("players"), PMap) else None
    for d in m.by_section["zones"].values():
        vis, of = d.get("visibility"), d.get("of", "game")
        if vis in ("owner", "others") and of != "player":
            whom = "its player" if vis == "owner" else "every player but its own"
            report.error(_pos(d, "visibility"), "R007", f"`visibility: {vis}` shows the zone to {whom}, but a zone "
                                                        f"`of: {of}` belongs to no player: write `of: player`, or name "
                                                        "the seats (`visibility: [p1, p2]`)")
        elif isinstance(vis, list) and isinstance(most, int):
            for i, seat in enumerate(vis):
                if isinstance(seat, str) and seat[1:].isdigit() and int(seat[1:]) > most:
                    report.error(d["visibility"].item_pos[i], "R007", f"no seat `{seat}`: the game has at most {most} players")
    for d in m.by_section["counters"].values():
        for k in ("tells", "rules_out"):
            attr = d.get(k)
            if attr is None:
                continue
            if not d.get("public"):
                report.error(_pos(d, k), "R007", f"`{k}` says what a hidden thing is from a fact everyone sees: "
                                                 f"counter `{d['id']}` needs `public: true`")
            elif isinstance(attr, str) and attr not in m.attr_types:
                report.error(_pos(d, k), "R002", f"unknown attribute `{attr}`{did_you_mean(attr, m.attr_types)}")
        if not d.get("public"):
            continue
        if d.get("hidden"):
            report.error(_pos(d, "public"), "R007", f"counter `{d['id']}` is both `hidden` (its owner alone sees it) and "
                                                    "`public` (everyone sees it): keep one")
        elif d.get("of", "player") in ("game", "player"):
            report.error(_pos(d, "public"), "R007", f"`public` shows a counter of a thing while the thing is hidden; "
                                                    f"counter `{d['id']}` is of {d.get('of', 'player')}, which everyone sees: "
                                                    "leave `public` out")
    for item in (g.get("public_marks") if g is not None and isinstance(g.get("public_marks"), list) else ()):
        for k in ("tells", "rules_out"):
            said = item.get(k) if isinstance(item, PMap) else None
            for attr in (said if isinstance(said, PMap) else ()):
                if attr not in m.attr_types:
                    report.error(said.key_pos.get(attr, _pos(item, k)), "R002",
                                 f"unknown attribute `{attr}`{did_you_mean(attr, m.attr_types)}")


# ---- effects ---------------------------------------------------------------

# the names an entry's effects have bound, by its section (a procedure's are its parameters,
# a trigger's those its event gives)
_BOUND = {"cards": ("this", "card"), "pieces": ("this", "piece"), "locations": ("this", "here"),
          "counters": ("this", "owner", "old", "new"), "actions": ("this",)}


def _effect_sites(m: Model):
    """(section, id, field, text, bound names, is_expr) for every DSL text in the game."""
    for sec in LIST_SECTIONS:
        for iid, d in m.by_section[sec].items():
            here = _SITE_SET.intersection(d)
            if not here and sec not in ("locations", "counters"):
                continue  # nothing to parse here; a big game has thousands of such items
            bound = _BOUND.get(sec, ())
            if sec == "actions" and d.get("window"):
                bound = bound + ("actor",)
            if sec == "procedures":
                bound = tuple(d.get("params") or ())
            elif sec == "triggers":
                on = d.get("on")
                bound = tuple(EVENTS.get(on, ())) + tuple(m.emitted.get(on, ()))
            for f in sorted(here) if len(here) > 1 else here:  # (in the order of _SITE_FIELDS)
                if isinstance(d[f], (str, bool, int, float)) and not (sec == "counters" and f == "initial"):
                    yield sec, iid, f, d[f], bound, f in EXPR_FIELDS, d
            if sec == "locations" and isinstance(d.get("activation"), PMap):
                act = d["activation"]
                for f in ("if", "cost", "effect"):
                    if isinstance(act.get(f), (str, bool, int, float)):
                        yield sec, iid, "activation." + f, act[f], bound, f == "if", act
            if sec == "counters":
                for i, th in enumerate(d.get("thresholds") or []):
                    if isinstance(th, PMap) and isinstance(th.get("effect"), str):
                        yield sec, iid, f"thresholds.{i}", th["effect"], bound, False, th
    g = m.src.single.get("game")
    if isinstance(g, PMap) and g.get("heuristic") is not None:
        yield "game", "game", "heuristic", g["heuristic"], (), True, g
    if isinstance(m.flow, PMap):
        for f in ("setup", "end", "round_until"):
            if m.flow.get(f) is not None:
                yield "flow", "flow", f, m.flow[f], (), f != "setup", m.flow
        for ph in m.flow.get("phases") or []:
            if isinstance(ph, PMap):
                for f in ("effect", "until", "if", "can_pass"):
                    if ph.get(f) is not None:
                        yield "flow", f"phase:{ph.get('id')}", f, ph[f], ("phase",), f != "effect", ph
    if isinstance(m.scoring, PMap):
        for f in ("effect", "score", "tiebreak", "faction", "wins"):
            if m.scoring.get(f) is not None:
                yield "scoring", "scoring", f, m.scoring[f], (), f != "effect", m.scoring
    if isinstance(m.bot, PMap):  # the search bot's terms: expressions like the heuristic, checked like it
        for i, term in enumerate(m.bot.get("terms") or []):
            if isinstance(term, PMap) and term.get("value") is not None:
                yield "bot", f"term:{i}", "heuristic", term["value"], (), True, term


def _where(text, node, field):
    if isinstance(text, PStr):
        return text.at
    p = _pos(node, field.split(".")[-1])
    return lambda line, col: Pos(p.file, p.line, p.col + col - 1)


def facts(ir, is_expr: bool) -> tuple:
    """What an effect names, calls and emits, from one walk of its IR:
    (names, procedures called, {event: names given}). Names include what is called and
    the counters gained, lost or paid."""
    names, calls, emits = set(), set(), {}
    for n in _walk([ir] if is_expr else ir):
        op = n[0]
        if op in ("name", "every", "call", "gen"):
            v = view(n)
            names.add(v.name if op == "name" else v.kind if op == "every" else v.function)
            if op in ("call", "gen"):
                calls.add(v.function)
        elif op in ("gain", "lose", "pay"):
            names.add(view(n).counter)
        elif op == "emit":
            v = view(n)
            emits.setdefault(v.event, set()).update(v.given)
        elif op == "offer":  # a window's actions see the names an offer gives, as triggers an event's
            v = view(n)
            emits.setdefault(_WINDOW + v.window, set()).update(v.given)
    return names, calls, emits


_WINDOW = "window:"  # the key, among emitted events, of the names offers give a window's actions


_STATEMENT_FACTS: dict[str, tuple] = {}  # statement text -> its facts (positions play no part)


def _parse_one(site):
    """("ok", IR, facts, texts) or ("error", position, code, message). `texts` lists (statement text, number of top-level statements it gave) for an
    effect made from known statements, else it is empty."""
    sec, iid, field, text, bound, is_expr, node = site
    if isinstance(text, bool) or isinstance(text, (int, float)):
        ir = ["num", dsl.ir_pos(_pos(node, field.split('.')[-1])), text]
        return "ok", ir, facts(ir, True), ()
    met = []
    try:
        ir = (parse_expr if is_expr else parse)(text, _where(text, node, field), met)
    except DslError as exc:
        return "error", tuple(exc.pos), exc.code, exc.message
    if not met:
        return "ok", ir, facts(ir, is_expr), ()
    # from the statements the text is made of, each worked out once
    names, calls, emits, at = set(), set(), {}, 0
    body = [ir] if is_expr else ir  # (an expression is one statement, `return <expr>`)
    for piece, n in met:
        got = _STATEMENT_FACTS.get(piece)
        if got is None:
            got = facts(body[at:at + n], False)
            if len(_STATEMENT_FACTS) < 100_000:
                _STATEMENT_FACTS[piece] = got
        at += n
        names |= got[0]
        calls |= got[1]
        for event, given in got[2].items():
            emits.setdefault(event, set()).update(given)
    return "ok", ir, (names, calls, emits), () if is_expr else met


def _parse_effects(m: Model, report: Report, check: bool = True) -> None:
    named = m.src.sources()
    dsl.sources(named)
    m.shown_of = {name: shown for shown, name in named.items()}
    sites = m.sites = list(_effect_sites(m))
    results = [_parse_one(site) for site in sites]
    parsed = []
    for (sec, iid, field, text, bound, is_expr, node), result in zip(sites, results):
        if result[0] == "error":
            report.error(Pos(*result[1]), result[2], result[3])
            m.unparsed = True  # what it calls is unknown: nothing is said never to be called (W001)
            continue
        _, ir, m.facts[(sec, iid, field)], pieces = result
        at = 0
        for piece, n in pieces:  # each top-level statement by its position (see said)
            for j in range(n):
                m.statements[ir[at][1]] = (ir[at][0], piece, j)
                at += 1
        parsed.append((sec, iid, field, ir, bound, is_expr))
        # emitted events and their names, needed before triggers are checked
        for event, names in result[2][2].items():
            m.emitted.setdefault(event, set()).update(names)
    for event, names in (m.pooled or {}).get("e", {}).items():
        m.emitted.setdefault(event, set()).update(names)
    for key, found in (m.known or {}).items():  # an effect known by its facts: nothing to check
        m.facts[key], m.ir[key] = found, []
        for event, names in found[2].items():
            m.emitted.setdefault(event, set()).update(names)
    # triggers may bind names of custom events: recompute their bound names now
    for i, (sec, iid, field, ir, bound, is_expr) in enumerate(parsed):
        if sec == "triggers":
            on = m.by_section["triggers"][iid].get("on")
            bound = tuple(EVENTS.get(on, ())) + tuple(sorted(m.emitted.get(on, ())))
            parsed[i] = (sec, iid, field, ir, bound, is_expr)
        elif sec == "actions" and isinstance(m.by_section["actions"][iid].get("window"), str):
            given = m.emitted.get(_WINDOW + m.by_section["actions"][iid]["window"], ())
            parsed[i] = (sec, iid, field, ir, tuple(bound) + tuple(sorted(set(given) - set(bound))), is_expr)
    for d in m.by_section["triggers"].values():
        on = d.get("on")
        if isinstance(on, str) and on not in EVENTS and on not in m.emitted and not on.startswith("counter_"):
            report.error(_pos(d, "on"), "R002", f"unknown event `{on}`: no effect emits it{did_you_mean(on, list(EVENTS) + list(m.emitted))}")
    procs = m.by_section["procedures"]
    if not check:
        for sec, iid, field, ir, bound, is_expr in parsed:
            m.ir[(sec, iid, field)] = ir
        return
    m.checker_known()
    clean = {}  # a statement met again with the same names in scope is not checked again (_Checker.effect)
    for sec, iid, field, ir, bound, is_expr in parsed:
        ck = _Checker(m, report, set(bound))
        if is_expr:
            ck.expr(ir)
        else:
            ck.effect(ir, bound, clean)
        m.ir[(sec, iid, field)] = ir
    _recursion(m, report, procs)
    secrecy.check(m, report, parsed)


def _recursion(m, report, procs):
    """A procedure that calls itself, directly or not, could run forever: refuse it."""
    graph = {}
    for pid in procs:
        called = m.facts.get(("procedures", pid, "effect"), ((), (), {}))[1]
        graph[pid] = {p for p in called if p in procs}
    state = {}

    def visit(p, path):
        state[p] = 1
        for q in sorted(graph.get(p, ())):
            if state.get(q) == 1:
                cyc = path[path.index(q):] + [q] if q in path else [p, q]
                report.error(_pos(procs[q], "id"), "D020", f"procedure `{q}` calls itself ({' -> '.join(cyc)}); effects must finish, so use `repeat` or `while`")
            elif q not in state:
                visit(q, path + [q])
        state[p] = 2

    for p in sorted(graph):
        if p not in state:
            visit(p, [p])


_TYPE_WORDS = {"text": "text", "zone": "a zone", "thing": "a thing (card, piece, place or player)",
               "number": "a number", "bool": "true/false", "list": "a list", "none": "`none`"}


class _Checker:
    """Resolves every name in an effect and checks verbs get what they need."""

    def __init__(self, m: Model, report: Report, bound: set):
        self.m, self.report = m, report
        self.top = set(bound)

    def err(self, node, code, msg):
        f, l, c = node[1].rsplit(":", 2)
        self.report.error(Pos(self.m.shown_of.get(f, f), int(l), int(c)), code, msg)

    def known(self, scope):
        return scope | self.m.checker_known()

    def copy(self, e, n):
        """`guard#2`: copy 2 of a card, piece or token of `count:` 2 or more (see codegen)."""
        base, k = n.split("#", 1)
        for sec in ("cards", "pieces", "tokens"):
            d = (self.m.by_section.get(sec) or {}).get(base)
            if d is not None:
                count = d.get("count", 1) if hasattr(d, "get") else 1
                if isinstance(count, int) and count > 1 and 1 <= int(k) <= count:
                    return
                copies = f"`{base}#1` to `{base}#{count}`" if isinstance(count, int) and count > 1 else f"just `{base}`"
                self.err(e, "D032", f"no copy `{n}`: the copies of `{base}` are {copies}")
                return
        self.err(e, "D013", f"unknown name `{n}`: `{base}` is no card, piece or token{did_you_mean(base, self.m.ids)}")

    def block(self, stmts, scope):
        scope = set(scope)
        for s in stmts or []:
            self.stmt(s, scope)

    def effect(self, stmts, bound, clean: dict) -> None:
        """An effect's statements, each checked once for the same text and the same names in
        scope: effects repeat their statements, and what checking one finds follows from
        those two and the model alone. `clean` keeps, for each (text, index, names) that
        was found clean, the names it gives and the procedures it calls; a statement with
        findings is checked at each of its places, so each reports its own position."""
        scope, texts, m = set(bound), self.m.statements, self.m
        for s in stmts or []:
            text = texts.get(s[1]) if type(s[1]) is str else None
            if text is None or text[0] != s[0]:
                self.stmt(s, scope)
                continue
            key = (text[1], text[2], frozenset(scope))
            known = clean.get(key)
            if known is not None:
                scope |= known[0]
                m.calls |= known[1]
                continue
            before, findings, calls = set(scope), len(self.report.items), m.calls
            m.calls = set()
            try:
                self.stmt(s, scope)
            finally:
                called, m.calls = m.calls, calls | m.calls
            if len(self.report.items) == findings:
                clean[key] = (frozenset(scope - before), frozenset(called))

    def stmt(self, s, scope):
        op = s[0]
        n = view(s)
        E = lambda e: self.expr(e, scope)
        if op == "let":
            E(n.value); scope.add(n.name)
        elif op == "set":
            t = n.target
            if t[0] == "name" and (name := view(t).name) not in scope and name not in self.m.counters_of \
                    and name != "first_player":
                self.err(t, "D010", f"cannot set `{name}`: not a counter or a name given by `let`{did_you_mean(name, list(scope) + list(self.m.counters_of))}")
            elif t[0] == "attr":
                E(t)
            E(n.value)
        elif op in ("gain", "lose", "pay"):
            E(n.amount)
            self.want(n.amount, scope, _NOT_A_NUMBER | {"list"}, f"`{op}` needs an amount (a number)")
            c = n.counter
            if c not in self.m.counters_of:
                self.err(s, "D011", f"unknown counter `{c}`{did_you_mean(c, self.m.counters_of)}")
            elif n.target is None and self.m.counters_of[c] not in ("game", "player"):
                self.err(s, "D012", f"say whose `{c}`: `{op} ... {c} {'to' if op == 'gain' else 'from'} X`")
            if n.target is not None:
                E(n.target)
        elif op == "move":
            E(n.thing); E(n.destination)
            self.want(n.destination, scope, _NOT_A_PLACE, "`move ... to` needs a place (a location, zone or thing)")
        elif op == "draw":
            if n.amount is not None:
                E(n.amount)
            E(n.source)
            if n.destination is not None:
                E(n.destination)
            if n.name:
                scope.add(n.name)
        elif op == "fail":
            if type(n.reason) is list:  # a reason with values
                E(n.reason)
        elif op in ("discard", "reveal", "conceal", "remove", "putback", "log", "return", "do"):
            for x in ir.children(s):  # a thing, a message (and whom a log line is for), a value or a call
                E(x)
        elif op == "shuffle":
            E(n.pile)
            if n.into is not None:
                E(n.into)
        elif op in ("mark", "unmark"):
            E(n.thing)
        elif op == "emit":
            for v in n.given.values():
                E(v)
        elif op == "perform":
            E(n.thing)
            if n.by is not None:
                E(n.by)
        elif op == "offer":
            windows = {a.get("window") for a in self.m.by_section["actions"].values() if hasattr(a, "get")} - {None}
            if n.window not in windows:
                self.err(s, "D035", f"no action has `window: {n.window}`, so `offer {n.window}` asks nobody"
                                    f"{did_you_mean(n.window, sorted(w for w in windows if isinstance(w, str)))}")
            if n.players is not None:
                E(n.players)
            for v in n.given.values():
                E(v)
            if n.name:
                scope.add(n.name)
        elif op == "swap":
            E(n.first); E(n.second)
        elif op in ("show", "hide"):
            E(n.thing); E(n.players)
        elif op == "if":
            for cond, body in n.branches:
                E(cond); self.block(body, scope)
            if n.otherwise:
                self.block(n.otherwise, scope)
        elif op == "for":
            E(n.collection)
            self.want(n.collection, scope, _NOT_A_COLLECTION, "`for each` needs a list or a zone")
            inner = scope | {n.name}
            if n.where is not None:
                self.expr(n.where, inner)
            self.block(n.body, inner)
        elif op == "repeat":
            E(n.times); self.block(n.body, scope)
        elif op == "while":
            E(n.condition); self.block(n.body, scope)
        elif op == "choose":
            if n.up_to is not None:
                E(n.up_to)
            E(n.options)
            self.want(n.options, scope, _NOT_A_COLLECTION, "`choose ... from` needs a list or a zone")
            inner = scope | {n.name}
            if n.where is not None:
                self.expr(n.where, inner)
            if n.by is not None:
                E(n.by)
            if type(n.prompt) is list:  # a prompt with values
                E(n.prompt)
            self.block(n.body, inner)
            if n.otherwise:
                self.block(n.otherwise, scope)
        elif op == "may":
            if n.by is not None:
                E(n.by)
            if type(n.prompt) is list:  # a prompt with values
                E(n.prompt)
            self.block(n.body, scope)
            if n.otherwise:
                self.block(n.otherwise, scope)
        elif op == "secret":
            E(n.choosers)
            inner = scope | {n.chooser}
            self.expr(n.options, inner)
            if n.where is not None:
                self.expr(n.where, inner | {n.name})
            if isinstance(n.prompt, list):
                self.expr(n.prompt, scope)
            self.block(n.body, scope | {n.name})
            scope.add(n.name)

    def expr(self, e, scope=None):
        scope = self.top if scope is None else scope
        op = e[0]
        if op == "name":
            name = e[_NAME]  # (the commonest node of all: read without a view)
            if "#" in name:
                self.copy(e, name)
            elif name not in scope and name not in self.m.checker_known():
                self.err(e, "D013", f"unknown name `{name}`{did_you_mean(name, self.known(scope))}")
            return
        n = view(e)
        if op == "attr":
            self.expr(n.of, scope)
            if n.attribute not in self.m.attrs:
                self.err(e, "D014", f"unknown attribute or counter `{n.attribute}`{did_you_mean(n.attribute, self.m.attrs)}")
        elif op == "every":
            if n.kind not in self.m.kinds:
                self.err(e, "D015", f"unknown kind `{n.kind}`{did_you_mean(n.kind, self.m.kinds)}")
        elif op == "call":
            self._call(e, n.function, len(n.args))
            for a in n.args:
                self.expr(a, scope)
        elif op == "gen":
            self._call(e, n.function, 1, aggregate=True)
            self.expr(n.source, scope)
            inner = scope | {n.name}
            self.expr(n.body, inner)
            if n.where is not None:
                self.expr(n.where, inner)
        elif op == "comp":
            self.expr(n.source, scope)
            inner = scope | {n.name}
            self.expr(n.body, inner)
            if n.where is not None:
                self.expr(n.where, inner)
        elif op == "list":
            for x in n.items:
                self.expr(x, scope)
        elif op == "text":
            for x in n.parts:
                if type(x) is list:
                    self.expr(x, scope)
        elif op == "op":
            self.expr(n.left, scope); self.expr(n.right, scope)
            if n.operator == "+" and "text" in (self.typ(n.left, scope), self.typ(n.right, scope)):
                self.err(e, "D018", "`+` works on numbers, but this is text: put values in a text "
                                    "with braces, `\"{player} draws {n} cards\"`")
            elif n.operator not in ("==", "!="):
                for side in (n.left, n.right):
                    self.want(side, scope, _NOT_A_NUMBER, f"`{n.operator}` works on numbers")
        elif op in ("and", "or", "in", "index", "not", "neg", "has"):
            for x in ir.children(e):
                self.expr(x, scope)
        elif op == "cond":
            self.expr(n.test, scope); self.expr(n.then, scope); self.expr(n.otherwise, scope)

    def typ(self, e, scope) -> str:
        """What kind of value an expression gives, or "unknown"; only sure answers count."""
        op, m = e[0], self.m
        n = view(e)
        if op == "num":
            return "bool" if isinstance(n.value, bool) else "number"
        if op == "str" or op == "text":
            return "text"
        if op == "none":
            return "none"
        if op == "name":
            name = n.name
            if name in scope:
                return "unknown"
            if name in ("players", "others"):
                return "list"
            if name in ("round", "player_count"):
                return "number"
            if name in ("player", "first_player"):
                return "thing"
            if name in m.counters_of and m.counters_of[name] == "game":
                return "number" if m.by_section["counters"][name].get("type", "number") == "number" else "unknown"
            if name in m.zones_of or name in ("supply", "removed"):
                return "zone"
            if name in m.ids:
                return "thing" if m.ids[name][0] != "actions" else "text"
            return "unknown"
        if op == "attr":
            a = n.attribute
            kinds = set()
            if a in m.counters_of and m.counters_of[a] != "game":
                kinds.add("number" if m.by_section["counters"][a].get("type", "number") == "number" else "unknown")
            if a in m.zones_of and m.zones_of[a] != "game":
                kinds.add("zone")
            if a in _BUILTIN_ATTR_TYPES:
                kinds.add(_BUILTIN_ATTR_TYPES[a])
            kinds |= m.attr_types.get(a, set())
            return kinds.pop() if len(kinds) == 1 else "unknown"
        if op in ("call", "gen"):
            return _FN_TYPES.get(n.function, "unknown") if n.function not in m.by_section["procedures"] else "unknown"
        if op in ("list", "comp", "every"):
            return "list"
        if op == "op":
            if n.operator in ("==", "!=", "<", "<=", ">", ">="):
                return "bool"
            if n.operator == "+":  # two lists join: `["red", "blue"] + [1, 2, 3]`
                sides = {self.typ(n.left, scope), self.typ(n.right, scope)}
                if "list" in sides:
                    return "list" if sides <= {"list", "unknown"} else "unknown"
            return "number"
        if op in ("and", "or", "not", "in", "has"):
            return "bool"
        if op == "neg":
            return "number"
        return "unknown"

    def want(self, e, scope, bad, what):
        t = self.typ(e, scope)
        if t in bad:
            self.err(e, "D018", f"{what}, but this is {_TYPE_WORDS.get(t, t)}")

    def _call(self, e, name, nargs, aggregate=False):
        procs = self.m.by_section["procedures"]
        if name in procs:
            want = len(procs[name].get("params") or [])
            if aggregate or nargs != want:
                self.err(e, "D016", f"procedure `{name}` takes {want} argument{'s' if want != 1 else ''}, given {nargs}")
            self.m.calls.add(name)
        elif name in FUNCTIONS:
            lo, hi, _ = FUNCTIONS[name]
            if aggregate and name not in AGGREGATES:
                self.err(e, "D016", f"`{name}` cannot take `... for x in ...`")
            elif not aggregate and not lo <= nargs <= hi:
                self.err(e, "D016", f"`{name}` takes {lo if lo == hi else f'{lo} to {hi}'} argument{'s' if hi != 1 else ''}, given {nargs}")
        else:
            self.err(e, "D017", f"unknown function or procedure `{name}`{did_you_mean(name, list(FUNCTIONS) + list(procs))}")


def _unused(m: Model, report: Report) -> None:
    texts = set((m.pooled or {}).get("n", ()))
    for key in m.ir:
        texts |= m.facts[key][0]
    for pid, d in m.by_section["procedures"].items():
        if pid not in texts and not getattr(m, "unparsed", False):
            report.warning(_pos(d, "id"), "W001", f"procedure `{pid}` is never called")
    for did, d in m.by_section["decks"].items():
        if did not in texts and d.get("of", "game") == "game":
            report.warning(_pos(d, "id"), "W002", f"deck `{did}` is never drawn from or named by any effect")
    for pid, d in m.by_section["pools"].items():
        if pid not in texts:
            report.warning(_pos(d, "id"), "W003", f"pool `{pid}` is never drawn from or named by any effect")
