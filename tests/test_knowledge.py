"""What a seat still knows of things it saw and no longer sees: a card shown to it and hidden
again, a card everyone saw go back into a hand, stays that card in every world the search
deals for the seat; what an effect shows and hides before anyone decides was never seen; a
shuffle, or a card nobody could tell taken from where the known one lies, makes it a guess
again (runtime/visibility.py, `observe`)."""
from __future__ import annotations

import os

import pytest

from rulepress.compiler.dsl import parse
from rulepress.runtime.flow import apply, new_game
from rulepress.runtime.interpreter import Interp
from rulepress.runtime.visibility import known_to, observe, remember, sample
from tests.conftest import game_from

SEEDS = range(40)


@pytest.fixture(scope="module")
def lanterns():
    return game_from("docs/examples/lanterns")


def run(game, st, text):
    Interp(game, st).call_block(parse(text, lambda l, c: ("t", l, c)), {"player": "p1"})


def decided(game, st, text):
    """An effect, then a decision: the players look at the table."""
    run(game, st, text)
    observe(game, st)


def dealt(game, st, seat, place, told=True):
    """What lies at `place` ((zone, index)) in each world dealt for `seat`."""
    return {sample(game, st, seat, {"rng": s}, told=told)["zones"][place[0]][place[1]] for s in SEEDS}


def test_a_card_shown_to_its_holder_and_hidden_again_stays_that_card_in_every_dealt_world(lanterns):
    st = remember(new_game(lanterns, 2, 1))
    card = st["zones"]["p2.hand"][0]
    decided(lanterns, st, f'show "{card}" to p2')
    decided(lanterns, st, f'hide "{card}" from p2')
    assert known_to(st, "p2") == {card: known_to(st, "p2")[card]}
    assert dealt(lanterns, st, "p2", ("p2.hand", 0)) == {card}
    assert len(dealt(lanterns, st, "p2", ("p2.hand", 0), told=False)) > 3  # the bot that ignores what it knows guesses
    assert len(dealt(lanterns, st, "p2", ("p2.hand", 1))) > 3  # the card it never saw is still a guess


def test_a_card_everyone_saw_put_back_in_a_hand_stays_that_card(lanterns):
    st = remember(new_game(lanterns, 2, 1))
    card = st["zones"]["p2.hand"][1]
    decided(lanterns, st, f'move "{card}" to lit face up')
    decided(lanterns, st, f'move "{card}" to p2.hand')
    assert st["zones"]["p2.hand"][1] == card
    assert dealt(lanterns, st, "p2", ("p2.hand", 1)) == {card}


def test_cards_put_back_together_are_dealt_among_their_own_places(lanterns):
    """Two cards everyone saw go back into a hand in one effect: which is where is lost,
    not which two they are."""
    st = remember(new_game(lanterns, 2, 1))
    a, b = st["zones"]["p2.hand"]
    decided(lanterns, st, f'move "{a}" to lit face up\nmove "{b}" to lit face up')
    decided(lanterns, st, f'move "{b}" to p2.hand\nmove "{a}" to p2.hand')
    worlds = [sample(lanterns, st, "p2", {"rng": s})["zones"]["p2.hand"] for s in SEEDS]
    assert all(sorted(w) == sorted([a, b]) for w in worlds)
    assert {tuple(w) for w in worlds} == {(a, b), (b, a)}


def test_what_an_effect_shows_and_hides_before_anyone_decides_was_never_seen(lanterns):
    st = remember(new_game(lanterns, 2, 1))
    card = st["zones"]["p2.hand"][0]
    decided(lanterns, st, f'show "{card}" to p2\nhide "{card}" from p2')
    assert known_to(st, "p2") == {}
    assert len(dealt(lanterns, st, "p2", ("p2.hand", 0))) > 3


