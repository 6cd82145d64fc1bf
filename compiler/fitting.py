"""Measured fit: a card's text is set in the largest size that fits its face, as WeasyPrint
(Pango) lays it out, not as letters are counted.

Each distinct card is laid out alone on a page of its size; the face's template puts
`{{ c.fit_end }}` (an empty anchor) after its text, and the anchor's line bottom, against the
bottom of the text's room, is the overflow. The cards that overflow are laid out again one
size smaller, down to the smallest; those that still overflow are W020, with by how much.
Faces are measured without art; what room the text leaves goes to the art (`art_box`).
A template without the anchor is not measured (its text keeps the largest size)."""
from __future__ import annotations

from markupsafe import Markup

from .cards import ART_SHARE, BLEED, FIT_SIZES, SAFE, CardSize, card_faces, face_warnings, render_cards
from .pagefiles import game_files
from .pictures import Pictures

PX = 25.4 / 96    # mm in a CSS pixel
STAMP_ROOM = 4.0  # mm at the bottom of the safe area kept for the fingerprint line
SLACK = 0.2       # mm a line may reach into that room (a descender is no overflow)
ART_GAP = 1.6     # mm: the most margin a template puts around its art slot


def _overflows(tables, lang, folder, faces: list, size: CardSize) -> dict[str, float]:
    """Card id -> how far (mm) its text runs past the room it has, for the faces measured."""
    import weasyprint  # (only printing needs the PDF libraries)
    for f in faces:
        f["fit_end"], f["art_h"] = Markup(f'<a id="fit-{f["id"]}"></a>'), 0.0
    try:
        html_text = render_cards(tables, lang, "a4", folder, size=size, layout="single", faces=faces, measure=True)
    finally:
        for f in faces:
            f["fit_end"] = ""
    doc = weasyprint.HTML(string=html_text, base_url=folder or ".", url_fetcher=game_files(folder or ".")).render()
    bottom = BLEED + size.h - SAFE - STAMP_ROOM
    out = {}
    for page, f in zip(doc.pages, faces):
        mark = page.anchors.get(f"fit-{f['id']}")
        if mark is not None:
            out[f["id"]] = mark[-1] * PX - bottom
    return out


def fitted_faces(tables: dict, lang: str, folder: str | None, only=None, size: CardSize = CardSize(63.0, 88.0),
                 warnings: list | None = None) -> list[dict]:
    """The faces of `card_faces`, each text in the largest size that fits (the copies of a card
    share its face); `warnings` gets W020 (and the face's other warnings) once per card."""
    faces = card_faces(tables, lang, only, size, Pictures(folder))
    todo = list({f["id"]: f for f in faces}.values())
    for pt in FIT_SIZES:
        for f in todo:
            f["size"] = pt
        over = _overflows(tables, lang, folder, todo, size)
        for f in todo:
            f["art_h"] = max(0.0, -over.get(f["id"], -ART_SHARE * size.h) - ART_GAP)
        todo = [f for f in todo if over.get(f["id"], 0.0) > SLACK]
        for f in todo:
            f["overflow"] = over[f["id"]]
        if not todo:
            break
    for f in todo:
        f["fits"] = False
    if warnings is not None:
        warnings += face_warnings(faces, lang)
    return faces
