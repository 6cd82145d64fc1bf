"""A game's outputs: game.json and the rulebooks, written into its output folder."""
from __future__ import annotations

from . import codegen
from .examples import examples
from .pictures import Pictures
from .render import LANGS
from .wording import languages
from .rulebook import FORMATS, books, environment, read
from .writing import path_in, put_text

OUTPUT_NAMES = ("game.json",) + tuple(f"rulebook.{lang}.{fmt}" for lang in LANGS for fmt in FORMATS)  # all there may be


def languages_of(t: dict) -> tuple:
    """The languages a game's rulebooks are made in: those it declares that have a message
    catalogue (S103 tells of the others), else every language there is a catalogue for."""
    declared = (t.get("game") or {}).get("languages")
    if not declared:
        return LANGS
    have = languages()
    return tuple(lang for lang in declared if lang in have)


def output_names(t: dict) -> tuple:
    """The files a build of this game writes: game.json and a rulebook per language and format."""
    return ("game.json",) + tuple(f"rulebook.{lang}.{fmt}" for lang in languages_of(t) for fmt in FORMATS)


def write(t: dict, game_folder: str, target: str, texts=None, raw: set | None = None,
          untold: set | None = None) -> dict[str, str]:
    """Write game.json and every rulebook into `target`; file name -> path. `texts` are the
    statements' texts by position (Model.statements), which spare the rulebooks working
    out which statements are alike. Nothing is written where a game's template refuses.
    `raw`, if given, gets the ids the rulebooks print for want of a name (W019); `untold`, the
    procedures they leave out for want of a `text:` (W022)."""
    env = environment(game_folder)
    paths = {name: path_in(target, name) for name in output_names(t)}
    text = codegen.to_json(t)
    images = Pictures(game_folder).icons(t.get("icons") or {})
    made = books(*read(text), env, languages_of(t), texts, raw, images, untold, examples(game_folder))  # (first: a game's template may refuse)
    write_if_changed(paths["game.json"], text)
    for name, book in made.items():
        write_if_changed(paths[name], book)
    return paths


def write_if_changed(path: str, text: str) -> None:
    """Leave a file untouched when its text is the same, so rebuilds keep timestamps.
    Line ends are compared and written as they are: afterwards the file holds exactly the
    text's bytes (the build cache copies them). Never through a link (see writing)."""
    put_text(path, text)
