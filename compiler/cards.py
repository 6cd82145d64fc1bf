"""Print-and-play card sheets: as many cards as fit a page, with bleed, crop marks and duplex backs.

All sizes are millimetres. A card (poker 63×88 unless asked otherwise) is printed 3 mm
larger on every side (bleed) so a slightly wandering cut still shows no white edge; text
stays 3 mm inside the cut (the safe area, drawn as the card's frame). Backs are printed on
the next page with the columns mirrored, so they line up when the sheet is printed on both
sides and turned over its long edge.

A card's face comes from the template of its deck in the game folder
(`templates/card.<deck>.html.j2`, else the game's or the built-in `card.html.j2`), with
art from `art/<card id>.png|jpg|svg` and icon images from `art/icons/<icon id>.svg|png`.
Its text is set in the largest size from 7.5 pt down to 6 pt that fits; a card whose text
does not fit even at 6 pt, or that holds a character no installed font can draw (it
would print as an empty box), is a warning with the card's id.
"""
from __future__ import annotations

import functools
import hashlib
import html
import json
import math
import re
import subprocess
from typing import NamedTuple

from markupsafe import Markup

from .content import UsageError
from .pictures import Pictures
from .render import Names, Renderer, text_of
from .rulebook import ICON_RE, Book, environment, rendered, template_value

CARD_W, CARD_H = 63.0, 88.0
SIZES = {"poker": (63.0, 88.0), "bridge": (57.0, 89.0), "tarot": (70.0, 120.0), "mini": (44.0, 63.0),
         "square": (70.0, 70.0)}
FIT_SIZES = (7.5, 7.0, 6.5, 6.0)  # pt: the text's sizes, largest first; 6 pt is the smallest readable
PT = 0.3528  # mm in a point
ATTR_ROW = 3.0  # mm: one attribute's row on a face
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
    """A text with its [icon] marks as images where the game has one, else as glyphs."""
    icons = tables.get("icons") or {}
    parts, last, s = [], 0, str(text or "")
    for m in ICON_RE.finditer(s):
        parts.append(html.escape(s[last:m.start()]))
        i, iid = icons.get(m.group(1)), m.group(1)
        if i is None:
            parts.append(html.escape(m.group(0)))
        else:
            title = html.escape(text_of(i.get("name"), lang, iid))
            url = pictures.icon(iid)
            parts.append(f'<img class="icon icon-{iid}" src="{url}" alt="{title}" title="{title}">' if url else
                         f'<span class="icon icon-{iid}" title="{title}">{html.escape(i.get("glyph", ""))}</span>')
        last = m.end()
    parts.append(html.escape(s[last:]))
    return Markup("".join(parts))


def _plain(text, tables, pictures: Pictures) -> str:
    """What a text prints as characters: icons with an image are not characters."""
    icons = tables.get("icons") or {}
    return ICON_RE.sub(lambda m: "" if pictures.icon(m.group(1)) else (icons.get(m.group(1)) or {}).get("glyph", m.group(0)),
                       str(text or ""))


def _named_attrs(names: Names, book: Book, attrs: dict) -> dict:
    """The attributes a player reads on a card, id -> (name, value in words): those with a
    name in words (a term, an icon, a counter); the others are data for the rules, not print."""
    shown = {k: v for k, v in (attrs or {}).items()
             if names.has_term(k) or any(k in t and t[k].get("name") for t in (names.icons, names.counters))}
    return dict(zip(shown, book.attrs(shown))) if shown else {}


class Fit(NamedTuple):
    size: float   # pt
    fits: bool


def text_fit(paragraphs: list[str], size: CardSize, header_lines: int, attr_rows: int, art: bool,
             height: float | None = None) -> Fit:
    """The largest text size that fits the card, by an estimate on the safe side (DejaVu's
    average letter is about .55 em wide; every paragraph's last line counts as full).
    `height`: the room of the text in mm, where a template says it; else the built-in
    face's room: the card less its name, deck line, attribute rows and art."""
    width = size.w - 2 * SAFE - 2 * 2.2
    if height is None:
        height = size.h - 2 * SAFE - 2.0 - 4.5 - header_lines * 4.0 - 3.5 - attr_rows * ATTR_ROW - (size.h * 0.3 if art else 0)
    for pt in FIT_SIZES:
        per_line = max(1, int(width / (0.55 * pt * PT)))
        lines = sum(max(1, math.ceil(len(p) * 1.08 / per_line)) for p in paragraphs if p)
        if lines * pt * 1.25 * PT + len(paragraphs) * 0.5 <= height:
            return Fit(pt, True)
    return Fit(FIT_SIZES[-1], False)


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
    code: str      # W020: text does not fit; W021: a character no font draws
    message: str


