"""Tabletop Simulator export: each deck as TTS custom-deck images and a saved object TTS loads.

TTS draws a custom deck from a grid image of card faces (at most 10 across and 7 down) and one
back image; a saved object (JSON) lists the cards by id: deck number × 100 + place in the grid.
A deck with more than 70 different faces takes several grids. Cards without a deck are grouped
by their kind. A grid is put together from the per-card images `print` renders anyway (each
card on a page of its bleed size): each is trimmed of its bleed and scaled to exact pixel
sizes, so a grid is always columns × rows card images and no face is laid out twice. The
backs, one a pile, are one document of a page each."""
from __future__ import annotations

import io
import json
import os
import subprocess
import tempfile
from typing import NamedTuple

from .cards import BLEED, CardSize, render_cards
from .render import Names, text_of
from .writing import make_output_folder, put

COLS, ROWS = 10, 7   # TTS's largest custom-deck grid
CARD_DPI = 200       # a poker card is 496×693 px; ten across stay under TTS's 10 000 px


class Grid(NamedTuple):
    deck: str         # the pile's id (a deck, or a kind for cards without one)
    number: int       # its CustomDeck number in the saved object, from 1
    faces: list       # the distinct faces on it, in grid order
    cols: int
    rows: int


def card_pixels(size: CardSize) -> tuple[int, int]:
    return round(size.w / 25.4 * CARD_DPI), round(size.h / 25.4 * CARD_DPI)


