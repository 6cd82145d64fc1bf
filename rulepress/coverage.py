"""`rulepress coverage`: which rules a game's scenarios and bot games used, line by line.

A game is compiled, its code is written again with counters (runtime/coverage.py), its
scenarios run (rulepress/scenario.py), then N bot games at each player count. The report
(`measure`) is a plain dict, the `--json` output itself (docs/coverage.md, `VERSION`); the
terminal table and the HTML pages (rulepress/coverage_html.py) are read from it.

What can count: every statement position in the compiled IR (so a statement nothing ran is
in the count), each way of each branch, the actions, triggers, things and locations. A
line may be declared unreachable with a `# coverage: unreachable <reason>` comment: that
line and the lines indented under it leave the count and are listed apart.
"""
from __future__ import annotations

import glob
import json
import os
import re
from collections import Counter
from typing import NamedTuple

from .compiler.content import UsageError
from .compiler.diagnostics import printable
from .compiler.pipeline import compile_game
from .compiler.source import NotReadable, read_bytes
from .runtime import ir
from .runtime.coverage import attach, conditions, play, statements
from .runtime.simulate import seat_agents
from .runtime.tables import Game

VERSION = 1
_PRAGMA = re.compile(r"#\s*coverage:\s*unreachable\b[\s:,-]*(.*)$")
_POS = re.compile(r"^(.+):(\d+):(\d+)$")
_MAX_SOURCE = 5_000_000  # bytes of one content file read for the report: more is not a game's


class Where(NamedTuple):
    file: str
    line: int


def where(pos) -> Where | None:
    m = _POS.match(pos) if isinstance(pos, str) else None
    return Where(m[1], int(m[2])) if m else None


class Unreachable(NamedTuple):
    file: str
    line: int  # the line of the pragma's statement or key
    last: int  # the last line indented under it
    reason: str


def source_lines(folder, file) -> list[str] | None:
    """The lines of a content file named by the IR, or None where it is not inside the game."""
    try:  # (the one reader of a game's files: nothing outside the folder, no pipe)
        text = read_bytes(os.path.join(folder, file), within=folder).decode("utf-8", "replace")
    except NotReadable:
        return None
    return text[:_MAX_SOURCE].splitlines()


def _indent(text):
    return len(text) - len(text.lstrip(" "))


def pragmas(file, lines) -> list[Unreachable]:
    """The unreachable declarations of a file: a pragma after a line's text holds for that
    line, one alone on its line for the next; and for every line indented under it."""
    out = []
    for n, text in enumerate(lines, 1):
        m = _PRAGMA.search(text)
        if not m:
            continue
        reason = m[1].strip() or "no reason given"
        first = n
        if not text[:m.start()].strip():  # a comment line of its own: it is about the next line
            first = next((k for k in range(n + 1, len(lines) + 1)
                          if lines[k - 1].strip() and not lines[k - 1].lstrip().startswith("#")), n)
        last, ind = first, _indent(lines[first - 1])
        for k in range(first + 1, len(lines) + 1):
            t = lines[k - 1]
            if t.strip() and not t.lstrip().startswith("#"):
                if _indent(t) <= ind:
                    break
                last = k
        out.append(Unreachable(file, first, last, reason))
    return out


def _ranges(numbers, lines_in_order) -> str:
    """12-14, 20: runs of missing lines with no other statement line between them."""
    missing, out, start, prev = set(numbers), [], None, None
    for n in lines_in_order:
        if n in missing:
            if start is None:
                start = n
            prev = n
        elif start is not None:
            out.append(f"{start}-{prev}" if prev != start else str(start))
            start = None
    if start is not None:
        out.append(f"{start}-{prev}" if prev != start else str(start))
    return ", ".join(out)


def measure(folder, games=20, seed=0, players=None, agent="random", on_game=None) -> dict:
    """Compile the game in `folder`, run its scenarios and `games` bot games per player count
    (each count the game allows, or those of `players`), and report what ran. A game that
    does not compile gives {"game": folder, "errors": [...]} only. `on_game`: a progress bar's
    advance (rulepress/progress.py), told the number of games first, then of each game played."""
    from .scenario import run_file
    text, gid, report = compile_game(folder)
    if text is None:
        return {"game": gid or folder, "folder": folder, "compile_errors": [d.text() for d in report.sorted()
                                                                           if d.severity == "error"]}
    game = Game(json.loads(text))
    rec = attach(game)
    passed, failed = [], []
    for f in sorted(glob.glob(os.path.join(folder, "scenarios", "*.yaml"))):
        ok, name, msg = run_file(game, f)
        if ok is not None:
            (passed if ok else failed).append({"file": os.path.relpath(f, folder), "name": name, "message": msg})
    counts = list(players) if players else list(range(game.players_min, game.players_max + 1))
    wrong = [p for p in counts if not game.players_min <= p <= game.players_max]
    if wrong:
        raise UsageError(f"{game.id} is for {game.players_min} to {game.players_max} players, not {wrong[0]}")
    if on_game:
        on_game(0, total=games * len(counts))
    for p in counts:
        seats = seat_agents(agent, [f"p{k + 1}" for k in range(p)])
        for i in range(games):
            play(game, rec, i, seed, p, seats)
            if on_game:
                on_game()
    result = _report(game, folder, rec)
    result.update(game=game.id, folder=folder, version=VERSION)
    result["runs"] = {"scenarios": {"passed": len(passed), "failed": failed},
                      "bot_games": {"per_player_count": games, "player_counts": counts, "seed": seed,
                                    "agent": agent, "errors": [{"players": p, "game": i, "error": e}
                                                               for p, i, e in rec.errors]}}
    return result