def card_faces(tables: dict, lang: str, only=None, size: CardSize = CardSize(CARD_W, CARD_H),
               pictures: Pictures | None = None, warnings: list | None = None) -> list[dict]:
    """One entry per printed copy: `count` copies of each card (only those in `only`, if given)."""
    names = Names(tables)
    book = Book(tables, lang)
    pictures = pictures or Pictures(None)
    protos = tables.get("protos") or {}
    version = (tables.get("game") or {}).get("version")
    game_name = text_of((tables.get("game") or {}).get("name"), lang, "")
    faces = []
    for cid in card_ids(tables):
        if only is not None and cid not in only:
            continue
        p = protos[cid]
        deck = p.get("deck")
        deck_t = (tables.get("decks") or {}).get(deck) or {}
        text = text_of(p.get("text"), lang)
        # authored text wins: the effect in words only where the card has no text of its own
        lines = Renderer(names, lang, "cards").lines(p["effect"]) if p.get("effect") and not text else []
        cond = Renderer(names, lang, "cards").condition(p["if"]) if p.get("if") is not None and not text else None
        named = _named_attrs(names, book, p.get("attrs"))
        attrs = list(named.values())
        art = pictures.art(cid)
        name = names.name(cid, lang)
        paragraphs = [_plain(text, tables, pictures)] + [cond or ""] + [s for _d, s in lines]
        fit = text_fit(paragraphs, size, 1 + (len(name) > 24), len(attrs), bool(art))
        face = {
            "id": cid, "name": name, "deck": names.name(deck, lang) if deck else "", "deck_id": deck or "",
            "kind": p.get("kind", "card"), "attrs": attrs, "attr": dict(p.get("attrs") or {}), "named": named,
            "lang": lang,
            "text": iconized(text, tables, lang, pictures) if text else "", "plain": paragraphs[0],
            "paragraphs": paragraphs,
            "cond": cond, "lines": lines, "stamp": f"{cid} · v{version} · {card_hash(p)}",
            "hue": _hue(deck or p.get("kind", "card")), "game": game_name, "art": art or "",
            "back": text_of(deck_t.get("back"), lang) or (names.name(deck, lang) if deck else game_name),
            "size": fit.size, "fits": fit.fits,
            "template": [f"card.{deck}.html.j2"] * bool(deck) + [f"card.{p.get('kind', 'card')}.html.j2", "card.html.j2"],
        }
        faces.extend([face] * p.get("count", 1))
    if warnings is not None:
        warnings += face_warnings(faces, lang)
    return faces


def refit(face: dict, size: CardSize, text_height: float) -> None:
    """The text's size again, for a face whose template says how much room its text has."""
    fit = text_fit(face["paragraphs"], size, 0, 0, False, text_height)
    face["size"], face["fits"] = fit.size, fit.fits


def face_warnings(faces: list, lang: str) -> list:
    """W020 for a text that does not fit even at the smallest size, W021 for a character no
    installed font draws: once per card."""
    out, seen = [], set()
    for f in faces:
        if f["id"] in seen:
            continue
        seen.add(f["id"])
        cid = f["id"]
        if not f["fits"]:
            out.append(FaceWarning(cid, "W020", f"card `{cid}` ({lang}): its text does not fit the card even "
                                                f"at {FIT_SIZES[-1]} pt; shorten it or use a larger card size"))
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


def render_cards(tables: dict, lang: str, paper: str = "a4", game_folder: str | None = None, only=None,
                 size: CardSize = CardSize(CARD_W, CARD_H), layout: str = "sheets", warnings: list | None = None) -> str:
    """The cards as one HTML document: `sheets` (fronts and backs interleaved for duplex
    printing), `contact` (each card once) or `single` (each card on a page of its own size)."""
    env = environment(game_folder)
    pw, ph = PAPER[paper]
    pictures = Pictures(game_folder)
    faces = card_faces(tables, lang, only, size, pictures)
    icon = lambda s: iconized(s, tables, lang, pictures)  # noqa: E731
    rooms: dict[tuple, float | None] = {}
    for f in {f["id"]: f for f in faces}.values():  # a template may say how much room its text has
        key = tuple(f["template"])
        if key not in rooms:
            room = template_value(env, list(key), {"c": f, "icon": icon}, "text_height")
            rooms[key] = float(room) if isinstance(room, (int, float)) and 5 <= room <= size.h else None
        if rooms[key] is not None:
            refit(f, size, rooms[key])
    if warnings is not None:
        warnings += face_warnings(faces, lang)
    if layout == "single":
        pages, pw, ph = one_per_page(faces, size), size.w + 2 * BLEED, size.h + 2 * BLEED
    elif layout == "contact":
        pages = contact_sheet(faces, paper, size)
    else:
        pages = sheets(faces, paper, size)
    return rendered(env, "cards.html.j2", dict(
        lang=lang, pages=pages, paper_w=pw, paper_h=ph, card_w=size.w, card_h=size.h,
        bleed=BLEED, safe=SAFE, count=len(faces), title=text_of((tables.get("game") or {}).get("name"), lang, ""),
        min_pt=FIT_SIZES[-1], icon=icon))
