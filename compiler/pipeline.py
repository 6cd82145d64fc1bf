"""The stages in order: load, schema, model and effects, tables. One entry per command."""
from __future__ import annotations

import os

from . import buildcache, outputs, writing
from .cache import known_report, parsed_statements
from .codegen import tables, to_json
from .content import find_games, load_game, shown_path
from .diagnostics import Pos, Report
from .memory import no_collection
from .model import build_model
from .rulebook import TemplateRefused


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
    return _compiled(folder)[:3]


def _compiled(folder: str):
    """compile_tables' three, and the statements' texts by position (Model.statements)."""
    with parsed_statements(folder):  # statements parsed by an earlier validate or build
        known = known_report(folder)  # a validate already checked exactly these files
        if known is None:
            model, report = check_game(folder)
        elif known.errors:
            return None, None, known, None
        else:
            model, report = _load_checked(folder), known
    if model is None or report.errors:
        return None, None, report, None
    return tables(model), model.src.game_id, report, model.statements


def _load_checked(folder: str):
    """The model of a game whose full check is known: loaded without the checks of single
    files (schema, translations, manifest), which only report; what they and the model's
    checks find is the known report."""
    scratch = Report()
    src = load_game(folder, scratch, check=False)
    return build_model(src, scratch, check=False) if src.docs else None


def build(paths, out_dir: str):
    """Build every game; returns (written paths, report). Nothing is written for a game with errors."""
    writing.check_output_folder(out_dir)
    with no_collection():
        return _build(paths, out_dir)


def unnamed_finding(folder: str, raw: set):
    """W019: the ids a rulebook prints as they are, at the manifest that can name them."""
    shown = ", ".join(f"`{i}`" for i in sorted(raw)[:12]) + (f" and {len(raw) - 12} more" if len(raw) > 12 else "")
    return (Pos(shown_path(os.path.join(folder, "game.yaml")), 1, 1), "W019",
            f"the rulebook prints {len(raw)} {'id' if len(raw) == 1 else 'ids'} as they are, for want of a name in words: {shown}; "
            f"name them in `game: terms:` (a kind, attribute or mark has nowhere else; a counter, zone or deck "
            f"may take `name:` on its declaration; a procedure is named by `game: terms:` alone)")


def _untold(folder: str, untold: set):
    """W022: the procedures a rulebook's rules name but leave out, for want of words of the designer's."""
    shown = ", ".join(f"`{i}`" for i in sorted(untold)[:12]) + (f" and {len(untold) - 12} more" if len(untold) > 12 else "")
    return (Pos(shown_path(os.path.join(folder, "game.yaml")), 1, 1), "W022",
            f"the rulebook's rules name {len(untold)} {'procedure' if len(untold) == 1 else 'procedures'} with no `text:`, "
            f"which it leaves out (their steps are no rule a player reads): {shown}; give each a `text:` in the "
            f"players' words, and the rules read as those words")


def _build(paths, out_dir: str):
    report, written = Report(), []
    for folder in find_games(paths):
        key = buildcache.inputs_key(folder)
        kept = buildcache.lookup(folder, key)
        if kept is not None:  # nothing the outputs are made from changed since they were made
            # (a kept file that is not what was kept: the game is built as usual)
            try:
                target = writing.folder_in(out_dir, kept.game_id)
                done = all(buildcache.put(source, writing.path_in(target, name)) for name, source in kept.files.items())
            except writing.UnsafeName:
                done = False  # names what no build makes: built as usual
            if done:
                report.extend(kept.report)
                written += [os.path.join(target, name) for name in kept.files]
                continue
        t, gid, rep, texts = _compiled(folder)
        report.extend(rep)
        if t is None:
            continue
        target = writing.folder_in(out_dir, gid)
        raw: set = set()
        untold: set = set()
        try:
            paths = outputs.write(t, folder, target, texts, raw, untold)
        except TemplateRefused as exc:  # a game's own template: its author's error, at its line
            report.error(exc.pos, "G007", exc.message)
            try:
                os.rmdir(target)  # (the game's folder, made for nothing: only if still empty)
            except OSError:
                pass
            continue
        if raw:
            rep.warning(*unnamed_finding(folder, raw))  # (kept with the report: a kept build says it again)
            report.items.append(rep.items[-1])
        if untold:
            rep.warning(*_untold(folder, untold))
            report.items.append(rep.items[-1])
        written += paths.values()
        if buildcache.inputs_key(folder) == key:  # not kept when a file changed while it was read
            buildcache.store(folder, key, gid, paths, rep)
    return written, report