def _report(game, folder, rec) -> dict:
    data = game.data
    stmts = statements(data)
    per_file = {}  # file -> {line -> [statement positions]}
    for s in stmts:
        w = where(s[1])
        if w:
            per_file.setdefault(w.file, {}).setdefault(w.line, set()).add(s[1])
    sources = {f: source_lines(folder, f) for f in per_file}
    unreachable = [u for f in sorted(per_file) for u in pragmas(f, sources[f] or [])]

    def excluded(w):
        return next((u for u in unreachable if u.file == w.file and u.line <= w.line <= u.last), None)

    runs = {pos: cell[0] for pos, cell in rec.runs.items()}
    truth = {pos: tuple(cell) for pos, cell in rec.truth.items()}
    branches = _branches(data, stmts, runs, truth, rec)
    files, totals = {}, Counter()
    for f in sorted(per_file):
        lines = per_file[f]
        counted = {n: ps for n, ps in lines.items() if not excluded(Where(f, n))}
        missing = sorted(n for n, ps in counted.items() if not any(runs.get(p) for p in ps))
        n_st = sum(len(ps) for ps in counted.values())
        n_cov = sum(1 for ps in counted.values() for p in ps if runs.get(p))
        fb = [b for b in branches if b["file"] == f and not excluded(Where(f, b["line"]))]
        n_br = sum(len(b["ways"]) for b in fb)
        n_brc = sum(1 for b in fb for w in b["ways"] if w["count"])
        partial = sorted({b["line"] for b in fb if any(w["count"] for w in b["ways"])
                          and not all(w["count"] for w in b["ways"])})
        files[f] = {
            "statements": n_st, "covered": n_cov, "percent": _pct(n_cov, n_st),
            "missing_lines": missing, "missing": _ranges(missing, sorted(counted)),
            "excluded_lines": sorted(n for n in lines if n not in counted),
            "branches": n_br, "branches_covered": n_brc, "partial_lines": partial,
            "lines": {str(n): {"statements": len(ps), "runs": sum(runs.get(p, 0) for p in ps),
                               "missed": sum(1 for p in ps if not runs.get(p))} for n, ps in sorted(lines.items())},
            "branch_points": fb,
        }
        totals.update(statements=n_st, covered=n_cov, branches=n_br, branches_covered=n_brc)
    excluded_rows = []
    for u in unreachable:
        ps = [p for n, lps in per_file.get(u.file, {}).items() if u.line <= n <= u.last for p in lps]
        excluded_rows.append({"file": u.file, "line": u.line, "last_line": u.last, "reason": u.reason,
                              "statements": len(ps), "ran": sum(runs.get(p, 0) for p in ps)})
    return {
        "totals": {"statements": totals["statements"], "covered": totals["covered"],
                   "percent": _pct(totals["covered"], totals["statements"]),
                   "branches": totals["branches"], "branches_covered": totals["branches_covered"],
                   "excluded": sum(len(f["excluded_lines"]) for f in files.values())},
        "files": files,
        "unreachable": excluded_rows,
        "never": _never(game, runs, truth, rec),
    }


def _pct(covered, total) -> float:
    return round(100.0 * covered / total, 2) if total else 100.0


def _branches(data, stmts, runs, truth, rec) -> list[dict]:
    """Each branch point with the times each of its ways was taken."""
    out = []

    def point(pos, kind, what, ways):
        w = where(pos)
        if w:
            out.append({"at": pos, "file": w.file, "line": w.line, "kind": kind, "what": what,
                        "ways": [{"label": label, "count": count} for label, count in ways]})

    for s in stmts:
        n = ir.view(s) if s[0] in ("if", "may", "choose") else None
        if s[0] == "if":
            arms = n.branches
            ways = [(f"arm {k + 1} (line {where(c[1]).line if where(c[1]) else '?'}) taken",
                     truth.get(c[1], (0, 0))[1]) for k, (c, _b) in enumerate(arms)]
            last = truth.get(arms[-1][0][1], (0, 0))[0] if arms else 0
            ways.append(("else taken" if n.otherwise else "no arm taken", last))
            point(s[1], "if", "if", ways)
        elif s[0] == "may":
            chosen = rec.decided.get(s[1], Counter())
            yes = max(chosen.get("yes", 0), runs.get(n.body[0][1], 0) if n.body else 0)
            no = max(chosen.get("no", 0), runs.get(n.otherwise[0][1], 0) if n.otherwise else 0)
            point(s[1], "may", "may", [("yes chosen", yes), ("no chosen", no)])
        elif s[0] == "choose" and (n.or_none or n.otherwise):  # one that may end without a choice
            chosen = rec.decided.get(s[1], Counter())
            body, other = n.body, n.otherwise
            some = max(sum(n for o, n in chosen.items() if o != "none"), runs.get(body[0][1], 0) if body else 0)
            ways = [("an option chosen", some)]
            ways.append(("otherwise taken", runs.get(other[0][1], 0)) if other else ("none chosen", chosen.get("none", 0)))
            point(s[1], "choose", "choose", ways)
    for pos, _node, what in conditions(data):
        if what == "arm of an if":
            continue  # counted with its `if` statement above
        f, t = truth.get(pos, (0, 0))
        point(pos, "condition", what, [("true", t), ("false", f)])
    return sorted(out, key=lambda b: (b["file"], b["line"], b["at"], b["what"]))


