"""Who knows what, as the designer states it: zones seen by everyone, the owner, everyone
but the owner, named seats or no one; `show`/`hide` per thing; public facts about hidden
things; `sees:`/`does_not_see:` in scenarios; `rulepress view`."""
from __future__ import annotations

import json
import os
import shutil

import pytest
from click.testing import CliRunner

from rulepress.cli import main
from rulepress.compiler.validation import validate_game
from rulepress.runtime.flow import new_game
from rulepress.runtime.interpreter import Interp
from rulepress.runtime.visibility import can_see, sample
from rulepress.runtime.views import view
from rulepress.compiler.dsl import parse
from tests.conftest import ROOT, game_from

LANTERNS = os.path.join(ROOT, "docs", "examples", "lanterns")


@pytest.fixture(scope="module")
def lanterns():
    return game_from("docs/examples/lanterns")


def run(game, st, text):
    Interp(game, st).call_block(parse(text, lambda l, c: ("t", l, c)), {"player": "p1"})


def test_a_hand_of_others_is_seen_by_every_player_but_its_holder(lanterns):
    st = new_game(lanterns, 3, 1)
    for card in st["zones"]["p1.hand"]:
        assert not can_see(lanterns, st, card, "p1")
        assert can_see(lanterns, st, card, "p2") and can_see(lanterns, st, card, "p3")
        assert not can_see(lanterns, st, card, None)  # a spectator is no player: public things alone


def test_hide_keeps_a_thing_from_a_seat_until_it_moves_and_show_undoes_it(lanterns):
    st = new_game(lanterns, 3, 1)
    card = st["zones"]["p1.hand"][0]
    run(lanterns, st, f'hide "{card}" from p2')
    assert not can_see(lanterns, st, card, "p2") and can_see(lanterns, st, card, "p3")
    assert card not in view(lanterns, st, "p2")["things"]
    run(lanterns, st, f'show "{card}" to p2')
    assert can_see(lanterns, st, card, "p2")
    run(lanterns, st, f'hide "{card}" from p2\nmove "{card}" to spent')
    assert can_see(lanterns, st, card, "p2")  # a move forgets what was hidden from whom


def test_public_facts_of_a_hidden_card_reach_its_holder_by_place_not_by_name(lanterns):
    st = new_game(lanterns, 2, 1)
    card = st["zones"]["p2.hand"][1]
    run(lanterns, st, f'set "{card}".told_value to 2\nmark "{card}" as clued')
    v = view(lanterns, st, "p2")
    assert v["zones"]["p2.hand"]["facts"] == [{"id": "?p2.hand#2", "label": {"en": "card 2 of Player 2's Hand",
                                                                               "ru": "карта 2: Hand игрока 2"},
                                                "counters": {"told_value": 2}, "marks": ["clued"]}]
    assert f'"{card}"' not in json.dumps(v)
    assert view(lanterns, st, "p1")["things"][card]["counters"]["told_value"] == 2


def test_a_searched_world_agrees_with_what_the_clues_told(lanterns):
    """p2 was told its first card is a 3 and its second is not a 1 nor red: every world dealt
    for p2 has a 3 there and a blue 2 or 3 in the second place; a world dealt blind does not."""
    st = new_game(lanterns, 2, 1)
    first, second = st["zones"]["p2.hand"]
    run(lanterns, st, f'move "{first}" to lanterns\nmove "{second}" to lanterns\nmove red_3 to p2.hand\nmove blue_2#1 to p2.hand\n'
                      f'set red_3.told_value to 3\nset "blue_2#1".not_values to [1]\nset "blue_2#1".not_colours to ["red"]')
    blind = set()
    for seed in range(30):
        world = sample(lanterns, st, "p2", {"rng": seed})
        a, b = world["zones"]["p2.hand"]
        assert world["things"][a]["counters"]["told_value"] == 3 and lanterns.attrs_of[a]["value"] == 3
        assert lanterns.attrs_of[b]["value"] != 1 and lanterns.attrs_of[b]["colour"] == "blue"
        world = sample(lanterns, st, "p2", {"rng": seed}, told=False)
        blind.add(lanterns.attrs_of[world["zones"]["p2.hand"][0]]["value"])
    assert blind == {1, 2, 3}


def test_a_searched_bot_plays_the_card_a_clue_told_it_is_safe_and_a_blind_one_guesses(lanterns, monkeypatch):
    """p1 holds a card told to be a 1 (safe: no lantern is lit) and one told not to be a 1.
    The bot that deals its worlds by what it was told lights the 1 every time; the same bot
    dealing blind does it about half the time. (20 seeds: 20 of 20 against 10 of 20.)"""
    from rulepress.runtime import visibility
    from rulepress.runtime.agents import ask
    from rulepress.runtime.flow import apply, choices
    from rulepress.runtime.search import MctsAgent
    real = visibility.sample

    def lit(told, seeds):
        monkeypatch.setattr(visibility, "sample", lambda g, st, seat, r, lean=False: real(g, st, seat, r, lean, told))
        got = 0
        for s in seeds:
            st = new_game(lanterns, 2, s)
            run(lanterns, st, "for each p in players:\n  for each c in p.hand:\n    move c to lanterns\n"
                              "move blue_3 to p1.hand\nmove red_1#1 to p1.hand\nmove blue_2#1 to p2.hand\nmove red_2#1 to p2.hand\n"
                              'set "red_1#1".told_value to 1\nset blue_3.not_values to [1]')
            apply(lanterns, st, "light", "p1")
            got += ask(lanterns, st, MctsAgent(str(s), "20"), "p1", choices(lanterns, st, "p1")) == "red_1#1"
        return got
    seeds = range(12)
    assert lit(True, seeds) == 12
    assert lit(False, seeds) <= 9


