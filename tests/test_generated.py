"""The runtime writes each game's effects as one Python module: games play as they always
did, faults name the designer's line, and `build --emit-python` shows the module."""
from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

from conftest import game_from
from rulepress.cli import main
from rulepress.runtime import pysource
from rulepress.runtime.flow import new_game
from rulepress.runtime.interpreter import GameFault, Interp
from rulepress.runtime.tables import Game
from tests.differential import GOLDEN, outcome, tables

with open(GOLDEN, encoding="utf-8") as _fh:
    PLAYED = json.load(_fh)

P = "t.yaml:1:1"


@pytest.mark.parametrize("folder", sorted(PLAYED))
def test_games_end_as_they_were_recorded_byte_for_byte(folder):
    """The first games of every content, example and test game end in the same state, log
    and history (state_hash) as recorded with the closures the generated code replaced."""
    game = Game(json.loads(tables(folder)))
    assert [list(outcome(game, i)) for i in range(len(PLAYED[folder]))] == PLAYED[folder]


def test_a_fault_inside_a_procedure_names_the_line_of_the_procedure_not_of_its_caller():
    game = game_from("tests/games/duel")
    game.procedures["half"] = {"params": ["n"], "effect": [
        ["let", "proc.yaml:2:3", "m", ["num", "proc.yaml:2:11", 2]],
        ["return", "proc.yaml:3:3", ["op", "proc.yaml:3:10", "/", ["name", P, "n"], ["list", P, [["str", P, "x"]]]]]]}
    it = Interp(game, new_game(game, 2, 1))
    assert it.ev(["call", "caller.yaml:9:9", "half", [["num", P, 4]]], {}) == 4  # a list counts its items
    game.procedures["worse"] = {"params": [], "effect": [
        ["return", "proc.yaml:7:3", ["op", "proc.yaml:7:10", "<", ["num", P, 1], ["str", P, "two"]]]]}
    with pytest.raises(GameFault) as caught:
        it.ev(["call", "caller.yaml:9:9", "worse", []], {})
    assert str(caught.value) == "proc.yaml:7:10: cannot evaluate `op`: `two` is not a number"


def test_a_fault_in_a_statement_names_its_expression():
    game = game_from("tests/games/duel")
    block = [["let", "a.yaml:1:1", "x", ["num", P, 1]],
             ["if", "a.yaml:2:1", [[["op", "a.yaml:2:4", ">=", ["str", P, "a"], ["num", P, 1]], []]], None]]
    with pytest.raises(GameFault, match=r"^a\.yaml:2:4: cannot evaluate `op`: `a` is not a number$"):
        Interp(game, new_game(game, 2, 1)).call_block(block, {})


def test_nested_loops_stop_at_the_step_budget_naming_the_inner_loop():
    game = game_from("tests/games/duel")
    inner = ["repeat", "b.yaml:2:3", ["num", P, 1000], [["let", "b.yaml:3:5", "x", ["num", P, 1]]]]
    block = [["repeat", "b.yaml:1:1", ["num", P, 1000], [inner]]]
    with pytest.raises(GameFault, match=r"^b\.yaml:2:3: this effect ran more than 200000 steps"):
        Interp(game, new_game(game, 2, 1)).call_block(block, {})


def test_emit_python_writes_the_module_beside_game_json(tmp_path):
    out = tmp_path / "out"
    r = CliRunner().invoke(main, ["build", "tests/games/duel", "-o", str(out), "--emit-python"])
    assert r.exit_code == 0, r.output
    (folder,) = [p for p in out.iterdir() if p.is_dir()]
    text = (folder / "game.py").read_text(encoding="utf-8")
    assert text == pysource.source(Game.load(str(folder / "game.json")))
    compile(text, "game.py", "exec")  # a module a reader can run through Python's own tools
    assert "def _b" in text and "# block at " in text
    plain = tmp_path / "plain"
    assert CliRunner().invoke(main, ["build", "tests/games/duel", "-o", str(plain)]).exit_code == 0
    assert not any(p.name == "game.py" for p in plain.rglob("*"))


def test_the_module_is_the_same_for_the_same_tables():
    a = pysource.source(Game.load("build/night-city/game.json"))
    b = pysource.source(Game.load("build/night-city/game.json"))
    assert a == b and len(a.splitlines()) > 500


def test_a_game_that_has_played_pickles_without_its_code_and_plays_the_same_elsewhere():
    import pickle
    game = game_from("tests/games/duel")
    first = outcome(game, 0)
    copy = pickle.loads(pickle.dumps(game))
    assert game.cache.code is not None and copy.cache.code is None
    assert outcome(copy, 0) == first
