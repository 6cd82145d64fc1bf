"""The terminal table shows each seat only what it may see."""
import io

import pytest
from rich.console import Console

from rulepress.terminal import _collapsed, labels, play
from tests.conftest import game_from


@pytest.fixture(scope="module")
def pick():
    return game_from("tests/games/secret-pick")


def _play(game, bots, answers, seed=4, players=2, lang="en"):
    out = io.StringIO()
    feed = iter(answers)
    st = play(game, players, seed, bots, lang, None, input_fn=lambda _p: next(feed, "q"),
              con=Console(file=out, width=160, color_system=None))
    return st, out.getvalue()


@pytest.mark.parametrize("seed", range(6))
def test_a_bots_secret_pick_is_not_printed_before_it_is_revealed(pick, seed):
    st, text = _play(pick, "p2", ["1"], seed)
    assert st["over"]
    bot_hand = [c for w, c in st["history"] if w == "p2"]
    card = pick.name(bot_hand[0])
    revealed = text.index("Player 2, fights with")
    assert card not in text[:revealed], text
    assert "Player 2 (bot) has made a secret choice" in text
    human_prompt = text.index("Player 1: Choose")
    assert text.index("Player 2 (bot) has made a secret choice") < human_prompt  # it picked first
    dealt = [e for e in st["things"] if st["things"][e]["zone"] == "arena" and e != bot_hand[0]]
    assert all(pick.name(e) in text[:human_prompt] for e in dealt)  # the human's own pick was on show


def test_cards_dealt_into_a_bots_hand_are_never_printed(pick):
    st, text = _play(pick, "p2", ["1"], 2)
    bots_cards = [e for e in st["things"] if st["things"][e]["zone"] == "p2.hand"]
    assert bots_cards and all(pick.name(e) not in text for e in bots_cards)


def test_hot_seat_play_hands_over_with_a_pass_screen(pick):
    _st, text = _play(pick, "", ["", "1", "", "1"], 3)
    assert text.count("pass to Player") == 2


def test_in_russian_the_table_speaks_russian_and_so_does_the_games_log(pick):
    _st, text = _play(pick, "p2", ["1"], 2, lang="ru")
    assert "раунд 1 · первый игрок: Игрок 2" in text and "Игрок 1 (вы):" in text and "Игрок 2 (бот)" in text
    assert "конец игры" in text and "first player" not in text and "(bot)" not in text
    st, english = _play(pick, "p2", ["1"], 2)
    logged = [ln for ln in english.splitlines() if ln.startswith("· ")]
    russian = [ln for ln in text.splitlines() if ln.startswith("· ")]
    assert logged and len(russian) == len(logged)
    said = {e["text"]: e.get("ru", e["text"]) for e in st["log"]}  # each line of the log in its Russian
    assert russian == [ln[:2] + said[ln[2:]] for ln in logged] != logged


def test_a_random_seed_by_default_is_printed_so_the_game_can_be_replayed(pick):
    _st, text = _play(pick, "p1,p2", [], seed=None)
    seed = text.split()[1]
    assert seed.isdigit()
    _st2, again = _play(pick, "p1,p2", [], seed=int(seed))
    assert again.splitlines()[1:] == text.splitlines()[1:]


def test_two_options_never_share_a_label_and_identical_things_are_counted():
    opts = [{"id": "a#1", "label": {"en": "Agent"}}, {"id": "a#2", "label": {"en": "Agent"}},
            {"id": "b", "label": {"en": "Bank"}}]
    assert labels(opts, "en") == ["Agent (1)", "Agent (2)", "Bank"]
    assert _collapsed(["Green agent"] * 4 + ["Red agent"]) == "Green agent x4, Red agent"


def test_the_table_shows_the_last_dice_rolled(pick):
    from rulepress.runtime.flow import new_game
    from rulepress.terminal import table_lines
    st = new_game(pick, 2, 1)
    st["rolled"] = [3, 6, 2]
    assert "dice: 6 2  (roll 3)" in table_lines(pick, st, "p1", "en")


def test_a_roll_is_kept_for_the_table_to_show(race):
    from rulepress.runtime.flow import apply, new_game
    st = new_game(race, 2, 1)
    apply(race, st, "roll", st["pending"]["who"])
    assert st["rolled"][0] == 1 and len(st["rolled"]) == 3 and all(1 <= d <= 6 for d in st["rolled"][1:])


@pytest.mark.parametrize("folder", ["content/study-in-emerald", "content/arkham-horror", "content/night-city", "content/android"])
def test_the_russian_table_names_every_zone_counter_and_value_in_words(folder):
    """What a player reads at the terminal says no id: a place's own zone by the place's name,
    a place's stack with the place it belongs to, counters by name with their values in words
    (a seat, a gang, yes and no), and nothing of the rules' bookkeeping."""
    import random
    import re

    from rulepress.runtime.match import Match
    from rulepress.terminal import table_lines
    game = game_from(folder)
    internal = {(d.get("name") or {}).get("ru") for d in game.counters.values() if d.get("internal")} - {None}
    m, r = Match.new(game, players=game.players_min + 1, seed=3), random.Random(3)
    for _ in range(40):
        if m.is_over:
            break
        for seat in m.state["players"]:
            for line in table_lines(game, m.state, seat, "ru"):
                assert not re.match(r"\s*[a-z][a-z0-9_.]*:", line), line  # a zone by its id
                assert not re.search(r"\bp[0-9]\b", line), line  # a seat by its id
                assert not re.search(r"\b[a-z][a-z_]{2,}\b", line), line  # a mark or value by its id
                assert "None" not in line and "True" not in line and "False" not in line, line
                assert not any(n and n in line for n in internal), line
        who = m.seats_to_move()[0]
        m.apply(who, r.choice(m.legal(who))["id"])


def test_a_fact_every_hidden_thing_of_a_zone_carries_is_said_once():
    """Whose deck a card is from shows on its back (content/android: `home` is public): a
    deck of such cards is one line, not a line a card; a hand whose cards differ, a line each."""
    from rulepress.runtime.flow import new_game
    from rulepress.terminal import table_lines
    game = game_from("content/android")
    st = new_game(game, 3, 1)
    lines = table_lines(game, st, "p1", "en")
    deck = next(i for i, line in enumerate(lines) if line.startswith("Player 2's Dark deck:"))
    n = len(st["zones"]["p2.dark_deck"])
    assert lines[deck + 1] == f"  each of the {n} hidden: Deck owner Player 2"
    assert not lines[deck + 2].startswith("  ")
    hand = [line for line in lines if line.startswith("  ") and "Player 2's Hand:" in line]
    assert len(hand) == len(st["zones"]["p2.hand"]) and {line.rsplit(" ", 1)[1] for line in hand} == {"2", "3"}