def _game(tmp_path, zones, counters="", extra=""):
    folder = tmp_path / "g"
    folder.mkdir()
    (folder / "game.yaml").write_text(
        "game:\n  id: g\n  name: {en: G, ru: G}\n  version: 1\n  players: {min: 2, max: 3}\n" + extra
        + "zones:\n" + zones + counters
        + "flow:\n  end: round > 1\n  phases:\n    - id: main\n      mode: once\n      effect: log \"hi\"\nscoring:\n  score: 0\n")
    return folder


@pytest.mark.parametrize("zones, counters, message", [
    ("  - {id: table, visibility: others}\n", "", "`visibility: others` shows the zone to every player but its own"),
    ("  - {id: table, visibility: owner}\n", "", "a zone `of: game` belongs to no player"),
    ("  - {id: table, visibility: [p1, p4]}\n", "", "no seat `p4`: the game has at most 3 players"),
    ("  - {id: table, visibility: [p1, seat2]}\n", "", "S004 zones.0.visibility"),
    ("  - {id: table}\n", "counters:\n  - {id: heat, of: card, hidden: true, public: true}\n", "both `hidden`"),
    ("  - {id: table}\n", "counters:\n  - {id: heat, of: player, public: true}\n", "leave `public` out"),
    ("  - {id: table}\n", "counters:\n  - {id: told, of: card, type: ref, tells: colour}\n", "counter `told` needs `public: true`"),
])
def test_visibility_that_names_nobody_is_an_error(tmp_path, zones, counters, message):
    report = validate_game(str(_game(tmp_path, zones, counters)))
    assert any(message in d.text() for d in report.errors), [d.text() for d in report.sorted()]


def test_a_zone_named_seats_see(tmp_path):
    folder = _game(tmp_path, "  - {id: table, visibility: [p2]}\ncards:\n  - {id: coin, name: {en: Coin, ru: Монета}}\n")
    assert not validate_game(str(folder)).errors
    game = game_from(str(folder))
    st = new_game(game, 3, 0)
    run(game, st, "move coin to table face down")
    assert [can_see(game, st, "coin", p) for p in ("p1", "p2", "p3", None)] == [False, True, False, False]


SCENARIO = """\
scenario:
  name: clue facts
  players: 2
  setup: |
    for each p in players:
      for each c in p.hand:
        move c to spent
    move red_1#1 to p2.hand
  steps:
    - clue
    - red
"""


def _scenario(tmp_path, body):
    folder = tmp_path / "lanterns"
    shutil.copytree(LANTERNS, folder, ignore=shutil.ignore_patterns("scenarios"))
    (folder / "scenarios").mkdir()
    (folder / "scenarios" / "s.yaml").write_text(SCENARIO + "".join("  " + line + "\n" for line in body.splitlines()))
    return folder


def test_a_scenario_that_says_a_holder_sees_its_own_card_fails_saying_so(tmp_path):
    folder = _scenario(tmp_path, "sees:\n  p2: [red_1#1]\n")
    got = CliRunner().invoke(main, ["test", str(folder)])
    assert got.exit_code == 1
    assert "p2 does not see `red_1#1` (in p2.hand), but the scenario says it does" in got.output


def test_a_scenario_sees_a_public_fact_by_the_place_of_the_card(tmp_path):
    folder = _scenario(tmp_path, "sees:\n  p2: [p2.hand#1.told_colour]\n  p1: [p2.hand]\ndoes_not_see:\n  p2: [p2.hand]\n")
    got = CliRunner().invoke(main, ["test", str(folder)])
    assert got.exit_code == 0, got.output


@pytest.mark.parametrize("body, message", [
    ("sees:\n  p9: [p2.hand]\n", "S012 no seat `p9` in this game"),
    ("sees:\n  p1: [p2.hnd]\n", "S012 `p2.hnd`: not a thing, a zone"),
    ("does_not_see:\n  p1: [red_9]\n", "S012 `red_9`"),
])
def test_what_a_scenario_says_a_seat_sees_is_checked_as_content(tmp_path, body, message):
    folder = _scenario(tmp_path, body)
    report = validate_game(str(folder))
    assert any(message in d.text() for d in report.errors), [d.text() for d in report.sorted()]


