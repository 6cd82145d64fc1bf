"""The `rulepress` command: validate, build, test, simulate, play, replay, explain, schema."""
from __future__ import annotations

import json
import os
import sys

import click

from .compiler.content import UsageError, find_games
from .compiler.diagnostics import Report


def _print_report(report: Report, fmt: str, checked: int) -> None:
    items = report.sorted()
    if fmt == "json":
        click.echo(json.dumps({"errors": len(report.errors), "warnings": len(report.warnings),
                               "diagnostics": [d.as_json() for d in items]}, ensure_ascii=False, indent=1))
        return
    if fmt == "github":
        # GitHub shows only ten annotations per step; the plain list below has them all.
        for d in items:
            kind = "error" if d.severity == "error" else "warning"
            msg = d.message.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
            click.echo(f"::{kind} file={d.pos.file},line={d.pos.line},col={d.pos.col},title={d.code}::{msg}")
    for d in items:
        click.echo(d.text())
    e, w = len(report.errors), len(report.warnings)
    click.echo(f"{checked} game{'s' if checked != 1 else ''} checked: {e} error{'s' if e != 1 else ''}, {w} warning{'s' if w != 1 else ''}")


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="rulepress", prog_name="rulepress")
def main():
    """rulepress: board game rules as data."""


@main.command()
@click.argument("paths", nargs=-1)
@click.option("--format", "fmt", type=click.Choice(["text", "json", "github"]), default="text", show_default=True)
@click.option("--no-cache", is_flag=True, help="check every file again, ignoring results kept from the last run")
def validate(paths, fmt, no_cache):
    """Check content: every error and warning at once, as FILE:LINE:COL lines."""
    from .compiler.cache import validate_game
    if no_cache:
        os.environ["RULEPRESS_NO_CACHE"] = "1"
    try:
        games = find_games(list(paths) or ["content"])
    except UsageError as exc:
        click.echo(f"rulepress: {exc}", err=True)
        sys.exit(2)
    report = Report()
    for g in games:
        report.extend(validate_game(g))
    _print_report(report, fmt, len(games))
    sys.exit(1 if report.errors else 0)


@main.command()
@click.argument("paths", nargs=-1)
@click.option("-o", "--out", default="build", show_default=True, help="output folder")
@click.option("--no-cache", is_flag=True, help="load, check and render everything again, ignoring what earlier runs kept")
def build(paths, out, no_cache):
    """Compile content into build/<game>/game.json (and the rulebooks)."""
    from .compiler.pipeline import build as do_build
    if no_cache:
        os.environ["RULEPRESS_NO_CACHE"] = "1"
    try:
        written, report = do_build(list(paths) or ["content"], out)
    except UsageError as exc:
        click.echo(f"rulepress: {exc}", err=True)
        sys.exit(2)
    for d in report.sorted():
        click.echo(d.text())
    for w in written:
        click.echo(f"wrote {w}")
    sys.exit(1 if report.errors else 0)


def _load_game(game: str, build_dir="build"):
    """A game by id (built from content/ on the fly) or by path to a folder or game.json."""
    from .runtime.tables import Game
    from .compiler.pipeline import compile_game
    if game.endswith(".json") and os.path.isfile(game):
        return Game.load(game)
    folder = game if os.path.isdir(game) else os.path.join("content", game)
    if not os.path.isdir(folder):
        raise UsageError(f"no game `{game}`: not a folder, a game.json, or a game in content/")
    text, _gid, report = compile_game(folder)
    if text is None:
        for d in report.sorted():
            click.echo(d.text(), err=True)
        raise click.exceptions.Exit(1)
    return Game(json.loads(text))


@main.command()
@click.argument("paths", nargs=-1)
@click.option("-k", "select", default=None, help="only scenarios whose name contains this")
@click.option("-v", "--verbose", is_flag=True)
def test(paths, select, verbose):
    """Run scenario tests: content/<game>/scenarios/*.yaml."""
    from .scenario import run_paths
    try:
        ok = run_paths(list(paths) or ["content"], select, verbose, click.echo)
    except UsageError as exc:
        click.echo(f"rulepress: {exc}", err=True)
        sys.exit(2)
    sys.exit(0 if ok else 1)


