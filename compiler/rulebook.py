"""Rulebooks from the compiled tables: what a player reads to learn the game.

Everything in a rulebook comes from game.json: component counts from decks, pools, cards
and pieces; every effect in words from the renderer. Templates live in compiler/templates/;
a game overrides any of them with a file of the same name in content/<game>/templates/.
"""
from __future__ import annotations

import functools
import html
import json
import os
import re

import jinja2
from jinja2.sandbox import ImmutableSandboxedEnvironment, SecurityError, safe_range
from markupsafe import Markup, escape

from . import diagrams
from .content import shown_path
from .diagnostics import Pos
from .cpubudget import TimeUp, cpu_budget
from .examples import examples as scenario_examples
from .icons import icon_html
from .memory import capped_memory
from .pictures import Pictures
from .source import NotReadable, leads_outside, read_bytes
from .render import LANGS, Names, Renderer, humanize, quoted, text_of
from ..runtime import ir
from ..runtime.ir import view
from .said import Said
from .wording import catalogue

TEMPLATES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "templates")
ICON_RE = re.compile(r"\[([a-z][a-z0-9_]*)\]")
_HTML_SPECIAL = re.compile(r"[&<>'\"]").search  # what markupsafe escapes
FORMATS = ("html", "md")
BUILTIN_EVENTS = ("game_start", "round_start", "round_end", "turn_start", "turn_end", "phase_start", "phase_end",
                  "enter", "action")

def _icon_map(tables):
    return tables.get("icons") or {}


def iconize_html(text, tables, lang, images: dict | None = None) -> Markup:
    """Escape a text and turn its icons (`[icon]` marks, declared words) into glyphs, or into
    the game's image of the icon where `images` (icon id -> data: URL) has one."""
    return icon_html(text, _icon_map(tables), lang, (images or {}).get)


def iconize_plain(text, tables) -> str:
    icons = _icon_map(tables)
    return ICON_RE.sub(lambda m: icons[m.group(1)].get("glyph", m.group(0)) if m.group(1) in icons else m.group(0), str(text or ""))


def md_escape(s) -> str:
    """Table cells and list items: pipes and line breaks would break the Markdown."""
    return str(s).replace("|", "\\|").replace("\n", " ")


def md_text(s: str) -> str:
    """Content's text as the Markdown rulebook prints it: as text, never as HTML or as a
    link a reader's browser would run. A `<` is written `&lt;` and an `&` that would start
    an entity `&amp;` (no raw HTML, no `<javascript:…>`); a backslash is doubled (it reads
    as written and escapes nothing of what follows), and a link or a link's definition
    whose target is neither the web nor mail has its `]` escaped (its brackets then print
    as written). Every renderer shows the text as the designer wrote it."""
    if "<" not in s and "&" not in s and "]" not in s and "\\" not in s:
        return s
    s = _MD_LINK.sub(_md_link, s.replace("\\", "\\\\"))
    return _MD_HTML.sub(lambda m: "&lt;" if m.group() == "<" else "&amp;", s)


_MD_HTML = re.compile(r"<|&(?=#?\w+;)")
_MD_LINK = re.compile(r"\]([ \t]*[(:]\s*<?\s*)([A-Za-z][A-Za-z0-9+.\-]*):")
_SAFE_SCHEMES = ("http", "https", "mailto")


def _md_link(m) -> str:
    if m.group(2).lower() in _SAFE_SCHEMES:
        return m.group(0)
    return "\\]" + m.group(1) + m.group(2) + ":"


def _md_context(v):
    """Every text of a rulebook's context through md_text (a new context: the HTML
    rulebook is made from the same one)."""
    t = type(v)
    if t is str:
        return md_text(v)
    if t is dict:
        return {k: _md_context(x) for k, x in v.items()}
    if t is list or t is tuple:
        return t(_md_context(x) for x in v)
    return v


def _round_of(cond):
    """`round == N` (either way round) -> N, for the calendar; otherwise None."""
    if isinstance(cond, list) and cond and cond[0] == "op" and (c := view(cond)).operator == "==":
        for x, y in ((c.left, c.right), (c.right, c.left)):
            if x[0] == "name" and view(x).name == "round" and y[0] == "num" and type(n := view(y).value) is int:
                return n
    return None


_MARK = ir.at("mark", "mark")
assert _MARK == ir.at("unmark", "mark") == ir.at("has", "mark")


def _marks(tables):
    """Every mark name used by any effect, sorted."""
    found = set()
    add = found.add
    lst, dct = list, dict

    def walk(n):
        # IR nodes are lists [op, pos, *args]; tables around them are dicts
        if type(n) is lst or isinstance(n, lst):
            if n and n[0] in ("mark", "unmark", "has") and len(n) > 3 and isinstance(n[1], str) \
                    and isinstance(mark := n[_MARK], str):
                add(mark)
            for x in n:
                if type(x) is lst or type(x) is dct or isinstance(x, (lst, dct)):
                    walk(x)
        elif isinstance(n, dct):
            for x in n.values():
                if type(x) is lst or type(x) is dct or isinstance(x, (lst, dct)):
                    walk(x)

    for k in ("protos", "actions", "procedures", "triggers", "flow", "scoring", "counters"):
        walk(tables.get(k))
    return sorted(found)


def _may_mark(game_json: str) -> bool:
    """Whether the text of game.json can hold a mark at all: a JSON text without the words
    `"mark"`, `"unmark"` and `"has"`, nor any escape that could spell one (`\\u`), has no
    node of theirs, and its tables need no walk to find out."""
    return "\\u" in game_json or any(f'"{op}"' in game_json for op in ("mark", "unmark", "has"))


def _by_name(item):
    return (item["name"].lower().replace("ё", "е"), item["id"])


