"""Print-and-play card sheets: as many cards as fit a page, with bleed, crop marks and duplex backs.

All sizes are millimetres. A card (poker 63×88 unless asked otherwise) is printed 3 mm
larger on every side (bleed) so a slightly wandering cut still shows no white edge; text
stays 3 mm inside the cut (the safe area, drawn as the card's frame). Backs are printed on
the next page with the columns mirrored, so they line up when the sheet is printed on both
sides and turned over its long edge.

A card's face comes from the template of its deck in the game folder
(`templates/card.<deck>.html.j2`, else the game's or the built-in `card.html.j2`), with
art from `art/<card id>|<kind>|<deck>.png|jpg|svg` (else a placeholder: the card's initial
on its deck's colour) and icon images from `art/icons/<icon id>.svg|png`. The deck's
`face:` says which attribute stands big in the corner and which as big numbers. The text's
size is measured down from 7.5 pt to 6 pt in the real layout (`fitting`); a card holding a
character no installed font can draw (it would print as an empty box) is a warning with
the card's id.
"""
from __future__ import annotations

import functools
import hashlib
import html
import json
import re
import subprocess
from typing import NamedTuple

from markupsafe import Markup

from .content import UsageError
from ..runtime import ir
from .pictures import Pictures
from .render import Names, Renderer, text_of
from .icons import icon_html, icon_parts
from .rulebook import Book, environment, rendered

CARD_W, CARD_H = 63.0, 88.0
SIZES = {"poker": (63.0, 88.0), "bridge": (57.0, 89.0), "tarot": (70.0, 120.0), "mini": (44.0, 63.0),
         "square": (70.0, 70.0)}
FIT_SIZES = (7.5, 7.0, 6.5, 6.0)  # pt: the text's sizes, largest first; 6 pt is the smallest readable
ART_SHARE = 0.3  # of the card's height: the art of a face not measured
ART_MIN = 8.0    # mm: art less tall than this is left out (the text needs the room more)
BLEED = 3.0
SAFE = 3.0
MIN_MARGIN = 5.0    # what most printers cannot print
MARGIN_SLACK = 1.0  # how far the outer bleed may reach into that margin
MARK_LEN = 5.0      # crop mark length
MARK_GAP = 1.0      # crop marks stop this far from the bleed
SEAM = 0.15         # neighbouring bleeds overlap by this much
PAPER = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
_POS = re.compile(r"^.*:\d+:\d+$")


def _strip_pos(v):
    """A definition without source positions: moving a card in its file does not change it."""
    if isinstance(v, list):
        if len(v) > 1 and isinstance(v[0], str) and isinstance(v[1], str) and _POS.match(v[1]):
            return [v[0]] + [_strip_pos(x) for x in v[2:]]
        return [_strip_pos(x) for x in v]
    if isinstance(v, dict):
        return {k: _strip_pos(x) for k, x in v.items()}
    return v