@main.command()
@click.argument("game")
@click.option("-n", "games", default=100, show_default=True)
@click.option("--seed", default=0, show_default=True)
@click.option("--players", default=None, type=int)
@click.option("--workers", default=1, show_default=True)
@click.option("--agent", default="random", show_default=True,
              help="random, first or greedy for every seat, or a mix like p1=greedy,random")
@click.option("--json", "as_json", is_flag=True)
@click.option("--profile", is_flag=True,
              help="also show which lines of the content take the time (the games are played in one process)")
def simulate(game, games, seed, players, workers, agent, as_json, profile):
    """Play N games with bots and report win rates, scores and lengths."""
    from .runtime.simulate import simulate as sim, render
    try:
        g = _load_game(game)
    except UsageError as exc:
        click.echo(f"rulepress: {exc}", err=True)
        sys.exit(2)
    if profile:
        from .runtime.profile import attach
        attach(g)
    result = sim(g, games, seed, players, workers, agent, progress=not as_json)
    source = _source_lines(game) if profile else None
    if source:
        for row in result["profile"]["lines"]:
            row["text"] = source(row["at"])
    if as_json:
        click.echo(json.dumps(result, indent=1, sort_keys=True))
    else:
        render(result)
        if profile:
            from .runtime.profile import render as render_profile
            render_profile(result["profile"], games)
    sys.exit(1 if result["errors"] else 0)


def _source_lines(game: str):
    """position -> the text of that line of the game's content, where its folder is known."""
    folder = game if os.path.isdir(game) else os.path.join("content", game)
    if game.endswith(".json") or not os.path.isdir(folder):
        return None

    def line(pos: str):
        try:
            file, n, _col = pos.rsplit(":", 2)
            with open(os.path.join(folder, file), encoding="utf-8") as fh:
                for i, text in enumerate(fh, 1):
                    if i == int(n):
                        return text.strip()
        except (OSError, ValueError):
            return None
        return None
    return line


@main.command()
@click.argument("game")
@click.option("--players", default=None, type=int)
@click.option("--seed", default=None, help="default: a random one, printed so that the game can be played again")
@click.option("--bots", default="", help="seats played by bots, e.g. p2,p3 or p2=greedy")
@click.option("--lang", type=click.Choice(["en", "ru"]), default="en")
@click.option("--log", "log_path", default=None, help="write the game log here when it ends")
def play(game, players, seed, bots, lang, log_path):
    """Play in the terminal: people and bots in any mix."""
    from .runtime.terminal import play as tplay
    try:
        g = _load_game(game)
    except UsageError as exc:
        click.echo(f"rulepress: {exc}", err=True)
        sys.exit(2)
    tplay(g, players or g.players_min, seed, bots, lang, log_path)


@main.command()
@click.argument("game")
@click.option("-n", "games", default=10, show_default=True, type=click.IntRange(1, 100_000), help="games per player count")
@click.option("--seed", default="0", show_default=True)
@click.option("--players", default=None, type=int, help="only this player count (default: every one the game allows)")
def secrets(game, games, seed, players):
    """Leak check: play random games and scan what every seat is handed for hidden things."""
    from .runtime.leakscan import scan
    try:
        g = _load_game(game)
        counts = range(g.players_min, g.players_max + 1) if players is None else [players]
        if players is not None and not g.players_min <= players <= g.players_max:
            raise UsageError(f"{g.id} is for {g.players_min} to {g.players_max} players, not {players}")
    except UsageError as exc:
        click.echo(f"rulepress: {exc}", err=True)
        sys.exit(2)
    source = _source_lines(game)
    total = 0
    for n in counts:
        leak, scanned = scan(g, games, seed, n)
        total += scanned
        if leak is not None:
            line = source(leak.at) if source and leak.at else None
            click.echo(f"{g.id}, {n} players: {leak.text()}" + (f"\n  {leak.at}: {line}" if line else ""))
            sys.exit(1)
    click.echo(f"{g.id}: no leak in {total} decisions ({games} games at each of {len(counts)} player counts)")


