"""`rulepress balance`, start to end: the versions to play, the games, the figures, the
report. The figures are rulepress/balance.py's, the HTML rulepress/balance_html.py's.

The result (the `--json` output) is {"version", "reports": [...]}, one report per player
count: the figures of one version, or {"a", "b", "compare", "names"} for two.
"""
from __future__ import annotations

import os

from .arguments import BadArgument, check_agents, check_players, game_options
from .balance import VERSION, compare, figures, play, player_count
from .compiler.content import UsageError
from .progress import games_bar


class BalanceError(Exception):
    """The report cannot be made (a revision that cannot be had, a file that cannot be written)."""


def _coverage(folder, n, seed, players, agent) -> dict | None:
    """The coverage summary of the game in `folder` (rulepress coverage, with at most 20 of
    the same bot games): totals and what never ran, not the line-by-line part."""
    from .coverage import measure
    try:
        c = measure(folder, min(n, 20), seed, [players], agent)
    except UsageError:
        return None
    if "compile_errors" in c:
        return {"compile_errors": c["compile_errors"]}
    return {"totals": c["totals"], "never": c["never"], "runs": c["runs"]}


def _folder(spec: str) -> str | None:
    """The content folder of a game given by id or folder (None for a game.json)."""
    if spec.endswith(".json") and os.path.isfile(spec):
        return None
    folder = spec if os.path.isdir(spec) else os.path.join("content", spec)
    return folder if os.path.isdir(folder) else None


def run(specs, n, seed, players, agent, option_pairs, against, workers, out, show, with_coverage, say, load,
        backend="local", address=None):
    """Plays, measures and reports; returns (result, whether any game stopped on an error).
    `show`: a progress bar; `say`: where the few lines of summary go (None under --json)."""
    if out is not None:  # before any game is played
        from .balance_html import MissingMatplotlib, check
        try:
            check()
        except MissingMatplotlib as exc:
            raise BalanceError(str(exc)) from None
    with _versions(specs, against, load) as (versions, names):
        games = [g for g, _folder in versions]
        counts = players or [games[0].players_min]
        for g in games:
            for p in counts:
                check_players(g, p)
            for p in counts:
                check_agents(agent, p, "--agent")
        options = [game_options(g, option_pairs) for g in games]
        reports, failed = [], False
        for p in counts:
            played = []
            for (g, folder), opts in zip(versions, options):
                with games_bar(f"{g.id}, {player_count(p)}", n, show) as advance:
                    results = play(g, n, seed, p, agent, opts or None, workers, advance, backend, address)
                failed = failed or any("error" in r for r in results)
                played.append((figures(g, results, n, seed, p, agent, opts or None), results))
            if len(played) == 1:
                f = played[0][0]
                if with_coverage and versions[0][1]:
                    cov = _coverage(versions[0][1], n, seed, p, agent)
                    if cov is not None:
                        f["coverage"] = cov
                reports.append(f)
            else:
                (fa, ra), (fb, rb) = played
                reports.append({"players": p, "names": names, "a": fa, "b": fb, "compare": compare(fa, fb, ra, rb)})
    result = {"version": VERSION, "reports": reports}
    if say is not None:
        for r in reports:
            _summary(r, say)
    if out is not None:
        from .balance_html import page
        from .compiler.writing import put_chosen
        html = "\n".join(page(r) for r in reports) if len(reports) == 1 else _joined(reports, page)
        try:
            put_chosen(out, html.encode("utf-8"))
        except OSError as exc:
            raise BalanceError(f"cannot write {out}: {exc.strerror or exc}") from None
        if say is not None:
            say(f"wrote {out}")
    return result, failed


def _joined(reports, page) -> str:
    """Several player counts in one file: each report's body one after the other."""
    pages = [page(r) for r in reports]
    head = pages[0][:pages[0].index("<body>") + len("<body>")]
    bodies = [p[p.index("<body>") + len("<body>"):p.index("</body>")] for p in pages]
    return head + "<hr>".join(bodies) + "</body></html>\n"


class _versions:
    """The game(s) to play as [(Game, content folder or None)] and their names; the folder
    of a revision lives in a temporary folder for as long as the `with` lasts."""

    def __init__(self, specs, against, load):
        self.specs, self.against, self.load, self.tmp = specs, against, load, None

    def __enter__(self):
        if self.against is None:
            versions = [(self.load(s), _folder(s)) for s in self.specs]
            return versions, list(self.specs)
        from .compiler.revisions import RevisionError, export, temporary
        spec = self.specs[0]
        folder = _folder(spec)
        if folder is None:
            raise BadArgument(f"--against needs a game folder (or a game in content/), not {spec}")
        self.tmp = temporary()
        try:
            old = export(folder, self.against, self.tmp.name, "--against")
            if old is None:
                raise RevisionError(f"--against: {folder} does not exist at {self.against}")
        except RevisionError as exc:
            self.tmp.cleanup()
            raise BalanceError(str(exc)) from None
        try:
            versions = [(self.load(old), None), (self.load(spec), folder)]
        except BaseException:
            self.tmp.cleanup()
            raise
        return versions, [f"{spec} at {self.against}", f"{spec} as it is now"]

    def __exit__(self, *exc):
        if self.tmp is not None:
            self.tmp.cleanup()
        return False


def _summary(r, say) -> None:
    """A few lines on the terminal; the report has the rest."""
    if "compare" in r:
        c = r["compare"]
        say(f"A: {r['names'][0]}; B: {r['names'][1]}; {player_count(r['players'])}, {r['a']['finished']} games each")
        say(f"A: {r['a']['verdict']}")
        say(f"B: {r['b']['verdict']}")
        if c["significant"]:
            say(f"significant differences ({len(c['significant'])} of {c['tested']} figures):")
            for line in c["significant"]:
                say(f"  {line}")
        else:
            say(f"no significant difference in {c['tested']} figures")
        return
    say(f"{r.get('name', r['game'])}, {player_count(r['players'])}, {r['finished']} of {r['games']} games ({r['agent']}): {r['verdict']}")
    if r.get("faction_verdict"):
        say(r["faction_verdict"])
    fp = r["first_player"]
    if not r["cooperative"]:
        say(f"first player wins {fp['rate']:.0%} ({fp['low']:.0%}-{fp['high']:.0%}); fair {fp['fair']:.0%}")
    say("ended: " + "; ".join(f"{e.get('words') or e['key']}: {e['games']}" for e in r["ended"]))
    flagged = [f"{a['id']} ({a['flag']})" for a in r["actions"] if a["flag"]]
    if flagged:
        say("actions never or rarely taken: " + ", ".join(flagged))
    for e in r["errors"][:3]:
        say(f"game {e['game']} stopped: {e['error']}")