class Book:
    """The rulebook's content in one language, ready for any template."""

    def __init__(self, tables: dict, lang: str, marks: list | None = None, texts: dict | None = None,
                 examples: list | None = None):
        self.t, self.lang = tables, lang
        self._examples = examples or []  # the scenarios marked as worked examples (compiler/examples.py)
        self._marks = marks  # every mark name in the tables (the same in each language)
        self.names = Names(tables)
        self.W = catalogue(lang)  # the language's own words (compiler/messages/<lang>.yaml)
        self.L = self.W.labels
        rn = text_of((tables.get("flow") or {}).get("round_name"), lang, "")
        own = self.W.language["own_round_name"]
        if own and rn.lower() in ("", self.W.language["round_word"]):  # «раунд («Раунд»)» says it twice
            self.W = self.W.without(own)
            self.L = self.W.labels
        rn = text_of((tables.get("flow") or {}).get("round_name"), lang, "Round")
        self._round = {"round": rn, "round_lower": rn.lower(), "rounds": _plural(rn.lower())}
        self.problems: list[str] = []   # IR the renderer could not put in words (tests keep it empty)
        self._said = Said(texts)  # cards repeat their statements: each is put into words once
        self._attrs_said: dict[tuple, list] = {}
        self.untold: set = set()  # procedures left out of the book for want of a `text:` (W022)

    def _renderer(self, this=None):
        r = Renderer(self.names, self.lang, this, self._said)
        r.problems = self.problems
        return r

    # -- helpers used by templates ------------------------------------------------
    def tx(self, t, default=""):
        return text_of(t, self.lang, default)

    def name(self, ident):
        return self.names.name(ident, self.lang)

    def effect(self, key, ir, this=None, params=None):
        """An effect as lines, keyed by where it sits in game.json (the tests re-render it from there)."""
        if not ir:
            return None
        r = self._renderer(this)
        if params:
            r.given(params)
        return {"key": key, "this": this or "", "lines": r.lines(ir)}

    def unless_said(self, text, key, ir, this=None, params=None):
        """Authored text wins: the generated words of an effect are printed only where the
        content has no `text:` of its own for it."""
        return None if text else self.effect(key, ir, this, params)

    def cond_unless(self, text, ir, this=None):
        return None if text else self.cond(ir, this)

    def cond(self, ir, this=None):
        if ir is None:
            return None
        return self._renderer(this).condition(ir)

    def attrs(self, attrs):
        """A thing's attributes in words, [(name, value)]; cards repeat a few sets of them,
        each put into words once (the list is shared: templates only read it)."""
        if not attrs:
            return []
        vals = tuple(attrs.values())
        try:  # (the types too: 1, 1.0 and true are equal keys but read differently)
            key = (tuple(attrs), vals, tuple(map(type, vals)))
            known = self._attrs_said.get(key)
        except TypeError:  # a list among the values
            key = known = None
        if known is None:
            known = self._attrs(attrs)
            if key is not None:
                self._attrs_said[key] = known
        return known

    def _attrs(self, attrs):
        out = []
        for k, v in attrs.items():
            if isinstance(v, bool):
                v = self.L["yes" if v else "no"]
            elif isinstance(v, list):
                v = ", ".join(self.name(x) if isinstance(x, str) else str(x) for x in v) or self.L["none"]
            elif isinstance(v, str):  # (a value's own word in terms first: `public` the type, not the counter)
                v = (self.names.term(v, self.lang) if self.names.has_term(v) else self.name(v)) if v else self.L["none"]
            out.append((self.names.attr_name(k, self.lang), str(v)))
        # (the tables keep attributes in the order of their ids, which is no order in words: A to Z
        # by the reader's names, as a reference lists them)
        return sorted(out, key=lambda kv: (kv[0].lower().replace("ё", "е"), kv[1]))

    def _times(self, n, what):
        """«two actions», «once», «3 раза»: a count said the way a rulebook says it (what: time, action)."""
        if not isinstance(n, int) or isinstance(n, bool):
            return str(n)
        return self.W.counted(what, n)

    def _say(self, key, **args):
        """A label with its values, and the game's name for a round ready for any of them."""
        return self.W.say(key, **self._round, **args)

    def _value(self, v):
        if isinstance(v, bool):
            return self.L["yes" if v else "no"]
        if isinstance(v, str) and re.fullmatch(r"[a-z][a-z0-9_]*", v):  # an id: its words (W019 where none)
            return self.names.term(v, self.lang) if self.names.has_term(v) else self.name(v)
        return v

    def _of(self, of):
        if of == "game":
            return self.L["of_game"]
        if of == "player":
            return self.L["of_player"]
        return self.L["of_kind"].format(k=self.names.term(of, self.lang))

    # -- sections -----------------------------------------------------------------
    def context(self) -> dict:
        t, L = self.t, self.L
        g = t.get("game") or {}
        pl = g.get("players") or {}
        players = (self.W.say("summary_players1", a=pl.get("min")) if pl.get("min") == pl.get("max")
                   else self.W.say("summary_players", a=pl.get("min"), b=pl.get("max")))
        rn = self.tx((t.get("flow") or {}).get("round_name"), "Round")
        return {
            "lang": self.lang, "L": L, "book": self, "tables": t,
            "title": self.tx(g.get("name"), g.get("id") or ""), "game_id": g.get("id"), "version": g.get("version"),
            "players": players, "summary": self.tx(g.get("summary")), "round_name": rn,
            "notes": [self.tx(n) for n in g.get("notes") or []],
            "options": [(self.names.term(k, self.lang), self._value(v), self.tx((g.get("option_texts") or {}).get(k)))
                        for k, v in (g.get("options") or {}).items()],
            "components": self.components(), "setup": self.setup(), "turn": self.turn(), "calendar": self.calendar(),
            "events": self.events(), "actions": self.actions(), "locations": self.locations(), "cards": self.cards(),
            "pieces": self.pieces(), "scoring": self.scoring(), "glossary": self.glossary(),
            "index": self.index(), "pictures": self.pictures(), "examples": self.examples(),
        }

    def examples(self):
        """The worked examples in this language: a scenario's words where it gives them in it."""
        out = []
        for ex in self._examples:
            parts = {k: self.tx(ex.get(k)) for k in ("title", "setup", "happens", "result")}
            if all(parts.values()):
                out.append({"id": ex["file"].rsplit(".", 1)[0], **parts})
        return out

    def _sight(self, visibility) -> str:
        """Who sees a zone's things, in words: a kind of reader, or the seats named."""
        L = self.W.labels
        if isinstance(visibility, list):
            return L["vis_seats"].format(seats=", ".join(L["seat_n"].format(n=str(p)[1:]) for p in visibility))
        return L["vis_" + str(visibility)]

    def pictures(self):
        """The map and the round's structure, drawn from the tables (SVG, or None)."""
        t = self.t
        protos = t.get("protos") or {}
        locs = t.get("locations") or {}
        known = {lid for lid in locs if lid in protos}
        roads, seen = [], set()
        for lid, loc in locs.items():
            ends = [(x, "") for x in loc.get("adjacent") or []] + [(x, str(d)) for x, d in (loc.get("links") or {}).items()]
            for other, label in ends:
                pair = frozenset((lid, other))
                if other in known and lid in known and pair not in seen and other != lid:
                    seen.add(pair)
                    roads.append((lid, other, label))
        # (a place no road leads to is no part of the map: it stays in the table of locations)
        places = tuple((lid, self.name(lid)) for lid in locs if any(lid in pair for pair in seen))
        flow = t.get("flow") or {}
        steps = []
        for ph in flow.get("phases") or []:
            mode = ph.get("mode", "once")
            note = {"turns": self.L["picture_turns"], "each": self.L["picture_each"]}.get(mode, "")
            steps.append((self.phase_name(ph), note))
        drawn = {"map": diagrams.map_svg(self.L["picture_map"], places, tuple(roads)),
                 "turn": diagrams.turn_svg(self._say("picture_turn"), tuple(steps), self._say("picture_next"),
                                           self.L["picture_end"], self._round_notes())}
        return {k: Markup(v) if v else None for k, v in drawn.items()}  # (Graphviz escapes the names it draws)

    def _short(self, text, limit=90) -> str:
        """A rule's text cut to its first sentence, to stand in a picture."""
        first = re.split(r"(?<=[.!?;])\s", text.strip(), maxsplit=1)[0].rstrip(".;")
        if len(first) > limit:
            first = first[:limit].rsplit(" ", 1)[0].rstrip(",;:") + "…"
        return first

    def _told(self, ir):
        """The words of an effect that only does one procedure the designer put into words."""
        procs = self.t.get("procedures") or {}
        if isinstance(ir, list) and len(ir) == 1 and isinstance(ir[0], list) and ir[0][:1] == ["do"]:
            call = ir[0][2]
            if isinstance(call, list) and call[:1] == ["call"] and call[2] in procs:
                return self.tx(procs[call[2]].get("text"))
        return ""

    def _round_notes(self) -> tuple:
        """What the picture of a round shows besides its steps: the triggers (at the start or
        end of a round or of a player's turn, and those of any moment) and the actions players
        are offered at moments of a turn (a window's actions), each in the rule's own words."""
        t, notes = self.t, []
        phases = (t.get("flow") or {}).get("phases") or []
        turns = [i for i, ph in enumerate(phases) if ph.get("mode") == "turns"]
        order = {e: i for i, e in enumerate(BUILTIN_EVENTS)}  # (a turn's start before its end)
        for event, trs in sorted((t.get("triggers") or {}).items(), key=lambda et: order.get(et[0], len(order))):
            for tr in trs:
                if event in ("round_start", "round_end") and _round_of(tr.get("when")) is not None:
                    continue  # (a day of the calendar: its own table)
                said = self.tx(tr.get("text")) or self._told(tr.get("effect"))
                title = (self._say(event) if event in BUILTIN_EVENTS else
                         self.L["counter_event"].format(c=self.name(event[8:])) if event.startswith("counter_")
                         and event[8:] in (t.get("counters") or {}) else
                         self.L["custom_event"].format(e=quoted(self.names.term(event, self.lang), self.lang)))
                note = f"{title}: {self._short(said, 120)}" if said else title
                if event == "round_start":
                    notes.append(("start", note))
                elif event == "round_end":
                    notes.append(("end", note))
                elif event in ("turn_start", "turn_end") and turns:
                    notes += [(i, note) for i in turns]
                else:
                    notes.append(("any", note))
        for cid, c in (t.get("counters") or {}).items():  # a track that fires a rule at a value
            if c.get("internal"):
                continue
            for at, ir in c.get("thresholds") or []:
                lines = self._renderer("counters").lines(ir) if ir else []
                if len(lines) == 1:  # (one sentence: a rule a note can hold)
                    notes.append(("any", self.L["picture_threshold"].format(
                        c=self.name(cid), at=at, what=self._short(lines[0][1], 90))))
        offered: dict = {}  # (windows offered by the same rule are one note)
        for window, (holder, acts) in self._windows().items():
            offered.setdefault(holder, []).extend(acts)
        for holder, acts in offered.items():
            names = ", ".join(self.name(a) for a in acts)
            note = f"{self._short(holder, 150)} ({names})" if holder else self.L["picture_window"].format(actions=names)
            notes += [(i, note) for i in turns] if turns else [("any", note)]
        seen, out = set(), []
        for n in notes:  # (a rule said twice in one place is drawn once)
            if n not in seen:
                seen.add(n)
                out.append(n)
        return tuple(out)

    def _windows(self) -> dict:
        """Each window whose actions an effect offers: (the words of the procedure that offers
        them, or "", [its actions]), in the order the actions are declared."""
        t = self.t
        acts = {}
        for aid, a in (t.get("actions") or {}).items():
            if a.get("window"):
                acts.setdefault(a["window"], []).append(aid)
        if not acts:
            return {}
        found: dict = {}

        def walk(n, holder):
            if isinstance(n, list):
                if n[:1] == ["offer"] and len(n) > 2 and n[2] in acts:
                    found.setdefault(n[2], holder)
                elif n[:1] == ["call"] and len(n) > 3 and n[2] == "usable" and n[3] and n[3][0][:1] == ["str"] \
                        and n[3][0][2] in acts:
                    found.setdefault(n[3][0][2], holder)
                for x in n:
                    if isinstance(x, (list, dict)):
                        walk(x, holder)
            elif isinstance(n, dict):
                for x in n.values():
                    walk(x, holder)

        for p in (t.get("procedures") or {}).values():
            walk(p.get("effect"), self.tx(p.get("text")))
        for key in ("actions", "triggers", "flow"):
            walk(t.get(key), "")
        return {w: (found[w] if found[w] else "", acts[w]) for w in acts if w in found}

    def components(self):
        t, L = self.t, self.L
        protos = t.get("protos") or {}
        out = []
        for did, d in (t.get("decks") or {}).items():
            cards = [(self.name(cid), p["count"]) for cid, p in protos.items() if p.get("deck") == did]
            n = sum(c for _, c in cards)
            label = self.W.say("deck_of", name=self.name(did), n=n)
            owner = d.get("of", "game")
            if owner == "player":
                label = (label if n else self.name(did)) + f" ({L['per_player']})"
            elif owner != "game":  # one deck for each location (or other kind): its cards are shared out among them
                label += f" ({L['per_kind'].format(each=self._renderer().each_of(owner))})"
            out.append({"label": label, "items": cards})
        for label, pids in self._loose():
            loose = [(self.name(cid), protos[cid]["count"]) for cid in pids]
            n = sum(c for _, c in loose)
            out.append({"label": self.W.say("deck_of", name=L["cards_loose"] if label is None else label, n=n),
                        "items": loose})
        for pid, d in (t.get("pools") or {}).items():
            toks = [(self.name(tid), p["count"]) for tid, p in protos.items() if p.get("pool") == pid]
            n = d.get("total", sum(c for _, c in toks))
            label = self.W.say("pool_of", name=self.name(pid), n=n)
            out.append({"label": label, "items": toks})
        kinds = {}
        for pid, p in protos.items():
            if p.get("section") == "pieces":
                kinds.setdefault(p["kind"], []).append((self.name(pid), p["count"]))
        for kind, items in kinds.items():
            out.append({"label": L["pieces_of"].format(name=self.names.attr_name(kind, self.lang), n=sum(c for _, c in items)),
                        "items": items})
        locs = [self.name(lid) for lid, p in protos.items() if p.get("section") == "locations"]
        if locs:
            out.append({"label": L["locations_n"].format(n=len(locs)), "items": [(x, None) for x in locs]})
        for label in out:
            text = re.sub(r" +", " ", label["label"]).replace(" :", ":").strip()
            label["label"] = text[:1].upper() + text[1:]  # (a kind's term is a word in a sentence: «ключевая точка»)
        return out

    def _loose(self):
        """The cards in no deck, as [(the words of their kind, or None, [ids])]: by kind where the
        kind has words of the game's (Twilight cards, Story cards are dealt out by the setup, not
        kept in a deck), the rest together under "cards without a deck" (None)."""
        protos = self.t.get("protos") or {}
        pids = [cid for cid, p in protos.items() if p.get("section") == "cards" and not p.get("deck") and not _label_only(p)]
        if not pids:
            return []
        kinds: dict = {}
        for cid in pids:  # (a kind with no words of the game's, or the plain `card`, says nothing of them)
            k = protos[cid].get("kind")
            kinds.setdefault(k if k and k != "card" and self.names.has_term(k) else None, []).append(cid)
        out = []
        for k, ids in kinds.items():
            word = self.names.term(k, self.lang) if k else None
            out.append((word[:1].upper() + word[1:] if word else None, ids))
        return out

    def setup(self):
        t, L = self.t, self.L
        steps = []
        for did, d in (t.get("decks") or {}).items():
            if d.get("shuffle", True):
                steps.append(L["shuffle"].format(deck=self.names.phrase(did, self.lang).c("a")))
        for pid in t.get("pools") or {}:
            steps.append(L["pool_setup"].format(pool=self.name(pid)))
        placed = {}
        for iid, pid, zone, _up in t.get("instances") or []:
            p = (t.get("protos") or {}).get(pid) or {}
            if p.get("section") == "pieces" and zone != "supply":
                placed.setdefault((pid, zone), 0)
                placed[(pid, zone)] += 1
        by_place, kinds = {}, {}
        for (pid, zone), n in placed.items():
            by_place.setdefault(zone, []).append(self.name(pid) + (f" ×{n}" if n > 1 else ""))
            kinds.setdefault(zone, set()).add(((t.get("protos") or {}).get(pid) or {}).get("kind"))
        for zone, names in by_place.items():
            if len(names) > 12 and len(kinds[zone]) == 1 and None not in kinds[zone]:
                # (a board of many like pieces — cells of a grid — is their kind and number, not a list)
                kind = self.names.attr_name(next(iter(kinds[zone])), self.lang)
                names = [f"{kind} ×{sum(n for (_p, z), n in placed.items() if z == zone)}"]
            place = self.name(zone)
            if zone in (t.get("zones") or {}):  # (a zone holds things: "in the box", not "at The box")
                place = re.sub(r"^(The|A|An) ", lambda m: m.group(1).lower() + " ", place)
                steps.append(L["placed_in"].format(name=", ".join(names), place=place))
            else:
                steps.append(L["placed_at"].format(name=", ".join(names), place=place))
        if t.get("counters"):
            steps.append(L["setup_counters"])
        flow = t.get("flow") or {}
        first = L["first_random"] if flow.get("first_player", "random") == "random" else L["first_seat"]
        steps.append(first)
        return {"steps": steps, "text": self.tx(flow.get("setup_text")),
                "effect": self.unless_said(flow.get("setup_text"), "flow.setup", flow.get("setup"))}

    def turn(self):
        t, L = self.t, self.L
        flow = t.get("flow") or {}
        # a round limit that is only a safety cap (flow.rounds_cap) is no rule of the game
        rounds, say = (None if flow.get("rounds_cap") else flow.get("rounds")), self._say
        intro = say("rounds", n=rounds) if rounds else say("rounds_open")
        if flow.get("round_until"):
            intro += " " + say("round_until", c=self.cond(flow["round_until"]))
        phases = []
        actions = t.get("actions") or {}
        for i, ph in enumerate(flow.get("phases") or []):
            notes = [L["mode_" + ph.get("mode", "once")]]
            if ph.get("mode") == "turns":
                notes += self._turn_of_actions(ph)
            if ph.get("if") and _round_of(ph["if"]) is not None:  # (a phase of one round: that round)
                notes.append(self._say("phase_round", n=_round_of(ph["if"])))
            elif ph.get("if"):
                notes.append(L["phase_if"].format(c=self.cond(ph["if"])))
            if ph.get("until"):
                notes.append(L["until"].format(c=self.cond(ph["until"])))
            acts = [self.name(a) for a in ph.get("actions") or [] if a in actions] if ph.get("mode") == "turns" else []
            phases.append({"id": ph["id"], "name": self.phase_name(ph), "text": self.tx(ph.get("text")),
                           "notes": notes, "actions": acts,
                           "effect": self.unless_said(ph.get("text"), f"flow.phases.{i}.effect", ph.get("effect"))})
        end = []
        if flow.get("end_text"):  # the designer's words for a condition kept on bookkeeping counters
            end.append(L["end_said"].format(c=self.tx(flow["end_text"]).rstrip(".")))
        elif flow.get("end"):
            end.append(L["end"].format(c=self.cond(flow["end"])))
        if rounds:
            end.append(say("end_rounds" if end else "end_rounds_only"))
        return {"intro": intro, "text": self.tx(flow.get("text")), "first": None,
                "each_round": say("each_round"),
                "phases": phases, "end": end}

    def phase_name(self, ph):
        """A phase's name: its `name:`, else its word in `game: terms:`; one that is only its
        id is printed humanized and reported (W019)."""
        name = ph.get("name")
        if not name or name == {"en": ph["id"]}:
            if self.names.has_term(ph["id"]):
                return self.names.term(ph["id"], self.lang)
            self.names.raw.add(ph["id"])
            return humanize(ph["id"])
        return self.tx(name, humanize(ph["id"]))

    def _turn_of_actions(self, ph):
        """What a turn of actions allows, read from the fields the runtime reads: `max_actions`
        (or one at a time where players `rotate`), and `can_pass`: absent, a player may pass
        at any time; a constant false, only when no action is possible (the turn then ends by
        itself); a condition, when it holds."""
        L = self.L
        limit = ph.get("max_actions", 1 if ph.get("rotate") else None)
        out = []
        if ph.get("rotate"):
            out.append(L["rotate"])
        elif limit:
            out.append(L["max_actions"].format(n=self._times(limit, "action")))
        else:
            out.append(L["any_actions"])
        cp = ph.get("can_pass")
        if cp is None:
            out.append(L["pass_free"])
        elif isinstance(cp, list) and cp[:1] == ["num"] and not view(cp).value:
            out.append(L["pass_never"])
        elif not (isinstance(cp, list) and cp[:1] == ["num"] and view(cp).value):
            out.append(L["pass_if"].format(c=self.cond(cp)))
        else:
            out.append(L["pass_free"])
        return out

    def _trigger(self, event, i, tr):
        text = self.tx(tr.get("text"))
        return {"id": tr["id"], "text": text,
                "when": self.cond_unless(text, tr.get("when")) if tr.get("when") and _round_of(tr.get("when")) is None else None,
                "effect": self.unless_said(text, f"triggers.{event}.{i}.effect", tr.get("effect"))}

    def calendar(self):
        """Triggers on round events that name one round: a day-by-day table."""
        t = self.t
        rows = {}
        for event in ("round_start", "round_end"):
            for i, tr in enumerate((t.get("triggers") or {}).get(event) or []):
                n = _round_of(tr.get("when"))
                if n is not None:
                    entry = self._trigger(event, i, tr)
                    entry["at"] = self._say(event)
                    rows.setdefault(n, []).append(entry)
        return [{"round": self._say("round_n", n=n), "entries": rows[n]} for n in sorted(rows)]

    def events(self):
        t, L = self.t, self.L
        out = []
        for event, trs in (t.get("triggers") or {}).items():
            items = [self._trigger(event, i, tr) for i, tr in enumerate(trs)
                     if not (event in ("round_start", "round_end") and _round_of(tr.get("when")) is not None)]
            if not items:
                continue
            if event in BUILTIN_EVENTS:
                title = self._say(event)
            elif event.startswith("counter_") and event[8:] in (t.get("counters") or {}):
                title = L["counter_event"].format(c=self.name(event[8:]))
            else:
                title = L["custom_event"].format(e=quoted(self.names.term(event, self.lang), self.lang))
            out.append({"event": event, "title": title, "triggers": items})
        return out

    def actions(self):
        t, L = self.t, self.L
        phases = {p["id"]: p for p in (t.get("flow") or {}).get("phases") or []}
        out = []
        for aid, a in (t.get("actions") or {}).items():
            info = []
            if a.get("phase") in phases:
                info.append(f"{L['phase']}: {self.tx(phases[a['phase']].get('name'), a['phase'])}.")
            if a.get("limit"):
                info.append(L["limit"].format(n=self._times(a["limit"], "time")))
            # (a reaction window is the engine's name for the moment it is offered: the effect that
            # offers it says when, in words; the window's id is no word for a player)
            text = self.tx(a.get("text"))
            out.append({"id": aid, "name": self.name(aid), "text": text, "info": info,
                        "if": self.cond_unless(text, a.get("if"), "actions"),
                        "cost": self.unless_said(text, f"actions.{aid}.cost", a.get("cost"), "actions"),
                        "effect": self.unless_said(text, f"actions.{aid}.effect", a.get("effect"), "actions")})
        return sorted(out, key=_by_name)

    def locations(self):
        t = self.t
        protos = t.get("protos") or {}
        out = []
        for lid, loc in (t.get("locations") or {}).items():
            p = protos.get(lid) or {}
            act = p.get("activation") or {}
            out.append({
                "id": lid, "name": self.name(lid), "text": self.tx(p.get("text")), "attrs": self.attrs(p.get("attrs")),
                "adjacent": [self.name(x) for x in loc.get("adjacent") or []],
                "links": [(self.name(x), d) for x, d in (loc.get("links") or {}).items()],
                "activation": {
                    "text": self.tx(act.get("text")), "if": self.cond_unless(act.get("text"), act.get("if"), "locations"),
                    "cost": self.unless_said(act.get("text"), f"protos.{lid}.activation.cost", act.get("cost"), "locations"),
                    "effect": self.unless_said(act.get("text"), f"protos.{lid}.activation.effect", act.get("effect"), "locations"),
                } if act else None,
            })
        return sorted(out, key=_by_name)

    def _thing(self, pid, p, section_this):
        text = self.tx(p.get("text"))
        return {"id": pid, "name": self.name(pid), "count": p.get("count", 1), "text": text,
                "attrs": self.attrs(p.get("attrs")), "kind": self.names.term(p.get("kind", ""), self.lang),
                "if": self.cond_unless(text, p.get("if"), section_this),
                "effect": self.unless_said(text, f"protos.{pid}.effect", p.get("effect"), section_this)}

    def cards(self):
        t = self.t
        protos = t.get("protos") or {}
        groups = []
        for did in t.get("decks") or {}:
            items = [self._thing(cid, p, "cards") for cid, p in protos.items()
                     if p.get("section") == "cards" and p.get("deck") == did and not _label_only(p)]
            if items:
                groups.append({"deck": self.name(did), "cards": sorted(items, key=_by_name)})
        for label, pids in self._loose():
            items = [self._thing(cid, protos[cid], "cards") for cid in pids]
            groups.append({"deck": self.L["cards_loose"] if label is None else label, "cards": sorted(items, key=_by_name)})
        for pid in t.get("pools") or {}:
            items = [self._thing(tid, p, "tokens") for tid, p in protos.items() if p.get("pool") == pid]
            if items:
                groups.append({"deck": self.name(pid), "cards": sorted(items, key=_by_name), "pool": True})
        return groups

    def pieces(self):
        protos = self.t.get("protos") or {}
        return sorted((self._thing(pid, p, "pieces") for pid, p in protos.items() if p.get("section") == "pieces"), key=_by_name)

    def scoring(self):
        s = self.t.get("scoring") or {}
        L = self.L
        tie = s.get("tie", "share")
        # (a formula on the rules' bookkeeping is no sentence a player reads where the text says it)
        score = None if s.get("text") and self._bookkeeping(s.get("score")) else self.cond(s.get("score"))
        return {"text": self.tx(s.get("text")), "effect": self.unless_said(s.get("text"), "scoring.effect", s.get("effect")),
                "score": score, "tiebreak": self.cond(s.get("tiebreak")),
                "tie": L["tie_share"] if tie == "share" else L["tie_no_winner"]}

    def _bookkeeping(self, ir) -> bool:
        """Whether an expression reads a counter the game marks internal."""
        counters = self.t.get("counters") or {}
        if isinstance(ir, list):
            if ir[:1] == ["name"] and len(ir) > 2 and (counters.get(ir[2]) or {}).get("internal"):
                return True
            if ir[:1] == ["attr"] and len(ir) > 3 and (counters.get(ir[3]) or {}).get("internal"):
                return True
            return any(self._bookkeeping(x) for x in ir if isinstance(x, list))
        return False

    def index(self):
        """Every name a reader looks up, A to Z: cards, locations, actions, counters, zones and
        the game's terms, each with the section it is in (and its anchor in the HTML book)."""
        t, L = self.t, self.L
        entries = []
        for pid, p in (t.get("protos") or {}).items():
            section = p.get("section")
            if section in ("cards", "tokens") and not _label_only(p):
                entries.append((self.name(pid), L["cards"], f"card-{pid}"))
            elif section == "locations":
                entries.append((self.name(pid), L["locations"], f"location-{pid}"))
        entries += [(self.name(a), L["actions"], f"action-{a}") for a in t.get("actions") or {}]
        entries += [(self.name(c), L["counters"], f"counter-{c}") for c, d in (t.get("counters") or {}).items()
                    if not d.get("internal")]
        entries += [(self.name(z), L["zones"], "glossary") for z in t.get("zones") or {}]
        entries += [(text_of(v, self.lang, humanize(k)), L["glossary"], "glossary")  # (a procedure is no term to look up)
                    for k, v in (self.names.terms or {}).items() if v and k not in (t.get("procedures") or {})]
        seen, out = set(), []
        for name, where, anchor in sorted(entries, key=lambda e: (e[0].lower().replace("ё", "е"), e[1], e[2])):
            if (name, where) not in seen:
                seen.add((name, where))
                out.append({"name": name, "where": where, "anchor": anchor})
        return out

    def glossary(self):
        t, L = self.t, self.L
        counters = []
        for cid, c in (t.get("counters") or {}).items():
            if c.get("internal"):  # (the rules' own bookkeeping: no word a player looks up)
                continue
            bounds = ""
            if "min" in c or "max" in c:
                bounds = f"{c.get('min', '−∞')}…{c.get('max', '∞')}"
            initial = c.get("initial")
            if isinstance(initial, bool):
                initial = self.L["yes" if initial else "no"]
            elif isinstance(initial, str):
                initial = self.name(initial)
            elif initial is None:
                initial = L["none"]
            counters.append({
                "id": cid, "name": self.name(cid), "of": self._of(c.get("of", "player")), "initial": initial,
                "bounds": bounds, "hidden": L["hidden"] if c.get("hidden") else "", "icon": c.get("icon"),
                "thresholds": [{"at": L["thresholds"].format(at=at), "effect": self.effect(f"counters.{cid}.thresholds.{i}", ir, "counters")}
                               for i, (at, ir) in enumerate(c.get("thresholds") or [])],
                "on_change": self.effect(f"counters.{cid}.on_change", c.get("on_change"), "counters"),
            })
        zones = [{"id": z, "name": self.name(z), "of": self._of(d.get("of", "game")),
                  "visibility": self._sight(d.get("visibility", "public"))} for z, d in (t.get("zones") or {}).items()]
        marks = sorted({(n[:1].upper() + n[1:]) for n in (self.names.attr_name(m, self.lang)  # (a list of words A to Z)
                        for m in (self._marks if self._marks is not None else _marks(t)))},
                       key=lambda n: n.lower().replace("ё", "е"))
        procs = []
        for pid, p in (t.get("procedures") or {}).items():
            if not self.tx(p.get("text")):  # (steps with no words of the designer's are no rule a player reads)
                self.untold.add(pid)
                continue
            name, text = self.names.procedure_name(pid, self.lang), self.tx(p.get("text"))
            after = text[len(name):].lstrip(" ")
            rest = after.lstrip(" :;—.").strip()
            if text.lower().startswith(name.lower()) and after[:1] in (":", ";", "—", ".") and rest:
                text = rest[:1].upper() + rest[1:]  # (a name cut from its text heads the rest of it, once)
            procs.append({"id": pid, "name": name[:1].upper() + name[1:], "text": text,
                          "params": "",  # parameters are names inside the effect, not words for a player
                          "effect": self.unless_said(p.get("text"), f"procedures.{pid}.effect", p.get("effect"),
                                                     params=p.get("params"))})
        counters.sort(key=_by_name)
        procs.sort(key=_by_name)
        zones.sort(key=_by_name)
        return {"counters": counters, "zones": zones, "marks": marks, "procedures": procs}