def test_a_shuffle_or_a_card_taken_unseen_from_its_place_makes_it_a_guess_again(lanterns):
    st = remember(new_game(lanterns, 2, 1))
    card, other = st["zones"]["p2.hand"]
    decided(lanterns, st, f'show "{card}" to p2')
    decided(lanterns, st, f'hide "{card}" from p2')
    decided(lanterns, st, f'move "{other}" to lanterns')  # p2 did not see which of its cards went
    assert known_to(st, "p2") == {}

    st = remember(new_game(lanterns, 2, 1))
    card = st["zones"]["p2.hand"][0]
    decided(lanterns, st, f'move "{card}" to lit face up')
    decided(lanterns, st, f'move "{card}" to lanterns')
    assert card in known_to(st, "p2") and card in known_to(st, "p1")  # at the bottom of the deck, as all saw
    decided(lanterns, st, f'move "{card}" to p1.hand')  # a card nobody could tell apart taken from the deck
    assert known_to(st, "p2") == {} and known_to(st, "p1") == {}


def test_a_card_seen_going_into_a_pile_is_dealt_only_into_that_pile_once_it_is_shuffled(lanterns):
    """Everyone saw the card go into the deck, then the deck was shuffled: where in it is
    lost, not that it is in it. The worlds dealt for p2 have it somewhere in the deck, never
    in p2's own hand (which p2 does not see either); the cards p2 knows nothing of go anywhere."""
    st = remember(new_game(lanterns, 2, 1))
    card = st["zones"]["p2.hand"][0]
    decided(lanterns, st, f'move "{card}" to lit face up')
    decided(lanterns, st, f'move "{card}" to lanterns face down\nshuffle lanterns')
    assert known_to(st, "p2") == {card: "lanterns"} and known_to(st, "p1") == {card: "lanterns"}
    deck = st["zones"]["lanterns"]
    worlds = [sample(lanterns, st, "p2", {"rng": s}) for s in SEEDS]
    assert all(card in w["zones"]["lanterns"] for w in worlds)
    assert len({w["zones"]["lanterns"].index(card) for w in worlds}) > 3  # anywhere in it
    assert any(w["zones"]["p2.hand"][0] in deck for w in worlds)  # the others are dealt freely
    blind = [sample(lanterns, st, "p2", {"rng": s}, told=False) for s in SEEDS]
    assert any(card in w["zones"]["p2.hand"] for w in blind)  # (dealt blind, it may be in the hand)
    assert all(known_to(w, "p2") == {card: "lanterns"} and known_to(w, "p1") == {} for w in worlds)


def test_a_card_known_to_be_in_a_pile_is_lost_where_a_card_leaves_it_unseen(lanterns):
    """A draw takes the deck's top card: a seat that sees where it goes can tell whether it
    was the card it knows of, one that does not cannot. p1 sees p2's hand, p2 does not."""
    st = remember(new_game(lanterns, 2, 1))
    card = st["zones"]["p2.hand"][0]
    decided(lanterns, st, f'move "{card}" to lit face up')
    decided(lanterns, st, f'move "{card}" to lanterns face down\nshuffle lanterns')
    if st["zones"]["lanterns"][0] == card:
        run(lanterns, st, f'move "{card}" to lanterns face down')  # (not the one drawn)
    decided(lanterns, st, 'draw 1 from lanterns to p2.hand')
    assert known_to(st, "p1") == {card: "lanterns"} and known_to(st, "p2") == {}
    decided(lanterns, st, 'draw 1 from lanterns to lit face up')  # everyone sees where it went
    assert known_to(st, "p1") == {card: "lanterns"}
    decided(lanterns, st, f'move "{card}" to p1.hand')  # it left the deck: nobody knows it is there
    assert known_to(st, "p1") == {} and known_to(st, "p2") == {}


def test_a_card_drawn_from_the_top_is_followed_and_one_picked_is_followed_by_its_picker(lanterns):
    """Which card a draw takes everyone can tell (the top one), and the player who picked a
    card of their own hand by its place can tell which went: neither loses the others."""
    st = remember(new_game(lanterns, 2, 1))
    card, other = st["zones"]["p2.hand"]
    decided(lanterns, st, f'show "{card}" to p2')
    decided(lanterns, st, f'hide "{card}" from p2')
    decided(lanterns, st, 'draw 1 from lanterns to p2.hand')
    assert card in known_to(st, "p2")
    st = remember(new_game(lanterns, 2, 1))
    card, other = st["zones"]["p2.hand"]
    decided(lanterns, st, f'show "{card}" to p2')
    decided(lanterns, st, f'hide "{card}" from p2')
    apply(lanterns, st, "light", "p1")
    apply(lanterns, st, st["zones"]["p1.hand"][0], "p1")  # p1's turn: p2 saw which card went
    apply(lanterns, st, "light", "p2")
    apply(lanterns, st, other, "p2")  # p2 plays the card it picked by its place: it still knows the other
    assert card in st["zones"]["p2.hand"] and card in known_to(st, "p2")


