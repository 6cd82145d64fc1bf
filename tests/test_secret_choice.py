"""Smaller things a newcomer met writing a drafting game and a game of hands you cannot see:
a secret choice's prompt, the words of a parse error, a procedure called only from an effect
that does not parse, `swap` with none, terms in a game of one language, lists joined with
`+`, and a scenario's setup that moves what the first decision offers."""
from __future__ import annotations

import os
import shutil

import pytest
from click.testing import CliRunner

from rulepress.cli import main
from rulepress.compiler.dsl import DslError, parse
from rulepress.compiler.validation import validate_game
from rulepress.runtime.flow import new_game
from rulepress.runtime.views import view
from tests.conftest import ROOT, game_from

BANQUET = os.path.join(ROOT, "docs", "examples", "banquet")
LANTERNS = os.path.join(ROOT, "docs", "examples", "lanterns")


def _copy(tmp_path, folder, edit=None, scenarios=False):
    out = tmp_path / os.path.basename(folder)
    shutil.copytree(folder, out, ignore=None if scenarios else shutil.ignore_patterns("scenarios"))
    if edit:
        path = out / "game.yaml"
        text = path.read_text()
        for old, new in edit:
            assert old in text
            text = text.replace(old, new)
        path.write_text(text)
    return out


def test_a_secret_choice_takes_a_prompt_and_each_chooser_is_shown_it():
    game = game_from("docs/examples/banquet")
    st = new_game(game, 2, 1)
    assert st["pending"]["kind"] == "secret" and st["pending"]["prompt"]["en"] == "Which dish do you keep?"
    assert view(game, st, "p1")["decision"]["prompt"]["en"] == "Which dish do you keep?"


def test_a_parse_error_names_or_none_in_words_not_the_grammar_token():
    with pytest.raises(DslError) as got:
        parse("each p in players secretly chooses c from p.hand 3:\n  log \"x\"", lambda l, c: ("t", l, c))
    assert "ornone" not in got.value.message
    with pytest.raises(DslError) as got:
        parse("each p in players secretly chooses c from p.hand where c.v > 1 or none 3:\n  log \"x\"", lambda l, c: ("t", l, c))
    assert "ornone" not in got.value.message and "a quoted text" in got.value.message


def test_a_procedure_called_from_an_effect_that_does_not_parse_is_not_said_never_to_be_called(tmp_path):
    folder = _copy(tmp_path, BANQUET, [('secretly chooses c from p.hand "Which dish do you keep?":',
                                        'secretly chooses c from p.hand where rolls_of(p) >= 0 7:'),
                                       ("      return sum(c.rolls for c in p.table)", "      return 0")])
    texts = [d.text() for d in validate_game(str(folder)).sorted()]
    assert any("D001" in t for t in texts), texts
    assert not any("W001" in t for t in texts), texts


def test_swap_with_none_fails_with_its_position_and_the_run_goes_on(tmp_path):
    folder = _copy(tmp_path, LANTERNS)
    (folder / "scenarios").mkdir()
    (folder / "scenarios" / "a.yaml").write_text(
        "scenario:\n  name: swap with none\n  players: 2\n  run: |\n    swap red_3 with none\n")
    (folder / "scenarios" / "b.yaml").write_text(
        "scenario:\n  name: fine\n  players: 2\n  expect:\n    - clues == 3\n")
    got = CliRunner().invoke(main, ["test", str(folder)])
    assert "a.yaml:5:21: `swap` exchanges the places of two things in play; this is none" in got.output, got.output
    assert "internal error" not in got.output and "1 passed, 1 failed" in got.output


def test_terms_are_plain_text_in_a_game_of_one_language(tmp_path):
    folder = _copy(tmp_path, LANTERNS, [("  public_marks: [clued]\n", "  public_marks: [clued]\n  terms:\n    clued: clued by a clue\n")])
    assert not validate_game(str(folder)).errors


