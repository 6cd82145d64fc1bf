"""A bot's samples (`visibility.sample`) of a state waiting in the middle of an effect.

The waiting effect replays from its snapshot, whose generator is the real game's as the
effect began (the rolls it made before the decision must come out the same again). Were
the replay to go on with it, the sample would roll the very dice the real game will roll
after the same answer: a look-ahead would know them. And the snapshot shares the things
the effect has not changed with the state: a deal renames each of them once.
"""
import pytest

from rulepress.runtime import visibility
from rulepress.runtime.agents import RandomAgent
from rulepress.runtime.flow import _snapshot, apply, choices, new_game
from rulepress.runtime.state import clone
from tests.conftest import content_games, game_from


def _decider(d):
    return d["who"] if d["kind"] != "secret" else next(p for p in d["who"] if p not in d["collected"])


@pytest.mark.parametrize("name", content_games())
def test_a_sample_answered_mid_effect_rolls_no_dice_of_the_real_game(name):
    game = game_from(f"content/{name}")
    st = new_game(game, min(max(2, game.players_min), game.players_max), f"dice:{name}")
    agent = RandomAgent(name)
    tried = same = 0
    for n in range(300):
        d = st["pending"]
        if d is None:
            break
        if d["kind"] not in ("action", "secret") and st["task"] is not None:
            world = visibility.sample(game, st, d["who"], {"rng": n}, lean=True)
            real = clone(st)  # (a copy: it replays the effect too, with the real generator)
            choice = d["options"][0]["id"]
            apply(game, real, choice, d["who"])
            try:
                apply(game, world, choice, d["who"])
            except Exception:  # a guess the rules cannot go on from says nothing of the dice
                continue
            tried += 1
            same += world["rng"] == real["rng"]
        seat = _decider(d)
        apply(game, st, agent.choose(game, None, seat, choices(game, st, seat)), seat)
    assert tried  # the test can tell: it answered samples in the middle of effects
    assert same == 0, f"{same} of {tried} samples went on with the real game's dice"


def test_a_thing_the_waiting_effect_shares_with_its_snapshot_is_dealt_once():
    """A counter naming a hidden thing names, in the sample, the thing dealt to its place:
    renamed once, though the state and the snapshot hold the same entry."""
    game = game_from("content/android")
    st = new_game(game, 2, "deal")
    seat, other = st["players"]
    hidden = sorted(visibility.hidden_from(game, st, seat) - set(st["players"]))
    named = next(x for x in hidden if game.kind_of.get(x) == game.kind_of.get(hidden[0]))
    holder = next(x for x in hidden if x != named)
    ref = next(c for c, t in game.counters.items() if t["type"] == "ref" and c in game.public_counters)  # (a reference that stays in dealt worlds)
    st["things"][holder]["counters"][ref] = named
    st["task"] = {"spec": ["effect", [], {}], "answers": [], "snap": _snapshot(st)}  # shares `holder`
    place = (st["things"][named]["zone"], st["zones"][st["things"][named]["zone"]].index(named))
    renamed = 0
    for n in range(20):
        world = visibility.sample(game, st, seat, {"rng": n})
        for part in (world, world["task"]["snap"]):
            new = next(x for x, e in part["things"].items() if e["counters"].get(ref) is not None and x in hidden)
            now = part["things"][new]["counters"][ref]
            assert (part["things"][now]["zone"], part["zones"][part["things"][now]["zone"]].index(now)) == place
        renamed += now != named
    assert renamed  # the test can tell: the deal moved the thing named
