"""A game's files from its compiled tables: game.json and the rulebooks, written."""
from __future__ import annotations

import os

from . import codegen
from .render import LANGS
from .rulebook import FORMATS, books, environment, read

OUTPUT_NAMES = ("game.json",) + tuple(f"rulebook.{lang}.{fmt}" for lang in LANGS for fmt in FORMATS)


def write(t: dict, game_folder: str, target: str, texts=None) -> dict[str, str]:
    """Write game.json and every rulebook into `target`; file name -> path. `texts` are the
    statements' texts by position (Model.statements), which spare the rulebooks working
    out which statements are alike."""
    env = environment(game_folder)
    paths = {name: os.path.join(target, name) for name in OUTPUT_NAMES}
    text = codegen.to_json(t)
    write_if_changed(paths["game.json"], text)
    for name, book in books(*read(text), env, LANGS, texts).items():
        write_if_changed(paths[name], book)
    return paths


def write_if_changed(path: str, text: str) -> None:
    """Leave a file untouched when its text is the same, so rebuilds keep timestamps.
    Line ends are compared and written as they are: afterwards the file holds exactly the
    text's bytes (the build cache copies them)."""
    if os.path.exists(path):
        with open(path, encoding="utf-8", newline="") as fh:
            if fh.read() == text:
                return
    with open(path, "w", encoding="utf-8", newline="") as fh:
        fh.write(text)
