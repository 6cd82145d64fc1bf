"""A game played through `Match`, the one interface callers use: the loop the flow's
documentation shows plays every content, example and test game to its end."""
from __future__ import annotations

import json
import random
import re

import pytest

from rulepress.runtime import flow
from rulepress.runtime.decision import IllegalChoice
from rulepress.runtime.match import Match
from rulepress.runtime.tables import Game
from tests.differential import folders, tables


def documented_loop() -> str:
    """The indented lines of the flow module's documentation, as written there."""
    lines = [ln[4:] for ln in flow.__doc__.splitlines() if ln.startswith("    ")]
    assert lines and lines[0].startswith("m = Match.new(")
    return "\n".join(lines)


_GAMES = {}


def game_of(folder):
    if folder not in _GAMES:
        _GAMES[folder] = Game(json.loads(tables(folder)))
    return _GAMES[folder]


@pytest.mark.parametrize("folder", folders())
def test_the_documented_loop_plays_every_game_to_its_end(folder):
    game = game_of(folder)
    code = documented_loop().replace("players=3", "players=players")
    for players in range(max(1, game.players_min), game.players_max + 1):
        for seed in range(2):
            scope = {"Match": Match, "game": game, "players": players, "random": random.Random(f"{folder}:{seed}")}
            exec(compile(code, "flow.__doc__", "exec"), scope)
            m = scope["m"]
            assert m.is_over and m.seats_to_move() == [] and m.scores() is not None
            assert set(m.returns()) == set(m.state["players"])


def test_a_secret_pick_waits_for_every_seat_and_each_sees_only_its_options():
    m = Match.new(game_of("tests/games/secret-pick"), 3, seed=1)
    seats = m.seats_to_move()
    assert len(seats) == 3 and m.decision.simultaneous
    first = seats[0]
    m.apply(first, m.legal(first)[0]["id"])
    assert first not in m.seats_to_move() and m.legal(first) == []
    with pytest.raises(IllegalChoice):
        m.apply(first, "anything")
    assert m.view(first)["decision"]["options"] is None  # picked: nothing more to offer it


def test_a_clone_goes_on_apart_from_the_match_it_was_copied_from():
    m = Match.new(game_of("docs/examples/love-letter"), 2, seed=3)
    for _ in range(3):
        seat = m.seats_to_move()[0]
        m.apply(seat, m.legal(seat)[0]["id"])
    c = m.clone()
    before = flow.state_hash(m.state)
    rnd = random.Random(0)
    while not c.is_over:
        seat = c.seats_to_move()[0]
        c.apply(seat, rnd.choice(c.legal(seat))["id"])
    assert flow.state_hash(m.state) == before
    # and the original plays the same choices to the same end
    for seat, choice in c.history[len(m.history):]:
        m.apply(seat, choice)
    assert flow.state_hash(m.state) == flow.state_hash(c.state)


def test_a_match_saved_as_its_record_replays_to_the_same_state():
    game = game_of("docs/examples/coup")
    m = Match.new(game, 3, seed="r")
    rnd = random.Random(1)
    for _ in range(12):
        if m.is_over:
            break
        seat = m.seats_to_move()[0]
        m.apply(seat, rnd.choice(m.legal(seat))["id"])
    again = Match.replay(game, json.loads(json.dumps(m.record())))
    assert flow.state_hash(again.state) == flow.state_hash(m.state) and again.history == m.history


def test_returns_are_zero_until_the_end_then_one_for_a_winner_and_minus_one_for_the_rest():
    m = Match.new(game_of("tests/games/duel"), 2, seed=0)
    assert m.returns() == {"p1": 0.0, "p2": 0.0}
    rnd = random.Random(2)
    while not m.is_over:
        seat = m.seats_to_move()[0]
        m.apply(seat, rnd.choice(m.legal(seat))["id"])
    won = m.state["winners"]
    assert m.returns() == {p: (1.0 if p in won else -1.0) if won else 0.0 for p in m.state["players"]}


def test_a_choice_by_a_seat_whose_decision_it_is_not_is_refused_and_changes_nothing():
    m = Match.new(game_of("tests/games/duel"), 2, seed=0)
    seat = m.seats_to_move()[0]
    other = next(p for p in m.state["players"] if p != seat)
    before = flow.state_hash(m.state)
    with pytest.raises(IllegalChoice):
        m.apply(other, m.legal(seat)[0]["id"])
    with pytest.raises(IllegalChoice):
        m.apply(seat, "no such choice")
    assert flow.state_hash(m.state) == before and m.legal(other) == []


@pytest.mark.parametrize("folder", ["tests/games/duel", "tests/games/secret-pick", "docs/examples/love-letter"])
@pytest.mark.parametrize("seat, choice", [(None, None), (None, ["pass"]), (["p1"], "pass"), ({}, "x"), (None, 3),
                                          ("p9", "pass"), ("", "")])
def test_a_pick_of_no_seat_or_no_word_is_refused_never_a_crash(folder, seat, choice):
    m = Match.new(game_of(folder), 2, seed=0)
    before = flow.state_hash(m.state)
    with pytest.raises(IllegalChoice):
        m.apply(seat, choice)
    assert flow.state_hash(m.state) == before


def test_only_the_decision_and_the_flow_that_makes_decisions_tell_their_kinds_apart():
    """Callers ask a Decision what they need (turn, simultaneous, waiting, options_for):
    a fifth kind of decision is taught to one place, not to every caller."""
    import os
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    kinds = r'"(action|choose|may|secret)"'
    test = re.compile(rf'(\[.kind.\]|\bkind\b|get\(.kind.\))\s*(==|!=)\s*{kinds}|{kinds}\s*(==|!=)\s*\w+\[.kind.\]')
    found = []
    for folder in ("runtime", "rulepress"):
        for base, _dirs, files in os.walk(os.path.join(root, folder)):
            for name in files:
                path = os.path.join(base, name)
                if not name.endswith(".py") or path.endswith(("runtime/decision.py", "runtime/flow.py")):
                    continue
                with open(path, encoding="utf-8") as fh:
                    for n, line in enumerate(fh, 1):
                        if test.search(line):
                            found.append(f"{os.path.relpath(path, root)}:{n}: {line.strip()}")
    assert found == []
