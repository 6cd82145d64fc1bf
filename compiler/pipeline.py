"""The stages in order: load, schema, model and effects, tables. One entry per command."""
from __future__ import annotations

import json
import os

from .codegen import tables, to_json
from .content import find_games, load_game
from .diagnostics import Report
from .model import build_model
from .rulebook import write_rulebooks


def check_game(folder: str):
    """Load and check one game folder: (model or None, report)."""
    report = Report()
    src = load_game(folder, report)
    model = build_model(src, report) if src.docs else None
    return model, report


def compile_game(folder: str):
    """(game.json text or None, game id, report)."""
    from .cache import parsed_effects
    with parsed_effects(folder):  # effects parsed by an earlier validate or build
        model, report = check_game(folder)
    if model is None or report.errors:
        return None, None, report
    return to_json(tables(model)), model.src.game_id, report


def build(paths, out_dir: str):
    """Build every game; returns (written paths, report). Nothing is written for a game with errors."""
    report, written = Report(), []
    for folder in find_games(paths):
        text, gid, rep = compile_game(folder)
        report.extend(rep)
        if text is None:
            continue
        target = os.path.join(out_dir, gid)
        os.makedirs(target, exist_ok=True)
        path = os.path.join(target, "game.json")
        old = None
        if os.path.exists(path):
            with open(path, encoding="utf-8") as fh:
                old = fh.read()
        if old != text:
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(text)
        written.append(path)
        written += write_rulebooks(json.loads(text), folder, target)
    return written, report
