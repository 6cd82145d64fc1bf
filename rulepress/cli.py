"""The `rulepress` command: validate, build, test, simulate, balance, coverage, play, replay, explain, schema."""
from __future__ import annotations

import json
import os
import re
import sys

import click

from .arguments import BACKENDS, MAX_GAMES, BadArgument, game_here, paths_here, check_agents, check_backend, check_db_file, \
    check_expire_hours, check_listen, check_log_file, check_out_folder, check_players, check_revision, check_seed, \
    check_utf8_path, game_options
from .compiler.content import UsageError, find_games
from .compiler.diagnostics import Diagnostic, Report, printable
from .compiler.wording import languages
from .runtime.faults import GameFault

JSON_VERSION = 1  # of `validate --format json`


def _line(message) -> str:
    """A message as one line, whatever a path or a content text in it holds (no control
    or bidi character reaches the terminal either)."""
    return "rulepress: " + printable(str(message))


def _say(text) -> None:
    """Lines of output that quote content (scenario names, failures, leaks): the lines are
    the program's, and no control or bidi character of the content reaches the terminal."""
    click.echo("\n".join(map(printable, str(text).split("\n"))))


def _usage(message) -> None:
    """A wrong argument: one line, exit 2, before any work."""
    click.echo(_line(message), err=True)
    sys.exit(2)


def _not_written(exc: OSError) -> None:
    """A file the system or writing refused (a link planted at an output): one line, exit 1."""
    where = f"{exc.filename}: " if exc.filename else ""
    click.echo(_line(f"{where}{exc.strerror or exc}"), err=True)
    sys.exit(1)


