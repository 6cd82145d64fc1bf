"""`rulepress print`: the rulebook and the card sheets as PDF files (WeasyPrint)."""
from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile

from .cards import CardSize, card_hash, card_ids, card_size, render_cards
from .components import render_components
from .content import UsageError, shown_path
from .fitting import fitted_faces
from .pagefiles import game_files
from .tts import write_tts
from .pipeline import compile_game
from .revisions import RevisionError, export, temporary
from .rulebook import TemplateRefused, render_rulebook, template_problems
from .source import NotReadable, read_bytes
from .writing import check_output_folder, folder_in, make_output_folder, put


class PrintError(Exception):
    """The game does not build, or git cannot give the old revision."""


def _pdf(html_text: str, base: str, path: str) -> str:
    import weasyprint  # imported here: the rest of the compiler works without the PDF libraries
    page = weasyprint.HTML(string=html_text, base_url=base, url_fetcher=game_files(base))
    put(path, page.write_pdf())  # (never through a link: see writing)
    return path


def game_tables(folder: str) -> dict:
    text, _gid, report = compile_game(folder)
    for problem in template_problems(folder):  # what would stop `build` stops `print`
        report.error(problem.pos, "G007", problem.message)
    if text is None or report.errors:
        errors = [d.text() for d in report.sorted() if d.severity == "error"]
        more = f" (and {len(errors) - 1} more: `rulepress validate {folder}`)" if len(errors) > 1 else ""
        raise PrintError(f"{folder} does not build: {errors[0] if errors else 'no tables'}{more}")
    return json.loads(text)


def tables_at(folder: str, ref: str) -> dict | None:
    """The game's tables as they were at a git revision; None if the game did not exist (or
    build) then. The old files are read the way revisions reads them: no filter nor hook of
    the repository runs, and no name of its tree writes outside a temporary folder."""
    with temporary() as tmp:
        try:
            old = export(folder, ref, tmp, "--changed-since")
        except RevisionError as exc:
            raise PrintError(str(exc)) from None
        if old is None:
            return None
        text, _gid, _rep = compile_game(old)
    return json.loads(text) if text else None


def changed_cards(folder: str, ref: str, tables: dict) -> set[str]:
    """Cards whose definition differs from the one at `ref` (new cards included)."""
    old = tables_at(folder, ref)
    now = tables.get("protos") or {}
    if old is None:
        return set(card_ids(tables))
    before = old.get("protos") or {}
    return {c for c in card_ids(tables) if c not in before or card_hash(before[c]) != card_hash(now[c])}


def print_game(folder: str, langs=("en",), paper="a4", changed_since=None, out_dir="print",
               size: str | None = None, png: bool = False, warnings: list | None = None,
               tts: bool = False, tts_url: str | None = None, contact: bool = False, rulebook: bool = True) -> list[str]:
    """Write <out>/<game>.rulebook.<lang>.pdf, <game>.components.<lang>.pdf (tokens, board,
    player aids: `components`) and <game>.cards.<lang>.pdf (and with `png`, a
    contact sheet <game>.contact.<lang>.pdf and one PNG per card in <game>.cards.<lang>/;
    with `tts`, Tabletop Simulator's deck images in <game>.tts.<lang>/ and the saved object
    <game>.tts.<lang>.json, its images at `tts_url` if given; with `contact`, the contact
    sheet as PDF and as PNG pages <game>.contact.<lang>-<n>.png at 60 dpi, and
    <game>.sheets.json, the content hash they were made from; without `rulebook`, no
    rulebook); returns the paths written.
    `warnings` gets each card face's warning as one line."""
    if not os.path.isdir(folder):
        raise UsageError(f"no game folder {folder}")
    check_output_folder(out_dir)
    cards = card_size(size)
    tables = game_tables(folder)
    gid = tables["game"]["id"]
    found: list = []
    try:
        written = _print(folder, tables, gid, langs, paper, changed_since, out_dir, cards, png, found, tts, tts_url, contact,
                         rulebook)
        if contact:
            path = os.path.join(out_dir, f"{gid}.sheets.json")
            put(path, (json.dumps({"content_hash": tables.get("content_hash"), "langs": list(langs), "paper": paper,
                                   "size": f"{cards.w:g}x{cards.h:g}"}, indent=1) + "\n").encode("utf-8"))
            written.append(path)
        return written
    except TemplateRefused as exc:
        raise PrintError(f"{exc.pos}: error: G007 {exc.message}") from None
    finally:
        if warnings is not None:
            warnings += [f"{_card_pos(folder, w.card)}: warning: {w.code} {w.message}" for w in found]


def _card_pos(folder: str, card: str) -> str:
    """Where a card is declared (`id: <card>` in one of the game's files), for a warning."""
    pattern = re.compile(r"\bid:\s*" + re.escape(card) + r"\b")
    for name in sorted(os.listdir(folder)):
        if name.endswith((".yaml", ".yml")):
            try:
                lines = read_bytes(os.path.join(folder, name), within=folder).decode("utf-8", "replace").splitlines()
            except NotReadable:
                continue
            for n, line in enumerate(lines, 1):
                m = pattern.search(line)
                if m:
                    return f"{shown_path(os.path.join(folder, name))}:{n}:{m.start() + 1}"
    return f"{shown_path(os.path.join(folder, 'game.yaml'))}:1:1"


