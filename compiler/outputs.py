"""A game's files from its compiled tables: game.json and the rulebooks, written.

A big game's files take a while to make, in parts that need not wait for each other: each
half of game.json's values encodes on its own, and each language's rulebooks only need
the tables read back. Where a second core is free, a forked child takes a share: it
encodes the second half of the values while this process encodes the first, the two swap
halves, and each reads the tables back from the whole (codegen.read_body); the child then
writes the rulebooks of every language but the last, this process the last language's
and then game.json (the child, which pays for the pages it shares with this process, is
the slower of the two at the same work). Whatever the child fails
to do is done here, so the files never depend on it.
"""
from __future__ import annotations

import os

from . import codegen, parallel
from .memory import spare
from .render import LANGS
from .writing import path_in, put_text
from .rulebook import FORMATS, all_compiled, books, compile_templates, environment, marks_in, read


def write(t: dict, game_folder: str, target: str, compiled=None, texts=None) -> dict[str, str]:
    """Write game.json and every rulebook into `target`; file name -> path. `compiled` is
    the templates' bytecode cache, if any; `texts` the statements' texts by position
    (Model.statements), which spare the rulebooks working out which statements are alike."""
    env = environment(game_folder, compiled=compiled)
    mine, theirs = LANGS[-1:], LANGS[:-1]
    names = ["game.json"] + [f"rulebook.{lang}.{fmt}" for lang in LANGS for fmt in FORMATS]
    paths = {name: path_in(target, name) for name in names}
    split = codegen.pieces(t)
    child = parallel.start_parts(_share(split, env, theirs, paths, texts), listens=True) if split and theirs else None
    if child is None:
        text = codegen.to_json(t)
        made = books(*read(text), env, LANGS, texts)  # (first: a game's template may refuse)
        write_if_changed(paths["game.json"], text)
        _write(made, paths)
        return paths
    layout, values = split
    half = len(values) // 2
    try:
        encoded = codegen.encode(values[:half])
        got = child()
        if isinstance(got, list) and len(got) == len(values) - half and all(type(x) is str for x in got):
            child.send(encoded)
            encoded += got
        else:  # the child failed: its half is encoded here
            child.finish()
            encoded += codegen.encode(values[half:])
        body = codegen.body_of(layout, encoded)
        digest = codegen.content_hash(body)
        # (a failed child's languages read the tables back again)
        _write(_books(body, digest, env, mine, texts), paths)
        # then game.json, while the child, which pays for the pages it shares with this
        # process, still writes its languages' rulebooks
        write_if_changed(paths["game.json"], codegen.text_of(layout, encoded, digest))
        done = child()
    finally:
        child.finish()
    if done != [f"rulebook.{lang}.{fmt}" for lang in theirs for fmt in FORMATS]:
        _write(_books(body, digest, env, theirs, texts), paths)
    return paths


def _books(body: str, digest: str, env, langs, texts) -> dict[str, str]:
    read_t = codegen.read_body(body, digest)
    spare(read_t)  # (a command drops it with the process: see memory)
    return books(read_t, marks_in(body, read_t), env, langs, texts)


def warm_templates(game_folder: str, compiled):
    """Start compiling the rulebook templates into the bytecode cache `compiled` in a forked
    child, while this process loads the game: the processes that write the rulebooks then
    find them compiled. Returns the function that waits for the child, or None (no cache,
    or no second core)."""
    if compiled is None:
        return None
    env = environment(game_folder, compiled=compiled)
    if all_compiled(env):
        return None
    return parallel.start(lambda: compile_templates(env))


def _share(split, env, langs, paths, texts):
    """The child's share: the second half of the values encoded, then the rulebooks of
    `langs` written; it yields the encoded half, then the names of the files it wrote."""
    def parts(heard):
        layout, values = split
        half = len(values) // 2
        own = codegen.encode(values[half:])
        yield own
        got = heard()
        if not (isinstance(got, list) and len(got) == half):
            return
        body = codegen.body_of(layout, got + own)
        yield list(_write(_books(body, codegen.content_hash(body), env, langs, texts), paths))
    return parts


def _write(files: dict[str, str], paths: dict[str, str]) -> dict[str, str]:
    for name, text in files.items():
        write_if_changed(paths[name], text)
    return files


def write_if_changed(path: str, text: str) -> None:
    """Leave a file untouched when its text is the same, so rebuilds keep timestamps.
    Line ends are compared and written as they are: afterwards the file holds exactly the
    text's bytes (the build cache copies them). Never through a link (see writing)."""
    put_text(path, text)