def _label_only(p) -> bool:
    """A card with nothing but a name, in no deck: the label of a choice offered on screen
    (a button), not a component a player holds."""
    return p.get("section") == "cards" and not (p.get("text") or p.get("effect") or p.get("attrs") or p.get("if") or p.get("deck"))


def _plural(name: str) -> str:
    """An English round name in the plural: "hands", "rounds of turns", "days"."""
    head, sep, tail = name.partition(" of ")
    head = head if head.endswith("s") else head[:-1] + "ies" if head.endswith("y") and head[-2:-1] not in "aeiou" else head + "s"
    return head + sep + tail


def _texts_key(items):
    """Attributes [(name, value)] as a key where all are text (as Book.attrs gives them), else None."""
    key = tuple(items)
    for item in key:
        if type(item) is not tuple or len(item) != 2 or type(item[0]) is not str or type(item[1]) is not str:
            return None
    return key


class HtmlPieces:
    """What an HTML rulebook repeats for every entry: an effect, a condition, attributes, a
    card. Written here rather than by Jinja macros because a big game has tens of thousands
    of them; each distinct text among them is escaped once. Templates call them as `m.*`."""

    def __init__(self, labels: dict, icon):
        self.L, self.icon = labels, icon
        self._escaped: dict[str, str] = {}
        self._lines: dict[tuple, str] = {}
        self._attr_html: dict[tuple, str] = {}

    def _h(self, v) -> str:
        if type(v) is str:
            try:
                return self._escaped[v]
            except KeyError:
                h = self._escaped[v] = str(escape(v)) if _HTML_SPECIAL(v) else v
                return h
        # a count needs no escaping; Markup is HTML already
        return str(v) if type(v) is int else str(escape(v))

    def effect(self, e, label=None) -> Markup:
        return Markup(self._effect(e, label))

    def _effect(self, e, label=None) -> str:
        if not e:
            return ""
        h = self._h
        head = f'<div class="effect" data-effect="{h(e["key"])}" data-this="{h(e["this"])}">'
        if label:
            head += f'<span class="label">{h(label)}</span>'
        return head + "".join([self._line(d, line) for d, line in e["lines"]]) + "</div>"

    def _line(self, depth, line) -> str:
        """One line of an effect (plain text from the renderer), written once per distinct line."""
        try:
            return self._lines[depth, line]
        except KeyError:
            p = self._lines[depth, line] = f'<p class="ln d{depth}">{self._h(line)}</p>\n'
            return p

    def cond(self, text, label) -> Markup:
        return Markup(self._cond(text, label))

    def _cond(self, text, label) -> str:
        if not text:
            return ""
        return f'<p class="cond"><span class="label">{self._h(label)}:</span> {self._h(text)}</p>'

    def attrs(self, items) -> Markup:
        return Markup(self._attrs(items))

    def _attrs(self, items) -> str:
        """Cards repeat a few sets of attributes: each is written once."""
        if not items:
            return ""
        key = _texts_key(items)
        known = self._attr_html.get(key) if key is not None else None
        if known is None:
            h = self._h
            known = ('<div class="attrs">' + "".join(
                [f'<span class="kv"><b>{h(k)}:</b> {h(v)}</span> ' for k, v in items]) + "</div>")
            if key is not None:
                self._attr_html[key] = known
        return known

    def index(self, entries) -> Markup:
        """The index, one call for all entries (a big game has thousands of cards)."""
        h = self._h
        return Markup("".join([f'<p><a href="#{h(e["anchor"])}">{h(e["name"])}</a> <span class="where">· {h(e["where"])}</span></p>\n'
                               for e in entries]))

    def counted(self, items) -> Markup:
        """Names with their counts: «Sabre ×6, Dagger»."""
        h = self._h
        return Markup(", ".join([h(name) + (f" ×{h(n)}" if n and n > 1 else "") for name, n in items]))

    def cards(self, cards) -> Markup:
        """The entries of a deck in the card index, one call for all: Jinja calls cost."""
        return Markup("\n".join([self._card(c) for c in cards]))

    def _card(self, c) -> str:
        h = self._h
        cid, name, count = c["id"], c["name"], c["count"]
        # (an id and a name stand once in the book: escaped without being kept)
        cid = cid if type(cid) is str and not _HTML_SPECIAL(cid) else h(cid)
        name = name if type(name) is str and not _HTML_SPECIAL(name) else h(name)
        text = f"<p>{self.icon(c['text'])}</p>" if c["text"] else ""
        return (f'<div class="card-entry" id="card-{cid}">\n'
                f'<span class="copies">×{count if type(count) is int else h(count)}</span>\n'
                f'<h4>{name}</h4>\n'
                f'{self._attrs(c["attrs"])}\n'
                f'{text}{self._cond(c["if"], self.L["only_if"])}\n'
                f'{self._effect(c["effect"])}\n'
                f'</div>')