def test_one_choice_among_two_lists_joined_with_plus(tmp_path):
    folder = _copy(tmp_path, LANTERNS, [('choose k from ["red", "blue", 1, 2, 3]', 'choose k from ["red", "blue"] + [1, 2, 3]')],
                   scenarios=True)
    assert not validate_game(str(folder)).errors
    got = CliRunner().invoke(main, ["test", str(folder), "-k", "clue"])
    assert got.exit_code == 0, got.output


def test_the_first_decision_offers_what_the_scenario_setup_left(tmp_path):
    """The picks of the first round were worked out before the setup moved the hands: a
    card the setup took away must not be offered, one it dealt must be. (Seed 0 deals
    roll_3#1 to p1, and bun#1 to nobody.)"""
    folder = _copy(tmp_path, BANQUET)
    (folder / "scenarios").mkdir()
    (folder / "scenarios" / "s.yaml").write_text("""\
scenario:
  name: the first picks follow the setup
  players: 2
  setup: |
    move roll_3#1 to removed
    move bun#1 to p1.hand
  steps:
    - {refused: roll_3#1, seat: p1}
    - p1: bun#1
""")
    got = CliRunner().invoke(main, ["test", str(folder)])
    assert got.exit_code == 0, got.output


def test_w019_does_not_send_a_procedure_to_a_name_it_cannot_have():
    from rulepress.compiler.pipeline import unnamed_finding
    _pos, code, message = unnamed_finding(BANQUET, {"pass_hands"})
    assert code == "W019" and "a procedure is named by `game: terms:` alone" in message


KEEP = """\
game:
  id: keep
  name: {en: Keep}
  version: 1
  players: {min: 1, max: 2}
zones:
  - {id: hand, name: {en: Hand}, of: player, visibility: owner}
  - {id: kept, name: {en: Kept}, of: player}
decks:
  - {id: deck, name: {en: Deck}}
cards:
  - {id: apple, name: {en: Apple}, deck: deck}
  - {id: pear, name: {en: Pear}, deck: deck}
  - {id: plum, name: {en: Plum}}
triggers:
  - id: deal
    on: game_start
    text: {en: "Each player draws a card."}
    effect: |
      shuffle deck
      for each p in players:
        draw 1 from deck to p.hand
flow:
  rounds: 1
  phases:
    - id: keep
      mode: each
      effect: |
        draw 1 from deck to player.hand
        choose c from player.hand "Keep which card?":
          move c to player.kept
scoring:
  score: count(player.kept)
"""


def test_a_decision_asked_after_its_effect_drew_offers_what_the_scenario_setup_left(tmp_path):
    """The effect drew a card, then asked which to keep; the setup takes the apple away and
    hands p1 the plum: the apple is refused and the plum kept (the options were worked out
    before the setup, and an effect that had done something was not run again)."""
    folder = tmp_path / "keep"
    (folder / "scenarios").mkdir(parents=True)
    (folder / "game.yaml").write_text(KEEP)
    (folder / "scenarios" / "s.yaml").write_text("""\
scenario:
  name: the decision after a draw follows the setup
  players: 1
  setup: |
    move apple to removed
    move plum to p1.hand
  steps:
    - {refused: apple, seat: p1}
    - p1: plum
  expect:
    - plum in p1.kept
""")
    got = CliRunner().invoke(main, ["test", str(folder)])
    assert got.exit_code == 0, got.output


@pytest.mark.parametrize("game", ["keep", "lanterns"])
def test_a_setup_that_asks_a_decision_fails_saying_so(tmp_path, game):
    """Where an effect waits (keep) and where a turn does (lanterns): the setup's own
    decision is refused in words, not as an internal error."""
    if game == "keep":
        folder = tmp_path / "keep"
        folder.mkdir()
        (folder / "game.yaml").write_text(KEEP)
    else:
        folder = _copy(tmp_path, LANTERNS)
    (folder / "scenarios").mkdir()
    (folder / "scenarios" / "s.yaml").write_text("""\
scenario:
  name: a setup that asks
  setup: |
    choose k from [1, 2] "Which?":
      log "picked"
  steps: []
""")
    got = CliRunner().invoke(main, ["test", str(folder)])
    assert got.exit_code == 1
    assert "setup failed: it asks a decision" in got.output and "internal error" not in got.output, got.output