def test_rulepress_view_prints_what_a_seat_is_sent_at_a_scenario_step(tmp_path):
    path = os.path.join(LANTERNS, "scenarios", "clue_facts.yaml")
    got = CliRunner().invoke(main, ["view", LANTERNS, "--seat", "p2", "--scenario", path, "--step", "2"])
    assert got.exit_code == 0, got.output
    v = json.loads(got.output)
    assert v["seat"] == "p2" and v["zones"]["p2.hand"]["things"] == []
    assert v["zones"]["p2.hand"]["facts"][0]["counters"] == {"told_colour": "red"}
    got = CliRunner().invoke(main, ["view", LANTERNS, "--seat", "p7", "--scenario", path])
    assert got.exit_code == 2 and "no seat `p7`" in got.output
    got = CliRunner().invoke(main, ["view", LANTERNS, "--seat", "p1", "--scenario", path, "--step", "99"])
    assert got.exit_code == 2 and "the scenario has" in got.output


def test_secrets_catches_a_game_that_shows_players_their_own_hands_against_its_declaration(tmp_path):
    folder = tmp_path / "lanterns"
    shutil.copytree(LANTERNS, folder, ignore=shutil.ignore_patterns("scenarios"))
    path = folder / "game.yaml"
    path.write_text(path.read_text().replace(
        "        draw 2 from lanterns to p.hand\n",
        "        draw 2 from lanterns to p.hand\n      for each p in players:\n        show p.hand to p\n"))
    got = CliRunner().invoke(main, ["secrets", str(folder), "-n", "1", "--players", "2"])
    assert got.exit_code == 1
    assert "(in p1.hand, `visibility: others`)" in got.output and "reaches p1" in got.output


def test_secrets_passes_the_games_of_hands_you_cannot_see_and_of_drafting():
    for folder in (LANTERNS, os.path.join(ROOT, "docs", "examples", "banquet")):
        got = CliRunner().invoke(main, ["secrets", folder, "-n", "2", "--players", "3"])
        assert got.exit_code == 0, got.output


def test_a_card_name_said_as_a_card_everyone_saw_goes_back_to_a_hand_is_no_news():
    """Banquet logs "{p} uses Chopsticks to take {x} too" as the Chopsticks that lay on the
    table go back into a hand, while other Chopsticks lie hidden in hands: everyone saw a
    Chopsticks at the last decision. A name said of a card nobody saw is still a leak."""
    from rulepress.leakscan import scan
    leak, scanned = scan(game_from("docs/examples/banquet"), n=3, seed=0, players=2)
    assert leak is None and scanned > 20, leak and leak.text()
    leak, _ = scan(game_from("tests/games/leak-said"), n=6, seed=0, players=2)
    assert leak is not None and leak.what == "Nitro"


def test_rulepress_view_prints_what_a_seat_is_sent_after_some_choices_of_a_log(lanterns, tmp_path):
    from rulepress.runtime.agents import RandomAgent, step
    from rulepress.runtime.replay import make_log
    st = new_game(lanterns, 2, 3)
    agents = {p: RandomAgent(p) for p in st["players"]}
    for _ in range(4):
        step(lanterns, st, agents)
    log = tmp_path / "game.json"
    log.write_text(json.dumps(make_log(lanterns, st, 2, 3)))
    got = CliRunner().invoke(main, ["view", LANTERNS, "--seat", "p1", "--log", str(log), "--at", "0"])
    assert got.exit_code == 0, got.output
    start = new_game(lanterns, 2, 3)
    assert json.loads(got.output) == json.loads(json.dumps(view(lanterns, start, "p1")))
    got = CliRunner().invoke(main, ["view", LANTERNS, "--seat", "p2", "--log", str(log)])
    assert json.loads(got.output) == json.loads(json.dumps(view(lanterns, st, "p2")))
    got = CliRunner().invoke(main, ["view", LANTERNS, "--seat", "p1", "--log", str(log), "--at", "9"])
    assert got.exit_code == 2 and "the log holds 4 choices" in got.output


def test_the_terminal_shows_a_player_what_is_known_of_their_hidden_cards(lanterns):
    from rulepress.terminal import table_lines
    st = new_game(lanterns, 2, 0)
    card = st["zones"]["p1.hand"][1]
    run(lanterns, st, f'set "{card}".told_value to 2\nmark "{card}" as clued')
    assert "  card 2 of Player 1's Hand: Told value 2, clued" in table_lines(lanterns, st, "p1", "en")


def test_a_hidden_thing_of_a_kind_the_game_names_is_offered_in_the_games_words():
    """A handle says a thing's kind as the game's `terms:` word it ("Twilight", "Сумерки"),
    not as the id of the kind."""
    from rulepress.runtime.visibility import handle_of
    game = game_from("content/android")
    st = new_game(game, 2, 1)
    card = st["zones"]["p2.hand"][0]
    label = handle_of(game, st, card)["label"]
    assert label == {"en": "Twilight 1 of Player 2's Hand", "ru": "Сумерки 1: Рука игрока 2"}