def _never(game, runs, truth, rec) -> dict:
    """The things that never moved: actions never offered or taken, triggers never fired,
    types of things none of whose copies moved and locations never entered (the last two
    watched in bot games only)."""
    data = game.data

    def ran(block):
        return bool(block) and bool(runs.get(block[0][1]))

    taken = {a for a, act in data["actions"].items() if rec.taken.get(a) or ran(act.get("effect"))}
    offered = {a for a, act in data["actions"].items() if "if" not in act or truth.get(act["if"][1], (0, 0))[1]}
    fired = []
    for event, ts in sorted(data["triggers"].items()):
        for t in ts:
            w = truth.get(t["when"][1], (0, 0))[1] if "when" in t else None
            if not (ran(t.get("effect")) or w):
                fired.append(t.get("id") or event)
    played = rec.games > 0
    moved = {}
    if played:  # by card or piece type: a type counts as moved when one of its copies did
        gone = {game.proto_of[x] for x in set(rec.first) - rec.still}
        for pid in sorted({game.proto_of[x] for x in rec.still} - gone - set(game.locations)):
            moved.setdefault(game.protos[pid]["kind"], []).append(pid)
    return {
        "actions_never_offered": sorted(set(data["actions"]) - offered),
        "actions_never_taken": sorted(set(data["actions"]) - taken),
        "triggers_never_fired": sorted(set(fired)),
        "things_never_moved": moved if played else None,
        "locations_never_entered": sorted(rec.empty) if played else None,
    }


def render(result) -> None:
    """The terminal summary of one game: a table per file, like coverage.py's."""
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text
    con = Console(highlight=False)
    if "compile_errors" in result:
        for line in result["compile_errors"]:
            con.print(Text(line))
        con.print(Text(f"{result['game']}: does not compile, so nothing was measured"))
        return
    r = result["runs"]
    b = r["bot_games"]
    t = Table("file", "stmts", "miss", "branch", "brpart", "cover", "missing",
              title=Text(f"{result['game']}: {r['scenarios']['passed']} scenarios passed, "
                         f"{len(r['scenarios']['failed'])} failed; {b['per_player_count']} {b['agent']} bot games "
                         f"for {', '.join(map(str, b['player_counts']))} players (seed {b['seed']})"))
    for f, s in result["files"].items():
        t.add_row(Text(printable(f)), str(s["statements"]), str(s["statements"] - s["covered"]), str(s["branches"]),
                  str(len(s["partial_lines"])), f"{s['percent']:.0f}%", Text(s["missing"]))
    tot = result["totals"]
    t.add_row("TOTAL", str(tot["statements"]), str(tot["statements"] - tot["covered"]), str(tot["branches"]),
              str(sum(len(s["partial_lines"]) for s in result["files"].values())), f"{tot['percent']:.1f}%", "")
    con.print(t)
    con.print(f"branches: {tot['branches_covered']} of {tot['branches']} ways taken "
              f"({_pct(tot['branches_covered'], tot['branches']):.1f}%)")
    for u in result["unreachable"]:
        ran = f"; it RAN {u['ran']} times" if u["ran"] else ""
        con.print(Text(f"unreachable {u['file']}:{u['line']}-{u['last_line']} ({u['statements']} statements): "
                       f"{u['reason']}{ran}"))
    nv = result["never"]
    for key, label in (("actions_never_offered", "actions never offered"), ("actions_never_taken", "actions never taken"),
                       ("triggers_never_fired", "triggers never fired"),
                       ("locations_never_entered", "locations never entered")):
        if nv.get(key):
            con.print(Text(f"{label} ({len(nv[key])}): {_some(nv[key])}"))
    for kind, xs in (nv.get("things_never_moved") or {}).items():
        con.print(Text(f"{kind} never moved ({len(xs)}): {_some(xs)}"))
    for fl in r["scenarios"]["failed"][:5]:
        con.print(Text(printable(f"scenario FAILED {fl['file']}: {fl['name']}: {fl['message']}")))
    for e in b["errors"][:5]:
        con.print(Text(printable(f"bot game {e['game']} ({e['players']} players) stopped: {e['error']}")))


def _some(xs, n=12) -> str:
    return ", ".join(xs[:n]) + (f", ... ({len(xs) - n} more)" if len(xs) > n else "")
