"""Hostile IR in game tables: it becomes Python only as quoted literals and mangled names,
and IR that nests past what Python compiles still runs."""
from __future__ import annotations

import ast
import re

from conftest import game_from
from rulepress.runtime import pysource
from rulepress.runtime.flow import new_game
from rulepress.runtime.interpreter import Interp

P = "t.yaml:1:1"
EVIL = "x'); __import__('os').system('touch /tmp/rulepress-pwned') #\n\"\"\"\\"
# The names generated code may use: its own (made by one allocator), the fixed few it calls.
MADE = re.compile(r"_[a-z]+[0-9]+(_[0-9A-Za-z_]{1,40})?")
GIVEN = pysource._FIXED


def _game():
    game = game_from("tests/games/duel")
    game.procedures[EVIL] = {"params": [EVIL, "b"], "effect": [
        ["let", P, EVIL + "2", ["op", P, "+", ["name", P, EVIL], ["name", P, "b"]]],
        ["return", P, ["list", P, [["name", P, EVIL + "2"], ["str", P, EVIL],
                                   ["comp", P, ["name", P, EVIL], EVIL, ["list", P, [["num", P, 7]]], None]]]]]}
    return game


def test_content_names_and_texts_run_as_values_never_as_code():
    game = _game()
    it = Interp(game, new_game(game, 2, 1))
    assert it.ev(["call", P, EVIL, [["num", P, 1], ["num", P, 2]]], {}) == [3, EVIL, [7]]
    tree = ast.parse(pysource.source(game))
    for node in ast.walk(tree):
        assert not isinstance(node, (ast.Import, ast.ImportFrom, ast.Lambda)) or isinstance(node, ast.Lambda)
        if isinstance(node, ast.Name):
            assert node.id in GIVEN or MADE.fullmatch(node.id), node.id
        if isinstance(node, ast.Attribute):  # only the interpreter's own primitives
            assert isinstance(node.value, ast.Name) and node.value.id == "it", ast.dump(node)
    assert EVIL in {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)}
    assert "__import__" not in {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}


def test_a_value_of_no_literal_type_is_handed_in_not_written():
    game = game_from("tests/games/duel")
    e = ["list", P, [["num", P, {"a": [1, 2]}], ["str", P, ["__import__('os')"]]]]
    assert Interp(game, new_game(game, 2, 1)).ev(e, {}) == [{"a": [1, 2]}, ["__import__('os')"]]


def test_ir_nested_past_what_python_compiles_still_runs():
    game = game_from("tests/games/duel")
    it = Interp(game, new_game(game, 2, 1))
    e = ["num", P, 1]
    for _ in range(300):  # 600 brackets deep, as written inline
        e = ["op", P, "+", e, ["num", P, 1]]
    assert it.ev(e, {}) == 301
    body = [["let", P, "n", ["op", P, "+", ["name", P, "n"], ["num", P, 1]]]]
    for i in range(40):  # 80 loops and `try`s: Python allows 20 in a function
        body = [["for", P, f"i{i}", ["list", P, [["num", P, 1]]], None, body]]
    assert it.call_block([["let", P, "n", ["num", P, 0]]] + body + [["return", P, ["name", P, "n"]]], {}) == 1
    c = ["name", P, "x"]
    for i in range(40):  # loops of expressions within loops, each naming the outermost's thing
        c = ["comp", P, c, f"y{i}", ["list", P, [["num", P, 1]]], ["op", P, "==", ["name", P, "x"], ["num", P, 5]]]
    c = ["comp", P, c, "x", ["list", P, [["num", P, 5]]], None]
    v = it.ev(c, {})
    for _ in range(41):
        assert len(v) == 1
        v = v[0]
    assert v == 5