class MarkdownPieces:
    """The same pieces in Markdown, for the same reason."""

    def __init__(self, labels: dict, icon):
        self.L, self.icon = labels, icon
        self._items: dict[str, str] = {}
        self._attr_lines: dict[tuple, str] = {}  # cards repeat a few sets of attributes

    def _item(self, line) -> str:
        try:
            return self._items[line]
        except KeyError:
            md = self._items[line] = "- " + md_escape(line) + "\n"
            return md

    def effect(self, e, label=None) -> str:
        """An effect as a list, under its label."""
        if not e:
            return ""
        head = f"*{label}:*\n\n" if label else ""
        item = self._item
        return head + "".join(["  " * d + item(line) for d, line in e["lines"]])

    def index(self, entries) -> str:
        return "".join([f"- {md_escape(e['name'])} — {e['where']}\n" for e in entries])

    def counted(self, items) -> str:
        return ", ".join([f"{name} ×{n}" if n and n > 1 else str(name) for name, n in items])

    def cards(self, cards) -> str:
        return "".join([self._card(c) for c in cards])

    def _card(self, c) -> str:
        out = f"**{c['name']}** ×{c['count']}\n\n"  # (not a heading: a card with no text would leave it empty)
        if c["attrs"]:
            key = _texts_key(c["attrs"])
            known = self._attr_lines.get(key) if key is not None else None
            if known is None:
                known = "; ".join([f"{k}: {v}" for k, v in c["attrs"]]) + "\n"
                if key is not None:
                    self._attr_lines[key] = known
            out += known
        if c["text"]:
            out += f"{self.icon(c['text'])}\n\n"
        if c["if"]:
            out += f"*{self.L['only_if']}:* {c['if']}\n\n"
        return out + self.effect(c["effect"]) + "\n\n"