def grids(faces: list) -> list[Grid]:
    """The grids of a game's faces, pile by pile (in the cards' order), 70 faces at most each."""
    piles: dict[str, list] = {}
    for f in faces:
        pile = piles.setdefault(f["deck_id"] or f["kind"], [])
        if all(g["id"] != f["id"] for g in pile):
            pile.append(f)
    out = []
    for deck, pile in piles.items():
        for i in range(0, len(pile), COLS * ROWS):
            chunk = pile[i:i + COLS * ROWS]
            cols = min(COLS, len(chunk))
            out.append(Grid(deck, len(out) + 1, chunk, cols, -(-len(chunk) // cols)))
    return out


def _transform(x: float) -> dict:
    return {"posX": x, "posY": 1.0, "posZ": 0.0, "rotX": 0.0, "rotY": 180.0, "rotZ": 180.0,
            "scaleX": 1.0, "scaleY": 1.0, "scaleZ": 1.0}


def saved_object(tables: dict, lang: str, faces: list, grid_list: list[Grid], url) -> dict:
    """The TTS saved object: one deck (or a lone card) per pile, each card as often as printed."""
    names = Names(tables)
    copies = {f["id"]: f["copies"] for f in faces}
    objects, piles = [], {}
    for g in grid_list:
        piles.setdefault(g.deck, []).append(g)
    for n, (deck, gs) in enumerate(piles.items()):
        custom = {str(g.number): {"FaceURL": url(f"{deck}.{g.number}.png"), "BackURL": url(f"{deck}.back.png"),
                                  "NumWidth": g.cols, "NumHeight": g.rows, "BackIsHidden": True,
                                  "UniqueBack": False, "Type": 0} for g in gs}
        cards = []
        for g in gs:
            for i, f in enumerate(g.faces):
                card_id = g.number * 100 + i
                cards += [{"Name": "Card", "Nickname": f["name"], "Description": "", "CardID": card_id,
                           "Transform": _transform(3.0 * n),
                           "CustomDeck": {str(g.number): custom[str(g.number)]}}] * copies[f["id"]]
        nickname = names.name(deck, lang)
        if len(cards) == 1:
            objects.append(cards[0])
            continue
        objects.append({"Name": "DeckCustom", "Nickname": nickname, "Description": "", "Transform": _transform(3.0 * n),
                        "DeckIDs": [c["CardID"] for c in cards], "CustomDeck": custom, "ContainedObjects": cards})
    game = text_of((tables.get("game") or {}).get("name"), lang, "")
    return {"SaveName": game, "GameMode": game, "Date": "", "Table": "", "Sky": "", "Note": "", "Rules": "",
            "XmlUI": "", "LuaScript": "", "LuaScriptState": "", "ObjectStates": objects}


def _backs(pdf: str, tmp: str, w: int, h: int) -> list[str]:
    """The pages of `pdf` as PNG files of exactly w×h pixels, in page order."""
    done = subprocess.run(["pdftoppm", "-png", "-scale-to-x", str(w), "-scale-to-y", str(h), pdf, os.path.join(tmp, "b")],
                          capture_output=True, check=False, timeout=600)
    if done.returncode != 0:
        raise OSError(done.stderr.decode(errors="replace").strip()[:200] or "pdftoppm failed")
    return [os.path.join(tmp, f) for f in sorted(f for f in os.listdir(tmp) if f.startswith("b-") and f.endswith(".png"))]


def _grid_png(g: Grid, card_png: dict, dpi: float, size: CardSize, cw: int, ch: int) -> bytes:
    """A grid image: each face's per-card image (at `dpi`, with its bleed) trimmed and scaled
    to cw×ch, left to right, top to bottom; a slot past the last face stays white."""
    from PIL import Image  # imported here, like WeasyPrint: only printing needs it
    px = dpi / 25.4
    box = (BLEED * px, BLEED * px, (BLEED + size.w) * px, (BLEED + size.h) * px)
    grid = Image.new("RGB", (g.cols * cw, g.rows * ch), "white")
    for i, f in enumerate(g.faces):
        with Image.open(card_png[f["id"]]) as card:
            grid.paste(card.convert("RGB").resize((cw, ch), Image.Resampling.LANCZOS, box=box), ((i % g.cols) * cw, (i // g.cols) * ch))
    out = io.BytesIO()
    grid.save(out, "PNG", compress_level=6)
    return out.getvalue()


def write_tts(tables: dict, lang: str, folder: str, faces: list, size: CardSize, target: str, to_pdf,
              card_png: dict, dpi: float, base_url: str | None = None) -> list[str]:
    """<target>/<pile>.<n>.png (face grids), <pile>.back.png, and <target>.json (the saved
    object); `card_png`: each face's per-card image (a path), rendered at `dpi` with its bleed;
    `base_url`: where the images will be served from (default: these files)."""
    make_output_folder(target)
    grid_list = grids(faces)
    if base_url:
        url = lambda name: base_url.rstrip("/") + "/" + name  # noqa: E731
    else:
        top = os.path.abspath(target)
        url = lambda name: "file://" + os.path.join(top, name)  # noqa: E731
    cw, ch = card_pixels(size)
    written = []
    for g in grid_list:
        path = os.path.join(target, f"{g.deck}.{g.number}.png")
        put(path, _grid_png(g, card_png, dpi, size, cw, ch))
        written.append(path)
    piles = list(dict.fromkeys(g.deck for g in grid_list))
    firsts = [next(g.faces[0] for g in grid_list if g.deck == deck) for deck in piles]
    with tempfile.TemporaryDirectory() as tmp:
        html_text = render_cards(tables, lang, "a4", folder, size=size, layout="back", faces=firsts)
        images = _backs(to_pdf(html_text, folder, os.path.join(tmp, "backs.pdf")), tmp, cw, ch)
        if len(images) != len(piles):
            raise OSError(f"{len(images)} back images for {len(piles)} piles")
        for deck, image in zip(piles, images):
            path = os.path.join(target, f"{deck}.back.png")
            with open(image, "rb") as fh:
                put(path, fh.read())
            written.append(path)
    doc = saved_object(tables, lang, faces, grid_list, url)
    path = target + ".json"
    put(path, (json.dumps(doc, ensure_ascii=False, indent=1) + "\n").encode("utf-8"))
    return written + [path]