def test_a_broken_node_fails_where_it_runs():
    game = game_from("tests/games/duel")
    it = Interp(game, new_game(game, 2, 1))
    import pytest
    from rulepress.runtime.interpreter import GameFault
    with pytest.raises(GameFault, match="^t.yaml:1:1: "):
        it.ev(["attr", P, ["num", P, 1], ["not", "a", "name"]], {})
    with pytest.raises(GameFault, match="^t.yaml:1:1: "):
        it.ev(["op", P, ["not an operator"], ["num", P, 1], ["num", P, 1]], {})


# ---- names from outside: files and folders, read into positions --------------------------

import builtins  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import shutil  # noqa: E402

import pytest  # noqa: E402
from click.testing import CliRunner  # noqa: E402

from rulepress.cli import main  # noqa: E402
from rulepress.compiler.pipeline import compile_game  # noqa: E402
from rulepress.runtime.interpreter import GameFault  # noqa: E402
from rulepress.runtime.tables import Game  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RACE = os.path.join(ROOT, "docs", "tutorial", "race")
# A text that ends a quoted Python literal and runs what follows, wherever it were written raw
PAYLOAD = "');__import__('builtins').__dict__.__setitem__('rulepress_pwned', 1);('"
SNEAK = ("actions:\n  - id: sneak\n    name: {en: Sneak, ru: Sneak}\n    effect: |\n"
         f"      gain sum((1 if c.id != \"{PAYLOAD}\" else 2) for c in every card) score\n")


def _race_with(tmp_path, name, text=SNEAK, folder="race"):
    game = tmp_path / folder
    shutil.copytree(RACE, game, ignore=shutil.ignore_patterns("scenarios"))
    path = game / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return game


def _simulated(game):
    r = CliRunner().invoke(main, ["simulate", str(game), "-n", "3"])
    assert "rulepress_pwned" not in vars(builtins), "content ran as code"
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    return r.exit_code, r.output


@pytest.mark.parametrize("name", ["a{b}.yaml", "a{loop}.yaml", "a{}{0}.yaml", "a{b:>999999999}.yaml", "sub{b}/x.yaml",
                                  "a'\"\\{b}.yaml", "s{b!r}.yaml"])
def test_a_file_name_with_braces_is_a_position_never_code(tmp_path, name):
    code, out = _simulated(_race_with(tmp_path, name))
    tame = name[0] + "tame.yaml"  # (read in the same order: the actions are in the same order)
    assert (code, out) == _simulated(_race_with(tmp_path, tame, folder="tame"))
    assert code == 0 and "sneak" in out


def test_a_file_name_cannot_make_a_giant_module(tmp_path):
    def module(name, folder):
        text, _gid, _rep = compile_game(str(_race_with(tmp_path, name, folder=folder)))
        return pysource.source(Game(json.loads(text)))
    assert len(module("a{b:>999999999}.yaml", "huge")) < 2 * len(module("atame.yaml", "tame"))


# ---- names the writer makes ----------------------------------------------------------------

def test_four_nested_loops_around_a_deep_expression_run():
    game = game_from("tests/games/duel")
    it = Interp(game, new_game(game, 2, 1))
    deep = ["name", P, "i3"]
    for _ in range(30):  # deep enough to be a function of its own, inside all four loops
        deep = ["op", P, "+", deep, ["num", P, 1]]
    body = [["let", P, "n", ["op", P, "+", ["name", P, "n"], deep]]]
    for i in reversed(range(4)):
        body = [["for", P, f"i{i}", ["list", P, [["num", P, 1], ["num", P, 2]]], None, body]]
    got = it.call_block([["let", P, "n", ["num", P, 0]]] + body + [["return", P, ["name", P, "n"]]], {})
    assert got == 16 * 30 + 8 * (1 + 2)  # 16 passes, i3 is 1 in half of them and 2 in the rest


