"""Arithmetic at run time stays within the game's numbers (runtime/numbers.py): a result
beyond ±10^15, or not finite, stops the game with a fault at the expression that made it."""
from __future__ import annotations

import os
import shutil
import time

import pytest

from rulepress.runtime.flow import apply, new_game
from rulepress.runtime.interpreter import GameFault
from rulepress.runtime.numbers import LIMIT
from tests.conftest import game_from

DUEL = os.path.join(os.path.dirname(__file__), "games", "duel")


def arm_does(tmp_path, lines: str):
    """The duel, its `arm` action doing `lines` after its draw; the state just after `arm`."""
    folder = tmp_path / "duel"
    shutil.copytree(DUEL, folder)
    text = (folder / "game.yaml").read_text()
    extra = "".join(f"      {x}\n" for x in lines.strip().splitlines())
    (folder / "game.yaml").write_text(text.replace("      draw 1 from blades\n", "      draw 1 from blades\n" + extra, 1))
    game = game_from(str(folder))
    st = new_game(game, 2, 1, first="p1")
    apply(game, st, "arm")
    return st


@pytest.mark.parametrize("lines,says", [
    ("let x = 2\nrepeat 40 times:\n  set x to x * x", r"game.yaml:88:18: the result 18446744073709551616 is beyond ±10\^15"),
    ("let x = 1000000\nrepeat 10 times:\n  set x to x * 1000 + 1", r"game.yaml:88:18: the result .* is beyond"),
    ("let x = -999999999\nset x to x * 99999999", r"game.yaml:87:16: the result -\d+ is beyond"),
    ("let x = 999999999\nset x to 0 - x * 999999 - x * 999999", r"game.yaml:87:16: the result -\d+ is beyond"),
    ("let x = 999999999 / 7\nrepeat 12 times:\n  set x to x / 0.001", r"game.yaml:88:\d+: the result .* is beyond"),
    ("let x = 999999999\nrepeat 40 times:\n  gain x vp\n  set x to x * 2", r"is beyond ±10\^15"),
    ("let l = [1, 2]\nrepeat 40 times:\n  set l to l + l", r"game.yaml:88:18: the joined list would hold more than 1000000 items"),
])
def test_a_result_beyond_the_bound_stops_the_game_where_it_is_made(tmp_path, lines, says):
    t = time.perf_counter()
    with pytest.raises(GameFault, match=says):
        arm_does(tmp_path, lines)
    assert time.perf_counter() - t < 10


def test_the_bound_itself_is_a_number_a_game_holds(tmp_path):
    st = arm_does(tmp_path, "let x = 999999999999\nset vp to x * 1000 + 1000 - x * 1000")  # 10^15 on the way
    assert st["things"]["p1"]["counters"]["vp"] == 1000 and LIMIT == 10**15
