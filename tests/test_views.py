"""Hidden information never reaches a seat that may not see it."""
import json
import os
import re

import pytest

from rulepress.runtime.agents import RandomAgent, step
from rulepress.runtime.flow import apply, new_game
from rulepress.runtime.state import zone_name, zone_owner
from rulepress.runtime.views import view
from tests.conftest import content_games, game_from


def hidden_from(game, st, seat):
    """Ids a seat may not see, decided from the zone declarations alone."""
    out = set()
    for key, ids in st["zones"].items():
        name, owner = zone_name(key), zone_owner(key)
        for eid in ids:
            up = st["things"][eid]["up"]
            if seat in st["things"][eid].get("shown_to", ()):
                continue  # shown to this seat
            if name in game.decks or (name in game.pools and game.pools[name]["visibility"] == "hidden"):
                out.add(eid)
            elif name in game.zones and game.zones[name]["visibility"] == "hidden":
                out.add(eid)
            elif name in game.zones and game.zones[name]["visibility"] == "owner":
                if owner != seat:
                    out.add(eid)
            elif not up:
                out.add(eid)
    return out


_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


def _check_game(game, seeds, players):
    """(hidden things checked absent, visible things checked present) over the views of
    every seat and a spectator at every step of some random games."""
    hidden = shown = 0
    for seed in seeds:
        st = new_game(game, players, seed)
        agents = {p: RandomAgent(f"{seed}{p}") for p in st["players"]}
        steps = 0
        while st["pending"] is not None and steps < 400:
            steps += 1
            for seat in st["players"] + [None]:
                # every string of the view's JSON (keys too), read once: an id is in the
                # view where one of them is the id whole, as `"id"` is in the text
                strings = set(_STRING.findall(json.dumps(view(game, st, seat), ensure_ascii=False)))
                secret = hidden_from(game, st, seat)
                for eid in secret:
                    assert eid not in strings, f"{eid} leaks into the view of {seat}"
                    hidden += 1
                for eid in (x for ids in st["zones"].values() for x in ids if x not in secret):
                    assert eid in strings, f"{eid} is missing from the view of {seat}"
                    shown += 1
            step(game, st, agents)
    return hidden, shown


def test_views_of_the_test_game_hide_hands_decks_and_face_down_tokens(duel):
    hidden, shown = _check_game(duel, range(3), 3)
    assert hidden > 100 and shown > 100


@pytest.mark.parametrize("name", content_games())
def test_views_of_every_content_game_hide_what_they_must(name):
    """One whole game a content game (a second one cost 4 s of CPU a run): what no view may
    hold is also scanned at every decision of a game at two and three players by
    test_secrets; what this adds is that every thing in sight is in the view."""
    game = game_from(os.path.join("content", name))
    hidden, shown = _check_game(game, range(1), game.players_min)
    assert hidden > 100 and shown > 100


def test_hidden_counters_show_only_to_their_owner(duel):
    st = new_game(duel, 2, 1)
    assert "loyalty" in view(duel, st, "p1")["players"]["p1"]["counters"]
    assert "loyalty" not in view(duel, st, "p2")["players"]["p1"]["counters"]
    assert "loyalty" not in view(duel, st, None)["players"]["p1"]["counters"]


def test_a_view_never_carries_the_saved_task(duel):
    st = new_game(duel, 2, 1, first="p1")
    apply(duel, st, "dig")
    assert st["task"] is not None
    for seat in ("p1", "p2", None):
        assert "snap" not in json.dumps(view(duel, st, seat))


def test_a_thing_shown_to_one_player_stays_hidden_from_the_others_until_it_moves(duel):
    from rulepress.runtime.interpreter import Interp
    st = new_game(duel, 3, 4, first="p1")
    it = Interp(duel, st)
    token = st["zones"]["bag"][0]
    it.move(token, "table", "down")
    it.run([["show", "t:1:1", ["str", "t:1:1", token], ["str", "t:1:1", "p1"]]], {})
    assert f'"{token}"' in json.dumps(view(duel, st, "p1"))
    assert f'"{token}"' not in json.dumps(view(duel, st, "p2"))
    assert f'"{token}"' not in json.dumps(view(duel, st, None))
    it.move(token, "bag")
    it.move(token, "table", "down")
    assert f'"{token}"' not in json.dumps(view(duel, st, "p1"))