_DICT_ATTRS = frozenset(dir(dict))


class _ItemsFirst:
    def getattr(self, obj, attribute):
        """`x.key` on a plain dict: straight to the item, the way Jinja ends up anyway once
        the attribute lookup has failed (which costs an exception per lookup)."""
        if type(obj) is dict and attribute not in _DICT_ATTRS:
            try:
                return obj[attribute]
            except KeyError:
                return self.undefined(obj=obj, name=attribute)
        return super().getattr(obj, attribute)


class _Environment(_ItemsFirst, jinja2.Environment):
    """The built-in templates, which are the toolchain's own code."""


class _GameEnvironment(_ItemsFirst, ImmutableSandboxedEnvironment):
    """Templates that come with a game are content, as untrusted as its YAML: they render
    in Jinja's sandbox, where no attribute that starts with `_` (the way to `__class__`,
    `__globals__` and so on to Python itself) is reachable, nor any method that changes
    a list or a map (the tables are shared by every language's rulebook). Nor can they build something huge from a few characters: a number passed
    to a call or a filter, a text or list repeated by `*`, a power, and all the ranges of
    a build together are bounded."""

    intercepted_binops = frozenset(("*", "**"))

    def __init__(self, **options):
        super().__init__(**options)
        self.range_left = MAX_TEMPLATE_RANGE
        self.globals["range"] = self._range
        self.filters = {name: _bounded_filter(f) for name, f in self.filters.items()}

    def _range(self, *args):
        r = safe_range(*args)  # (one range: at most 100,000 items)
        self.range_left -= len(r)
        if self.range_left < 0:
            raise SecurityError(f"the template's ranges go past {MAX_TEMPLATE_RANGE} items in all")
        return r

    def call(self, context, obj, /, *args, **kwargs):
        for a in args:
            _small(a)
        for a in kwargs.values():
            _small(a)
        return super().call(context, obj, *args, **kwargs)

    def call_binop(self, context, operator, left, right):
        if operator == "*":
            for seq, n in ((left, right), (right, left)):
                if isinstance(seq, (str, list, tuple)) and type(n) is int and len(seq) * n > MAX_TEMPLATE_ARG:
                    raise SecurityError(f"repeating {len(seq)} items {n} times makes more than {MAX_TEMPLATE_ARG}")
        elif type(left) is int and type(right) is int and abs(left) > 1 and right * abs(left).bit_length() > 4096:
            raise SecurityError(f"a power {right} of a number of {abs(left).bit_length()} bits is too large")
        return super().call_binop(context, operator, left, right)