RECALL = """\
game:
  id: recall
  name: {en: Recall}
  version: 1
  players: {min: 1, max: 2}
counters:
  - {id: right, name: {en: Right guesses}, of: player, initial: 0}
zones:
  - {id: hand, name: {en: Hand}, of: player, visibility: others}
decks:
  - {id: deck, name: {en: Deck}}
cards:
  - {id: one, name: {en: One}, deck: deck, attrs: {value: 1}}
  - {id: two, name: {en: Two}, deck: deck, attrs: {value: 2}}
  - {id: three, name: {en: Three}, deck: deck, attrs: {value: 3}}
  - {id: four, name: {en: Four}, deck: deck, attrs: {value: 4}}
triggers:
  - id: deal
    on: game_start
    text: {en: "Each player draws a card and holds it facing away."}
    effect: |
      shuffle deck
      for each p in players:
        draw 1 from deck to p.hand
flow:
  rounds: 1
  phases:
    - id: look
      mode: each
      effect: |
        for each c in player.hand:
          show c to player
        choose k from ["ready", "wait"] "Seen it?":
          for each c in player.hand:
            hide c from player
          choose g from [1, 2, 3, 4] "Which card do you hold?":
            for each c in player.hand:
              if c.value == g:
                gain 1 right
scoring:
  score: player.right
"""


def _named(game, told, monkeypatch, seeds=range(10)) -> int:
    """Points scored over `seeds` by two searching seats that name a card they saw: the
    worlds dealt by what each seat knows (`told`) or blind."""
    from rulepress.runtime import visibility
    from rulepress.runtime.agents import play_out
    from rulepress.runtime.search import MctsAgent
    monkeypatch.setattr(visibility, "sample", lambda g, st, seat, r, lean=False: sample(g, st, seat, r, lean, told))
    got = 0
    for s in seeds:
        st = remember(new_game(game, 2, s))
        play_out(game, st, {p: MctsAgent(f"{s}:{p}", "30") for p in st["players"]})
        got += sum(st["scores"].values())
    return got

def test_a_searched_player_names_the_card_it_was_shown_and_one_that_forgets_guesses(tmp_path, monkeypatch):
    """Each player is shown its card, decides, sees it hidden again and names it. The search
    that deals its worlds by what its seat knows names it every time; the same search
    dealing blind names it about one time in four (in the worlds dealt before, it was
    a guess)."""
    (tmp_path / "recall").mkdir()
    (tmp_path / "recall" / "game.yaml").write_text(RECALL)
    game = game_from(str(tmp_path / "recall"))
    assert _named(game, True, monkeypatch) == 20
    assert _named(game, False, monkeypatch) <= 12


PILE = """\
game:
  id: pile
  name: {en: Pile}
  version: 1
  players: {min: 1, max: 2}
counters:
  - {id: right, name: {en: Right guesses}, of: player, initial: 0}
zones:
  - {id: table, name: {en: Table}, visibility: public}
  - {id: box, name: {en: Box}, visibility: hidden}
decks:
  - {id: deck, name: {en: Deck}}
cards:
  - {id: one, name: {en: One}, deck: deck, attrs: {value: 1}}
  - {id: two, name: {en: Two}, deck: deck, attrs: {value: 2}}
  - {id: three, name: {en: Three}, deck: deck, attrs: {value: 3}}
  - {id: four, name: {en: Four}, deck: deck, attrs: {value: 4}}
triggers:
  - id: deal
    on: game_start
    text: {en: "One card is laid face up, two go into the box unseen, one stays in the deck."}
    effect: |
      shuffle deck
      draw 1 from deck to table face up
      draw 2 from deck to box face down
flow:
  rounds: 1
  phases:
    - id: guess
      mode: each
      effect: |
        choose k from ["ready", "wait"] "Seen it?":
          for each c in table:
            move c to deck face down
          shuffle deck
          choose g from [1, 2, 3, 4] "Which card is in the deck?":
            if any(c.value == g for c in deck):
              gain 1 right
scoring:
  score: player.right
"""


