"""What `validate` reports of a game folder: its content, then its scenarios read against it."""
from __future__ import annotations

from . import cache
from .diagnostics import Report
from .scenarios import check_folder


def validate_game(folder: str) -> Report:
    """The content's findings, then (where the game compiles) its scenarios'; both from the
    cache where it still holds."""
    report = cache.validate_game(folder)
    if not report.errors:
        report.extend(check_folder(folder))
    return report
