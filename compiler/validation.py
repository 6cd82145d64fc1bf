"""What `validate` reports of a game folder: its content, then its scenarios read against it."""
from __future__ import annotations

from . import cache
from .diagnostics import Report
from .rulebook import template_problems
from .scenarios import check_folder


def validate_game(folder: str) -> Report:
    """The content's findings, then (where the game compiles) its scenarios'; both from the
    cache where it still holds. The game's own templates are read as templates too: one
    that would stop `build` is an error here."""
    report = cache.validate_game(folder)
    for problem in template_problems(folder):
        report.error(problem.pos, "G007", problem.message)
    if not report.errors:
        report.extend(check_folder(folder))
    return report
