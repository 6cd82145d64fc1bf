"""A grouping of things by an attribute (Interp.grouped), kept across changes and across
interpreters, always agrees with a fresh look at every thing."""
import random

import pytest

from conftest import content_games, game_from
from rulepress.runtime.agents import RandomAgent, step
from rulepress.runtime.reading import counter_groups, in_play, reader
from rulepress.runtime.flow import new_game
from rulepress.runtime.interpreter import Fail, GameFault, GameOver, Interp, Suspend, _still
from rulepress.runtime.state import clone


def _keys(game):
    """Every (kind, attribute) a loop could be grouped by, with its readers."""
    out = []
    for kind in sorted(game.of_kind):
        attrs = {"location", "zone", "face_up"}
        attrs |= {c for c, d in game.counters.items() if d["of"] == kind}
        for iid in game.of_kind[kind]:
            attrs |= set(game.attrs_of[iid])
        for a in sorted(attrs):
            out.append(((kind, a), reader(game, a, "test"), in_play(game, kind), counter_groups(game, a, "test")))
    return out


def _agrees(it, keys):
    for key, read, live, bulk in keys:
        fresh = {}
        for x in live(it):
            v = read(it, x)
            fresh.setdefault(v if not isinstance(v, list) else tuple(v), []).append(x)
        for v, things in fresh.items():
            group = it.grouped(key, read, live, v, bulk)
            if group is not None:
                assert list(group) == things, (key, v)
        if fresh:
            assert not it.grouped(key, read, live, object(), bulk), key


def _shake(it, rnd, game):
    """A random change of the state, made the way effects make it."""
    st = it.st
    things = sorted(st["things"])
    x = rnd.choice(things)
    try:
        r = rnd.random()
        if r < 0.5:
            zones = sorted(st["zones"]) + sorted(game.locations)
            it.move(x, rnd.choice(zones), rnd.choice([None, "up", "down"]))
        elif r < 0.8:
            counters = sorted(st["things"][x]["counters"])
            if counters:
                c = rnd.choice(counters)
                if game.counters[c]["type"] == "number":
                    it.set_counter(x, c, rnd.randint(-1, 5), "test")
                else:
                    it.set_counter(x, c, rnd.choice(things + [None]), "test")
        else:
            it.move(x, "removed", "up")
    except (Suspend, Fail, GameFault, GameOver):
        pass


@pytest.mark.parametrize("name", content_games())
def test_a_kept_grouping_agrees_with_a_fresh_look_after_random_changes(name):
    game = game_from(f"content/{name}")
    keys = _keys(game)
    rnd = random.Random(name)
    st = new_game(game, game.players_min if game.players_min > 1 else 2, f"group:{name}")
    agents = {p: RandomAgent(p) for p in st["players"]}
    for turn in range(40):
        if st["pending"] is None:
            break
        trial = clone(st)
        it = Interp(game, trial)
        _agrees(it, keys)  # the game's groupings, made for other states, checked against this one
        for _ in range(6):
            _shake(it, rnd, game)
            _agrees(it, keys)
        _agrees(Interp(game, trial), keys)  # a new interpreter of the changed state
        step(game, st, agents)


def test_a_grouping_kept_by_the_game_follows_a_change_in_a_new_interpreter():
    """The game keeps the last grouping made; a new interpreter uses it only while what it
    read still holds, so a change of one thing's grouped attribute is seen at once."""
    from rulepress.compiler.diagnostics import Pos
    from rulepress.compiler.dsl import parse_expr
    game = game_from("content/night-city")
    loop = parse_expr("[c for c in every character where c.side == p]", lambda l, c: Pos("t", l, c))
    st = new_game(game, 2, "one-read")
    mine = Interp(game, st).ev(loop, {"p": "p1"})
    assert mine and ("character", "side") in game.cache.groupings
    kept = game.cache.groupings[("character", "side")]
    assert Interp(game, st).ev(loop, {"p": "p1"}) == mine
    assert game.cache.groupings[("character", "side")] is kept  # found again, not made again
    it = Interp(game, st)
    it.set_counter(mine[0], "side", "p2", "test")
    assert it.ev(loop, {"p": "p1"}) == mine[1:]
    assert Interp(game, st).ev(loop, {"p": "p1"}) == mine[1:]
    assert mine[0] in Interp(game, st).ev(loop, {"p": "p2"})


def test_a_loop_by_two_attributes_follows_every_change():
    """`x.side == p and x.location == d`, d by d, walks a grouping kept in the interpreter:
    after any change it must give what a look at every thing gives."""
    from rulepress.compiler.diagnostics import Pos
    from rulepress.compiler.dsl import parse_expr
    game = game_from("content/night-city")
    loop = parse_expr("[c for c in every character where c.side == p and c.location == d]",
                      lambda l, c: Pos("t", l, c))
    rnd = random.Random("narrow")
    st = new_game(game, 2, "narrow")
    it = Interp(game, st)
    places = sorted(game.locations) + [None]
    for _ in range(60):
        for p in st["players"]:
            for d in places:
                fresh = [c for c in game.of_kind["character"] if c not in st["zones"].get("removed", ())
                         and st["things"][c]["counters"].get("side") == p and it.location_of(c) == d]
                assert it.ev(loop, {"p": p, "d": d}) == fresh, (p, d)
        _shake(it, rnd, game)
        if rnd.random() < 0.3:
            x = rnd.choice(game.of_kind["character"])
            it.set_counter(x, "side", rnd.choice(st["players"]), "test")


def test_every_kind_reads_only_the_removed_things_of_its_kind():
    """`every K` notes ("removed", K), the things of kind K taken out of the game: a grouping of K
    still holds when a thing of another kind is taken out, and not when one of K is."""
    from rulepress.compiler.diagnostics import Pos
    from rulepress.compiler.dsl import parse_expr
    game = game_from("content/night-city")
    loop = parse_expr("[c for c in every character where c.side == p]", lambda l, c: Pos("t", l, c))
    other = next(k for k in game.of_kind if k != "character")
    st = new_game(game, 2, "every-kind")
    first = Interp(game, st).ev(loop, {"p": "p1"})
    kept = game.cache.groupings[("character", "side")]
    assert kept.reads[("removed", "character")] == ()
    it = Interp(game, st)
    it.move(game.of_kind[other][0], "removed", "up")
    assert _still(Interp(game, st), kept.reads)
    it.move(first[0], "removed", "up")
    assert not _still(Interp(game, st), kept.reads)
    assert Interp(game, st).ev(loop, {"p": "p1"}) == first[1:]


@pytest.mark.parametrize("name", content_games())
def test_the_things_in_play_follow_every_move_in_and_out_of_the_removed_zone(name):
    """`every K` leaves out what lies in `removed`; an interpreter that works that out once per
    state must see each change it makes at once."""
    game = game_from(f"content/{name}")
    rnd = random.Random(f"removed:{name}")
    st = new_game(game, game.players_min if game.players_min > 1 else 2, f"removed:{name}")
    it = Interp(game, st)
    kinds = sorted(game.of_kind)
    things = sorted(x for kind in kinds for x in game.of_kind[kind])
    zones = sorted(st["zones"]) + ["removed"] * 3
    moved_out = 0
    for _ in range(150):
        for kind in kinds:
            out = set(st["zones"].get("removed") or ())
            assert list(in_play(game, kind)(it)) == [x for x in game.of_kind[kind] if x not in out]
        x = rnd.choice(things)
        try:
            it.move(x, rnd.choice(zones), "up")
        except (Suspend, Fail, GameFault, GameOver):
            continue
        moved_out += x in (st["zones"].get("removed") or ())
    assert moved_out > 10


