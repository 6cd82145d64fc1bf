"""No answer names what its reader may not see (runtime/answers.py).

A seat at the online table (or at the terminal) may send any text as its choice: a handle to
a card it was never offered (`?p2.hand#1`, `?deal_deck#1`), a hidden card's own id, a kind,
a place, a guess. Each is refused in the same words whatever it points at, turn actions,
in-game questions and secret picks alike; the refusal is scanned for every id, kind and
name of a thing hidden from that seat (rulepress/leakscan.said_in), in every content game and
every example.
"""
from __future__ import annotations

import asyncio
import json
import os
import shutil

import pytest
from table_client import Client, app_on, close_all, hello, room_of_two, state_of

from rulepress import leakscan
from rulepress.runtime.agents import RandomAgent, step
from rulepress.runtime.answers import REFUSED, accept, told
from rulepress.runtime.flow import IllegalChoice, apply, branch, new_game
from rulepress.runtime.visibility import handle_of, hidden_from, resolve
from rulepress.table.rooms import Tables
from rulepress.table.store import Store
from tests.conftest import ROOT, game_from

GAMES = [os.path.join("content", g) for g in sorted(os.listdir(os.path.join(ROOT, "content")))] + \
    [os.path.join("docs", "examples", g) for g in sorted(os.listdir(os.path.join(ROOT, "docs", "examples")))]


@pytest.fixture(scope="module")
def games():
    return {folder: game_from(folder) for folder in GAMES}


def flows_own_refusal(game, st):
    """The flow's own refusal, said to the seat as it is: what the table did before."""
    def answer(seat, choice):
        try:
            apply(game, branch(st), resolve(st, choice), seat)
        except IllegalChoice as exc:
            return str(exc)
        return None
    return answer


@pytest.mark.parametrize("folder", ["content/night-city", "docs/examples/love-letter"])
def test_the_scan_finds_a_refusal_that_names_the_card_a_handle_stands_for(games, folder):
    game = games[folder]
    st = new_game(game, 2, seed=1)
    leak = leakscan.scan_answers(game, st, flows_own_refusal(game, st), leakscan.deciding(st))
    assert leak is not None and leak.thing in hidden_from(game, st, leak.seat), leak


@pytest.mark.parametrize("folder", GAMES)
def test_no_refusal_names_a_hidden_thing_in_any_game(games, folder):
    game = games[folder]
    for players in sorted({game.players_min, game.players_max}):
        leak, scanned = leakscan.scan(game, n=1, seed=5, players=players, max_decisions=40, answers=True)
        assert leak is None, leak.text()
        assert scanned > 1


def _room(game, tmp_path):
    """A table of `game` in play; the test sets its state and plays the seats itself."""
    tables = Tables({game.id: game}, Store(str(tmp_path / "t.sqlite3")))
    room = asyncio.run(tables.create(game.id, game.players_min, {}, "Ann")).room
    room.row = room.row._replace(status="playing")
    return tables, room


@pytest.mark.parametrize("folder", GAMES)
def test_the_table_refuses_every_answer_that_is_not_an_option_in_the_same_words(games, folder, tmp_path):
    """Every kind of decision the game reaches (turn actions, questions, secret picks) is
    probed at the table server: every reply is the one refusal, and names nothing hidden."""
    game = games[folder]
    tables, room = _room(game, tmp_path)
    st = new_game(game, game.players_min, seed="probe")
    bots = {p: RandomAgent(f"probe:{p}") for p in st["players"]}
    replies, kinds = set(), set()
    loop = asyncio.new_event_loop()

    def answer(seat, choice):
        out = loop.run_until_complete(tables.move(room, seat, room.version, choice))
        assert not out.changed and not out.stale, choice
        replies.add(out.error)
        return out.error

    try:
        for k in range(400):
            if st["pending"] is None:
                break
            kind = st["pending"]["kind"]
            if kind not in kinds or k % 25 == 0:
                kinds.add(kind)
                room.st = st
                leak = leakscan.scan_answers(game, st, answer, leakscan.deciding(st))
                assert leak is None, leak.text()
            step(game, st, bots)
    finally:
        loop.close()
    assert replies == {REFUSED}
    # (a drafting game is secret picks alone: it has no turn actions to probe)
    assert kinds == {"secret"} or ("action" in kinds and ("choose" in kinds or "may" in kinds))
    if folder.endswith("night-city"):
        assert "secret" in kinds


