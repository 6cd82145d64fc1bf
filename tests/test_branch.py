"""A look-ahead's branch (flow.branch): a copy that shares the things and zones of its world
and copies what it changes. Played on, it must play exactly the game a full copy plays, and
leave its world (and a waiting task's snapshot, which replays share too) as it was."""
import pytest

from rulepress.runtime import flow, visibility
from rulepress.runtime.agents import RandomAgent
from rulepress.runtime.flow import Choices, apply, branch, choices, new_game
from rulepress.runtime.state import clone
from tests.conftest import content_games, game_from

GAMES = content_games()


def _play(game, st, agent, decisions):
    """Up to `decisions` random choices, the way a bot's playout makes them."""
    opts = None
    for _ in range(decisions):
        d = st["pending"]
        if d is None:
            return
        if d["kind"] == "secret":
            p = next(x for x in d["who"] if x not in d["collected"])
            apply(game, st, agent.choose(game, None, p, d["options"][p]), p)
            opts = None
        else:
            if type(opts) is not Choices or opts.d is not d:
                opts = choices(game, st)
            opts = apply(game, st, agent.choose(game, None, d["who"], opts), d["who"], opts)


def _worlds(game, seed, every, limit=400):
    """Worlds as a bot deals them (`visibility.sample`, lean) at every `every`-th decision of a
    random game: some wait in the middle of an effect, some at a turn's choice."""
    st = new_game(game, min(max(2, game.players_min), game.players_max), seed)
    agent = RandomAgent(seed)
    for n in range(limit):
        if st["pending"] is None:
            return
        if n % every == 0:
            d = st["pending"]
            seat = d["who"] if d["kind"] != "secret" else next(p for p in d["who"] if p not in d["collected"])
            yield visibility.sample(game, st, seat, {"rng": n}, lean=True)
        _play(game, st, agent, 1)


@pytest.mark.parametrize("name", GAMES)
def test_a_branch_plays_the_game_a_full_copy_plays_and_leaves_its_world_as_it_was(name):
    game = game_from(f"content/{name}")
    waiting = 0
    for world in _worlds(game, f"branch:{name}", 9):
        waiting += world["task"] is not None
        before = clone(world)
        for k in range(3):  # several branches of one world, as a search plays them
            copy, cheap = clone(world), branch(world)
            for st in (copy, cheap):
                _play(game, st, RandomAgent(f"{name}:{k}"), 40)
            assert flow.state_hash(cheap) == flow.state_hash(copy)
            assert cheap["history"] == copy["history"] and cheap["log"] == copy["log"]
            assert world == before
    assert waiting  # the test can tell: some worlds wait in the middle of an effect


def test_marks_that_expire_in_a_branch_stay_on_its_world(duel):
    """The flow takes marks off at the end of a turn or round outside any task: on a copy of
    the thing, never the world's."""
    world = new_game(duel, 2, 3)
    p = world["players"][0]
    world["things"][p]["marks"].update(dazed="turn", cursed="ever")
    world["flow"]["timed"] = True
    cheap = branch(world)
    flow._expire(cheap, "turn")
    assert cheap["things"][p]["marks"] == {"cursed": "ever"}
    assert world["things"][p]["marks"] == {"dazed": "turn", "cursed": "ever"}


@pytest.mark.parametrize("name", GAMES)
def test_a_replay_leaves_the_snapshot_it_shares_as_it_was(name):
    """A copy of a state waiting in the middle of an effect replays it from the snapshot
    once answered; the replay shares the snapshot's things rather than copying them whole,
    and copies what it changes."""
    game = game_from(f"content/{name}")
    tried = 0
    for world in _worlds(game, f"replay:{name}", 5):
        task = world["task"]
        if task is None or world["pending"]["kind"] == "secret" or not isinstance(task["snap"], dict):
            continue
        snap = task["snap"]
        before = clone(snap)
        for o in world["pending"]["options"][:3]:
            st = clone(world)
            st["task"]["snap"] = snap  # (shared, as a branch shares it)
            apply(game, st, o["id"], world["pending"]["who"])
            _play(game, st, RandomAgent(o["id"]), 10)
            assert snap == before
            tried += 1
    assert tried
