"""The bar a long run of bot games shows while it plays: games done, games a second and the
time left, on stderr, so that stdout stays the report (and `--json` stays JSON).

    with games_bar("arkham-horror", 500, show=not as_json and sys.stderr.isatty()) as advance:
        results = run_games(game, jobs, progress=advance)
"""
from __future__ import annotations

from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, TextColumn, TimeRemainingColumn
from rich.text import Text


class GamesPerSecond(ProgressColumn):
    """rich's own estimate of the speed over the last games, the one the time left is read from."""

    def render(self, task):
        return Text(f"{task.speed:.1f} games/s" if task.speed else "- games/s")


def _nothing(_games: int = 1) -> None:
    pass


@contextmanager
def games_bar(label: str, total: int, show: bool = True):
    """Yields `advance(k)`, to be called as k more games finish. With `show` false (JSON
    output, or stderr not a terminal) nothing is drawn and `advance` does nothing."""
    if not show:
        yield _nothing
        return
    bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), GamesPerSecond(),
                   TextColumn("time left"), TimeRemainingColumn(),
                   console=Console(stderr=True), transient=True)
    task = bar.add_task(label, total=total)
    bar.start()
    try:
        yield lambda games=1: bar.advance(task, games)
    finally:
        bar.stop()  # the bar goes, so what the run prints next starts on a clean line
