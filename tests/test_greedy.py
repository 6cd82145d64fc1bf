"""The greedy bot judges a choice by all it goes on to do for its seat, wherever the content
asks its questions (runtime/agents.py, GreedyAgent.finish)."""
import pytest

from rulepress.runtime.agents import make, play_out
from rulepress.runtime.flow import new_game
from tests.conftest import game_from

# Each seat's home comes first or second in a loop in declared order: the first seat is paid
# its home's 2 before the loop asks anything, the second is asked about the first home first.
# Collecting is worth at least 2 to both; waiting 1.
TOLL = """\
game:
  id: toll
  name: {en: Toll, ru: Пошлина}
  version: 1
  players: {min: 2, max: 2}
counters:
  - id: vp
    name: {en: Victory points, ru: Победные очки}
    of: player
actions:
  - id: wait
    name: {en: Wait, ru: Ждать}
    effect: |
      gain 1 vp
  - id: collect
    name: {en: Collect, ru: Собрать}
    effect: |
      for each k in [1, 2]:
        if k == player.seat:
          gain 2 vp
        else:
          choose n from [0, 1] "Take a token from a rival's home? / Взять жетон из чужого дома?":
            gain n vp
flow:
  first_player: random
  rounds: 4
  phases:
    - id: turns
      name: {en: Turns, ru: Ходы}
      mode: turns
      max_actions: 1
scoring:
  score: player.vp
  tie: share
"""


@pytest.fixture(scope="module")
def toll(tmp_path_factory):
    folder = tmp_path_factory.mktemp("toll")
    (folder / "game.yaml").write_text(TOLL)
    return game_from(str(folder))


@pytest.mark.parametrize("seed", range(4))
def test_greedy_seats_judge_an_effect_whole_whichever_home_its_loop_reaches_first(toll, seed):
    st = new_game(toll, 2, seed)
    play_out(toll, st, {p: make("greedy", f"{seed}:{p}") for p in st["players"]})
    turns = [(who, c) for who, c in st["history"] if c in ("wait", "collect", "pass")]
    assert {who for who, _c in turns} == {"p1", "p2"}
    assert all(c == "collect" for _who, c in turns), turns


def test_greedy_bots_still_play_the_same_game_from_the_same_seed(toll):
    runs = []
    for _ in range(2):
        st = new_game(toll, 2, 5)
        play_out(toll, st, {p: make("greedy", f"5:{p}") for p in st["players"]})
        runs.append(st["history"])
    assert runs[0] == runs[1]


def test_a_heuristic_that_faults_is_said_not_read_as_nothing(tmp_path):
    from rulepress.runtime.interpreter import GameFault
    (tmp_path / "game.yaml").write_text(TOLL.replace("  players: {min: 2, max: 2}\n", "  players: {min: 2, max: 2}\n  heuristic: player.vp / (player.vp - player.vp)\n"))
    game = game_from(str(tmp_path))
    st = new_game(game, 2, 0)
    with pytest.raises(GameFault, match="game.yaml"):
        play_out(game, st, {p: make("greedy", f"0:{p}") for p in st["players"]})
