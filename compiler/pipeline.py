"""The stages in order: load, schema, model and effects, tables. One entry per command."""
from __future__ import annotations

import os

from .codegen import tables, to_json
from .content import find_games, load_game
from .diagnostics import Report
from .memory import no_collection
from .model import build_model
from .rulebook import rulebooks


def check_game(folder: str):
    """Load and check one game folder: (model or None, report)."""
    report = Report()
    src = load_game(folder, report)
    model = build_model(src, report) if src.docs else None
    return model, report


def compile_game(folder: str):
    """(game.json text or None, game id, report)."""
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
    return to_json(tables(model)), model.src.game_id, report


def _load_checked(folder: str):
    """The model of a game whose full check is known: loaded without the checks of single
    files (schema, translations, manifest), which only report; what they and the model's
    checks find is the known report."""
    scratch = Report()
    src = load_game(folder, scratch, check=False)
    return build_model(src, scratch, check=False) if src.docs else None


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
        text, gid, rep = compile_game(folder)
        report.extend(rep)
        if text is None:
            continue
        target = os.path.join(out_dir, gid)
        os.makedirs(target, exist_ok=True)
        files = {"game.json": text, **rulebooks(text, folder, buildcache.compiled_templates())}
        paths = {}
        for name, body in files.items():
            paths[name] = os.path.join(target, name)
            write_if_changed(paths[name], body)
        written += paths.values()
        if buildcache.inputs_key(folder) == key:  # not kept when a file changed while it was read
            buildcache.store(folder, key, gid, paths, rep)
    return written, report