MAX_TEMPLATE_ARG = 1_000_000      # no number a template needs to pass is larger
MAX_TEMPLATE_RANGE = 10_000_000   # range() items of all a game's templates render in one build
MAX_TEMPLATE_SECONDS = 10         # of CPU time for one render of a game's template; a rulebook takes well under one


def _small(value):
    if type(value) is int and abs(value) > MAX_TEMPLATE_ARG:
        raise SecurityError(f"the number {value} is too large for a template (at most {MAX_TEMPLATE_ARG})")
    return value


def _bounded_filter(f):
    """A filter whose arguments after the value are bounded (`center(10**9)` would make a
    gigabyte of spaces); what Jinja passes first (context, environment) is left alone."""
    first = 2 if getattr(f, "jinja_pass_arg", None) is not None else 1

    @functools.wraps(f)  # (keeps Jinja's mark of what the filter is passed first)
    def bounded(*args, **kwargs):
        for a in args[first:]:
            _small(a)
        for a in kwargs.values():
            _small(a)
        return f(*args, **kwargs)
    return bounded


class TemplateRefused(Exception):
    """A game's template that cannot be rendered (refused by the sandbox, or broken): where
    (the template's path and line) and why, in one line."""

    def __init__(self, pos: Pos, message: str):
        super().__init__(f"{pos}: {message}")
        self.pos, self.message = pos, message