def card_hash(proto: dict) -> str:
    """A short fingerprint of a card's definition, printed on the card and compared by --changed-since."""
    body = json.dumps(_strip_pos(proto), sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(body.encode("utf-8")).hexdigest()[:7]


def card_ids(tables: dict) -> list[str]:
    """The cards of a game, deck by deck, in id order within a deck."""
    protos = tables.get("protos") or {}
    decks = list(tables.get("decks") or {})
    order = {d: i for i, d in enumerate(decks)}
    ids = [pid for pid, p in protos.items() if p.get("section") == "cards"]
    return sorted(ids, key=lambda c: (order.get(protos[c].get("deck"), len(order)), c))


class CardSize(NamedTuple):
    w: float
    h: float


def card_size(spec: str | None) -> CardSize:
    """A card size by name (poker, bridge, tarot, mini, square) or as WxH in millimetres."""
    spec = (spec or "poker").strip().lower()
    if spec in SIZES:
        return CardSize(*SIZES[spec])
    m = re.fullmatch(r"(\d{2,3}(?:\.\d)?)x(\d{2,3}(?:\.\d)?)", spec)
    if not m or not all(25 <= float(v) <= 180 for v in m.groups()):
        raise UsageError(f"card size `{spec[:40]}`: one of {', '.join(SIZES)}, or WxH in millimetres "
                         f"(each from 25 to 180, e.g. 63x88)")
    return CardSize(float(m.group(1)), float(m.group(2)))


def per_page(paper: str, size: CardSize = CardSize(CARD_W, CARD_H)) -> tuple[int, int]:
    """How many cards fit a page across and down, inside the margins and with their bleed."""
    pw, ph = PAPER[paper]
    # (the outer bleed may reach a little into the margin: it is cut away, and a letter page
    # then still holds three rows of poker cards)
    return (int((pw - 2 * MIN_MARGIN - 2 * BLEED + MARGIN_SLACK) // size.w),
            int((ph - 2 * MIN_MARGIN - 2 * BLEED + MARGIN_SLACK) // size.h))


def _slots(paper: str, back: bool, size: CardSize = CardSize(CARD_W, CARD_H)):
    """Each slot of a sheet: the bleed box (x, y, w, h) and where the trimmed card sits inside it."""
    pw, ph = PAPER[paper]
    card_w, card_h = size
    cols, rows = per_page(paper, size)

    def gutter(page, card, n):
        if n < 2:
            return 0.0
        room = (page - 2 * MIN_MARGIN - n * card - 2 * BLEED) / (n - 1)
        return max(0.0, min(2 * BLEED, room))

    gx, gy = gutter(pw, card_w, cols), gutter(ph, card_h, rows)
    left = (pw - (cols * card_w + (cols - 1) * gx)) / 2
    top = (ph - (rows * card_h + (rows - 1) * gy)) / 2
    slots = []
    for r in range(rows):
        for c in range(cols):
            col = cols - 1 - c if back else c
            x, y = left + col * (card_w + gx), top + r * (card_h + gy)
            # inside the grid two cards share the gutter, each bleeding into its half
            # (a hair more, so no white seam shows where two bleeds meet)
            bl = BLEED if col == 0 else min(BLEED, gx / 2 + SEAM)
            br = BLEED if col == cols - 1 else min(BLEED, gx / 2 + SEAM)
            bt = BLEED if r == 0 else min(BLEED, gy / 2 + SEAM)
            bb = BLEED if r == rows - 1 else min(BLEED, gy / 2 + SEAM)
            slots.append({"x": x - bl, "y": y - bt, "w": card_w + bl + br, "h": card_h + bt + bb,
                          "tx": bl, "ty": bt})
    cuts_x = sorted({round(left + c * (card_w + gx) + d, 3) for c in range(cols) for d in (0, card_w)})
    cuts_y = sorted({round(top + r * (card_h + gy) + d, 3) for r in range(rows) for d in (0, card_h)})
    grid = (left - BLEED, top - BLEED, pw - left + BLEED, ph - top + BLEED)
    return slots, _marks(cuts_x, cuts_y, grid, pw, ph)


def _marks(cuts_x, cuts_y, grid, pw, ph):
    """Crop marks in the margins, on the line of every cut."""
    x0, y0, x1, y1 = grid
    marks = []
    for x in cuts_x:
        for a, b in ((max(0.5, y0 - MARK_GAP - MARK_LEN), y0 - MARK_GAP), (y1 + MARK_GAP, min(ph - 0.5, y1 + MARK_GAP + MARK_LEN))):
            if b - a > 0.5:
                marks.append({"x": x, "y": a, "w": 0, "h": b - a})
    for y in cuts_y:
        for a, b in ((max(0.5, x0 - MARK_GAP - MARK_LEN), x0 - MARK_GAP), (x1 + MARK_GAP, min(pw - 0.5, x1 + MARK_GAP + MARK_LEN))):
            if b - a > 0.5:
                marks.append({"x": a, "y": y, "w": b - a, "h": 0})
    return marks


def _hue(key: str) -> int:
    return int(hashlib.sha256(key.encode("utf-8")).hexdigest()[:4], 16) % 360


# ---- what a face shows ------------------------------------------------------------

def iconized(text, tables, lang, pictures: Pictures) -> Markup:
    """A text with its icons (`[id]` marks and declared words) as images where the game has
    one, else as glyphs."""
    return icon_html(text, tables.get("icons") or {}, lang, pictures.icon)


def _plain(text, tables, lang, pictures: Pictures) -> str:
    """What a text prints as characters: icons with an image are not characters."""
    icons = tables.get("icons") or {}
    return "".join(v if k == "text" else "" if pictures.icon(v) else icons[v].get("glyph", "")
                   for k, v in icon_parts(text, icons, lang))


def _named_attrs(names: Names, book: Book, attrs: dict) -> dict:
    """The attributes a player reads on a card, id -> (name, value in words): those with a
    name in words (a term, an icon, a counter); the others are data for the rules, not print."""
    shown = {k: v for k, v in (attrs or {}).items()
             if names.has_term(k) or any(k in t and t[k].get("name") for t in (names.icons, names.counters))}
    if not shown:
        return {}
    # (the book says them A to Z by the reader's names, not in the order of their ids)
    ids: dict = {}
    for k in shown:
        ids.setdefault(names.attr_name(k, book.lang), []).append(k)
    return {ids[name].pop(0): (name, value) for name, value in book.attrs(shown)}


@functools.cache
def installed_glyphs() -> frozenset | None:
    """Every character some installed font can draw (the printer falls back from one font to
    the next, so one font having it is enough); None where the fonts cannot be listed."""
    try:
        from fontTools.ttLib import TTFont
        files = subprocess.run(["fc-list", ":", "file"], capture_output=True, text=True, timeout=30, check=False).stdout
    except (ImportError, OSError, subprocess.SubprocessError):
        return None
    found: set[int] = set()
    for line in files.splitlines():
        path = line.split(":")[0].strip()
        try:
            with TTFont(path, lazy=True, fontNumber=0) as font:
                found.update(font.getBestCmap() or {})
        except Exception:  # noqa: BLE001 - a font fontTools cannot read draws nothing we can count on
            continue
    return frozenset(found) or None


def missing_glyphs(text: str) -> list[str]:
    """The characters of a text that no installed font can draw, in order, once each."""
    have = installed_glyphs()
    if have is None:
        return []
    out: list[str] = []
    for ch in text:
        if ord(ch) > 0x7E and ord(ch) not in have and not ch.isspace() and ch not in out and ord(ch) not in (0xFE0F, 0x200D):
            out.append(ch)
    return out


class FaceWarning(NamedTuple):
    card: str
    code: str      # W020: text does not fit; W021: a character no font draws; W023: a value no one sees
    message: str


_ATTRIBUTE = ir.at("attr", "attribute")


def read_attrs(tables: dict) -> frozenset:
    """Every attribute name some rule reads (`x.name` anywhere in the tables' effects)."""
    found, stack = set(), [tables.get(k) for k in tables if k not in ("protos", "game")]
    stack += [{k: v for k, v in p.items() if k not in ("attrs", "name", "text", "note")} for p in (tables.get("protos") or {}).values()]
    while stack:
        x = stack.pop()
        if isinstance(x, list):
            if len(x) == 4 and x[0] == "attr" and isinstance(x[_ATTRIBUTE], str):
                found.add(x[_ATTRIBUTE])
            stack += [y for y in x if isinstance(y, (list, dict))]
        elif isinstance(x, dict):
            stack += [y for y in x.values() if isinstance(y, (list, dict))]
    return frozenset(found)


def _unshown(attrs: dict, named: dict, face: dict, read: frozenset, text: str, names: Names, lang: str) -> list:
    """The attributes rules read that a player cannot see: not on the face (no name in words,
    not promoted to the corner) and not said in the card's own text."""
    out = []
    for k, v in (attrs or {}).items():
        if k not in read or k in named or k == face.get("corner") or k in (face.get("stats") or ()):
            continue
        said = names.name(v, lang) if isinstance(v, str) else str(v).lower() if isinstance(v, bool) else str(v)
        if isinstance(v, (list, dict)) or not said or said.lower() not in text.lower():
            out.append((k, v))
    return out


def _type_line(kind: str, deck: str) -> str:
    """The kind and the deck in words, each once (a Mythos card of the Mythos deck is "Mythos")."""
    parts = [kind[:1].upper() + kind[1:], deck]
    return " · ".join(x for i, x in enumerate(parts) if x and x.casefold() not in {p.casefold() for p in parts[:i]})


def _number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _promoted(names: Names, named: dict, attrs: dict, face: dict) -> tuple:
    """What a face shows big and what in a line: the corner (the attribute the deck's `face:`
    puts there, a number a player reads at arm's length), the stats (the deck's `stats:`, else
    every named attribute that is a number) and the tags (the other named attributes)."""
    corner = face.get("corner")
    corner = (named.get(corner, ("", ""))[0], attrs[corner]) if corner in (attrs or {}) else None
    if face.get("stats") is not None:
        stats = [named.get(k, ("", ""))[0:1] + (attrs[k],) for k in face["stats"] if k in attrs]
    else:
        stats = [(named[k][0], attrs[k]) for k in named if _number(attrs.get(k)) and k != face.get("corner")]
    shown = set(face.get("stats") or ()) | {face.get("corner")}
    # (a flag that holds reads as its name alone; one that does not is not printed)
    tags = [(named[k][0], "") if attrs.get(k) is True else named[k] for k in named
            if k not in shown and not _number(attrs.get(k)) and attrs.get(k) is not False]
    return corner, stats, tags


def card_faces(tables: dict, lang: str, only=None, size: CardSize = CardSize(CARD_W, CARD_H),
               pictures: Pictures | None = None, warnings: list | None = None) -> list[dict]:
    """One entry per printed copy: `count` copies of each card (only those in `only`, if given).
    The text's size is the largest; `fitting` measures it down where it does not fit."""
    names = Names(tables)
    book = Book(tables, lang)
    pictures = pictures or Pictures(None)
    protos = tables.get("protos") or {}
    version = (tables.get("game") or {}).get("version")
    game_name = text_of((tables.get("game") or {}).get("name"), lang, "")
    read = read_attrs(tables)
    faces = []
    for cid in card_ids(tables):
        if only is not None and cid not in only:
            continue
        p = protos[cid]
        deck = p.get("deck")
        kind = p.get("kind", "card")
        deck_t = (tables.get("decks") or {}).get(deck) or {}
        text = text_of(p.get("text"), lang)
        # authored text wins: the effect in words only where the card has no text of its own
        lines = Renderer(names, lang, "cards").lines(p["effect"]) if p.get("effect") and not text else []
        cond = Renderer(names, lang, "cards").condition(p["if"]) if p.get("if") is not None and not text else None
        named = _named_attrs(names, book, p.get("attrs"))
        attrs = list(named.values())
        corner, stats, tags = _promoted(names, named, p.get("attrs") or {}, deck_t.get("face") or {})
        # art named after the card, else after its kind or its deck (one picture for a whole sort)
        art = pictures.art(cid) or pictures.art(kind) or (pictures.art(deck) if deck else None)
        name = names.name(cid, lang)
        paragraphs = [_plain(text, tables, lang, pictures)] + [cond or ""] + [s for _d, s in lines]
        kind_name = names.name(kind, lang) if kind != "card" and names.has_term(kind) else ""
        face = {
            "id": cid, "name": name, "deck": names.name(deck, lang) if deck else "", "deck_id": deck or "",
            "kind": kind, "attrs": attrs, "attr": dict(p.get("attrs") or {}), "named": named,
            "lang": lang, "corner": corner, "stats": stats, "tags": tags,
            "type": _type_line(kind_name, names.name(deck, lang) if deck else ""),
            "initial": (name.strip()[:1] or "?").upper(), "copies": p.get("count", 1),
            "text": iconized(text, tables, lang, pictures) if text else "", "plain": paragraphs[0],
            "paragraphs": paragraphs,
            "cond": cond, "lines": lines, "stamp": f"{cid} · v{version} · {card_hash(p)}",
            "hue": _hue(deck or kind), "game": game_name, "art": art or "",
            "back": text_of(deck_t.get("back"), lang) or (names.name(deck, lang) if deck else game_name),
            "unshown": _unshown(p.get("attrs"), named, deck_t.get("face") or {}, read, " ".join(paragraphs), names, lang),
            "size": FIT_SIZES[0], "fits": True, "overflow": 0.0, "fit_end": "", "art_h": ART_SHARE * size.h,
            "template": [f"card.{deck}.html.j2"] * bool(deck) + [f"card.{kind}.html.j2", "card.html.j2"],
        }
        faces.extend([face] * p.get("count", 1))
    if warnings is not None:
        warnings += face_warnings(faces, lang)
    return faces


def face_warnings(faces: list, lang: str) -> list:
    """W020 for a text that does not fit even at the smallest size, W021 for a character no
    installed font draws, W023 for an attribute the rules read that the face does not show:
    once per card."""
    out, seen = [], set()
    for f in faces:
        if f["id"] in seen:
            continue
        seen.add(f["id"])
        cid = f["id"]
        for k, v in f["unshown"]:
            out.append(FaceWarning(cid, "W023", f"card `{cid}` ({lang}): its `{k}` ({json.dumps(v, ensure_ascii=False)[:40]}) is "
                                                f"read by the rules but on no face and not in its text; give `{k}` words "
                                                f"under `game: terms:`, or put it in its deck's `face: corner:`"))
        if not f["fits"]:
            out.append(FaceWarning(cid, "W020", f"card `{cid}` ({lang}): its text runs {f['overflow']:.1f} mm past "
                                                f"the face even at {FIT_SIZES[-1]} pt; shorten it or use a larger card size"))
        gone = missing_glyphs(" ".join([f["name"], f["deck"], *f["paragraphs"], *(f"{k} {v}" for k, v in f["attrs"])]))
        if gone:
            shown = ", ".join(f"{ch!r} (U+{ord(ch):04X})" for ch in gone[:5])
            out.append(FaceWarning(cid, "W021", f"card `{cid}` ({lang}): no installed font has {shown}: it would "
                                                f"print as an empty box; give the icon an image in "
                                                f"art/icons/ or use another character"))
    return out


def sheets(faces: list, paper: str, size: CardSize = CardSize(CARD_W, CARD_H)):
    """Fronts and backs, page after page: each front sheet followed by its mirrored backs."""
    cols, rows = per_page(paper, size)
    per = cols * rows
    if per < 1:
        raise UsageError(f"a {size.w:g}×{size.h:g} mm card does not fit on {paper} paper")
    front_slots, marks = _slots(paper, back=False, size=size)
    back_slots, back_marks = _slots(paper, back=True, size=size)
    pages = []
    for i in range(0, len(faces), per):
        chunk = faces[i:i + per]
        pages.append({"side": "front", "marks": marks, "cards": list(zip(front_slots, chunk))})
        pages.append({"side": "back", "marks": back_marks, "cards": list(zip(back_slots, chunk))})
    return pages


def one_per_page(faces: list, size: CardSize = CardSize(CARD_W, CARD_H)):
    """Each distinct card alone on a page of its bleed size, front only: the pages of a
    per-card image export (one PNG per card, for a virtual table)."""
    seen, pages = set(), []
    slot = {"x": 0.0, "y": 0.0, "w": size.w + 2 * BLEED, "h": size.h + 2 * BLEED, "tx": BLEED, "ty": BLEED}
    for f in faces:
        if f["id"] not in seen:
            seen.add(f["id"])
            pages.append({"side": "front", "marks": [], "cards": [(slot, f)]})
    return pages


def contact_sheet(faces: list, paper: str, size: CardSize = CardSize(CARD_W, CARD_H)):
    """Every distinct card once, fronts only, no crop marks: a sheet to look the game over."""
    seen, distinct = set(), []
    for f in faces:
        if f["id"] not in seen:
            seen.add(f["id"])
            distinct.append(f)
    front_slots, _marks = _slots(paper, back=False, size=size)
    per = len(front_slots)
    return [{"side": "front", "marks": [], "cards": list(zip(front_slots, distinct[i:i + per]))}
            for i in range(0, len(distinct), per)]


def art_box(face: dict) -> Markup:
    """A face's art slot, as tall as the measured fit leaves room for: the game's picture, or
    a placeholder (the card's initial on its deck's colour) where the game has none."""
    height = face.get("art_h", ART_SHARE * CARD_H)
    if height < ART_MIN:
        return Markup("")
    h = f'height: {height:.1f}mm'
    if face.get("art"):
        return Markup(f'<div class="art" style="{h}; background-image: url(\'{html.escape(face["art"])}\')"></div>')
    hue = face.get("hue", 0)
    # (one flat colour: a gradient over a third of every card doubles the time of its 300 dpi PNG)
    return Markup(f'<div class="art placeholder" style="{h}; background: hsl({hue}, 42%, 46%)">'
                  f'<span>{html.escape(face.get("initial", ""))}</span></div>')


def render_cards(tables: dict, lang: str, paper: str = "a4", game_folder: str | None = None, only=None,
                 size: CardSize = CardSize(CARD_W, CARD_H), layout: str = "sheets", warnings: list | None = None,
                 faces: list | None = None, measure: bool = False) -> str:
    """The cards as one HTML document: `sheets` (fronts and backs interleaved for duplex
    printing), `contact` (each card once, with its copies) or `single` (each card on a page of
    its own size), or for a virtual table `back` (each face's back, trimmed, a page each).
    `faces`: as `card_faces` makes them (fitted by `fitting`), else made here;
    `measure`: nothing clipped, for `fitting` to see how far a text runs past its face."""
    env = environment(game_folder)
    pw, ph = PAPER[paper]
    pictures = Pictures(game_folder)
    if faces is None:
        faces = card_faces(tables, lang, only, size, pictures)
    icon = lambda s: iconized(s, tables, lang, pictures)  # noqa: E731
    names = Names(tables)
    term = lambda ident: names.name(ident, lang)  # noqa: E731
    if warnings is not None:
        warnings += face_warnings(faces, lang)
    if layout == "single":
        pages, pw, ph = one_per_page(faces, size), size.w + 2 * BLEED, (size.h + 2 * BLEED) * (4 if measure else 1)
    elif layout == "contact":
        pages = contact_sheet(faces, paper, size)
    elif layout == "back":
        slot = {"x": 0.0, "y": 0.0, "w": size.w, "h": size.h, "tx": 0.0, "ty": 0.0}
        pages, pw, ph = [{"side": "back", "marks": [], "cards": [(slot, f)]} for f in faces], size.w, size.h
    else:
        pages = sheets(faces, paper, size)
    return rendered(env, "cards.html.j2", dict(
        lang=lang, pages=pages, paper_w=pw, paper_h=ph, card_w=size.w, card_h=size.h,
        bleed=BLEED, safe=SAFE, count=len(faces), title=text_of((tables.get("game") or {}).get("name"), lang, ""),
        min_pt=FIT_SIZES[-1], icon=icon, term=term, art=art_box, contact=layout == "contact", measure=measure))
