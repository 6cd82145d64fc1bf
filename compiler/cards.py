"""Print-and-play card sheets: poker cards 3×3 a page, with bleed, crop marks and duplex backs.

All sizes are millimetres. A card is 63×88 trimmed, printed 3 mm larger on every side
(bleed) so a slightly wandering cut still shows no white edge; text stays 3 mm inside the
cut (the safe area, drawn as the card's frame). Backs are printed on the next page with
the columns mirrored, so they line up when the sheet is printed on both sides and turned
over its long edge.
"""
from __future__ import annotations

import hashlib
import json
import re

from .render import Names, Renderer, text_of
from .rulebook import Book, environment, iconize_html, rendered

CARD_W, CARD_H = 63.0, 88.0
BLEED = 3.0
SAFE = 3.0
COLS, ROWS = 3, 3
MIN_MARGIN = 5.0    # what most printers cannot print
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


def _slots(paper: str, back: bool):
    """Each slot of a sheet: the bleed box (x, y, w, h) and where the trimmed card sits inside it."""
    pw, ph = PAPER[paper]

    def gutter(page, card, n):
        room = (page - 2 * MIN_MARGIN - n * card - 2 * BLEED) / (n - 1)
        return max(0.0, min(2 * BLEED, room))

    gx, gy = gutter(pw, CARD_W, COLS), gutter(ph, CARD_H, ROWS)
    left = (pw - (COLS * CARD_W + (COLS - 1) * gx)) / 2
    top = (ph - (ROWS * CARD_H + (ROWS - 1) * gy)) / 2
    slots = []
    for r in range(ROWS):
        for c in range(COLS):
            col = COLS - 1 - c if back else c
            x, y = left + col * (CARD_W + gx), top + r * (CARD_H + gy)
            # inside the grid two cards share the gutter, each bleeding into its half
            # (a hair more, so no white seam shows where two bleeds meet)
            bl = BLEED if col == 0 else min(BLEED, gx / 2 + SEAM)
            br = BLEED if col == COLS - 1 else min(BLEED, gx / 2 + SEAM)
            bt = BLEED if r == 0 else min(BLEED, gy / 2 + SEAM)
            bb = BLEED if r == ROWS - 1 else min(BLEED, gy / 2 + SEAM)
            slots.append({"x": x - bl, "y": y - bt, "w": CARD_W + bl + br, "h": CARD_H + bt + bb,
                          "tx": bl, "ty": bt})
    cuts_x = sorted({round(left + c * (CARD_W + gx) + d, 3) for c in range(COLS) for d in (0, CARD_W)})
    cuts_y = sorted({round(top + r * (CARD_H + gy) + d, 3) for r in range(ROWS) for d in (0, CARD_H)})
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


def card_faces(tables: dict, lang: str, only=None) -> list[dict]:
    """One entry per printed copy: `count` copies of each card (only those in `only`, if given)."""
    names = Names(tables)
    book = Book(tables, lang)
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
        lines = Renderer(names, lang, "cards").lines(p["effect"]) if p.get("effect") else []
        cond = Renderer(names, lang, "cards").condition(p["if"]) if p.get("if") is not None else None
        text = text_of(p.get("text"), lang)
        size = len(text) + sum(len(s) for _d, s in lines) + len(cond or "")
        face = {
            "id": cid, "name": names.name(cid, lang), "deck": names.name(deck, lang) if deck else "",
            "kind": p.get("kind", "card"), "attrs": book.attrs(p.get("attrs")), "text": text,
            "cond": cond, "lines": lines, "stamp": f"{cid} · v{version} · {card_hash(p)}",
            "hue": _hue(deck or p.get("kind", "card")), "game": game_name,
            "back": text_of(deck_t.get("back"), lang) or (names.name(deck, lang) if deck else game_name),
            "fit": "s" if size < 220 else ("m" if size < 450 else "l"),
        }
        faces.extend([face] * p.get("count", 1))
    return faces


def sheets(faces: list, paper: str):
    """Fronts and backs, page after page: each front sheet followed by its mirrored backs."""
    per = COLS * ROWS
    front_slots, marks = _slots(paper, back=False)
    back_slots, back_marks = _slots(paper, back=True)
    pages = []
    for i in range(0, len(faces), per):
        chunk = faces[i:i + per]
        pages.append({"side": "front", "marks": marks, "cards": list(zip(front_slots, chunk))})
        pages.append({"side": "back", "marks": back_marks, "cards": list(zip(back_slots, chunk))})
    return pages


def render_cards(tables: dict, lang: str, paper: str = "a4", game_folder: str | None = None, only=None) -> str:
    """The card sheets as one HTML document (fronts and backs interleaved for duplex printing)."""
    env = environment(game_folder)
    pw, ph = PAPER[paper]
    faces = card_faces(tables, lang, only)
    return rendered(env, "cards.html.j2", dict(
        lang=lang, pages=sheets(faces, paper), paper_w=pw, paper_h=ph, card_w=CARD_W, card_h=CARD_H,
        bleed=BLEED, safe=SAFE, count=len(faces), title=text_of((tables.get("game") or {}).get("name"), lang, ""),
        icon=lambda s: iconize_html(s, tables, lang)))