class _GameTemplates(jinja2.FileSystemLoader):
    """A game's templates folder, read as every file of the game is (source.read_bytes):
    only regular files of a content file's size whose real path lies inside the game folder
    (a pipe named like a template would block the build for ever; a template, an include or
    the templates folder linked to /proc/self/environ would print the user's secrets)."""

    def __init__(self, searchpath, game_folder: str):
        super().__init__(searchpath)
        self.game_folder = game_folder

    def get_source(self, environment, template):
        for folder in self.searchpath:
            if leads_outside(self.game_folder, folder):
                raise _linked_out(folder)
            path = os.path.join(folder, *jinja2.loaders.split_template_path(template))
            if os.path.lexists(path):
                break
        else:
            raise jinja2.TemplateNotFound(template)
        try:
            text = read_bytes(path, within=self.game_folder).decode("utf-8")
        except (NotReadable, UnicodeDecodeError) as exc:
            why = str(exc) if isinstance(exc, NotReadable) else "not UTF-8"
            raise TemplateRefused(Pos(shown_path(path), 1, 1), f"template cannot be read: {why}") from None
        mtime = os.path.getmtime(path)

        def uptodate():
            try:
                return os.path.getmtime(path) == mtime
            except OSError:
                return False
        return text, os.path.normpath(path), uptodate


def _linked_out(own: str) -> TemplateRefused:
    return TemplateRefused(Pos(shown_path(own), 1, 1), "templates/ is a folder link that leads outside the game folder; not read")


def environment(game_folder: str | None = None, autoescape=True) -> jinja2.Environment:
    """Templates of the game first, then the built-in ones. A game with templates of its own
    gets a sandboxed environment (for the built-in templates too: they include each other)."""
    loaders, kind = [], _Environment
    if game_folder:
        own = os.path.join(game_folder, "templates")
        if os.path.isdir(own):
            loaders.append(_GameTemplates(own, game_folder))
            kind = _GameEnvironment
    loaders.append(jinja2.FileSystemLoader(TEMPLATES))
    env = kind(loader=jinja2.ChoiceLoader(loaders), trim_blocks=True, lstrip_blocks=True,
               keep_trailing_newline=True, undefined=jinja2.StrictUndefined,
               autoescape=lambda name: bool(name) and name.endswith((".html", ".html.j2")))
    env.filters["md"] = md_escape
    return env


