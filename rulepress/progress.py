"""The bar a long run of bot games shows while it plays: games done, games a second and the
time left, on stderr, so that stdout stays the report (and `--json` stays JSON).

    with games_bar(game.id, 500, show=not as_json and sys.stderr.isatty()) as advance:
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


def _nothing(games: int = 1, total: int | None = None) -> None:
    pass


@contextmanager
def games_bar(label: str, total: int | None, show: bool = True):
    """Yields `advance(k)`, to be called as k more games finish; `advance(0, total=N)` gives
    the number of games once it is known (None until then: no time left shown). With `show`
    false (JSON output, or stderr not a terminal) nothing is drawn and `advance` does nothing."""
    if not show:
        yield _nothing
        return
    bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), GamesPerSecond(),
                   TextColumn("time left"), TimeRemainingColumn(),
                   console=Console(stderr=True), transient=True)
    task = bar.add_task(label, total=total)

    def advance(games: int = 1, total: int | None = None) -> None:
        if total is not None:
            bar.update(task, total=total)
        bar.advance(task, games)

    bar.start()
    try:
        yield advance
    finally:
        bar.stop()  # the bar goes, so what the run prints next starts on a clean line
