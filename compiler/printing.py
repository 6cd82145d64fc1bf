"""`rulepress print`: the rulebook and the card sheets as PDF files (WeasyPrint)."""
from __future__ import annotations

import json
import os
import subprocess
import tempfile

from .cards import card_hash, card_ids, render_cards
from .content import UsageError
from .pipeline import compile_game
from .rulebook import TemplateRefused, render_rulebook
from .writing import check_output_folder, make_output_folder, put


class PrintError(Exception):
    """The game does not build, or git cannot give the old revision."""


def _pdf(html_text: str, base: str, path: str) -> str:
    import weasyprint  # imported here: the rest of the compiler works without the PDF libraries
    page = weasyprint.HTML(string=html_text, base_url=base, url_fetcher=_game_files(base))
    put(path, page.write_pdf())  # (never through a link: see writing)
    return path


def _game_files(folder: str):
    """What a printed page may fetch (images, style sheets): regular files inside the game
    folder and `data:` URLs, nothing else. A game's template is content, and must not put
    the user's other files, or what some server answers, into a PDF."""
    from urllib.parse import unquote, urlsplit
    from weasyprint.urls import URLFetcher
    top = os.path.realpath(folder)

    class GameFiles(URLFetcher):
        def fetch(self, url, headers=None):
            if url.startswith("file:"):
                path = os.path.realpath(unquote(urlsplit(url).path))
                if os.path.commonpath([top, path]) != top or not os.path.isfile(path):
                    raise ValueError(f"not a file of the game: {url}")
            return super().fetch(url, headers)
    return GameFiles(allowed_protocols=("file", "data"))


def game_tables(folder: str) -> dict:
    text, _gid, report = compile_game(folder)
    if text is None:
        lines = "\n".join(d.text() for d in report.sorted() if d.severity == "error")
        raise PrintError(f"{folder} does not build:\n{lines}")
    return json.loads(text)


def _git(args, cwd):
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=False)


def tables_at(folder: str, ref: str) -> dict | None:
    """The game's tables as they were at a git revision; None if the game did not exist (or build) then."""
    top = _git(["rev-parse", "--show-toplevel"], folder)
    if top.returncode != 0:
        raise PrintError(f"{folder} is not in a git repository")
    root = top.stdout.decode().strip()
    if _git(["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], root).returncode != 0:
        raise PrintError(f"unknown git revision `{ref}`")
    rel = os.path.relpath(os.path.realpath(folder), os.path.realpath(root))
    listing = _git(["ls-tree", "-r", "--name-only", ref, "--", rel], root)
    files = [f for f in listing.stdout.decode().splitlines() if f]
    if not files:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        for f in files:
            blob = _git(["show", f"{ref}:{f}"], root)
            dest = os.path.join(tmp, f)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            with open(dest, "wb") as fh:
                fh.write(blob.stdout)
        text, _gid, _rep = compile_game(os.path.join(tmp, rel))
    return json.loads(text) if text else None


def changed_cards(folder: str, ref: str, tables: dict) -> set[str]:
    """Cards whose definition differs from the one at `ref` (new cards included)."""
    old = tables_at(folder, ref)
    now = tables.get("protos") or {}
    if old is None:
        return set(card_ids(tables))
    before = old.get("protos") or {}
    return {c for c in card_ids(tables) if c not in before or card_hash(before[c]) != card_hash(now[c])}


def print_game(folder: str, langs=("en",), paper="a4", changed_since=None, out_dir="print") -> list[str]:
    """Write <out>/<game>.rulebook.<lang>.pdf and <game>.cards.<lang>.pdf; returns the paths written."""
    if not os.path.isdir(folder):
        raise UsageError(f"no game folder {folder}")
    check_output_folder(out_dir)
    tables = game_tables(folder)
    gid = tables["game"]["id"]
    make_output_folder(out_dir)
    try:
        return _print(folder, tables, gid, langs, paper, changed_since, out_dir)
    except TemplateRefused as exc:
        raise PrintError(f"{exc.pos}: error: G007 {exc.message}") from None


def _print(folder, tables, gid, langs, paper, changed_since, out_dir) -> list[str]:
    only = changed_cards(folder, changed_since, tables) if changed_since else None
    written = []
    for lang in langs:
        if changed_since is None:
            html_text = render_rulebook(tables, lang, "html", folder, paper)
            written.append(_pdf(html_text, folder, os.path.join(out_dir, f"{gid}.rulebook.{lang}.pdf")))
        ids = card_ids(tables) if only is None else [c for c in card_ids(tables) if c in only]
        if ids:
            html_text = render_cards(tables, lang, paper, folder, set(ids))
            written.append(_pdf(html_text, folder, os.path.join(out_dir, f"{gid}.cards.{lang}.pdf")))
    return written