def rendered(env: jinja2.Environment, name: str, ctx: dict) -> str:
    """The template `name` rendered; with a game's templates, whatever goes wrong (the
    sandbox refusing an operation, a syntax error, a missing value) is a TemplateRefused
    naming the template and its line."""
    if not env.sandboxed:
        return env.get_template(name).render(ctx)
    try:
        with capped_memory(), cpu_budget(MAX_TEMPLATE_SECONDS):
            return env.get_template(name).render(ctx)
    except TemplateRefused:
        raise
    except Exception as exc:  # noqa: BLE001 - a game's template is content: any failure is its author's to fix
        raise _refused(exc, env, name) from None


def template_problems(game_folder: str) -> list[TemplateRefused]:
    """What is wrong with the game's own templates as templates (syntax, unreadable files),
    found without rendering them: `validate` and `print` report what `build` would."""
    own = os.path.join(game_folder, "templates")
    if not os.path.isdir(own):
        return []
    if leads_outside(game_folder, own):
        return [_linked_out(own)]
    env = environment(game_folder)
    problems = []
    for name in sorted(os.listdir(own)):
        if not name.endswith(".j2"):
            continue
        try:
            env.get_template(name)
        except TemplateRefused as exc:
            problems.append(exc)
        except Exception as exc:  # noqa: BLE001 - as in `rendered`: a game's template is content
            problems.append(_refused(exc, env, name))
    return problems


def template_value(env: jinja2.Environment, names: list, ctx: dict, value: str):
    """A value a template sets at its top (`{% set text_height = 40 %}`), or None; the first
    of `names` that exists is read, the way an include picks it."""
    try:
        template = env.select_template(names)
        if not env.sandboxed:
            return getattr(template.make_module(ctx), value, None)
        with capped_memory(), cpu_budget(MAX_TEMPLATE_SECONDS):  # (making the module runs the template)
            try:
                module = template.make_module(ctx)
            except Exception:  # noqa: BLE001 - raised again, its frames at the template's own lines
                env.handle_exception()
        return getattr(module, value, None)
    except TemplateRefused:
        raise
    except Exception as exc:  # noqa: BLE001 - as in `rendered`: a game's template is content
        if not env.sandboxed:
            raise
        raise _refused(exc, env, names[-1]) from None


def _refused(exc: Exception, env, name: str) -> TemplateRefused:
    folders = [f for loader in env.loader.loaders for f in loader.searchpath]
    where = (exc.filename, exc.lineno) if isinstance(exc, jinja2.TemplateSyntaxError) and exc.filename else None
    tb = exc.__traceback__
    while tb is not None:  # Jinja reports the template's lines as the lines of its frames
        file = tb.tb_frame.f_code.co_filename
        if any(file.startswith(os.path.join(f, "")) for f in folders):
            where = (file, tb.tb_lineno)
        tb = tb.tb_next
    file, line = where or (os.path.join(folders[0], name), 1)
    if isinstance(exc, SecurityError):
        why = f"the template may not do this: {exc}"
    elif isinstance(exc, jinja2.TemplateSyntaxError):
        why = f"template syntax: {exc.message}"
    elif isinstance(exc, jinja2.TemplateNotFound):  # (its name is content: shown quoted, cut short)
        names = getattr(exc, "templates", None) or [exc.name]
        asked = ", ".join(f"{str(n)[:80]!r}" for n in names[:5])
        why = (f"no template {asked}: a template includes, imports or extends only the files of the game's "
               "templates/ folder (by their names there) and the built-in templates")
    elif isinstance(exc, jinja2.TemplateError):
        why = f"template: {exc.message or exc}"
    elif isinstance(exc, TimeUp):
        why = (f"the template ran for over {exc.seconds:g} seconds of CPU time and was stopped here "
               "(loops of loops? a rulebook or a card sheet renders in well under one)")
    elif isinstance(exc, MemoryError):
        why = "the template's text grows past the memory a rulebook may take (loops of loops of text?)"
    else:
        why = f"template failed: {type(exc).__name__}: {exc}"
    return TemplateRefused(Pos(shown_path(file), line, 1), why if len(why) <= 300 else why[:300] + "…")


def _render(env, ctx: dict, tables: dict, lang: str, fmt: str, paper: str = "a4", images: dict | None = None) -> str:
    ctx = dict(ctx, paper=paper)
    if fmt == "html":
        ctx["icon"] = lambda s: iconize_html(s, tables, lang, images)
        ctx["m"] = HtmlPieces(ctx["L"], ctx["icon"])
    else:
        # (the game's raw tables and the book itself stay as they are: lookups, not text)
        ctx = {k: v if k in ("book", "tables") else _md_context(v) for k, v in ctx.items()}
        ctx["icon"] = lambda s: iconize_plain(s, tables)
        ctx["m"] = MarkdownPieces(ctx["L"], ctx["icon"])
    text = rendered(env, f"rulebook.{fmt}.j2", ctx)
    while "\n\n\n" in text:  # every run of blank lines down to one; runs never merge
        text = text.replace("\n\n\n", "\n\n")
    return text.rstrip("\n") + "\n"


def render_rulebook(tables: dict, lang: str, fmt: str, game_folder: str | None = None, paper: str = "a4") -> str:
    images = Pictures(game_folder).icons(tables.get("icons") or {})
    book = Book(tables, lang, examples=scenario_examples(game_folder))
    return _render(environment(game_folder), book.context(), tables, lang, fmt, paper, images)


def read(game_json: str):
    """The tables of a game.json text, and every mark name in them."""
    tables = json.loads(game_json)
    return tables, marks_in(game_json, tables)


def marks_in(game_json: str, tables: dict) -> list:
    """Every mark name in tables read from a JSON text (game.json or any other of them)."""
    return _marks(tables) if _may_mark(game_json) else []


def books(tables: dict, marks: list, env: jinja2.Environment, langs, texts: dict | None = None,
          raw: set | None = None, images: dict | None = None, untold: set | None = None,
          examples: list | None = None) -> dict[str, str]:
    """File name -> text of the rulebooks in these languages: rulebook.<lang>.<fmt>. The
    content of a language (every effect in words) is worked out once for both formats.
    `texts`: the statements' texts by position, where the build knows them (see said).
    `raw`, if given, gets the ids the rulebooks print as they are, for want of a name;
    `untold`, the procedures left out of them for want of a `text:`; `examples`, the
    scenarios marked as worked examples."""
    out = {}
    for lang in langs:
        book = Book(tables, lang, marks, texts, examples)
        ctx = book.context()
        if raw is not None:
            raw |= book.names.raw
        if untold is not None:  # (only those its rules send the reader to by name: W022)
            untold |= book.untold & book.names.named_procedures
        for fmt in FORMATS:
            out[f"rulebook.{lang}.{fmt}"] = _render(env, ctx, tables, lang, fmt, images=images)
    return out


def rulebooks(game_json: str, game_folder: str) -> dict[str, str]:
    """File name -> text of every rulebook, from the text of game.json."""
    return books(*read(game_json), environment(game_folder), LANGS)



def unnamed_terms(tables: dict) -> list[str]:
    """The ids a rulebook prints as they are, for want of a name in words (no declaration
    with a `name:` and no entry in `game: terms:`): kinds, attributes, marks, options,
    procedures and events that a rendered text names."""
    raw: set = set()
    for lang in LANGS:
        book = Book(tables, lang)
        book.context()
        raw |= book.names.raw
    return sorted(raw)