def test_a_searched_player_names_a_card_it_saw_shuffled_into_the_deck(tmp_path, monkeypatch):
    """Both players see a card laid face up; it goes into the deck, which is shuffled, and
    each names a card in the deck. The search that deals its worlds by what its seat knows
    (the card is in the deck, somewhere) names it every time; the same search dealing blind
    (the card may be in the box as well) is right about one time in two."""
    (tmp_path / "pile").mkdir()
    (tmp_path / "pile" / "game.yaml").write_text(PILE)
    game = game_from(str(tmp_path / "pile"))
    assert _named(game, True, monkeypatch) == 20
    assert _named(game, False, monkeypatch) <= 14


def test_a_dealt_world_carries_what_its_seat_knows_and_nothing_the_others_do(lanterns):
    """A world dealt for p2 knows what p2 knows, so a search in it deals as p2 would; what p1
    knows (it saw p2's card too) is not p2's to read."""
    st = remember(new_game(lanterns, 2, 1))
    card = st["zones"]["p2.hand"][0]
    decided(lanterns, st, f'move "{card}" to lit face up')
    decided(lanterns, st, f'move "{card}" to lanterns')
    assert card in known_to(st, "p1")
    for s in range(5):
        world = sample(lanterns, st, "p2", {"rng": s})
        assert known_to(world, "p2") == known_to(st, "p2") and known_to(world, "p1") == {}
        assert world["zones"]["lanterns"][-1] == card


def test_a_card_seen_going_into_a_hidden_hand_cannot_be_told_from_the_others_there_as_one_leaves(lanterns):
    """p2 watched two cards go into its own hand (which it does not see); then one of them
    leaves by a rule p2 cannot follow: p2 no longer knows which of them is where."""
    st = remember(new_game(lanterns, 2, 1))
    a, b = st["zones"]["p2.hand"]
    decided(lanterns, st, f'move "{a}" to lit face up\nmove "{b}" to lit face up')
    decided(lanterns, st, f'move "{a}" to p2.hand\nmove "{b}" to p2.hand\nmove "{a}" to lanterns')
    assert known_to(st, "p2") == {}
    assert set(known_to(st, "p1")) == {a}  # p1 sees p2's hand: it saw which went (and sees the other)


def _lanterns_with(tmp_path, marks):
    import shutil
    from tests.conftest import ROOT
    out = tmp_path / "lanterns"
    shutil.copytree(os.path.join(ROOT, "docs", "examples", "lanterns"), out, ignore=shutil.ignore_patterns("scenarios"))
    text = (out / "game.yaml").read_text()
    text = text.replace("  public_marks: [clued]\n", "  public_marks:\n" + marks)
    text = text.replace("          log \"{player} tells {t} about their {k} cards\"",
                        "          for each c in t.hand:\n            if c.colour == \"red\":\n              mark c as red_told\n"
                        "            if c.value != 1:\n              mark c as not_one\n"
                        "          log \"{player} tells {t} about their {k} cards\"")
    (out / "game.yaml").write_text(text)
    return out


def test_a_dealt_world_agrees_with_what_public_marks_tell(tmp_path):
    """A mark may say what it tells of its thing, as a counter may: every world dealt for p2
    has a red card where `red_told` lies and no 1 where `not_one` does."""
    marks = "    - clued\n    - {id: red_told, tells: {colour: red}}\n    - {id: not_one, rules_out: {value: 1}}\n"
    game = game_from(str(_lanterns_with(tmp_path, marks)))
    st = remember(new_game(game, 2, 1))
    first, second = st["zones"]["p2.hand"]
    run(game, st, f'move "{first}" to lanterns\nmove "{second}" to lanterns\nmove red_2#1 to p2.hand\nmove blue_3 to p2.hand\n'
                  'mark "red_2#1" as red_told\nmark blue_3 as not_one')
    colours, values, blind = set(), set(), set()
    for s in SEEDS:
        a, b = sample(game, st, "p2", {"rng": s})["zones"]["p2.hand"]
        colours.add(game.attrs_of[a]["colour"])
        values.add(game.attrs_of[b]["value"])
        blind.add(game.attrs_of[sample(game, st, "p2", {"rng": s}, told=False)["zones"]["p2.hand"][0]]["colour"])
    assert colours == {"red"} and values == {2, 3}
    assert blind == {"red", "blue"}  # (dealt blind, it is anything)


