"""The stages in order: load, schema, model and effects, tables. One entry per command."""
from __future__ import annotations

import os

from . import codegen, parallel
from .codegen import tables, to_json
from .content import find_games, load_game
from .diagnostics import Report
from .memory import no_collection
from .model import build_model
from .render import LANGS
from .rulebook import FORMATS, books, compile_templates, environment, marks_in, read


def check_game(folder: str):
    """Load and check one game folder: (model or None, report)."""
    report = Report()
    src = load_game(folder, report)
    model = build_model(src, report) if src.docs else None
    return model, report


def compile_game(folder: str):
    """(game.json text or None, game id, report)."""
    t, gid, report = compile_tables(folder)
    return (to_json(t) if t is not None else None), gid, report


def compile_tables(folder: str):
    """(the tables of game.json or None, game id, report)."""
    from .cache import known_report, parsed_statements
    with parsed_statements(folder):  # statements parsed by an earlier validate or build
        known = known_report(folder)  # a validate already checked exactly these files
        if known is None:
            model, report = check_game(folder)
        elif known.errors:
            return None, None, known
        else:
            model, report = _load_checked(folder), known
    if model is None or report.errors:
        return None, None, report
    return tables(model), model.src.game_id, report


def _load_checked(folder: str):
    """The model of a game whose full check is known: loaded without the checks of single
    files (schema, translations, manifest), which only report; what they and the model's
    checks find is the known report."""
    scratch = Report()
    src = load_game(folder, scratch, check=False)
    return build_model(src, scratch, check=False) if src.docs else None


def build_outputs(t: dict, game_folder: str, compiled=None) -> dict[str, str]:
    """File name -> text of game.json and every rulebook, from the compiled tables.

    Where a second core is free, a forked child shares the work: it encodes the second
    half of game.json's values while this process encodes the first, the two swap halves,
    and each reads the tables back from the whole (codegen.read_body); the child then makes
    the rulebooks of every language but the first, this process game.json and the first
    language's. Whatever the child fails to give is made here. `compiled` is the
    templates' bytecode cache, if any."""
    env = environment(game_folder, compiled=compiled)
    first, rest = LANGS[:1], LANGS[1:]
    split = codegen.pieces(t)
    if split is None or not rest:
        return _outputs_here(t, env)
    layout, values = split
    half = len(values) // 2

    def theirs(heard):
        own = codegen.encode(values[half:])
        yield own
        got = heard()
        if not (isinstance(got, list) and len(got) == half):
            return
        compile_templates(env)  # with a bytecode cache, the other process then finds them compiled
        body = codegen.body_of(layout, got + own)
        read_t = codegen.read_body(body)
        yield books(read_t, marks_in(body, read_t), env, rest)

    child = parallel.start_parts(theirs, listens=True)
    if child is None:
        return _outputs_here(t, env)
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
        read_t = codegen.read_body(body)
        files = {"game.json": codegen.text_of(layout, encoded, body)}
        marks = marks_in(body, read_t)
        files.update(books(read_t, marks, env, first))
        made = child()
    finally:
        child.finish()
    names = [f"rulebook.{lang}.{fmt}" for lang in rest for fmt in FORMATS]
    if not (isinstance(made, dict) and list(made) == names and all(type(v) is str for v in made.values())):
        made = books(read_t, marks, env, rest)
    files.update(made)
    return files


def _outputs_here(t: dict, env) -> dict[str, str]:
    text = to_json(t)
    return {"game.json": text, **books(*read(text), env, LANGS)}


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


def build(paths, out_dir: str):
    """Build every game; returns (written paths, report). Nothing is written for a game with errors."""
    with no_collection():
        return _build(paths, out_dir)


def _build(paths, out_dir: str):
    from . import buildcache
    report, written = Report(), []
    for folder in find_games(paths):
        key = buildcache.inputs_key(folder)
        kept = buildcache.lookup(folder, key)
        if kept is not None:  # nothing the outputs are made from changed since they were made
            gid, outputs, rep = kept
            target = os.path.join(out_dir, gid)
            os.makedirs(target, exist_ok=True)
            paths_out = [os.path.join(target, name) for name in outputs]
            try:
                for src, path in zip(outputs.values(), paths_out):
                    buildcache.copy_if_changed(src, path)
            except OSError:
                pass  # the entry went away meanwhile: build as usual
            else:
                report.extend(rep)
                written += paths_out
                continue
        t, gid, rep = compile_tables(folder)
        report.extend(rep)
        if t is None:
            continue
        target = os.path.join(out_dir, gid)
        os.makedirs(target, exist_ok=True)
        files = build_outputs(t, folder, buildcache.compiled_templates())
        paths = {}
        for name, body in files.items():
            paths[name] = os.path.join(target, name)
            write_if_changed(paths[name], body)
        written += paths.values()
        if buildcache.inputs_key(folder) == key:  # not kept when a file changed while it was read
            buildcache.store(folder, key, gid, paths, rep)
    return written, report