@main.command()
@click.argument("log", type=click.Path(exists=True, dir_okay=False))
@click.option("--game", default=None, help="game id or game.json (default: from the log)")
def replay(log, game):
    """Replay a game log and check it ends in the recorded state."""
    from .runtime.replay import replay_file, ReplayError
    try:
        msg = replay_file(log, lambda gid: _load_game(game or gid))
    except (ReplayError, UsageError) as exc:
        click.echo(f"rulepress: {exc}", err=True)
        sys.exit(1)
    click.echo(msg)


@main.command("print")
@click.argument("game")
@click.option("--lang", "langs", type=click.Choice(["en", "ru"]), multiple=True, help="language (repeat for both; default en)")
@click.option("--paper", type=click.Choice(["a4", "letter"]), default="a4", show_default=True)
@click.option("--changed-since", "changed_since", default=None, metavar="REF", help="only cards whose definition changed since this git revision")
@click.option("-o", "--out", default="print", show_default=True, help="output folder")
def print_cmd(game, langs, paper, changed_since, out):
    """PDFs: the rulebook (contents, page numbers) and print-and-play card sheets."""
    from .compiler.printing import PrintError, print_game
    folder = game if os.path.isdir(game) else os.path.join("content", game)
    try:
        written = print_game(folder, langs or ("en",), paper, changed_since, out)
    except UsageError as exc:
        click.echo(f"rulepress: {exc}", err=True)
        sys.exit(2)
    except PrintError as exc:
        click.echo(f"rulepress: {exc}", err=True)
        sys.exit(1)
    if not written:
        click.echo("nothing to print: no card changed")
    for w in written:
        click.echo(f"wrote {w}")


@main.command()
@click.argument("code", required=False)
def explain(code):
    """Explain an error code, with a wrong and a right example."""
    from .compiler.catalogue import CATALOGUE, render
    if not code:
        for c in sorted(CATALOGUE):
            click.echo(f"{c}  {CATALOGUE[c]['title']}")
        return
    entry = CATALOGUE.get(code.upper())
    if entry is None:
        click.echo(f"rulepress: unknown code {code}; `rulepress explain` lists them", err=True)
        sys.exit(2)
    click.echo(render(code.upper(), entry))


@main.command()
@click.option("--editor", is_flag=True, help="write .vscode/settings.json mapping schemas to content files")
def schema(editor):
    """Show where the JSON Schemas are, or set up an editor to use them."""
    from .compiler.content import SCHEMA_DIR
    if editor:
        os.makedirs(".vscode", exist_ok=True)
        path = os.path.join(".vscode", "settings.json")
        settings = {}
        if os.path.exists(path):
            try:
                with open(path, encoding="utf-8") as fh:
                    settings = json.load(fh)
            except (OSError, ValueError):
                settings = {}
        rel = os.path.relpath(os.path.join(SCHEMA_DIR, "content-file.json"))
        settings.setdefault("yaml.schemas", {})[rel] = ["content/**/*.yaml", "!content/**/scenarios/*.yaml"]
        scen = os.path.relpath(os.path.join(SCHEMA_DIR, "scenario.json"))
        settings["yaml.schemas"][scen] = ["content/**/scenarios/*.yaml"]
        settings["yaml.customTags"] = []
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(settings, fh, indent=2, sort_keys=True)
            fh.write("\n")
        click.echo(f"wrote {path}")
    else:
        click.echo(SCHEMA_DIR)


def run() -> None:
    """The `rulepress` console script: a command, then an exit that frees nothing (see memory)."""
    from .compiler.memory import command
    command(main)


if __name__ == "__main__":
    run()