def _print(folder, tables, gid, langs, paper, changed_since, out_dir, size: CardSize, png, warnings,
           tts=False, tts_url=None, contact=False, rulebook=True) -> list[str]:
    only = changed_cards(folder, changed_since, tables) if changed_since else None
    make_output_folder(out_dir)  # (not before the revision is read: a wrong one leaves nothing behind)
    written = []
    for lang in langs:
        if changed_since is None:
            if rulebook:
                html_text = render_rulebook(tables, lang, "html", folder, paper)
                written.append(_pdf(html_text, folder, os.path.join(out_dir, f"{gid}.rulebook.{lang}.pdf")))
            html_text = render_components(tables, lang, paper, folder)
            if html_text is not None:
                written.append(_pdf(html_text, folder, os.path.join(out_dir, f"{gid}.components.{lang}.pdf")))
        ids = card_ids(tables) if only is None else [c for c in card_ids(tables) if c in only]
        if ids:
            faces = fitted_faces(tables, lang, folder, set(ids), size, warnings)
            html_text = render_cards(tables, lang, paper, folder, size=size, faces=faces)
            written.append(_pdf(html_text, folder, os.path.join(out_dir, f"{gid}.cards.{lang}.pdf")))
            if png or contact:
                html_text = render_cards(tables, lang, paper, folder, size=size, layout="contact", faces=faces)
                written.append(_pdf(html_text, folder, os.path.join(out_dir, f"{gid}.contact.{lang}.pdf")))
            if contact:
                written += _contact_pngs(written[-1], out_dir, f"{gid}.contact.{lang}")
            if png or tts:
                with tempfile.TemporaryDirectory() as tmp:
                    # (the per-card images are made once: the TTS grids are cut from them)
                    html_text = render_cards(tables, lang, paper, folder, size=size, layout="single", faces=faces)
                    dpi = PNG_DPI if png else TTS_DPI
                    card_png = _card_pngs(html_text, folder, tmp, dpi, faces)
                    if png:
                        target = folder_in(out_dir, f"{gid}.cards.{lang}")
                        for cid, image in card_png.items():
                            with open(image, "rb") as fh:
                                put(os.path.join(target, f"{cid}.png"), fh.read())
                            written.append(os.path.join(target, f"{cid}.png"))
                    if tts:
                        try:
                            written += write_tts(tables, lang, folder, faces, size, folder_in(out_dir, f"{gid}.tts.{lang}"),
                                                 _pdf, card_png, dpi, tts_url)
                        except OSError as exc:
                            raise PrintError(f"Tabletop Simulator images failed: {exc}") from None
    return written


PNG_DPI = 300  # what a virtual table scales down from without blur
TTS_DPI = 250  # `--tts` without `--png`: enough to scale down to the grids' 200 dpi sharply
CONTACT_DPI = 60  # a contact sheet to look a game over (and to keep in a repository)


def _contact_pngs(pdf: str, out_dir: str, stem: str) -> list[str]:
    """The contact sheet's pages as PNG files <stem>-<n>.png."""
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run(["pdftoppm", "-png", "-r", str(CONTACT_DPI), pdf, os.path.join(tmp, "p")],
                              capture_output=True, check=False, timeout=600)
        if done.returncode != 0:
            raise PrintError(f"pdftoppm failed: {done.stderr.decode(errors='replace').strip()[:200]}")
        out = []
        for n, page in enumerate(sorted(f for f in os.listdir(tmp) if f.endswith(".png")), 1):
            with open(os.path.join(tmp, page), "rb") as fh:
                path = os.path.join(out_dir, f"{stem}-{n}.png")
                put(path, fh.read())
                out.append(path)
    return out


def _card_pngs(html_text: str, folder: str, tmp: str, dpi: int, faces: list) -> dict:
    """Each distinct face's PNG (with its bleed, at `dpi`), from the `single` layout's page
    per card, as {card id: path in `tmp`}."""
    pdf = _pdf(html_text, folder, os.path.join(tmp, "cards.pdf"))
    done = subprocess.run(["pdftoppm", "-png", "-r", str(dpi), pdf, os.path.join(tmp, "p")],
                          capture_output=True, check=False, timeout=600)
    if done.returncode != 0:
        raise PrintError(f"pdftoppm failed: {done.stderr.decode(errors='replace').strip()[:200]}")
    pages = sorted(f for f in os.listdir(tmp) if f.startswith("p-") and f.endswith(".png"))
    ids = list(dict.fromkeys(f["id"] for f in faces))  # (one_per_page's order)
    if len(pages) != len(ids):
        raise PrintError(f"pdftoppm made {len(pages)} card images for {len(ids)} cards")
    return {cid: os.path.join(tmp, page) for cid, page in zip(ids, pages)}
