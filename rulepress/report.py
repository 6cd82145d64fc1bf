"""What `rulepress simulate` prints: its summary and its profile as tables on the terminal
(the runtime hands both as data: runtime/simulate.simulate, runtime/profile.Profile.rows)."""
from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from .compiler.diagnostics import printable

_BARS = " ▁▂▃▄▅▆▇█"


def sparkline(counts) -> str:
    """Counts as bars, the tallest full: a seat's scores at a glance."""
    top = max(counts, default=0)
    return "".join(_BARS[0 if not c else max(1, round(c * 8 / top))] for c in counts) if top else ""


def summary(result) -> None:
    """`rulepress simulate`'s summary (runtime/simulate.simulate) as tables."""
    con = Console()
    con.print(f"[bold]{result['game']}[/bold]: {result['finished']}/{result['games']} games finished "
              f"({result['players']} players, {result['agent']} bots, seed {result['seed']})")
    b = result.get("score_bins")
    t = Table("seat", "win rate", "mean score", "median", "min", "max",
              f"scores {b['from']} to {b['to']}" if b else "scores")
    for p, s in result["seats"].items():
        t.add_row(p, f"{s['win_rate']:.1%}", f"{s['score_mean']:.2f}", str(s["score_median"]), str(s["score_min"]),
                  str(s["score_max"]), sparkline(s.get("score_histogram", [])))
    con.print(t)
    if result.get("factions"):
        ft = Table("faction", "games", "win rate")
        for f, s in result["factions"].items():
            ft.add_row(f, str(s["games"]), f"{s['win_rate']:.1%}")
        con.print(ft)
    con.print(f"rounds: mean {result['rounds']['mean']}, min {result['rounds']['min']}, max {result['rounds']['max']}; "
              f"decisions per game: mean {result['decisions']['mean']}; shared or no winner: {result['no_winner_or_shared']}")
    if result["top_actions"]:
        con.print("most used: " + ", ".join(f"{a} ({c})" for a, c in result["top_actions"]))
    for e in result["errors"][:5]:
        con.print(f"[red]game {e['game']}: {escape(printable(e['error']))}[/red]")  # (a fault quotes content)
    if len(result["errors"]) > 5:
        con.print(f"[red]... and {len(result['errors']) - 5} more errors[/red]")


def profile(prof: dict, games: int) -> None:
    """The profile of `simulate` as a table: each line's own text where it came along (`text`)."""
    con = Console()
    t = Table("share", "runs a game", "where", "what", title=f"where the time of {games} games goes")
    for r in prof["lines"]:
        text = r.get("text")
        # as plain text: content may hold what rich would read as markup or an emoji code
        t.add_row(f"{r['share']:.1%}", f"{r['runs_per_game']:g}", Text(printable(r["at"])), Text(printable(text or r["what"])))
    con.print(t)
    con.print(f"the content's lines took {prof['in_lines']:.0%} of the time, and writing the runtime's code "
              f"for them, once, {prof.get('building', 0):.0%}; the rest is the flow's, the bots' and the "
              "runtime's own work between them. Shares are of time measured, so they vary a little from "
              "run to run; runs a game do not.")
