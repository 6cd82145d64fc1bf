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

The whole format (refused choices, checkpoints, variant components, one copy among several)
is docs/scenarios.md. Each file is checked as content first (compiler/scenarios.py): one
with errors fails with them and does not run.
"""
from __future__ import annotations

import copy
import json
import os

from .compiler.content import UsageError, find_games
from .compiler.diagnostics import Pos, Report
from .compiler.dsl import DslError, parse, parse_expr
from .compiler.pipeline import compile_game
from .compiler.scenarios import check_folder, scenario_files
from .compiler.source import PMap, PStr, load_file

from .runtime import ir
from .runtime.decision import Decision
from .runtime.flow import IllegalChoice, apply, choices, interrupt, new_game, set_table, settle
from .runtime.faults import Suspend
from .runtime.interpreter import ASKS, Fail, GameFault, GameOver, Interp
from .runtime.visibility import HANDLE
from .runtime.tables import Game
from .runtime.views import view


class ScenarioFailure(Exception):
    pass


def _where(text, node, key):
    if isinstance(text, PStr):
        return text.at
    p = node.val_pos.get(key, node.pos)
    return lambda l, c: Pos(p.file, p.line, p.col + c - 1)


def run_paths(paths, select, verbose, echo, scenarios_dir=None) -> bool:
    """Run the scenarios of each game (its scenarios/ folder, or `scenarios_dir` for the one
    game given); `select` keeps those whose name or file name holds it."""
    passed = failed = 0
    games = find_games(paths)
    if scenarios_dir is not None:
        if len(games) != 1:
            raise UsageError(f"--scenarios needs exactly one game, not {len(games)}")
        if not os.path.isdir(scenarios_dir):
            raise UsageError(f"--scenarios {scenarios_dir}: not a folder")
    without = []
    for folder in games:
        files = scenario_files(scenarios_dir or os.path.join(folder, "scenarios"))
        if not files:
            without.append(folder)
            continue
        text, gid, report = compile_game(folder)
        checked = check_folder(folder, scenarios_dir=scenarios_dir) if text is not None else None
        if checked is None:
            for d in report.sorted():
                if d.severity == "error":
                    echo(d.text())
            echo(f"FAILED {folder}: the game does not compile, so none of its {len(files)} scenarios ran")
            failed += len(files)
            continue
        tables = json.loads(text)
        game = Game(tables)
        found = {}
        for d in checked.errors:
            found.setdefault(d.pos.file, []).append(d)
        for f in files:
            ok, name, msg = run_file(game, f, select, errors=found.get(os.path.relpath(f), []), tables=tables)
            if ok is None:
                continue
            if ok:
                passed += 1
                if verbose:
                    echo(f"ok     {gid}: {name}")
            else:
                failed += 1
                echo(f"FAILED {os.path.relpath(f)}: {name}\n       {msg}")
    if without:
        echo(f"no scenarios in: {', '.join(without)} (see docs/scenarios.md)")
    echo(f"{passed} passed, {failed} failed")
    if passed + failed == 0:  # a test run that tested nothing must not read as a pass
        echo("nothing was tested: " + (f"no scenario's name or file name holds `{select}`" if select else
                                       "no scenario files found"))
        return False
    return failed == 0


def run_file(game, path, select=None, errors=(), tables=None):
    """(True/False/None if deselected, name, message). `errors`: what checking the file found
    (compiler/scenarios.py): a file with errors fails with them and is not run. `tables`
    (the game's, as game.json holds them) are what variant components are made from."""
    shown = os.path.relpath(path)
    report = Report()
    doc = load_file(path, shown, report, within=os.path.dirname(path) or ".")  # (its folder of scenarios)
    sc = doc.get("scenario") if isinstance(doc, PMap) else None
    name = str(sc.get("name", os.path.basename(path))) if isinstance(sc, PMap) else os.path.basename(path)
    if select and select.lower() not in name.lower() and select.lower() not in os.path.basename(path).lower():
        return None, name, ""
    errors = list(errors) + report.errors
    if errors or not isinstance(sc, PMap):
        msg = "\n       ".join(d.text() for d in sorted(set(errors), key=lambda d: d.sort_key()))
        return False, name, msg or f"{shown}: a scenario file has a `scenario:` map"
    try:
        if sc.get("variants"):
            game = Game(with_variants(tables if tables is not None else game.data, sc["variants"]))
        run_scenario(game, sc)
    except ScenarioFailure as exc:
        return False, name, str(exc)
    except DslError as exc:
        return False, name, f"{exc.pos}: {exc.code} {exc.message}"
    except GameFault as exc:
        return False, name, f"runtime error at {exc}" if exc.pos != "?" else f"runtime error: {exc.message}"
    except IllegalChoice as exc:
        return False, name, f"illegal choice: {exc}"
    except Exception as exc:  # noqa: BLE001 - a fault of rulepress itself: this scenario fails, the others still run
        if os.environ.get("RULEPRESS_DEBUG"):
            raise
        return False, name, f"internal error: {type(exc).__name__}: {exc} (RULEPRESS_DEBUG=1 shows where)"
    return True, name, ""


def with_variants(tables: dict, variants) -> dict:
    """The game's tables with this scenario's components: other printed attributes on a
    thing (every copy of it), or one more thing made like another. The game's are untouched."""
    data = dict(tables)
    protos = data["protos"] = dict(data["protos"])
    instances = data["instances"] = list(data["instances"])
    for v in variants:
        attrs = _plain(v.get("attrs") or {})
        if "thing" in v:
            p = protos[str(v["thing"])] = dict(protos[str(v["thing"])])
            p["attrs"] = {**p["attrs"], **attrs}
        else:
            like, new = str(v["like"]), str(v["add"])
            p = protos[new] = copy.deepcopy(protos[like])
            p["attrs"] = {**p["attrs"], **attrs}
            p["count"] = 1
            zone, up = next(((z, u) for _i, pid, z, u in tables["instances"] if pid == like), ("supply", True))
            instances.append([new, new, str(v.get("at") or zone), up])
    return data


def _plain(v):
    """A value read from YAML as plain data (the state is copied with marshal)."""
    if isinstance(v, str):
        return str(v)
    if isinstance(v, dict):
        return {str(k): _plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_plain(x) for x in v]
    return v


def run_scenario(game, sc, upto=None):
    """Play the scenario through and check it; `upto` (a number of steps): stop after that
    many steps, unchecked beyond them, and hand back the state there."""
    players = int(sc.get("players", game.players_min))
    # plain values only: the state is copied with marshal, which refuses str subclasses
    options = {str(k): (str(v) if isinstance(v, str) else v) for k, v in (sc.get("options") or {}).items()}
    seed = sc.get("seed", 0)
    st = new_game(game, players, str(seed) if isinstance(seed, str) else seed, options, first=str(sc.get("first_player", "p1")))
    if sc.get("dice"):
        st["dice"] = list(sc["dice"])
    if sc.get("setup"):
        ir = parse(sc["setup"], _where(sc["setup"], sc, "setup"))
        # Where an effect waits for the first decision, the setup is run where it waits and
        # the decision is worked out again from what the setup left (flow.set_table).
        try:
            waited = set_table(game, st, ir)
        except Fail as exc:
            raise ScenarioFailure(f"setup failed: {exc}")
        if not waited:
            _direct(game, st, ir)
    if sc.get("dice_after_setup"):
        st["dice"] = list(sc["dice_after_setup"])
    steps = list(sc.get("steps") or [])
    if sc.get("run"):
        ir = parse(sc["run"], _where(sc["run"], sc, "run"))
        # the waiting decision comes back once the run (and its own decisions) are done
        interrupt(game, st, ir, {"player": str(sc.get("as", st["first"]))})
    for i in range(len(steps) if upto is None else min(upto, len(steps))):
        _step(game, st, steps, i + 1)
    if upto is not None:
        return st
    if st.get("interrupted"):
        d = st["pending"] or {}
        raise ScenarioFailure(f"the run still waits for a decision after the last step ({d.get('prompt') or d.get('kind')}"
                              + (f", asked at {d['at']}" if d.get("at") else "") + "): add a step for it")
    for j, exp in enumerate(sc.get("expect") or []):
        _expect(game, st, exp, sc["expect"], j)
    for key in SEES:
        if sc.get(key):
            _sees(game, st, sc[key], key == "sees")
    return st


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
    except Suspend:
        raise ScenarioFailure(f"setup failed: {ASKS}")


def _step(game, st, steps, n):
    """Step n (from 1): a choice made, a choice that must not be offered, or a checkpoint."""
    step = steps[n - 1]
    if isinstance(step, dict) and any(k in step for k in SEES):
        for key in SEES:
            if step.get(key):
                _sees(game, st, step[key], key == "sees", f"step {n}: ")
        return
    if isinstance(step, dict) and "expect" in step:
        texts = step["expect"]
        if isinstance(texts, list):
            for j, text in enumerate(texts):
                _expect(game, st, text, texts, j, f"step {n}: ")
        else:
            _expect(game, st, texts, step, "expect", f"step {n}: ")
        return
    d = st["pending"]
    if d is None:
        raise ScenarioFailure(f"step {n} `{step}`: no decision is pending (the game is over)")
    if isinstance(step, dict) and "refused" in step:
        _refused(game, st, step, n)
        return
    seat = None
    if isinstance(step, dict):
        if len(step) != 1:
            raise ScenarioFailure(f"step {n}: write one `seat: choice` per step")
        seat, step = next(iter(step.items()))
        if seat not in st["players"]:
            raise ScenarioFailure(f"step {n}: no seat `{seat}` in a game of {len(st['players'])}: the seats are {', '.join(st['players'])}")
    step = str(step)
    opts = list(choices(game, st, seat))
    ids = [o["id"] for o in opts]
    choice = step if step in ids else _by_label(opts, step)
    if choice is None:
        who = seat or ", ".join(Decision.of(game, st).seats)
        raise ScenarioFailure(f"step {n}: `{step}` is not a choice for {who} now; the choices are: {', '.join(ids)}"
                              + (f" (asked at {d.get('at')})" if d.get("at") else ""))
    apply(game, st, choice, seat)


SEES = ("sees", "does_not_see")


def _sees(game, st, spec, wanted: bool, when=""):
    """`sees:` / `does_not_see:` {seat: [what]}: what each seat is sent (runtime/views.view),
    checked. What: a thing's id (the seat knows what it is), a zone (`p1.hand`: every thing
    in it; none of them, for `does_not_see`), or a counter on a thing, `THING.counter` or
    `ZONE#N.counter` (the Nth thing of a zone, as the seat sees it or as a fact about it), or
    a player's counter, `p2.counter`."""
    for seat, items in spec.items():
        seat = str(seat)
        if seat not in st["players"]:
            raise ScenarioFailure(f"{when}no seat `{seat}` in a game of {len(st['players'])}: the seats are {', '.join(st['players'])}")
        v = view(game, st, seat)
        for item in items if isinstance(items, list) else [items]:
            got, what = _seen(game, st, v, str(item))
            if got != wanted:
                verb = "sees" if got else "does not see"
                raise ScenarioFailure(f"{when}{seat} {verb} {what}, but the scenario says "
                                      f"{'it does' if wanted else 'it does not'}")


def _seen(game, st, v, item):
    """(whether the view carries it, the item in words)."""
    where, dot, counter = item.rpartition(".")
    if dot and (where in st["things"] or "#" in where and where.rpartition("#")[0] in st["zones"]) and counter in game.counters:
        eid = where if where in st["things"] else _nth(st, where)
        t = v["things"].get(eid)
        if eid in st["players"]:
            cs = v["players"][eid]["counters"]
        elif t is not None:
            cs = t.get("counters") or {}
        else:
            key = st["things"][eid]["zone"]
            handle = f"{HANDLE}{key}#{st['zones'][key].index(eid) + 1}"
            fact = next((f for f in v["zones"].get(key, {}).get("facts", ()) if f["id"] == handle), {})
            cs = fact.get("counters") or {}
        return counter in cs, f"counter `{counter}` of {where} ({_show(st['things'][eid]['counters'].get(counter))})"
    if item in st["zones"]:
        things = st["zones"][item]
        if not things:
            raise ScenarioFailure(f"{item} is empty: there is nothing in it to see or not")
        seen = [x for x in things if x in v["things"]]
        if seen and len(seen) < len(things):
            return None, f"{len(seen)} of the {len(things)} things in {item}"  # neither all nor none: fails both ways
        return bool(seen), f"what is in {item} ({', '.join(things)})"
    if item in st["things"] and item not in st["players"]:
        return item in v["things"], f"`{item}` (in {st['things'][item]['zone']})"
    raise ScenarioFailure(f"`{item}`: not a thing, a zone (p1.hand) or a counter of a thing (THING.counter, "
                          "p1.hand#2.counter) in this game now")


def _nth(st, where):
    key, _, n = where.rpartition("#")
    things = st["zones"][key]
    if not n.isdigit() or not 1 <= int(n) <= len(things):
        raise ScenarioFailure(f"`{where}`: {key} holds {len(things)} things now")
    return things[int(n) - 1]


def _by_label(opts, text):
    for o in opts:
        if text.lower() in (str(o["label"].get("en", "")).lower(), str(o["label"].get("ru", "")).lower()):
            return o["id"]
    return None


def _refused(game, st, step, n):
    """`refused: X`: X is not offered now (to `seat`, or to whoever the decision waits for)."""
    d, seat = st["pending"], step.get("seat")
    if seat is not None and seat not in st["players"]:
        raise ScenarioFailure(f"step {n}: no seat `{seat}` in a game of {len(st['players'])}: the seats are {', '.join(st['players'])}")
    who = [str(seat)] if seat is not None else Decision.of(game, st).seats
    wanted = step["refused"] if isinstance(step["refused"], list) else [step["refused"]]
    for w in who:
        opts = list(choices(game, st, w))
        for x in wanted:
            x = str(x)
            if any(o["id"] == x for o in opts) or _by_label(opts, x) is not None:
                raise ScenarioFailure(f"step {n}: `{x}` is offered to {w}, but the scenario says it is refused here; "
                                      f"the choices are: {', '.join(o['id'] for o in opts)}"
                                      + (f" (asked at {d.get('at')})" if d.get("at") else ""))


def _expect(game, st, text, node, key, when=""):
    """One expectation, `node[key]`, evaluated now; a failure shows what each side was."""
    if isinstance(key, int):
        where = node.item_pos[key] if hasattr(node, "item_pos") else Pos("?", 0, 0)
    else:
        where = node.val_pos.get(key, node.pos) if hasattr(node, "val_pos") else Pos("?", 0, 0)
    w = text.at if isinstance(text, PStr) else (lambda l, c: Pos(where.file, where.line, where.col + c - 1))
    if isinstance(text, bool):
        raise ScenarioFailure(f"{where}: {when}an expectation is an expression in quotes, not {text}")
    e = parse_expr(str(text), w)
    it = Interp(game, st)
    env = {"player": st["first"]}
    if st.get("scores") is not None:
        env["scores"] = st["scores"]
        env["winners"] = st["winners"]
    try:
        ok = it.ev(e, env)
    except GameFault as exc:
        raise ScenarioFailure(f"{where}: {when}`{text}` could not be evaluated: {exc.message}")
    if not ok:
        detail = ""
        if e[0] in ("op", "in", "and", "or"):
            left, right = ir.children(e)  # (an `in`'s item and collection)
            detail = f": left side is {_show(it.ev(left, env))}, right side is {_show(it.ev(right, env))}"
        elif e[0] == "not" and (inner := ir.view(e).operand)[0] == "in":
            item, collection = ir.children(inner)
            detail = f": {_show(it.ev(item, env))} is in {_show(it.ev(collection, env))}"
        raise ScenarioFailure(f"{where}: {when}expected `{text}`{detail}")


def _show(v):
    return json.dumps(v, ensure_ascii=False, default=str) if not isinstance(v, str) else f"`{v}`"
