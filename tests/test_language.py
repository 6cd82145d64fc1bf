"""What a new designer reaches for (issue #24): each feature as the designer writes it."""
import json
import os
import shutil

import pytest

from conftest import ROOT, game_from
from rulepress.compiler.diagnostics import Pos
from rulepress.compiler.dsl import parse
from rulepress.runtime.flow import apply, interrupt, new_game


def _duel_variant(tmp_path, old, new):
    dst = tmp_path / "v"
    shutil.copytree(os.path.join(ROOT, "tests", "games", "duel"), dst)
    text = (dst / "game.yaml").read_text()
    assert old in text
    (dst / "game.yaml").write_text(text.replace(old, new))
    return game_from(str(dst))


def _ir(text):
    return parse(text, lambda l, c: Pos("run", l, c))


def test_a_mark_until_your_next_turn_lasts_through_the_others_turns_and_goes_as_yours_starts(duel):
    st = new_game(duel, 2, 1, first="p1")
    interrupt(duel, st, _ir("mark player as guarded until your next turn"), {"player": "p1"})
    apply(duel, st, "arm")  # p1's turn ends: the mark stays
    assert "guarded" in st["things"]["p1"]["marks"] and st["active"] == "p2"
    apply(duel, st, "arm")  # p2's turn ends, p1's next starts: it goes
    assert st["active"] == "p1" and "guarded" not in st["things"]["p1"]["marks"]
    assert "timed" not in st["flow"]


def test_the_rulebook_says_until_your_next_turn(duel):
    from rulepress.compiler.render import Renderer
    ir = _ir("mark player as guarded until your next turn")
    assert "until the start of your next turn" in Renderer(duel.data, "en").lines(ir)[0][1]
    assert "до начала вашего следующего хода" in Renderer(duel.data, "ru").lines(ir)[0][1]