def test_made_names_are_unique_and_never_a_content_name():
    made = pysource._Names()
    names = [made(kind, hint) for kind in ("x", "v", "p") for hint in (None, "x1", "x 1", "it", "__class__", "class")]
    assert len(set(names)) == len(names)
    assert all(pysource._MADE.fullmatch(n) and n.startswith("_") and n not in pysource._FIXED for n in names)
    with pytest.raises(ValueError):
        made("X{b}")


def test_a_block_of_one_statement_that_cannot_be_written_faults_at_its_position():
    game = game_from("tests/games/duel")
    it = Interp(game, new_game(game, 2, 1))
    broken = [["let", "t.yaml:7:3", "x", ["attr", P, ["num", P, 1]]]]  # an `attr` a field short
    with pytest.raises(GameFault, match=r"^t\.yaml:7:3: cannot run this"):
        it.run(broken, {})
    game.procedures["broken"] = {"params": [], "effect": broken}  # a procedure's: at its first statement
    with pytest.raises(GameFault, match=r"^t\.yaml:7:3: cannot run this"):
        it.ev(["call", P, "broken", []], {})


# ---- budgets -------------------------------------------------------------------------------

def test_loops_within_loops_of_an_expression_end_with_a_fault_not_a_hang():
    game = game_from("tests/games/duel")
    it = Interp(game, new_game(game, 2, 1))
    thousand = ["list", P, [["num", P, i] for i in range(1000)]]
    e = ["num", P, 1]
    for v in ("a", "b", "c"):  # 10^9 values, each a step
        e = ["gen", P, "sum", e, v, thousand, None]
    with pytest.raises(GameFault, match="walked more than 200000 things"):
        it.ev(e, {})


DEEP = ("actions:\n  - id: sneak\n    name: {en: Sneak, ru: Sneak}\n    effect: |\n"
        "      gain sum(sum(sum(1 for c in every card) for d in every card) for e in every card) score\n")


@pytest.mark.parametrize("command, says", [
    (["simulate", "-n", "2"], True), (["simulate", "-n", "1", "--agent", "mcts:5"], True),
    # depth 1: only the playouts that try the action meet the fault; they say it too
    (["simulate", "-n", "1", "--agent", "mcts:5:depth1"], True),
    (["simulate", "-n", "1", "--agent", "greedy"], True),  # (its trial of each option meets it too)
    (["secrets", "-n", "1"], False),  # (a game its fault ended leaks nothing: only that is said)
    (["coverage", "-n", "1"], True)])
def test_an_expression_that_would_take_hours_ends_each_command_quickly(tmp_path, command, says):
    game = _race_with(tmp_path, "deep.yaml", DEEP)
    manifest = game / "game.yaml"
    manifest.write_text(manifest.read_text(encoding="utf-8").replace("count: 6", "count: 200"), encoding="utf-8")
    import subprocess
    import sys
    import time
    start = time.monotonic()
    r = subprocess.run([sys.executable, "-m", "rulepress", command[0], str(game), *command[1:]],
                       capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert time.monotonic() - start < 60
    assert "Traceback" not in r.stderr and "internal error" not in r.stdout + r.stderr
    assert r.returncode in (0, 1)
    if says:
        assert "deep.yaml:5:" in r.stdout + r.stderr and "walked more than" in r.stdout + r.stderr


def test_a_playout_has_a_smaller_budget_than_the_game():
    from rulepress.runtime.faults import PLAYOUT_STEPS, STEP_BUDGET
    game = game_from("tests/games/duel")
    forever = [["while", P, ["name", P, "true_"], [["do", P, ["num", P, 1]]]]]
    spent = {}
    for world in (False, True):
        st = new_game(game, 2, 1)
        if world:
            st["playout"] = True
        it = Interp(game, st)
        with pytest.raises(GameFault):
            it.run(forever, {"true_": True})
        spent[world] = it.steps - (STEP_BUDGET - PLAYOUT_STEPS if world else 0)
    assert spent[True] == PLAYOUT_STEPS + 1 < spent[False] == STEP_BUDGET + 1
