"""A Study in Emerald (SIE-043): cards discarded under the top one may be hidden from the
other players, and their owner still knows them."""
import json

from rulepress.runtime.flow import apply, new_game
from rulepress.runtime.views import view
from tests.conftest import game_from


def _discard_three(hide: str):
    game = game_from("content/study-in-emerald")
    st = new_game(game, 3, 0, {"starting_agents": 0}, first="p1")
    top, *below = st["zones"]["p1.hand"][:3]
    for choice in ["discard_cards", top, *below, "none", hide]:
        apply(game, st, choice)
    return game, st, top, below


def test_hidden_discards_are_known_to_their_owner_only():
    game, st, top, below = _discard_three("yes")
    assert st["zones"]["p1.discard_pile"] == [*below, top]
    mine, theirs = json.dumps(view(game, st, "p1")), json.dumps(view(game, st, "p2"))
    for eid in below:
        assert f'"{eid}"' in mine
        assert f'"{eid}"' not in theirs
    assert f'"{top}"' in theirs


def test_discards_left_face_up_are_seen_by_everyone():
    game, st, top, below = _discard_three("no")
    theirs = json.dumps(view(game, st, "p2"))
    for eid in [top, *below]:
        assert f'"{eid}"' in theirs