@pytest.fixture
def table(tmp_path):
    with Client(app_on(tmp_path / "t.sqlite3")) as client:
        code, host, other = room_of_two(client)
        a = hello(client, code, host["token"])
        b = hello(client, code, other["token"])
        a.table()
        a.send({"type": "host", "action": "start"})
        a.table(), b.table()
        yield client, code, a, b
        close_all()


def test_a_handle_to_a_hidden_card_sent_as_a_turn_action_is_refused_without_naming_it(table):
    """The case as it was found: on your own turn, a move whose choice is a handle to a card
    of a deck; the error read the card."""
    client, code, a, b = table
    room = client.app.state.tables.rooms[code]
    game, st = room.game, state_of(client, room)
    seat = room.deciding()[0]
    me = a if a.seat == seat else b
    hidden = sorted(hidden_from(game, st, seat))
    sent = [handle_of(game, st, e)["id"] for e in hidden[:8]] + hidden[:8] + ["?deal_deck#1", "?nowhere#1"]
    for choice in sent:
        me.send({"type": "move", "version": room.version, "choice": choice})
        m = me.until("error")
        assert m["message"] == REFUSED, (choice, m)
    frames = json.dumps(me.frames)
    for eid in hidden:
        assert f"`{eid}`" not in frames


def test_a_fault_of_the_content_mid_move_is_said_without_engine_words(tmp_path):
    folder = tmp_path / "race"
    shutil.copytree(os.path.join(ROOT, "docs", "tutorial", "race"), folder, ignore=shutil.ignore_patterns("scenarios"))
    text = (folder / "game.yaml").read_text(encoding="utf-8")
    (folder / "game.yaml").write_text(text.replace("gain sum(dice) position", "gain sum(dice) / 0 position"), encoding="utf-8")
    game = game_from(str(folder))
    tables, room = _room(game, tmp_path)
    room.st = new_game(game, 2, seed=1)
    seat, version = room.deciding()[0], room.version

    async def move():
        return await tables.move(room, seat, version, "roll")
    out = asyncio.run(move())
    assert not out.changed and out.error == "the move could not be played; the game is as it was before it"
    assert room.version == version and room.st["history"] == []


def test_a_fault_of_the_content_while_an_answer_is_checked_is_said_without_engine_words(tmp_path):
    folder = tmp_path / "race"
    shutil.copytree(os.path.join(ROOT, "docs", "tutorial", "race"), folder, ignore=shutil.ignore_patterns("scenarios"))
    text = (folder / "game.yaml").read_text(encoding="utf-8")
    (folder / "game.yaml").write_text(text.replace("if: count(player.hand) > 0", "if: count(player.hand) / 0 > 0"), encoding="utf-8")
    game = game_from(str(folder))
    tables, room = _room(game, tmp_path)
    room.st = new_game(game, 2, seed=1)
    seat, version = room.deciding()[0], room.version
    out = asyncio.run(tables.move(room, seat, version, "boost"))
    assert not out.changed and out.error == "the move could not be played; the game is as it was before it"
    assert room.version == version


def test_a_line_for_a_seat_says_a_hidden_card_as_a_hidden_thing(games):
    game = games["docs/examples/love-letter"]
    st = new_game(game, 2, seed=1)
    seat = st["players"][0]
    hidden = sorted(hidden_from(game, st, seat))
    line = told(game, st, seat, f"cannot evaluate `x`: `{hidden[0]}` and {hidden[1]}")
    assert leakscan.said_in(game, st, seat, line) is None and "a hidden thing" in line
    assert told(game, None, None, f"`{hidden[0]}`") == "`a hidden thing`"


def test_an_answer_that_is_not_the_seats_turn_is_refused_before_anything_is_read(games):
    game = games["content/night-city"]
    st = new_game(game, 2, seed=1)
    other = next(p for p in st["players"] if p not in leakscan.deciding(st))
    for choice in ["pass", "?deal_deck#1", next(iter(hidden_from(game, st, other)))]:
        with pytest.raises(IllegalChoice, match="^it is not your decision$"):
            accept(game, st, other, choice)


def test_every_game_probed_hides_something_from_each_seat_at_its_start(games):
    """(A guard of the tests above: a game with nothing hidden would prove nothing.)"""
    for folder, game in games.items():
        st = new_game(game, game.players_min, seed=0)
        assert all(hidden_from(game, st, p) for p in st["players"]), folder
