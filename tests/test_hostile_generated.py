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
