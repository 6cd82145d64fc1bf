"""A choice among things the other players cannot see is asked however many of them fit:
were it taken without asking when one fits, or skipped when none does, every seat would
learn how many of the chooser's hidden cards fit (docs/dsl.md, "Decisions that do not reveal")."""
from rulepress.runtime.flow import apply, new_game
from tests.conftest import game_from


def _with_hand(cards: list[str]):
    """A Study in Emerald, p1 to act, holding exactly these cards."""
    game = game_from("content/study-in-emerald")
    st = new_game(game, 3, 0, {"starting_agents": 0}, first="p1")
    hand = st["zones"]["p1.hand"]
    for eid in list(hand):
        hand.remove(eid)
        st["zones"]["p1.draw_deck"].append(eid)
        st["things"][eid]["zone"] = "p1.draw_deck"
    for eid in cards:
        zone = st["things"][eid]["zone"]
        st["zones"][zone].remove(eid)
        hand.append(eid)
        st["things"][eid]["zone"] = "p1.hand"
    return game, st


def _asked(st) -> list[str]:
    d = st["pending"]
    return [o["id"] for o in d["options"]]


def test_the_one_card_that_fits_is_still_asked_for():
    game, st = _with_hand(["m_vampire"])
    apply(game, st, "place_influence")
    assert st["pending"]["who"] == "p1"
    assert _asked(st) == ["m_vampire"]


def test_when_no_other_card_fits_the_question_is_asked_with_none_alone():
    game, st = _with_hand(["m_vampire", "m_carbonari"])
    assert game.protos["m_carbonari"]["attrs"].get("place", 0) == 0
    apply(game, st, "place_influence")
    apply(game, st, "m_vampire")
    assert _asked(st) == ["none"]
    apply(game, st, "none")
    assert st["things"]["m_vampire"]["zone"] == "p1.discard_pile"
