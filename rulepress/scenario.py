"""Scenario tests: a rule told as setup, choices and expectations, checked against the runtime.

    scenario:
      name: Blessed investigators succeed on 4-6
      rules: [AH-021]
      players: 1
      setup: |
        mark p1 as blessed
      dice: [4, 2]
      run: |
        let r = skill_check(p1, 2, 1)
      expect:
        - p1.clues == 0
"""
from __future__ import annotations

import glob
import json
import os

from .compiler.content import find_games
from .compiler.diagnostics import Pos, Report
from .compiler.dsl import DslError, parse, parse_expr
from .compiler.pipeline import compile_game
from .compiler.source import PMap, PStr, load_file

from .runtime.flow import IllegalChoice, apply, choices, interrupt, new_game, settle
from .runtime.interpreter import Fail, GameFault, GameOver, Interp
from .runtime.tables import Game


class ScenarioFailure(Exception):
    pass


def _where(text, node, key):
    if isinstance(text, PStr):
        return text.at
    p = node.val_pos.get(key, node.pos)
    return lambda l, c: Pos(p.file, p.line, p.col + c - 1)


def _scenario_files(folder):
    return sorted(glob.glob(os.path.join(folder, "scenarios", "*.yaml")))


def run_paths(paths, select, verbose, echo) -> bool:
    passed = failed = 0
    for folder in find_games(paths):
        files = _scenario_files(folder)
        if not files:
            continue
        text, gid, report = compile_game(folder)
        if text is None:
            for d in report.sorted():
                if d.severity == "error":
                    echo(d.text())
            echo(f"FAILED {folder}: the game does not compile, so none of its {len(files)} scenarios ran")
            failed += len(files)
            continue
        game = Game(json.loads(text))
        for f in files:
            ok, name, msg = run_file(game, f, select)
            if ok is None:
                continue
            if ok:
                passed += 1
                if verbose:
                    echo(f"ok     {gid}: {name}")
            else:
                failed += 1
                echo(f"FAILED {os.path.relpath(f)}: {name}\n       {msg}")
    echo(f"{passed} passed, {failed} failed")
    return failed == 0


def run_file(game, path, select=None):
    """(True/False/None if deselected, name, message)."""
    shown = os.path.relpath(path)
    report = Report()
    doc = load_file(path, shown, report)
    if doc is None or not isinstance(doc, PMap) or "scenario" not in doc:
        msg = "; ".join(d.text() for d in report.errors) or f"{shown}: a scenario file has a `scenario:` map"
        return False, os.path.basename(path), msg
    sc = doc["scenario"]
    name = str(sc.get("name", os.path.basename(path)))
    if select and select.lower() not in name.lower() and select.lower() not in shown.lower():
        return None, name, ""
    try:
        run_scenario(game, sc)
    except ScenarioFailure as exc:
        return False, name, str(exc)
    except DslError as exc:
        return False, name, f"{exc.pos}: {exc.code} {exc.message}"
    except GameFault as exc:
        return False, name, f"runtime error at {exc}"
    except IllegalChoice as exc:
        return False, name, f"illegal choice: {exc}"
    return True, name, ""


def run_scenario(game, sc):
    players = int(sc.get("players", game.players_min))
    # plain values only: the state is copied with marshal, which refuses str subclasses
    options = {str(k): (str(v) if isinstance(v, str) else v) for k, v in (sc.get("options") or {}).items()}
    seed = sc.get("seed", 0)
    st = new_game(game, players, str(seed) if isinstance(seed, str) else seed, options, first=str(sc.get("first_player", "p1")))
    if sc.get("dice"):
        st["dice"] = list(sc["dice"])
    if sc.get("setup"):
        ir = parse(sc["setup"], _where(sc["setup"], sc, "setup"))
        _direct(game, st, ir)
    if sc.get("dice_after_setup"):
        st["dice"] = list(sc["dice_after_setup"])
    steps = list(sc.get("steps") or [])
    if sc.get("run"):
        ir = parse(sc["run"], _where(sc["run"], sc, "run"))
        # the waiting decision comes back once the run (and its own decisions) are done
        interrupt(game, st, ir, {"player": str(sc.get("as", st["first"]))})
    for i, step in enumerate(steps):
        _step(game, st, step, i + 1)
    if st.get("interrupted"):
        d = st["pending"] or {}
        raise ScenarioFailure(f"the run still waits for a decision after the last step ({d.get('prompt') or d.get('kind')}"
                              + (f", asked at {d['at']}" if d.get("at") else "") + "): add a step for it")
    for j, exp in enumerate(sc.get("expect") or []):
        _expect(game, st, exp, sc["expect"], j)


def _direct(game, st, ir):
    """Run setup statements right away, outside the flow (they must not ask anything)."""
    settle(st)
    it = Interp(game, st)
    try:
        it.call_block(ir, {"player": st["first"]})
    except GameOver:
        pass
    except Fail as exc:
        raise ScenarioFailure(f"setup failed: {exc}")


def _step(game, st, step, n):
    d = st["pending"]
    if d is None:
        raise ScenarioFailure(f"step {n} `{step}`: no decision is pending (the game is over)")
    seat = None
    if isinstance(step, dict):
        if len(step) != 1:
            raise ScenarioFailure(f"step {n}: write one `seat: choice` per step")
        seat, step = next(iter(step.items()))
    step = str(step)
    opts = list(choices(game, st, seat))
    ids = [o["id"] for o in opts]
    choice = step if step in ids else None
    if choice is None:
        for o in opts:
            if step.lower() in (str(o["label"].get("en", "")).lower(), str(o["label"].get("ru", "")).lower()):
                choice = o["id"]
                break
    if choice is None:
        who = seat or (d["who"] if isinstance(d["who"], str) else ", ".join(d["who"]))
        raise ScenarioFailure(f"step {n}: `{step}` is not a choice for {who} now; the choices are: {', '.join(ids)}"
                              + (f" (asked at {d.get('at')})" if d.get("at") else ""))
    apply(game, st, choice, seat)


def _expect(game, st, text, node, j):
    where = node.item_pos[j] if hasattr(node, "item_pos") else Pos("?", 0, 0)
    w = text.at if isinstance(text, PStr) else (lambda l, c: Pos(where.file, where.line, where.col + c - 1))
    if isinstance(text, bool):
        raise ScenarioFailure(f"{where}: an expectation is an expression in quotes, not {text}")
    e = parse_expr(str(text), w)
    it = Interp(game, st)
    env = {"player": st["first"]}
    if st.get("scores") is not None:
        env["scores"] = st["scores"]
        env["winners"] = st["winners"]
    try:
        ok = it.ev(e, env)
    except GameFault as exc:
        raise ScenarioFailure(f"{where}: `{text}` could not be evaluated: {exc.message}")
    if not ok:
        detail = ""
        if e[0] == "op":
            left, right = it.ev(e[3], env), it.ev(e[4], env)
            detail = f": left side is {_show(left)}, right side is {_show(right)}"
        raise ScenarioFailure(f"{where}: expected `{text}`{detail}")


def _show(v):
    return json.dumps(v, ensure_ascii=False, default=str) if not isinstance(v, str) else f"`{v}`"