def test_a_public_mark_that_tells_an_unknown_attribute_is_an_error(tmp_path):
    from rulepress.compiler.validation import validate_game
    marks = "    - clued\n    - {id: red_told, tells: {color: red}}\n    - {id: not_one, rules_out: {value: 1}}\n"
    report = validate_game(str(_lanterns_with(tmp_path, marks)))
    assert any(d.code == "R002" and "unknown attribute `color`" in d.message and "colour" in d.message for d in report.errors), \
        [d.text() for d in report.errors]


def test_a_dealt_world_carries_no_mark_or_counter_the_seat_cannot_see_on_its_hidden_cards(lanterns):
    """A mark or counter on a card hidden from the seat, but for the public facts, is
    nothing the seat was shown: its worlds do not carry it, wherever the card is dealt."""
    st = remember(new_game(lanterns, 2, 1))
    card = st["zones"]["p2.hand"][0]
    run(lanterns, st, f'mark "{card}" as noted')
    for s in SEEDS:
        world = sample(lanterns, st, "p2", {"rng": s})
        assert all("noted" not in ent["marks"] for ent in world["things"].values())
    assert "noted" in sample(lanterns, st, "p1", {"rng": 1})["things"][card]["marks"]  # p1 sees the card


def test_a_dealt_world_carries_no_private_count_on_a_hidden_card(tmp_path):
    """A number kept on a card hidden from the seat, not a public counter, is as it starts in
    the seat's worlds: its view never showed it (a bet laid on a card face down)."""
    (tmp_path / "recall").mkdir()
    (tmp_path / "recall" / "game.yaml").write_text(RECALL.replace(
        "zones:", "  - {id: bet, name: {en: Bet}, of: card, initial: 0}\nzones:", 1))
    game = game_from(str(tmp_path / "recall"))
    st = remember(new_game(game, 2, 1))
    card = st["zones"]["deck"][0]  # (face down: nobody sees it)
    run(game, st, f'gain 3 bet to "{card}"')
    assert st["things"][card]["counters"]["bet"] == 3
    for seat in st["players"]:
        for s in SEEDS:
            world = sample(game, st, seat, {"rng": s})
            assert all(ent["counters"].get("bet", 0) == 0 for ent in world["things"].values()), seat


def test_a_dealt_world_carries_a_reference_on_a_hidden_card_only_where_it_is_public(tmp_path):
    """A reference is a fact like any other: one laid on a face-down card (whom it aims at)
    is nothing the seat was shown, and its worlds do not carry it; one declared `public`
    (whose deck the card's back says it is from) they do, wherever the card is dealt."""
    (tmp_path / "recall").mkdir()
    (tmp_path / "recall" / "game.yaml").write_text(RECALL.replace(
        "zones:", "  - {id: aim, name: {en: Aimed at}, of: card, type: ref}\n"
                  "  - {id: back, name: {en: Deck of}, of: card, type: ref, public: true}\nzones:", 1))
    game = game_from(str(tmp_path / "recall"))
    st = remember(new_game(game, 2, 1))
    card = st["zones"]["deck"][0]  # (face down: nobody sees it)
    run(game, st, f'set "{card}".aim to p2\nset "{card}".back to p1')
    for seat in st["players"]:
        for s in SEEDS:
            world = sample(game, st, seat, {"rng": s})
            assert all(ent["counters"].get("aim") is None for ent in world["things"].values()), seat
            assert world["things"][world["zones"]["deck"][0]]["counters"]["back"] == "p1"


def test_a_world_dealt_in_android_keeps_whose_deck_each_hidden_card_is_from():
    """Android says whose deck a twilight card is from in a public reference (its back):
    every world keeps it, so a card played or discarded there goes back to a deck."""
    game = game_from("content/android")
    st = remember(new_game(game, 2, 1))
    seat = st["players"][0]
    world = sample(game, st, seat, {"rng": 3})
    for key, ids in st["zones"].items():
        if key.endswith("_deck") and "." in key:
            assert all(world["things"][x]["counters"].get("home") == key.split(".")[0] for x in world["zones"][key]), key