def _gh_data(text) -> str:
    """Text as the data of a GitHub workflow command: one line, its own `%` kept."""
    return str(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_property(text) -> str:
    """A property value of a workflow command: `:` and `,` would end it."""
    return _gh_data(text).replace(":", "%3A").replace(",", "%2C")


def _print_report(report: Report, fmt: str, checked: int) -> None:
    items = report.sorted()
    if fmt == "json":
        # the shape is docs/diagnostics-output.schema.json; `version` changes when it does
        click.echo(json.dumps({"version": JSON_VERSION, "errors": len(report.errors), "warnings": len(report.warnings),
                               "diagnostics": [d.as_json() for d in items]}, ensure_ascii=False, indent=1))
        return
    if fmt == "github":
        # GitHub shows only ten annotations per step; the plain list below has them all.
        for d in items:
            kind = "error" if d.severity == "error" else "warning"
            props = ",".join(f"{k}={_gh_property(v)}" for k, v in
                             (("file", d.pos.file), ("line", d.pos.line), ("col", d.pos.col), ("title", d.code)))
            click.echo(f"::{kind} {props}::{_gh_data(d.message)}")
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
@click.option("--error", "as_errors", multiple=True, metavar="CODE",
              help="count this warning as an error (repeatable; `--error W` for every warning), as CI may ask")
def validate(paths, fmt, no_cache, as_errors):
    """Check content: every error and warning at once, as FILE:LINE:COL lines."""
    from .compiler.validation import validate_game
    bad = [c for c in as_errors if not re.fullmatch(r"W(\d{3})?", c)]
    if bad:
        _usage(UsageError(f"--error takes a warning's code (W017) or W for all of them, not `{printable(bad[0])}`"))
    if no_cache:
        os.environ["RULEPRESS_NO_CACHE"] = "1"
    try:
        games = find_games(paths_here(paths))
    except UsageError as exc:
        _usage(exc)
    report = Report()
    for g in games:
        report.extend(validate_game(g))
    if as_errors:
        report = Report([Diagnostic(d.pos, "error", d.code, d.message)
                         if d.severity == "warning" and ("W" in as_errors or d.code in as_errors) else d
                         for d in report.items])
    _print_report(report, fmt, len(games))
    sys.exit(1 if report.errors else 0)


@main.command()
@click.argument("paths", nargs=-1)
@click.option("-o", "--out", default="build", show_default=True, help="output folder")
@click.option("--no-cache", is_flag=True, help="load, check and render everything again, ignoring what earlier runs kept")
@click.option("--emit-python", is_flag=True, help="also write game.py beside each game.json: its effects as the runtime runs them, to read")
def build(paths, out, no_cache, emit_python):
    """Compile content into build/<game>/game.json (and the rulebooks)."""
    from .compiler.pipeline import build as do_build
    try:
        check_out_folder(out, "--out")
    except BadArgument as exc:
        _usage(exc)
    if no_cache:
        os.environ["RULEPRESS_NO_CACHE"] = "1"
    before = _stamps(out)
    try:
        written, report = do_build(paths_here(paths), out)
    except UsageError as exc:
        _usage(exc)
    except OSError as exc:
        _not_written(exc)
    for d in report.sorted():
        click.echo(d.text())
    changed = [w for w in written if _stamp(w) != before.get(os.path.abspath(w))]
    for w in changed:
        click.echo(f"wrote {w}")
    if written and not changed:
        click.echo(f"{out}: up to date ({len(written)} files)")
    if emit_python:
        for w in written:
            if os.path.basename(w) == "game.json":
                try:
                    click.echo(f"wrote {_emit_python(w)}")
                except OSError as exc:
                    _not_written(exc)
    sys.exit(1 if report.errors else 0)


def _stamp(path: str):
    """What tells a file rewritten from one left as it was (a write replaces the file)."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    return st.st_ino, st.st_mtime_ns, st.st_size


def _stamps(folder: str, most: int = 200_000) -> dict:
    """The stamps of the files under an output folder, before a build writes into it."""
    out = {}
    for d, _subs, files in os.walk(folder):
        for f in files:
            path = os.path.abspath(os.path.join(d, f))
            out[path] = _stamp(path)
            if len(out) >= most:
                return out
    return out


def _emit_python(tables: str) -> str:
    """game.py beside a game.json just built: the module the runtime builds for it, as text."""
    from .compiler import writing
    from .runtime import pysource
    from .runtime.tables import Game
    path = writing.path_in(os.path.dirname(tables), "game.py")
    writing.put(path, pysource.source(Game.load(tables)).encode("utf-8"))
    return path


def _game_arg(game: str | None) -> str:
    """The GAME argument, or the game of the current folder when none is given (else exit 2)."""
    try:
        return game_here(game)
    except BadArgument as exc:
        _usage(exc)


def _load_game(game: str):
    """A game by id (built from content/ on the fly) or by path to a folder or game.json."""
    from .runtime.tables import Game, TablesError
    from .compiler.pipeline import compile_game
    if game.endswith(".json") and os.path.isfile(game):
        try:
            return Game.load(game)
        except TablesError as exc:
            raise UsageError(f"{game}: {exc}") from None
        except (OSError, ValueError, KeyError, TypeError, AttributeError, RecursionError):
            raise UsageError(f"{game} is not a game.json that rulepress built") from None
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
@click.option("-k", "select", default=None, help="only scenarios whose name or file name contains this")
@click.option("--scenarios", "scenarios_dir", default=None, help="run the scenarios of this folder (for one game) instead of its own")
@click.option("-v", "--verbose", is_flag=True)
def test(paths, select, scenarios_dir, verbose):
    """Run scenario tests: content/<game>/scenarios/*.yaml (see docs/scenarios.md)."""
    from .scenario import run_paths
    try:
        ok = run_paths(paths_here(paths), select, verbose, _say, scenarios_dir)
    except UsageError as exc:
        _usage(exc)
    sys.exit(0 if ok else 1)


def run_options(command):
    """--workers, --backend and --address: where a command that plays many bot games plays
    them (checked by arguments.check_backend; passed on to runtime.simulate.run_games)."""
    for option in reversed([
        click.option("--workers", default=1, show_default=True,
                     help="processes playing at once: at most one per core, or per CPU of the Ray cluster"),
        click.option("--backend", type=click.Choice(BACKENDS), default="local", show_default=True,
                     help="local: this machine's processes; ray: Ray workers (pip install 'rulepress[ray]')"),
        click.option("--address", default=None, metavar="HOST:PORT",
                     help="the Ray cluster to play on (as `ray start --head` prints it); without it Ray starts here"),
    ]):
        command = option(command)
    return command


def show_progress(as_json: bool) -> bool:
    """A bar on stderr while games are played: not under --json, nor where no one watches it."""
    return not as_json and sys.stderr.isatty()


def stopped_line(stop) -> None:
    """What Ctrl-C cut short, as the last line a stopped run prints (it then exits 130)."""
    _quietly(lambda: click.echo(f"rulepress: stopped after {len(stop.results)} of {stop.total} games", err=True))


@main.command()
@click.argument("game", required=False)
@click.option("-n", "games", default=100, show_default=True, type=click.IntRange(1, MAX_GAMES),
              help="how many games to play")
@click.option("--seed", default=0, show_default=True)
@click.option("--players", default=None, type=int, help="default: the fewest the game is for")
@run_options
@click.option("--agent", default="random", show_default=True,
              help="random, first, greedy or mcts for every seat, or a mix like p1=mcts:200,random; "
                   "mcts:N searches N playouts a decision (the same seed plays the same game), mcts:Nms "
                   "N milliseconds (games then differ from run to run); mcts alone is mcts:100; "
                   "mcts:N:depthD plays D decisions past the search's tree (4 by default)")
@click.option("--option", "option_pairs", multiple=True, metavar="NAME=VALUE",
              help="set a game option for every game (repeat for several)")
@click.option("--json", "as_json", is_flag=True)
@click.option("--profile", is_flag=True,
              help="also show which lines of the content take the time (the games are played in one process)")
def simulate(game, games, seed, players, workers, backend, address, agent, option_pairs, as_json, profile):
    """Play N games with bots and report win rates, scores and lengths.

    Ctrl-C stops the run, reports the games finished and exits 130."""
    game = _game_arg(game)
    from .runtime.cluster import ClusterError
    from .progress import games_bar
    from .runtime.simulate import Stopped, simulate as sim
    from . import report
    try:
        check_backend(backend, address, workers)
        if profile and backend != "local":
            raise BadArgument("--profile times the games in this process: it is for --backend local")
        g = _load_game(game)
        check_players(g, players)
        check_agents(agent, players or g.players_min, "--agent")
        options = game_options(g, option_pairs)
    except (UsageError, BadArgument) as exc:
        _usage(exc)
    if profile:
        from .runtime.profile import attach
        attach(g)
    stop = None
    try:
        with games_bar(f"{g.id}", games, show_progress(as_json)) as advance:
            result = sim(g, games, seed, players, workers, agent, progress=advance, options=options,
                         backend=backend, address=address)
    except Stopped as exc:
        stop, result = exc, exc.summary
    except ClusterError as exc:
        click.echo(_line(exc), err=True)
        sys.exit(1)
    source = _source_lines(game) if profile else None
    if source:
        for row in result["profile"]["lines"]:
            row["text"] = source(row["at"])
    if as_json:
        click.echo(json.dumps(result, indent=1, sort_keys=True))
    else:
        report.summary(result)
        if profile:
            report.profile(result["profile"], games)
    if stop is not None:
        stopped_line(stop)
        sys.exit(130)
    sys.exit(1 if result["errors"] else 0)


@main.command()
@click.argument("games", nargs=-1, required=True, metavar="GAME [GAME_B]")
@click.option("-n", "n", default=100, show_default=True, type=click.IntRange(1, MAX_GAMES),
              help="games to play (of each version, at each player count)")
@click.option("--seed", default="0", show_default=True)
@click.option("--players", multiple=True, type=int, help="player count (repeat for several; default: the fewest)")
@click.option("--agent", default="random", show_default=True,
              help="the agent of every seat, or a mix like p1=greedy,random")
@click.option("--option", "option_pairs", multiple=True, metavar="NAME=VALUE",
              help="set a game option for every game (repeat for several)")
@click.option("--against", "against", default=None, metavar="REV",
              help="compare GAME (a folder) with the same folder at this git revision")
@run_options
@click.option("-o", "--out", "out", default=None, metavar="FILE", help="write the HTML report here")
@click.option("--json", "as_json", is_flag=True, help="print the figures as JSON (docs/balance.md)")
@click.option("--no-coverage", is_flag=True, help="leave the content-coverage summary out (it plays games of its own)")
def balance(games, n, seed, players, agent, option_pairs, against, workers, backend, address, out, as_json, no_coverage):
    """Is it fair? Win rates by seat and faction with intervals, scores, lengths, endings and
    usage, as an HTML report; with two versions (GAME GAME_B, or --against REV), every figure
    side by side with whether the difference is significant.

    Ctrl-C stops the run and exits 130."""
    from .balance_report import BalanceError, run
    from .runtime.cluster import ClusterError
    from .runtime.simulate import Stopped
    try:
        check_seed(seed)
        check_backend(backend, address, workers)
        if len(games) > 2:
            raise BadArgument(f"balance takes one game, or two to compare, not {len(games)}")
        if against is not None:
            if len(games) != 1:
                raise BadArgument("--against compares one game folder with itself at a revision: give one GAME")
            check_revision(against, "--against")
        if out is not None:
            check_log_file(out, "-o")
    except BadArgument as exc:
        _usage(exc)
    seed = int(seed) if seed.lstrip("-").isdigit() and len(seed) < 19 else seed  # as simulate's: 7 and "7" are one seed
    try:
        result, failed = run(list(games), n, seed, list(players), agent, option_pairs, against, workers,
                             out, show_progress(as_json), not no_coverage, None if as_json else _say, _load_game,
                             backend, address)
    except (UsageError, BadArgument) as exc:
        _usage(exc)
    except Stopped as stop:  # a report of part of the games would read as the whole: none is written
        stopped_line(stop)
        sys.exit(130)
    except (BalanceError, ClusterError) as exc:
        click.echo(_line(exc), err=True)
        sys.exit(1)
    if as_json:
        click.echo(json.dumps(result, indent=1, sort_keys=True, ensure_ascii=False))
    sys.exit(1 if failed else 0)


def _source_lines(game: str):
    """position -> the text of that line of the game's content, where its folder is known."""
    folder = game if os.path.isdir(game) else os.path.join("content", game)
    if game.endswith(".json") or not os.path.isdir(folder):
        return None

    from .compiler.source import NotReadable, read_bytes

    def line(pos: str):
        try:
            file, n, _col = pos.rsplit(":", 2)
            lines = read_bytes(os.path.join(folder, file), within=folder).decode("utf-8").splitlines()
            return lines[int(n) - 1].strip() if 0 < int(n) <= len(lines) else None
        except (NotReadable, UnicodeDecodeError, ValueError):
            return None
    return line


@main.command()
@click.argument("paths", nargs=-1)
@click.option("-n", "games", default=20, show_default=True, type=click.IntRange(0, 100_000),
              help="bot games at each player count")
@click.option("--seed", default="0", show_default=True)
@click.option("--players", multiple=True, type=int, help="player counts (repeat; default: every count the game allows)")
@click.option("--agent", default="random", show_default=True,
              help="random, first, greedy or mcts for every seat, or a mix like p1=mcts:200,random; "
                   "mcts:N searches N playouts a decision (the same seed plays the same game), mcts:Nms "
                   "N milliseconds (games then differ from run to run); mcts alone is mcts:100; "
                   "mcts:N:depthD plays D decisions past the search's tree (4 by default)")
@click.option("--html", "html_dir", default=None, metavar="DIR", help="write the HTML report here")
@click.option("--json", "as_json", is_flag=True, help="the report as JSON (docs/coverage.md)")
@click.option("--fail-under", type=click.FloatRange(0, 100), default=None, metavar="PCT",
              help="exit 1 when a game's statement coverage is below this")
def coverage(paths, games, seed, players, agent, html_dir, as_json, fail_under):
    """Which rules the scenarios and N bot games used: statements, branches, things never moved."""
    from .coverage import measure, render
    from .runtime.agents import check
    from .progress import games_bar
    for part in filter(None, (x.strip() for x in agent.split(","))):
        try:
            check(part.partition("=")[2].strip() if "=" in part else part)
        except ValueError as exc:
            click.echo(f"rulepress: {exc}", err=True)
            sys.exit(2)
    try:
        check_seed(seed)
        folders = find_games(paths_here(paths))
    except (UsageError, BadArgument) as exc:
        click.echo(f"rulepress: {exc}", err=True)
        sys.exit(2)
    seed = int(seed) if seed.lstrip("-").isdigit() else seed  # as simulate's: 7 and "7" are one seed
    results = []
    for folder in folders:
        try:
            with games_bar(os.path.basename(os.path.normpath(folder)), None, show_progress(as_json)) as advance:
                r = measure(folder, games, seed, players, agent, on_game=advance)
        except UsageError as exc:
            click.echo(f"rulepress: {exc}", err=True)
            sys.exit(2)
        results.append(r)
        if not as_json:
            render(r)
    if html_dir:
        from .coverage_html import write
        try:
            written = write(results, html_dir)
        except UsageError as exc:  # (DIR is a file: the games were measured, and the report is what failed)
            click.echo(_line(f"cannot write the HTML report: {exc}"), err=True)
            sys.exit(1)
        except OSError as exc:
            where = f" ({exc.filename})" if exc.filename else ""
            click.echo(_line(f"cannot write the HTML report to {html_dir}{where}: {exc.strerror or exc}"), err=True)
            sys.exit(1)
        if not as_json:
            click.echo(f"wrote {written[-1]}")
    if as_json:
        from .coverage import VERSION
        click.echo(json.dumps({"version": VERSION, "games": results}, indent=1, sort_keys=True, ensure_ascii=False))
    low = [r["game"] for r in results if "totals" in r and fail_under is not None and r["totals"]["percent"] < fail_under]
    if low and not as_json:
        click.echo(f"coverage below {fail_under:g}%: {', '.join(low)}")
    sys.exit(1 if low or any("compile_errors" in r for r in results) else 0)


@main.command()
@click.argument("game", required=False)
@click.option("--players", default=None, type=int, help="default: the fewest the game is for")
@click.option("--seed", default=None, help="default: a random one, printed so that the game can be played again")
@click.option("--bots", default="", help="seats played by bots, e.g. p2,p3 or p2=greedy or p2=mcts:200 (random by default; see simulate --agent)")
@click.option("--lang", type=click.Choice(["en", "ru"]), default="en")
@click.option("--log", "log_path", default=None, help="write the game log here when it ends")
def play(game, players, seed, bots, lang, log_path):
    """Play in the terminal: people and bots in any mix."""
    game = _game_arg(game)
    from .terminal import play as tplay
    try:
        check_seed(seed)
        if log_path is not None:  # before the game: a game played is never lost for want of a file
            check_log_file(log_path, "--log")
        g = _load_game(game)
        check_players(g, players)
        check_agents(bots, players or g.players_min, "--bots", bare_is_seat=True)
    except (UsageError, BadArgument) as exc:
        _usage(exc)
    from .compiler.writing import put_chosen
    tplay(g, players or g.players_min, seed, bots, lang, log_path, write=put_chosen)


def _game_for_log(gid: str, given):
    """The game a log is of: among the games given with --game (a game, or a folder of
    games holding <id>), else the current folder's game, <id> here, content/<id> or
    build/<id>/game.json. Never a path the log itself names (its id is a plain name)."""
    from .arguments import MANIFEST
    from .runtime.replay import ReplayError
    if given:
        games = []
        for x in given:
            inner = os.path.join(x, gid)
            if os.path.isdir(x) and not os.path.isfile(os.path.join(x, MANIFEST)) and os.path.isdir(inner):
                x = inner  # a folder of games: the one of the log's id
            games.append(_load_game(x))
        for g in games:
            if g.id == gid:
                return g
        if len(games) == 1:
            return games[0]  # replay() says whose log it is
        raise ReplayError(f"this log is of `{gid}`, and none of the games given is ({', '.join(g.id for g in games)})")
    if os.path.isfile(MANIFEST):
        here = _load_game(".")
        if here.id == gid:
            return here
    for folder in (gid, os.path.join("content", gid)):
        if os.path.isfile(os.path.join(folder, MANIFEST)):
            return _load_game(folder)
    built = os.path.join("build", gid, "game.json")
    if os.path.isfile(built):
        return _load_game(built)
    raise ReplayError(f"this log is of `{gid}`, which is neither this folder's game nor in ./{gid}, content/ "
                      "or build/: name it with --game")


@main.command()
@click.argument("game", required=False)
@click.option("-n", "games", default=10, show_default=True, type=click.IntRange(1, 100_000), help="games per player count")
@click.option("--seed", default="0", show_default=True)
@click.option("--players", default=None, type=int, help="only this player count (default: every one the game allows)")
def secrets(game, games, seed, players):
    """Leak check: play random games and scan what every seat is handed for hidden things."""
    game = _game_arg(game)
    from .leakscan import scan
    try:
        check_seed(seed)
        g = _load_game(game)
        counts = range(g.players_min, g.players_max + 1) if players is None else [players]
        if players is not None and not g.players_min <= players <= g.players_max:
            raise UsageError(f"{g.id} is for {g.players_min} to {g.players_max} players, not {players}")
    except (UsageError, BadArgument) as exc:
        click.echo(f"rulepress: {exc}", err=True)
        sys.exit(2)
    source = _source_lines(game)
    total = 0
    for n in counts:
        leak, scanned = scan(g, games, seed, n)
        total += scanned
        if leak is not None:
            line = source(leak.at) if source and leak.at else None
            _say(f"{g.id}, {n} players: {leak.text()}" + (f"\n  {leak.at}: {line}" if line else ""))
            sys.exit(1)
    click.echo(f"{g.id}: no leak in {total} decisions ({games} games at each of {len(counts)} player counts)")


@main.command()
@click.argument("game")
@click.option("--seat", required=True, metavar="P", help="the seat whose view is printed (p1, p2, ...), or `spectator`")
@click.option("--scenario", "scenario", type=click.Path(exists=True, dir_okay=False), help="play this scenario file ...")
@click.option("--step", type=click.IntRange(0, None), default=None, help="... up to this step (default: all its steps)")
@click.option("--log", "log", type=click.Path(exists=True, dir_okay=False), help="or replay this game log ...")
@click.option("--at", "at", type=click.IntRange(0, None), default=None, help="... up to this many choices (default: all)")
@click.option("--players", default=None, type=int, help="without a scenario or log: a new game of this many players")
@click.option("--seed", default="0", show_default=True, help="without a scenario or log: the new game's seed")
def view(game, seat, scenario, step, log, at, players, seed):
    """Print what one seat is sent: its view of the game (JSON), at a scenario's step or a log's choice."""
    from .runtime.views import view as seat_view
    try:
        if scenario and log:
            raise UsageError("give --scenario or --log, not both")
        if step is not None and not scenario:
            raise UsageError("--step goes with --scenario")
        if at is not None and not log:
            raise UsageError("--at goes with --log")
        if players is not None and (scenario or log):
            raise UsageError("--players is for a new game: a scenario or a log says its own")
        g, st = _view_state(game, scenario, step, log, at, players, seed)
        who = None if seat == "spectator" else seat
        if who is not None and who not in st["players"]:
            raise UsageError(f"no seat `{seat}` in a game of {len(st['players'])}: the seats are "
                             f"{', '.join(st['players'])} (or `spectator`)")
    except (UsageError, BadArgument) as exc:
        _usage(exc)
    click.echo(json.dumps(seat_view(g, st, who), ensure_ascii=False, indent=1, default=str))


def _view_state(game, scenario, step, log, at, players, seed):
    """The game and the state a view is printed of."""
    from .runtime.flow import IllegalChoice, new_game
    if log:
        from .runtime.replay import ReplayError, read_log, replay as replay_log
        try:
            data = read_log(log)
            g = _game_for_log(data["game"], (game,))
            if at is not None and at > len(data["choices"]):
                raise UsageError(f"--at {at}: the log holds {len(data['choices'])} choices")
            return g, replay_log(g, dict(data, choices=data["choices"][:at] if at is not None else data["choices"]))
        except ReplayError as exc:
            raise UsageError(str(exc)) from None
    g = _load_game(game)
    if scenario:
        return g, _scenario_state(g, scenario, step)
    check_seed(seed)
    n = g.players_min if players is None else players
    try:
        return g, new_game(g, n, int(seed) if seed.lstrip("-").isdigit() else seed)
    except IllegalChoice as exc:
        raise UsageError(str(exc)) from None


def _scenario_state(g, path, step):
    """The state a scenario file has reached after `step` steps (all of them: None)."""
    from .compiler.diagnostics import Report
    from .compiler.source import PMap, load_file
    from .scenario import ScenarioFailure, run_scenario, with_variants
    from .runtime.flow import IllegalChoice
    from .runtime.interpreter import GameFault
    from .runtime.tables import Game
    from .compiler.dsl import DslError
    report = Report()
    doc = load_file(path, os.path.relpath(path), report)
    sc = doc.get("scenario") if isinstance(doc, PMap) else None
    if report.errors or not isinstance(sc, PMap):
        raise UsageError(report.errors[0].text() if report.errors else f"{path}: a scenario file has a `scenario:` map")
    steps = sc.get("steps") or []
    if step is not None and step > len(steps):
        raise UsageError(f"--step {step}: the scenario has {len(steps)} steps")
    try:
        if sc.get("variants"):
            g = Game(with_variants(g.data, sc["variants"]))
        return run_scenario(g, sc, upto=len(steps) if step is None else step)
    except ScenarioFailure as exc:
        raise UsageError(f"{path}: {exc}") from None
    except DslError as exc:
        raise UsageError(f"{exc.pos}: {exc.code} {exc.message}") from None
    except (GameFault, IllegalChoice) as exc:
        raise UsageError(f"{path}: {exc}") from None


@main.command()
@click.argument("log", type=click.Path(exists=True, dir_okay=False))
@click.option("--game", "games", multiple=True,
              help="the game: id, folder, game.json or a folder of games; repeat to give several "
                   "(default: the current folder's game, or <id> here, in content/ or in build/)")
def replay(log, games):
    """Replay a game log and check it ends in the recorded state (docs/replay.md)."""
    from .runtime.replay import ReplayError, check_log, read_log
    try:
        data = read_log(log)
        msg = check_log(_game_for_log(data["game"], games), data)
    except UsageError as exc:  # a --game that names no game
        _usage(exc)
    except ReplayError as exc:
        click.echo(_line(exc), err=True)
        sys.exit(1)
    _say(msg)


@main.command("print")
@click.argument("game", required=False)
@click.option("--lang", "langs", type=click.Choice(list(languages())), multiple=True,
              help="language, one with a message catalogue (repeat for more; default en)")
@click.option("--paper", type=click.Choice(["a4", "letter"]), default="a4", show_default=True)
@click.option("--changed-since", "changed_since", default=None, metavar="REF", help="only cards whose definition changed since this git revision")
@click.option("-o", "--out", default="print", show_default=True, help="output folder")
@click.option("--size", default="poker", show_default=True, metavar="SIZE",
              help="card size: poker, bridge, tarot, mini, square, or WxH in mm")
@click.option("--png", is_flag=True, help="also a contact sheet and one PNG per card (for a virtual table)")
@click.option("--no-rulebook", "no_rulebook", is_flag=True, help="the components and cards only, no rulebook")
@click.option("--contact", is_flag=True, help="also the contact sheet (each card once) as PDF and 60 dpi PNG pages")
@click.option("--tts", is_flag=True, help="also Tabletop Simulator decks: face grids, backs and a saved object to load")
@click.option("--tts-url", "tts_url", default=None, metavar="URL",
              help="where the TTS images will be served from (default: their files on this machine)")
def print_cmd(game, langs, paper, changed_since, out, size, png, no_rulebook, contact, tts, tts_url):
    """PDFs: the rulebook (contents, page numbers) and print-and-play card sheets."""
    game = _game_arg(game)
    from .compiler.printing import PrintError, print_game
    folder = game if os.path.isdir(game) else os.path.join("content", game)
    try:
        check_out_folder(out, "--out")
        if changed_since is not None:
            check_revision(changed_since, "--changed-since")
        check_utf8_path(folder, "GAME")
    except BadArgument as exc:
        _usage(exc)
    warnings: list[str] = []
    try:
        if tts_url is not None and not re.fullmatch(r"https?://[^\s\"'<>]{1,400}", tts_url):
            raise UsageError(f"--tts-url `{tts_url[:60]}`: an http:// or https:// address")
        written = print_game(folder, langs or ("en",), paper, changed_since, out, size, png, warnings, tts, tts_url, contact,
                             not no_rulebook)
    except UsageError as exc:
        _usage(exc)
    except PrintError as exc:
        click.echo(_line(exc), err=True)
        sys.exit(1)
    except OSError as exc:
        _not_written(exc)
    finally:
        for w in warnings:
            click.echo(w, err=True)
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
        _usage(f"unknown code {code[:40]}; `rulepress explain` lists them")
    click.echo(render(code.upper(), entry))


@main.command()
@click.option("--editor", is_flag=True, help="add the schemas to .vscode/settings.json (its other settings kept)")
def schema(editor):
    """Show where the JSON Schemas are, or set up an editor to use them."""
    from .compiler.content import SCHEMA_DIR
    if not editor:
        click.echo(SCHEMA_DIR)
        return
    from .editor import EditorError, add_schemas
    try:
        click.echo(add_schemas(os.path.join(".vscode", "settings.json"), SCHEMA_DIR))
    except EditorError as exc:
        click.echo(_line(exc), err=True)
        click.echo(exc.snippet)
        sys.exit(1)


def _one_line_usage(exc: click.ClickException) -> None:
    """Click's own usage errors, as the one line every other failure is."""
    if type(exc).__name__ == "NoArgsIsHelpError":  # a bare `rulepress`: the help is what was asked for
        click.echo(exc.format_message(), err=True)
        return
    ctx = getattr(exc, "ctx", None)
    where = f" (rulepress {ctx.info_name} -h)" if ctx is not None and ctx.parent is not None else " (rulepress -h)"
    message = " ".join(exc.format_message().split())
    click.echo(_line(f"{message}{where if isinstance(exc, click.UsageError) else ''}"), err=True)


@main.command()
def lsp():
    """Language server over stdio, for editors: diagnostics, completion, hover, go to definition."""
    try:
        from .lsp import serve
    except ModuleNotFoundError as exc:
        if (exc.name or "").partition(".")[0] not in ("pygls", "lsprotocol"):
            raise
        click.echo("rulepress: the language server needs pygls: pip install 'rulepress[lsp]'", err=True)
        sys.exit(1)
    serve()


@main.command()
@click.argument("game", required=False)
@click.option("-o", "--out", default="build", show_default=True, help="output folder of the build")
@click.option("--print", "print_out", default=None, metavar="FOLDER", help="also print the PDFs into FOLDER")
@click.option("--interval", default=0.5, show_default=True, type=click.FloatRange(0.05, 60), help="seconds between looks at the files")
def watch(game, out, print_out, interval):
    """Validate and build a game again on every save, with a one-line status."""
    game = _game_arg(game)
    from .watch import watch as do_watch
    folder = game if os.path.isdir(game) else os.path.join("content", game)
    if not os.path.isdir(folder):
        click.echo(f"rulepress: no game `{game}`: not a folder or a game in content/", err=True)
        sys.exit(2)
    try:
        check_out_folder(out, "--out")
        if print_out is not None:
            check_out_folder(print_out, "--print")
    except BadArgument as exc:
        _usage(exc)
    try:
        do_watch(folder, out, print_out, interval, click.echo)
    except KeyboardInterrupt:
        sys.exit(130)


def _served_games(given, sources: dict | None = None) -> dict:
    """The games `serve` offers: those named, else every game of build/ (or of content/).
    `sources` gets each game's content folder where one is found (its card templates and
    art, for the table's card faces)."""
    if not given:
        if os.path.isdir("build"):
            given = sorted(os.path.join("build", d, "game.json") for d in os.listdir("build")
                           if os.path.isfile(os.path.join("build", d, "game.json")))
        if not given and os.path.isdir("content"):
            given = find_games(["content"])
        if not given:
            raise UsageError("no games to serve: name one (a game.json, a built folder or a content folder)")
    games = {}
    for name in given:
        built = os.path.join(name, "game.json")
        g = _load_game(built if os.path.isdir(name) and os.path.isfile(built) else name)
        if g.id in games:
            raise UsageError(f"{name}: a second game with the id `{g.id}`")
        games[g.id] = g
        if sources is not None:
            sources[g.id] = _content_of(name, g.id)
    return games


def _content_of(name: str, gid: str) -> str | None:
    """The content folder of a served game: the one named, else the `content/<id>` beside
    the `build/` it was built into, else none (the built-in card template)."""
    if os.path.isdir(name) and os.path.isfile(os.path.join(name, "game.yaml")):
        return name
    if not os.path.isdir(name) and not name.endswith(".json"):
        return os.path.join("content", name) if os.path.isdir(os.path.join("content", name)) else None
    built = os.path.dirname(os.path.abspath(name if os.path.isdir(name) else os.path.dirname(name)))
    for root in (os.path.dirname(built), os.getcwd()):
        folder = os.path.join(root, "content", gid)
        if os.path.isfile(os.path.join(folder, "game.yaml")):
            return folder
    return None


@main.command()
@click.argument("games", nargs=-1)
@click.option("--host", default="127.0.0.1", show_default=True, help="address to listen on (0.0.0.0: every network)")
@click.option("--port", default=8000, show_default=True, type=int)
@click.option("--db", default=None, metavar="FILE|URL",
              help="the rooms' store: an SQLite file, or postgresql://... for several processes "
                   "[default: $XDG_DATA_HOME/rulepress/tables.sqlite3, or ~/.local/share/...]")
@click.option("--processes", default=1, show_default=True, type=click.IntRange(1, 64),
              help="server processes sharing the port and the rooms (more than one: --db postgresql://...)")
@click.option("--game-workers", default=0, show_default=True, type=click.IntRange(0, 64), metavar="N",
              help="worker processes of each server process that play the rooms' games (0: a thread per room)")
@click.option("--expire-hours", default=72.0, show_default=True, type=float,
              help="rooms are dropped this long after their last connection")
@click.option("--no-address-limits", is_flag=True,
              help="no limits by the client's address (a load test on loopback, or a proxy that limits by itself)")
@click.option("--faces", "faces_dir", default=None, metavar="DIR",
              help="where the cards' faces are made and kept [default: $XDG_CACHE_HOME/rulepress/faces, or ~/.cache/...]")
@click.option("--no-faces", is_flag=True, help="cards shown by their names, no faces made")
def serve(games, host, port, db, processes, game_workers, expire_hours, no_address_limits, faces_dir, no_faces):
    """The online table: rooms in the browser for people in different places (docs/table.md)."""
    try:
        from .table.app import create_app, open_store, steady_collector
        from .table.faces import Faces, default_cache
        from .table.store import default_path, is_postgres
        import uvicorn
    except ModuleNotFoundError as exc:
        click.echo(f"rulepress: the online table needs {exc.name}: pip install 'rulepress[table]'", err=True)
        sys.exit(1)
    db = db or default_path()
    shared = is_postgres(db)
    try:
        check_expire_hours(expire_hours)
        if not shared:
            check_db_file(db)
        if processes > 1 and not shared:
            raise BadArgument("--processes: several processes share rooms through PostgreSQL: --db postgresql://...")
    except BadArgument as exc:
        _usage(exc)
    if shared:
        try:  # reached once here (and its tables made), so a wrong URL is one line, not N tracebacks
            from psycopg import Error as DbError
            open_store(db).close()
        except ModuleNotFoundError as exc:
            click.echo(f"rulepress: a PostgreSQL store needs {exc.name}: pip install 'rulepress[table]'", err=True)
            sys.exit(1)
        except DbError as exc:
            click.echo(_line(f"rulepress: --db: PostgreSQL refused: {str(exc).strip().splitlines()[0][:300]}"), err=True)
            sys.exit(1)
    sources: dict = {}
    try:
        served = _served_games(games, sources)
        if faces_dir is not None and not no_faces:
            check_out_folder(faces_dir, "--faces")
    except UsageError as exc:
        _usage(exc)
    except BadArgument as exc:
        _usage(exc)
    try:
        check_listen(host, port)  # last: the games took a while to load, and the port may have been taken since
    except BadArgument as exc:
        _usage(exc)
    workers = game_workers
    # made before the processes part: they share its key, so a face one names another serves
    faces = None if no_faces else Faces(served, sources, faces_dir or default_cache())
    # a thread busy with a room's game (--game-workers 0), or answers of the workers read and
    # frames made, hands the interpreter to the event loop every millisecond instead of every five
    sys.setswitchinterval(0.001)
    steady_collector()  # (the games are loaded: before the processes part)
    shown = f"[{host}]" if ":" in host else host
    where = "" if processes == 1 else f" by {processes} processes"
    store_name = db if not shared else "PostgreSQL"
    click.echo(f"rulepress: serving {', '.join(sorted(served))} at http://{shown}:{port}/{where} (rooms in {store_name})",
               err=True)
    # ws_max_size: a frame over the limit is refused by the server before the app reads it.
    # No per-message deflate: compressing every seat's view took a third of the server's time
    # a move (bench/table_load.py) to save bytes a table changing every few seconds never misses.
    options = dict(log_level="warning", ws_max_size=64 * 1024, ws_ping_interval=20, ws_per_message_deflate=False)
    if processes > 1:
        from .table import processes as several
        sock = several.listen(host, port)
        from .table.limits import BUDGETS, SharedBudgets
        budgets = SharedBudgets(BUDGETS)  # made before the fork: every process counts in the same table

        def serve_one(sock, told):
            app = create_app(served, db, expire_hours, address_limits=not no_address_limits, workers=workers,
                             faces=faces, shared_budgets=budgets)
            server = uvicorn.Server(uvicorn.Config(app, **options))
            # told to stop while starting: the server stops once started (its own handlers
            # take the signals over only then)
            told.then = lambda: setattr(server, "should_exit", True)
            if not told.asked:
                server.run(sockets=[sock])
        code = several.run(processes, sock, serve_one)
        if code == 130:
            raise KeyboardInterrupt
        sys.exit(code)
    app = create_app(served, db, expire_hours, address_limits=not no_address_limits, workers=workers,
                             faces=faces)
    config = uvicorn.Config(app, host=host, port=port, **options)
    # (not uvicorn.run, which swallows the KeyboardInterrupt the server raises again after a
    # graceful shutdown on Ctrl-C: run() turns it into exit 130, as for every command)
    uvicorn.Server(config).run()


def run() -> None:
    """The `rulepress` console script. Ctrl-C ends any command with 130 and no traceback
    (worker processes end with it); output cut short by a closed pipe ends it quietly."""
    try:
        try:
            code = main(prog_name="rulepress", standalone_mode=False)
        except click.exceptions.Abort as exc:
            if isinstance(exc.__context__, KeyboardInterrupt) or isinstance(exc.__cause__, KeyboardInterrupt):
                raise KeyboardInterrupt from None
            click.echo("rulepress: aborted", err=True)
            code = 1
        except click.ClickException as exc:
            _one_line_usage(exc)
            code = exc.exit_code
    except KeyboardInterrupt:
        _quietly(lambda: click.echo("rulepress: interrupted", err=True))
        code = 130
    except BrokenPipeError:
        # Whoever read the output stopped (`| head`): nothing left to say, and nothing to flush to them.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        code = 141
    except OSError as exc:  # a file or folder the system refused after the arguments were checked
        where = f"{exc.filename}: " if exc.filename else ""
        _quietly(lambda: click.echo(_line(f"{where}{exc.strerror or exc}"), err=True))
        code = 1
    except GameFault as exc:  # the content did something impossible (in `play`): where, and what
        _quietly(lambda: click.echo(_line(f"the game cannot go on: {exc}"), err=True))
        code = 1
    except Exception as exc:  # noqa: BLE001 - a fault of rulepress itself: one line, not a traceback
        if os.environ.get("RULEPRESS_DEBUG"):  # (RULEPRESS_DEBUG=1 shows the traceback to whoever fixes it)
            raise
        _quietly(lambda: click.echo(_line(f"internal error: {type(exc).__name__}: {exc} "
                                          "(RULEPRESS_DEBUG=1 shows where)"), err=True))
        code = 1
    sys.exit(code if isinstance(code, int) else 0)


def _quietly(say) -> None:
    try:
        say()
    except (OSError, KeyboardInterrupt):
        pass


if __name__ == "__main__":
    run()
