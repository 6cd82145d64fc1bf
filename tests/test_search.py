"""The search bot (`mcts`, runtime/search.py): it plays to win, only from its seat's view.

The head-to-head games are few and their budgets small (RULEPRESS_SLOW_SEARCH=1 plays four
times as many); that the search plays a cooperative game better than chance is shown on a
small game made for it (tests/games/vault), where a few games are enough.
"""
import json
import math
import os

import pytest

from rulepress.runtime import visibility
from rulepress.runtime.agents import Seen, make, play_out
from rulepress.runtime.flow import choices, new_game
from rulepress.runtime.search import ROLLOUT_DEPTH, Evaluation, MctsAgent, parse_budget
from rulepress.runtime.views import view
from tests.conftest import ROOT, game_from

SLOW = bool(os.environ.get("RULEPRESS_SLOW_SEARCH"))


def binomial_tail(k: int, n: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p): how likely k or more wins are by chance alone."""
    return sum(math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(k, n + 1))


def test_the_wins_needed_are_the_fewest_chance_makes_unlikely():
    assert [wins_needed(n, 2) for n in (5, 8, 12)] == [5, 7, 10]
    assert wins_needed(4, 2) == 5  # (none would do)
    assert binomial_tail(wins_needed(8, 3), 8, 1 / 3) < 0.05 <= binomial_tail(wins_needed(8, 3) - 1, 8, 1 / 3)


def test_the_binomial_tail_is_right():
    assert binomial_tail(0, 5, 0.3) == pytest.approx(1.0)
    assert binomial_tail(6, 6, 0.5) == pytest.approx(1 / 64)
    assert binomial_tail(4, 6, 0.25) == pytest.approx(0.0376, abs=1e-4)


def _built(name):
    return game_from(os.path.join("content", name))


def head_to_head(game, spec, n, players, options=None, need=None):
    """Games in which one seat (each seat in turn) is `spec` and the others random: the
    number the searching seat won alone or shared, and the number played. With `need`, the
    games stop once `need` wins are reached or can no longer be: the games are the same
    whatever follows them (fixed seeds), so the verdict is the one all `n` would give."""
    wins = 0
    for i in range(n):
        if need is not None and (wins >= need or wins + n - i < need):
            return wins, i
        st = new_game(game, players, f"h2h:{i}", options)
        me = st["players"][i % players]
        play_out(game, st, {p: make(spec if p == me else "random", f"{i}:{p}") for p in st["players"]})
        wins += me in (st["winners"] or ())
    return wins, n


def wins_needed(n: int, players: int) -> int:
    """The fewest wins of n that chance alone (a random seat's share) gives with p < 0.05."""
    return next(k for k in range(n + 2) if k > n or binomial_tail(k, n, 1 / players) < 0.05)


# (game folder, players, budget, games, game options): short games where the content has an option for it.
# Five games are the fewest that can tell a seat from chance at two players (five wins of five:
# p = 1/32), and the seeds are fixed, so each content game plays five; Love Letter, where
# chance decides more of a game, plays more of its short games. Android plays eight (seven of
# eight: p = 0.035): `mcts:8` wins about 4 in 5 of its games there (20 of 25 on seeds 25-49,
# dealing by what the seat knows or not alike), so five of five fails on any change to the
# bot's draws one time in three. The games stop once the verdict is certain (head_to_head).
# Study in Emerald plays `mcts:8`: with ties between options drawn at random, `mcts:6` won 19
# of 20 on seeds 0-19 but 3 of its first five; `mcts:8` won 20 of 20.
H2H = [
    ("content/study-in-emerald", 2, "mcts:8", 5, {"vp_goal": 10}),
    ("content/night-city", 2, "mcts:6", 5, None),
    ("content/android", 2, "mcts:8", 8, None),
    ("docs/examples/love-letter", 2, "mcts:10", 12, None),
]


@pytest.mark.parametrize("name, players, spec, n, options", H2H, ids=[os.path.basename(h[0]) for h in H2H])
def test_mcts_beats_random_head_to_head(name, players, spec, n, options):
    game = game_from(name)
    n = n * 4 if SLOW else n
    need = wins_needed(n, players)  # (a random seat's share of the wins, ties aside)
    wins, played = head_to_head(game, spec, n, players, options, need)
    assert wins >= need, f"{name}: {spec} won {wins} of {played} against random; {need} of {n} are needed (p < 0.05)"


def fisher_tail(a: int, n: int, b: int, m: int) -> float:
    """One-sided Fisher exact test: how likely `a` or more of all the a + b wins fall into
    the first n of n + m games by chance alone."""
    wins, games = a + b, n + m
    return sum(math.comb(wins, k) * math.comb(games - wins, n - k) for k in range(a, min(wins, n) + 1)) / math.comb(games, n)


def rank_sum_z(better, worse) -> float:
    """One-sided Mann-Whitney by its normal approximation (ties corrected): for groups too
    big to enumerate every split."""
    from collections import Counter
    values = sorted(better + worse)
    rank, i = {}, 0
    while i < len(values):
        j = i
        while j < len(values) and values[j] == values[i]:
            j += 1
        rank[values[i]] = (i + j + 1) / 2
        i = j
    n, m = len(better), len(worse)
    u = sum(rank[v] for v in better) - n * (n + 1) / 2
    ties = sum(c ** 3 - c for c in Counter(values).values())
    sd = math.sqrt(n * m / 12 * ((n + m + 1) - ties / ((n + m) * (n + m - 1))))
    if sd == 0:  # every value the same: nothing tells the groups apart
        return 1.0
    return 0.5 * math.erfc((u - n * m / 2) / sd / math.sqrt(2))


def test_the_fisher_and_normal_rank_sum_tails_are_right():
    assert fisher_tail(3, 3, 0, 3) == pytest.approx(1 / 20)  # all 3 wins in the first 3 of 6 games
    assert fisher_tail(0, 5, 2, 5) == pytest.approx(1.0)
    assert rank_sum_z(list(range(50, 100)), list(range(50))) < 1e-6
    assert rank_sum_z([1, 4, 5, 8], [2, 3, 6, 7]) == pytest.approx(0.5)  # as much rank either side
    assert rank_sum_z([(1, 0)] * 3 + [(0, -5)], [(0, -9)] * 40) < 0.01  # a win outranks any margin
    assert rank_sum_z([1, 1], [1, 1]) == 1.0


def _coop(game, spec, n, first=0):
    """n one-seat games of a cooperative game: (won, the seat's heuristic terms as a tie-break) each."""
    out = []
    for i in range(first, first + n):
        st = new_game(game, 1, f"coop:{i}")
        play_out(game, st, {p: make(spec, f"{i}:{p}") for p in st["players"]})
        out.append(st["scores"]["p1"])
    return out


def test_a_searching_crew_opens_the_cooperative_vault_where_a_random_one_does_not():
    """tests/games/vault: five dials, one right mark each, opened together. A random crew
    opens it once in 3125 games; the search, valuing the team's dials set right, opens it
    nearly always: a handful of games tells them apart (Fisher's exact test)."""
    game = game_from("tests/games/vault")
    assert game.bot["cooperative"]
    searched, blind = _coop(game, "mcts:20", 8), _coop(game, "random", 40, 1000)
    p = fisher_tail(sum(searched), len(searched), sum(blind), len(blind))
    assert p < 0.001, f"mcts opened the vault {sum(searched)} of 8 times, random {sum(blind)} of 40 (p = {p:.4f})"


def test_the_search_plays_arkham_horrors_cooperative_game_to_its_end():
    """The content's cooperative game with the search at its seat: played to an ending with
    a score (whether the bot plays it well is the vault's test, in a few games)."""
    game = _built("arkham-horror")
    assert game.bot["cooperative"]
    (score,) = _coop(game, "mcts:4", 1)
    assert score in (0, 1)


# ---- honest: the view and the options, nothing more --------------------------------

def _positions(game, players, steps, seed=0):
    """A state after `steps` random decisions."""
    st = new_game(game, players, seed)
    agents = {p: make("random", p) for p in st["players"]}
    for _ in range(steps):
        if st["pending"] is None:
            break
        from rulepress.runtime.agents import step
        step(game, st, agents)
    return st


def _decider(st):
    d = st["pending"]
    return d["who"] if d["kind"] != "secret" else next(p for p in d["who"] if p not in d["collected"])


@pytest.mark.parametrize("name, steps", [("android", 40), ("night-city", 30), ("study-in-emerald", 25)])
def test_the_choice_is_the_same_when_what_the_seat_cannot_see_is_dealt_otherwise(name, steps):
    game = _built(name)
    st = _positions(game, 3, steps)
    seat = _decider(st)
    # the same game as the seat sees it: the hidden things dealt again, the dice's generator another
    other = visibility.sample(game, st, seat, {"rng": 12345})
    other["log"], other["history"] = st["log"], st["history"]  # (what the seat read of them is the same)
    assert view(game, other, seat) == view(game, st, seat)
    hidden = [k for k in st["zones"] if st["zones"][k] != other["zones"].get(k)]
    assert hidden and other["rng"] != st["rng"]  # the test can tell: the deal and the dice differ
    picks = []
    for world in (st, other):
        opts = visibility.seat_options(game, world, seat, choices(game, world, seat))
        picks.append(MctsAgent("same", "12").choose(game, Seen(game, world, seat), seat, opts))
    assert picks[0] == picks[1]


def test_what_a_seat_is_handed_shares_nothing_with_the_real_state():
    """An agent cannot read or change the state through what it is handed: every list and
    map in its view and its samples is a copy."""
    game = _built("android")
    st = _positions(game, 3, 30)
    seat = _decider(st)
    real = set()
    stack = [st]
    while stack:
        v = stack.pop()
        if isinstance(v, (dict, list)):
            real.add(id(v))
            stack.extend(v.values() if isinstance(v, dict) else v)
    seen = Seen(game, st, seat)
    handed = [seen.view(), seen.sample({"rng": 1}), seen.sample({"rng": 2}, lean=True)]
    stack = list(handed)
    while stack:
        v = stack.pop()
        if isinstance(v, (dict, list)):
            assert id(v) not in real
            stack.extend(v.values() if isinstance(v, dict) else v)
    agent = MctsAgent(1, "8")
    before = json.dumps(st, sort_keys=True, default=str)
    opts = visibility.seat_options(game, st, seat, choices(game, st, seat))
    agent.choose(game, seen, seat, opts)
    assert json.dumps(st, sort_keys=True, default=str) == before  # the search left the real game as it was
    assert not any(id(x) in real for x in agent.__dict__.values())  # and keeps nothing of it


def test_mcts_guesses_a_hidden_card_no_better_than_chance():
    game = game_from("tests/games/guess")
    games = 60
    right = 0
    for i in range(games):
        st = new_game(game, 2, f"g{i}")
        play_out(game, st, {p: MctsAgent(f"{i}{p}", "10") for p in st["players"]})
        right += sum(st["scores"].values())
    # 1 in 5 by chance; 120 guesses: three standard deviations are about 0.11
    assert abs(right / (2 * games) - 0.2) < 0.11, right


# ---- seeded, budgeted ------------------------------------------------------------

@pytest.mark.parametrize("spec", ["mcts:8", "mcts:8:greedy"])
def test_the_same_seed_and_playouts_give_the_same_game(duel, spec):
    runs = []
    for _ in range(2):
        st = new_game(duel, 2, 4)
        play_out(duel, st, {p: make(spec, f"4:{p}") for p in st["players"]})
        runs.append(st["history"])
    assert runs[0] == runs[1] and st["over"]


def test_a_greedy_rollout_takes_the_option_the_evaluation_likes_best(race):
    from rulepress.runtime.flow import apply
    from rulepress.runtime.state import clone
    agent = MctsAgent(1, "8:greedy")
    agent.evaluation, agent.depth = Evaluation(race), 1
    st = new_game(race, 2, 0)
    seat = _decider(st)
    worth = []
    for o in choices(race, st, seat):
        after = clone(st)
        apply(race, after, o["id"], seat)
        worth.append(agent.evaluation.utilities(after)[seat])
    assert len(set(worth)) > 1 and len(worth) <= 8  # options worth different amounts, all tried
    agent._greedy_rollout(race, st)
    assert agent.evaluation.utilities(st)[seat] == max(worth)


def test_a_budget_in_milliseconds_is_kept(duel):
    import time
    st = new_game(duel, 2, 1)
    seat = _decider(st)
    opts = choices(duel, st, seat)
    agent = make("mcts:30ms", 1)
    t = time.perf_counter()
    assert agent.choose(duel, Seen(duel, st, seat), seat, opts) in [o["id"] for o in opts]
    assert time.perf_counter() - t < 2  # 30 ms, and one playout past it at most (a loaded machine aside)


D = ROLLOUT_DEPTH


@pytest.mark.parametrize("text, budget", [("200", (200, None, "random", D)), ("50ms", (None, 50, "random", D)),
                                          ("1", (1, None, "random", D)), ("20:greedy", (20, None, "greedy", D)),
                                          ("9ms:random", (None, 9, "random", D)), ("100:depth0", (100, None, "random", 0)),
                                          ("100:depth2:greedy", (100, None, "greedy", 2)), ("5:random:depth16", (5, None, "random", 16))])
def test_budgets_read(text, budget):
    assert tuple(parse_budget(text)) == budget


@pytest.mark.parametrize("text", ["", "0", "abc", "-1", "1.5", "5s", "ms", "100001", "\u0661\u0662", " 12",
                                  "20:", "20:greed", "20:greedy:greedy", ":greedy", "greedy",
                                  "20:depth", "20:depth17", "20:depth-1", "20:depth2:depth2", "20:depth\u0662", "20:depth002",
                                  "20:greedy:depth1:random", "depth2", "20:Depth2"])
def test_a_budget_that_is_not_one_says_so(text):
    if text == " 12":  # (spaces around are let go, as everywhere in an agent spec)
        assert parse_budget(text) == (12, None, "random", D)
        return
    with pytest.raises(ValueError):
        parse_budget(text)


def test_an_agent_spec_takes_a_depth():
    from rulepress.runtime.agents import check
    assert make("mcts:10:depth3", 0).depth == 3 and make("mcts", 0).depth == D
    with pytest.raises(ValueError, match="depth"):
        check("mcts:10:depth99")


def _inside_an_effect(game, seed):
    """A state of a random game waiting, past its start, for a decision inside an effect with
    more than one option; its seat and options."""
    from rulepress.runtime.decision import Decision
    from rulepress.runtime.flow import apply
    st = new_game(game, 2, seed)
    rnd = make("random", seed)
    for k in range(400):
        seat = Decision.of(game, st).next_seat()
        opts = choices(game, st, seat)
        if k > 5 and st["task"] is not None and len(opts) > 1:
            return st, seat, opts
        apply(game, st, opts[0]["id"] if len(opts) == 1 else rnd.choose(game, None, seat, opts), seat)
    raise AssertionError("no such decision")


def test_playouts_replay_a_waiting_effect_only_where_they_leave_what_is_known(monkeypatch):
    """At a decision inside an effect every playout once replayed the effect from its start
    (a paused generator cannot be copied): 40 replays for mcts:40. A node now keeps, for each
    world, what it found while no die was rolled, and a playout is played only from where that
    ends; it makes the same choice with the generator's same draws."""
    from rulepress.runtime import flow, search
    game = game_from("docs/examples/love-letter")
    st, seat, opts = _inside_an_effect(game, "replays")
    replays = []
    restore = flow._restore

    def counted(*a):
        replays.append(1)
        return restore(*a)
    monkeypatch.setattr(flow, "_restore", counted)
    bot = make("mcts:40:depth4", 1)
    choice = bot.choose(game, Seen(game, st, seat), seat, opts)
    assert 0 < len(replays) <= 20

    class Forgets(dict):
        def __setitem__(self, k, v):
            pass
    init = search.Node.__init__

    def forgetful(self):
        init(self)
        self.known = Forgets()
    monkeypatch.setattr(search.Node, "__init__", forgetful)
    del replays[:]
    again = make("mcts:40:depth4", 1)
    assert again.choose(game, Seen(game, st, seat), seat, opts) == choice and again.st == bot.st
    assert len(replays) == 40


# ---- the bot: section --------------------------------------------------------------

def test_the_bot_terms_add_to_the_heuristic(tmp_path):
    import shutil
    shutil.copytree(os.path.join(ROOT, "tests/games/duel"), tmp_path / "duel")
    with open(tmp_path / "duel" / "game.yaml", "a") as f:
        f.write("\nbot:\n  terms:\n    - {value: player.vp * 2, weight: 0.5}\n    - {value: 3, weight: -1}\n")
    plain, termed = game_from("tests/games/duel"), game_from(str(tmp_path / "duel"))
    assert plain.bot is None and termed.bot == {"cooperative": False, "terms": termed.bot["terms"]}
    st = new_game(termed, 2, 0)
    st["things"]["p1"]["counters"]["vp"] = 4
    base = Evaluation(plain).values(st)
    assert Evaluation(termed).values(st) == {p: v + 0.5 * 2 * st["things"][p]["counters"]["vp"] - 3 for p, v in base.items()}


# ---- from the command line -------------------------------------------------------------

def test_simulate_and_play_take_an_mcts_seat(duel):
    import io

    from click.testing import CliRunner
    from rich.console import Console

    from rulepress.cli import main
    from rulepress.terminal import play
    duel_dir = os.path.join(ROOT, "tests/games/duel")
    runs = [CliRunner().invoke(main, ["simulate", duel_dir, "-n", "3", "--agent", "p1=mcts:5,random", "--json"])
            for _ in range(2)]
    assert runs[0].exit_code == 0, runs[0].output
    assert json.loads(runs[0].stdout)["games"] == 3 and runs[0].stdout == runs[1].stdout
    st = play(duel, 2, 3, "p1=mcts:5,p2", "en", None, input_fn=lambda _p: "q",
              con=Console(file=io.StringIO(), width=160, color_system=None))
    assert st["over"]


def test_the_worlds_a_search_leaves_are_let_go():
    """Each playout leaves its world with an effect waiting for a decision; those effects must
    not pile up in memory (they once held ~200 MB a Night City game, until a long balance run
    ran out of memory)."""
    import gc
    from types import GeneratorType

    def waiting():  # effects paused in memory, of this test or of others before it
        gc.collect()
        return sum(1 for g in gc.get_objects() if type(g) is GeneratorType and g.gi_frame is not None)
    before = waiting()
    game = game_from("docs/examples/love-letter")
    kept = []
    for i in range(3):
        st = new_game(game, 2, f"mem:{i}")
        play_out(game, st, {p: make("mcts:30", f"{i}:{p}") for p in st["players"]})
        kept.append(waiting() - before)
    assert kept[-1] <= kept[0] + 5 and kept[-1] < 50  # flat: nothing piles up game after game


def test_a_bot_term_that_cannot_be_worked_out_is_said_not_ignored(tmp_path):
    """A `bot:` term that fails in every world (here it divides by zero) once counted for
    nothing, and the bot played on as if the content had no such term."""
    import shutil

    from rulepress.runtime.faults import GameFault
    folder = tmp_path / "duel"
    shutil.copytree(os.path.join(ROOT, "tests", "games", "duel"), folder)
    with open(folder / "game.yaml", "a", encoding="utf-8") as f:
        f.write("bot:\n  terms:\n    - value: player.vp / (player.vp - player.vp)\n      weight: 1\n")
    game = game_from(str(folder))
    st = new_game(game, 2, "term")
    with pytest.raises(GameFault, match="division by zero") as fault:
        play_out(game, st, {p: make("mcts:5", p) for p in st["players"]})
    assert str(fault.value).startswith("game.yaml:")


# ---- ties ----------------------------------------------------------------------------------

ALIKE = """\
game:
  id: alike
  name: {en: Alike, ru: Одинаково}
  version: 1
  players: {min: 2, max: 2}
counters:
  - id: vp
    name: {en: Victory points, ru: Победные очки}
    of: player
actions:
  - {id: north, name: {en: North, ru: Север}, effect: "gain 1 vp"}
  - {id: east, name: {en: East, ru: Восток}, effect: "gain 1 vp"}
  - {id: south, name: {en: South, ru: Юг}, effect: "gain 1 vp"}
flow:
  first_player: random
  rounds: 1
  phases:
    - {id: turns, name: {en: Turns, ru: Ходы}, mode: turns, max_actions: 1}
scoring:
  score: player.vp
  tie: share
"""


def test_a_search_between_options_alike_takes_any_not_the_first_declared(tmp_path):
    (tmp_path / "game.yaml").write_text(ALIKE)
    game = game_from(str(tmp_path))
    picks = []
    for seed in range(24):
        st = new_game(game, 2, seed)
        seat = _decider(st)
        opts = [o for o in choices(game, st, seat) if o["id"] != "pass"]
        # three playouts, each option searched once and worth the same: a tie on every count
        picks.append(MctsAgent(seed, "3:depth0").choose(game, Seen(game, st, seat), seat, opts))
    assert set(picks) == {"north", "east", "south"}, picks
