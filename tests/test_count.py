"""`count` of a loop: the true values of the things that pass its filter."""
from conftest import content_games, game_from
from rulepress.runtime.flow import new_game
from rulepress.runtime.interpreter import Interp


def test_count_counts_the_true_values_of_the_things_that_pass_the_filter():
    game = game_from(f"content/{content_games()[0]}")
    it = Interp(game, new_game(game, game.players_min if game.players_min > 1 else 2, "count"))
    x = ["name", "t", "x"]
    items = ["list", "t", [["num", "t", v] for v in (0, 1, 2, 3, 4, 5)]]
    odd = ["op", "t", "==", ["op", "t", "%", x, ["num", "t", 2]], ["num", "t", 1]]
    assert it.ev(["gen", "t", "count", x, "x", items, None], {}) == 5  # 0 is not true
    assert it.ev(["gen", "t", "count", x, "x", items, odd], {}) == 3
    assert it.ev(["gen", "t", "count", odd, "x", items, ["op", "t", ">", x, ["num", "t", 2]]], {}) == 2
