"""`any`, `all` and `count` of a test that reads only what is printed on each thing keep each
thing's answer for the game (expressions._per_thing): the answers must be the ones a fresh
look gives, in any state."""
import pytest

from conftest import content_games, game_from
from rulepress.runtime.agents import RandomAgent, step
from rulepress.runtime.analysis import ir_nodes
from rulepress.runtime.expressions import _printed_only, compiled
from rulepress.runtime.flow import new_game
from rulepress.runtime.interpreter import Interp

_PER_THING = {"any_printed", "all_printed", "count_printed"}


def _printed_loops(game):
    """Each loop over a zone of a player that the game answers per thing."""
    out = []
    blocks = [p["effect"] for p in game.procedures.values()] + [a.get("if") for a in game.actions.values()]
    for n in ir_nodes(blocks):
        if n[0] == "gen" and n[2] in ("any", "all", "count") and n[6] is None and n[5][0] == "attr" \
                and n[5][2][0] == "name" and _printed_only(game, n[3], n[4]):
            out.append(n)
    return out


def _fresh(game, it, n, env):
    """The loop's value worked out plainly: the test for every thing, nothing kept."""
    body = compiled(game, n[3])
    answers = [bool(body(it, {**env, n[4]: x})) for x in it.items(compiled(game, n[5])(it, env))]
    return any(answers) if n[2] == "any" else all(answers) if n[2] == "all" else sum(answers)


@pytest.mark.parametrize("name", content_games())
def test_a_printed_test_answered_per_thing_agrees_with_a_fresh_look(name):
    game = game_from(f"content/{name}")
    loops = _printed_loops(game)
    if not loops:
        pytest.skip("no loop tests only printed values")
    st = new_game(game, game.players_min if game.players_min > 1 else 2, f"printed:{name}")
    agents = {p: RandomAgent(p) for p in st["players"]}
    for n in loops:
        assert compiled(game, n).__name__ in _PER_THING, n[1]
    checked = 0
    for _ in range(60):
        if st["pending"] is None:
            break
        it = Interp(game, st)
        for n in loops:
            for p in st["players"]:
                env = {n[5][2][2]: p}
                assert compiled(game, n)(it, env) == _fresh(game, it, n, env), (n[1], p)
                checked += 1
        step(game, st, agents)
    assert checked


def test_only_printed_values_make_a_test_answered_per_thing():
    game = game_from(f"content/{content_games()[0]}")
    printed = next(a for x in game.attrs_of.values() for a in x
                   if a not in game.counters and a not in game.owned_zones and a not in ("kind", "type", "name"))
    attr = ["attr", "t", ["name", "t", "x"], printed]
    assert _printed_only(game, ["op", "t", ">", attr, ["num", "t", 0]], "x")
    assert _printed_only(game, ["not", "t", ["or", "t", attr, ["op", "t", "==", attr, ["str", "t", "a"]]]], "x")
    assert not _printed_only(game, ["attr", "t", ["name", "t", "y"], printed], "x")  # another name's
    assert not _printed_only(game, ["attr", "t", ["name", "t", "x"], "location"], "x")  # where it lies
    counter = next(iter(game.counters))
    assert not _printed_only(game, ["attr", "t", ["name", "t", "x"], counter], "x")
    assert not _printed_only(game, ["call", "t", "count", [attr]], "x")


def test_count_counts_the_true_values_of_the_things_that_pass_the_filter():
    game = game_from(f"content/{content_games()[0]}")
    it = Interp(game, new_game(game, game.players_min if game.players_min > 1 else 2, "count"))
    x = ["name", "t", "x"]
    items = ["list", "t", [["num", "t", v] for v in (0, 1, 2, 3, 4, 5)]]
    odd = ["op", "t", "==", ["op", "t", "%", x, ["num", "t", 2]], ["num", "t", 1]]
    assert compiled(game, ["gen", "t", "count", x, "x", items, None])(it, {}) == 5  # 0 is not true
    assert compiled(game, ["gen", "t", "count", x, "x", items, odd])(it, {}) == 3
    assert compiled(game, ["gen", "t", "count", odd, "x", items, ["op", "t", ">", x, ["num", "t", 2]]])(it, {}) == 2
