"""The runtime's promises: determinism, save/load anywhere, refusal of illegal choices."""
import json

import pytest
from conftest import content_games, game_from

from rulepress.runtime.agents import RandomAgent, play_out, step
from rulepress.runtime.flow import IllegalChoice, apply, choices, decision, new_game, state_hash
from rulepress.runtime.interpreter import GameFault
from rulepress.runtime.replay import ReplayError, make_log, replay


def _play(game, seed, players=3):
    st = new_game(game, players, seed)
    play_out(game, st, {p: RandomAgent(f"{seed}{p}") for p in st["players"]})
    return st


def test_same_seed_and_choices_give_the_same_game_byte_for_byte(duel):
    a, b = _play(duel, 11), _play(duel, 11)
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    assert a["scores"] is not None


def test_different_seeds_give_different_games(duel):
    hashes = {state_hash(_play(duel, s)) for s in range(5)}
    assert len(hashes) > 1


def test_state_saved_while_an_effect_waits_for_a_choice_continues_identically(duel):
    st = new_game(duel, 2, "mid", first="p1")
    apply(duel, st, "dig")                      # the effect now waits on "Reveal the token?"
    assert st["pending"]["kind"] == "may"
    saved = json.loads(json.dumps(st))          # plain JSON, nothing else
    for s in (st, saved):
        apply(duel, s, "yes")
    assert state_hash(st) == state_hash(saved)
    play_out(duel, st, {p: RandomAgent(p) for p in st["players"]})
    play_out(duel, saved, {p: RandomAgent(p) for p in saved["players"]})
    assert state_hash(st) == state_hash(saved)


def test_illegal_choice_is_refused_with_a_reason_and_changes_nothing(duel):
    st = new_game(duel, 2, 3)
    before = json.dumps(st, sort_keys=True)
    with pytest.raises(IllegalChoice, match="not a legal choice"):
        apply(duel, st, "fly to the moon")
    with pytest.raises(IllegalChoice, match="decision"):
        apply(duel, st, decision(duel, st)["options"][0]["id"], seat="p9")
    assert json.dumps(st, sort_keys=True) == before


def test_cost_that_cannot_be_paid_makes_the_action_illegal(duel):
    st = new_game(duel, 2, 5, first="p1")
    st["things"]["p1"]["counters"]["gold"] = 0
    st["pending"] = None
    st["flow"]["stage"] = "turn_act"
    from rulepress.runtime.flow import advance
    advance(duel, st)
    assert "dig" not in [o["id"] for o in decision(duel, st)["options"]]


def test_secret_choices_are_collected_hidden_and_revealed_together(duel):
    from rulepress.runtime.views import view
    st = new_game(duel, 2, 8, first="p1")
    apply(duel, st, "duel")
    d = st["pending"]
    assert d["kind"] == "secret" and sorted(d["who"]) == ["p1", "p2"]
    mine = d["options"]["p1"][0]["id"]
    apply(duel, st, mine, "p1")
    assert st["pending"]["kind"] == "secret"           # still waiting for p2
    v2 = json.dumps(view(duel, st, "p2"))
    assert mine not in v2                              # p1's pick is not shown to p2
    apply(duel, st, st["pending"]["options"]["p2"][0]["id"], "p2")
    assert st["pending"]["kind"] == "action"


def test_threshold_fires_once_when_a_track_reaches_it(duel):
    st = new_game(duel, 2, 1, first="p1")
    from rulepress.runtime.interpreter import Interp
    it = Interp(duel, st)
    for _ in range(4):
        it.set_counter(None, "tension", st["game_counters"]["tension"] + 1, "test")
    assert st["game_counters"]["tension"] == 4
    assert [st["things"][p]["counters"]["vp"] for p in st["players"]] == [1, 1]
    it.set_counter(None, "tension", 99, "test")
    assert st["game_counters"]["tension"] == 5                      # clamped at the track's end


def test_an_endless_loop_stops_with_an_error_naming_its_line(tmp_path):
    from tests.conftest import game_from
    import shutil, os
    src = os.path.join(os.path.dirname(__file__), "games", "duel")
    dst = tmp_path / "loop"
    shutil.copytree(src, dst)
    text = (dst / "game.yaml").read_text()
    text = text.replace("      draw 1 from blades\n", "      draw 1 from blades\n      while true:\n        gain 1 vp\n")
    (dst / "game.yaml").write_text(text)
    game = game_from(str(dst))
    st = new_game(game, 2, 1, first="p1")
    with pytest.raises(GameFault, match=r"game.yaml:\d+:\d+: .*steps"):
        apply(game, st, "arm")


def test_replay_reproduces_the_final_state(duel):
    st = _play(duel, 21)
    log = make_log(duel, st, 3, 21)
    again = replay(duel, json.loads(json.dumps(log)))
    assert state_hash(again) == log["final_hash"]


def test_replay_refuses_a_log_from_another_content_version(duel):
    st = _play(duel, 2)
    log = make_log(duel, st, 3, 2)
    log["content_hash"] = "0000000000000000"
    with pytest.raises(ReplayError, match="another version"):
        replay(duel, log)


def test_player_count_outside_the_game_is_refused(duel):
    with pytest.raises(IllegalChoice, match="2 to 3 players"):
        new_game(duel, 7, 1)


def test_simulation_results_do_not_depend_on_worker_count(duel):
    from rulepress.runtime.simulate import simulate
    a = simulate(duel, 12, seed=4, players=2, workers=1)
    b = simulate(duel, 12, seed=4, players=2, workers=2)
    assert a == b and a["finished"] == 12


def test_end_game_stops_the_effect_at_once_and_lists_join(tmp_path):
    from tests.conftest import game_from
    import shutil, os
    dst = tmp_path / "g"
    shutil.copytree(os.path.join(os.path.dirname(__file__), "games", "duel"), dst)
    text = (dst / "game.yaml").read_text().replace(
        "      draw 1 from blades\n",
        "      draw 1 from blades\n      gain count([1, 2] + [3]) vp\n      end game\n      gain 100 vp\n")
    (dst / "game.yaml").write_text(text)
    game = game_from(str(dst))
    st = new_game(game, 2, 1, first="p1")
    apply(game, st, "arm")
    assert st["over"] and st["scores"]["p1"] == 3


def test_on_is_a_key_not_a_boolean(tmp_path):
    from rulepress.compiler.diagnostics import Report
    from rulepress.compiler.source import load_file
    f = tmp_path / "t.yaml"
    f.write_text("triggers:\n  - id: t\n    on: round_end\n    effect: end game\n")
    rep = Report()
    doc = load_file(str(f), "t.yaml", rep)
    assert doc["triggers"][0]["on"] == "round_end" and not rep.items


def test_a_waiting_effect_continued_in_memory_ends_as_one_replayed_from_saved_data(duel):
    """Live continuation is only a shortcut: saving and loading at every decision changes nothing."""
    live = new_game(duel, 3, 17)
    saved = new_game(duel, 3, 17)
    agents_a = {p: RandomAgent(p) for p in live["players"]}
    agents_b = {p: RandomAgent(p) for p in saved["players"]}
    while live["pending"] is not None:
        saved = json.loads(json.dumps(saved))          # forces a replay of any waiting effect
        for st, agents in ((live, agents_a), (saved, agents_b)):
            step(duel, st, agents)
        assert state_hash(live) == state_hash(saved)
    assert live["scores"] == saved["scores"]


@pytest.mark.parametrize("folder", ["docs/examples/coup", "docs/examples/love-letter", "tests/games/secret-pick"])
def test_a_state_waiting_inside_an_effect_copies_saves_and_plays_on_as_the_live_one(folder):
    """At every decision, a copy (state.clone, copy.deepcopy, JSON) of a state whose effect
    waits live is plain data and plays the next choice to the very state the live one
    reaches; the live one goes on as it would have."""
    import copy

    from rulepress.runtime.state import clone
    game = game_from(folder)
    for seed in range(3):
        live = new_game(game, 2, seed)
        agents = {p: RandomAgent(p) for p in live["players"]}
        waited = 0
        while live["pending"] is not None:
            waited += live["task"] is not None
            copies = [clone(live), copy.deepcopy(live), json.loads(json.dumps(live))]
            d = live["pending"]
            seat = d["who"] if d["kind"] != "secret" else next(p for p in d["who"] if p not in d["collected"])
            pick = agents[seat].choose(game, live, seat, choices(game, live, seat))
            for st in copies:
                apply(game, st, pick, seat)
            apply(game, live, pick, seat)
            assert all(state_hash(st) == state_hash(live) for st in copies)
        assert waited


def _duel_variant(tmp_path, old, new):
    from tests.conftest import game_from
    import shutil, os
    dst = tmp_path / "v"
    shutil.copytree(os.path.join(os.path.dirname(__file__), "games", "duel"), dst)
    text = (dst / "game.yaml").read_text()
    assert old in text
    (dst / "game.yaml").write_text(text.replace(old, new))
    return game_from(str(dst))


def test_a_phase_can_forbid_passing_while_an_action_is_legal(tmp_path):
    game = _duel_variant(tmp_path, "      max_actions: 1\n", "      max_actions: 1\n      can_pass: false\n")
    st = new_game(game, 2, 1, first="p1")
    assert "pass" not in [o["id"] for o in decision(game, st)["options"]]


def test_marks_until_end_of_turn_are_still_there_for_turn_end_triggers(tmp_path):
    game = _duel_variant(tmp_path, "      draw 1 from blades\n",
                         "      draw 1 from blades\n      mark player as hasty until end of turn\n"
                         "triggers:\n  - id: check_mark\n    on: turn_end\n    effect: |\n"
                         "      if player has hasty:\n        gain 10 vp\n")
    st = new_game(game, 2, 1, first="p1")
    apply(game, st, "arm")
    assert st["things"]["p1"]["counters"]["vp"] == 10 and "hasty" not in st["things"]["p1"]["marks"]


def test_turn_ends_look_for_timed_marks_only_while_one_may_be_in_play(duel):
    """The flow notes a timed mark when an effect makes one (here an interrupting one, as a
    scenario's run is) and forgets the note once none is left."""
    from rulepress.compiler.diagnostics import Pos
    from rulepress.compiler.dsl import parse
    from rulepress.runtime.flow import interrupt
    st = new_game(duel, 2, 1, first="p1")
    assert "timed" not in st["flow"]               # the duel makes none: turn ends walk nothing
    ir = parse("mark player as dazed until end of turn\nmark player as scarred", lambda l, c: Pos("run", l, c))
    interrupt(duel, st, ir, {"player": "p1"})
    assert st["flow"].get("timed") and st["things"]["p1"]["marks"] == {"dazed": "turn", "scarred": "ever"}
    apply(duel, st, "arm")
    assert st["things"]["p1"]["marks"] == {"scarred": "ever"} and "timed" not in st["flow"]


@pytest.mark.parametrize("folder", ["content/android", "content/study-in-emerald"])
def test_a_waiting_effects_snapshot_stays_the_state_it_started_from(folder):
    """Snapshots share things and zones with the live state until the task changes them:
    the live state, snapshot included, must equal one saved and loaded at every decision."""
    from tests.conftest import game_from
    game = game_from(folder)
    live, saved = new_game(game, 2, 5), new_game(game, 2, 5)
    agents_a = {p: RandomAgent(p) for p in live["players"]}
    agents_b = {p: RandomAgent(p) for p in saved["players"]}
    waited = 0
    for _ in range(400):
        if live["pending"] is None:
            break
        saved = json.loads(json.dumps(saved))
        assert json.dumps(live, sort_keys=True) == json.dumps(saved, sort_keys=True)
        waited += live["task"] is not None
        step(game, live, agents_a)
        step(game, saved, agents_b)
    assert waited > 10


def test_a_call_fails_where_it_would_nest_too_deep_though_it_worked_higher_up():
    """A call that would nest past the limit fails, even when the same call with the same
    arguments was worked out a moment before from higher up."""
    from rulepress.runtime.interpreter import DEPTH_LIMIT, Interp
    from tests.conftest import game_from
    game = game_from("tests/games/duel")
    P = "t:1:1"
    n = ["name", P, "n"]
    game.procedures["deep"] = {"params": ["n"], "effect": [
        ["if", P, [[["op", P, "==", n, ["num", P, 0]], [["return", P, ["num", P, 0]]]]], None],
        ["return", P, ["op", P, "+", ["num", P, 1], ["call", P, "deep", [["op", P, "-", n, ["num", P, 1]]]]]]]}
    call = ["call", P, "deep", [["num", P, DEPTH_LIMIT - 10]]]
    st = new_game(game, 2, 1)
    it = Interp(game, st)
    assert it.ev(call, {}) == DEPTH_LIMIT - 10
    it.depth = 20
    with pytest.raises(GameFault, match="nest more than"):
        it.ev(call, {})


def test_playing_the_same_game_again_compiles_nothing_new(duel):
    """Blocks are compiled once and kept with the game: an action without a cost must not
    bring a new empty block to compile (and keep) at every turn."""
    _play(duel, 4)
    compiled = len(duel.cache.code.blocks), len(duel.cache.code.exprs), len(duel.cache.code.lines)
    _play(duel, 4)
    assert (len(duel.cache.code.blocks), len(duel.cache.code.exprs), len(duel.cache.code.lines)) == compiled


@pytest.mark.parametrize("folder", ["content/android", "content/study-in-emerald"])
def test_first_of_a_list_is_the_first_value_of_the_whole_list(folder):
    """`first([...])` stops at the first value the list would hold; `top([...])` works the
    whole list out first. Both must agree, in every state a game passes through."""
    from rulepress.compiler.diagnostics import Pos
    from rulepress.compiler.dsl import parse_expr
    from rulepress.runtime.interpreter import Interp
    from rulepress.runtime.state import Zone
    from tests.conftest import game_from
    game = game_from(folder)

    def ir(text):
        return parse_expr(text, lambda l, c: Pos("t", l, c))
    shapes = ["[x for x in every {k} where x.zone == z]", "[x.id for x in z where x.kind == \"{k}\" or x.face_up]"]
    pairs = [(ir(f"first({s.format(k=k)})"), ir(f"top({s.format(k=k)})")) for s in shapes for k in sorted(game.of_kind)]
    st = new_game(game, 2, 3)
    agents = {p: RandomAgent(p) for p in st["players"]}
    found = 0
    for _ in range(40):
        if st["pending"] is None:
            break
        it = Interp(game, st)
        for z in sorted(st["zones"]):
            for first, top in pairs:
                v = it.ev(first, {"z": Zone(z)})
                assert v == it.ev(top, {"z": Zone(z)}), (z, first)
                found += v is not None
        step(game, st, agents)
    assert found > 100


def test_an_effect_waiting_in_memory_sees_what_an_interruption_changed(tmp_path):
    """A waiting effect keeps what it worked out while nothing else runs; an interruption
    changes the state meanwhile, and the effect must then read the state afresh."""
    from rulepress.compiler.diagnostics import Pos
    from rulepress.compiler.dsl import parse
    from rulepress.runtime.flow import interrupt
    game = _duel_variant(tmp_path, "      draw 1 from blades\n",
                         "      draw 1 from blades\n      let before = wealth(player)\n"
                         "      may \"Cash in?\":\n        gain wealth(player) vp\n"
                         "procedures:\n  - id: wealth\n    params: [p]\n    effect: |\n      return p.gold\n")
    st = new_game(game, 2, 1, first="p1")
    apply(game, st, "arm")
    assert st["pending"]["kind"] == "may" and st["things"]["p1"]["counters"]["gold"] == 2
    interrupt(game, st, parse("gain 3 gold to p1", lambda l, c: Pos("t", l, c)), {"player": "p1"})
    apply(game, st, "yes")
    assert st["things"]["p1"]["counters"]["vp"] == 5


def test_within_lists_the_other_locations_no_farther_than_the_distance_each_time_anew():
    """`within(a, r)`: every other location at most r from a, in table order; each call gives
    a list of its own, so what one caller does with it the next does not see."""
    from rulepress.runtime.interpreter import Interp
    from tests.conftest import game_from
    game = game_from("content/android")
    it = Interp(game, new_game(game, 2, 1))
    for a in game.locations:
        for r in (0, 1, 11.5, 14, 16.5):
            want = [x for x in game.locations if x != a and it.distance(a, x, "t") <= r]
            got = it.function("within", [a, r], "t")
            assert got == want
            got.append(a)
            assert it.function("within", [a, r], "t") == want


def _eager_options(game, st):
    """A turn's options as the rules say them: each action whose condition and cost hold, then pass."""
    from rulepress.runtime.interpreter import Interp
    d, phase = st["pending"], game.flow["phases"][st["flow"]["ph"]]
    legal = [a for a in d["actions"] if Interp(game, st).action_allowed(a, d["who"])]
    if not legal or "can_pass" not in phase or Interp(game, st).ev(phase["can_pass"], {"player": d["who"], "phase": phase["id"]}):
        legal.append("pass")
    return legal


def test_a_turns_options_are_worked_out_when_asked_and_a_random_pick_is_always_legal(duel):
    from rulepress.runtime import rng
    from rulepress.runtime.flow import choices
    st = new_game(duel, 2, "lazy", first="p1")
    st["things"]["p1"]["counters"]["gold"] = 0              # dig cannot be paid for
    before = json.dumps(st, sort_keys=True)
    opts = choices(duel, st)
    assert [o["id"] for o in opts] == _eager_options(duel, st)
    assert "dig" not in [o["id"] for o in opts] and "pass" in [o["id"] for o in opts]
    assert decision(duel, st)["options"] == list(opts)
    picked = {choices(duel, st).sample({"rng": rng.seed_state(i)}) for i in range(200)}
    assert picked == set(_eager_options(duel, st))  # every legal option, and nothing else
    assert json.dumps(st, sort_keys=True) == before  # asking changed nothing in the state
    with pytest.raises(IllegalChoice, match="legal: duel, arm, pass"):
        apply(duel, st, "dig")


@pytest.mark.parametrize("name", content_games())
def test_random_bots_take_only_legal_options_in_every_content_game(name):
    from rulepress.runtime.flow import choices
    game = game_from(f"content/{name}")
    st = new_game(game, max(2, game.players_min), "legal")
    bots = {p: RandomAgent(p) for p in st["players"]}
    turns = 0
    while st["pending"] is not None and turns < 60:
        d = st["pending"]
        if d["kind"] == "action":
            turns += 1
            pick = bots[d["who"]].choose(game, st, d["who"], choices(game, st))
            assert pick in _eager_options(game, st)
            apply(game, st, pick)
        else:
            step(game, st, bots)
    assert turns == 60 or st["scores"] is not None


def test_whether_a_turn_goes_on_is_found_by_checking_the_cheapest_conditions_first(tmp_path, monkeypatch):
    """Any one legal action keeps the turn going: an action with no condition and no cost,
    last in the phase, answers that without a condition worked out; the options stay whole."""
    from rulepress.runtime.interpreter import Interp
    game = _duel_variant(tmp_path, "flow:\n", "  - id: rest\n    name: {en: Rest, ru: Отдых}\n"
                         "    effect: |\n      gain 1 vp\n\nflow:\n")
    assert game.flow["phases"][0]["actions"][-1] == "rest"
    checked = []
    real = Interp.action_allowed
    monkeypatch.setattr(Interp, "action_allowed", lambda it, aid, p: checked.append(aid) or real(it, aid, p))
    st = new_game(game, 2, 1, first="p1")
    assert st["pending"]["kind"] == "action" and checked == []
    assert [o["id"] for o in decision(game, st)["options"]] == _eager_options(game, st)
    assert "rest" in [o["id"] for o in decision(game, st)["options"]]


def test_options_of_another_decision_do_not_vouch_for_a_choice(duel):
    from rulepress.runtime.flow import choices
    st = new_game(duel, 2, "vouch", first="p1")
    st["things"]["p1"]["counters"]["gold"] = 0
    old = choices(duel, st)
    old.known["dig"] = True                     # what an earlier decision's options said
    st["pending"] = dict(st["pending"])         # the decision now pending is another one
    with pytest.raises(IllegalChoice, match="not a legal choice"):
        apply(duel, st, "dig", options=old)
    nxt = apply(duel, st, "arm", options=choices(duel, st))
    assert nxt is None or nxt.d is st["pending"]  # the options handed on are the new decision's


@pytest.mark.parametrize("name", content_games())
def test_a_random_games_log_replays_to_its_final_state_in_a_fresh_game(name):
    """Failed actions included: their choices stay in the history, so the replay fails them
    again and writes the same log (seed `logseed` fails one in A Study in Emerald)."""
    game = game_from(f"content/{name}")
    for seed in ("logseed", 3):
        st = new_game(game, 2, seed)
        play_out(game, st, {p: RandomAgent(f"{seed}{p}") for p in st["players"]})
        log = json.loads(json.dumps(make_log(game, st, 2, seed)))
        again = replay(game_from(f"content/{name}"), log)  # nothing remembered from the live game
        assert again["log"] == st["log"] and state_hash(again) == log["final_hash"]


def test_simulation_counts_each_seats_scores_in_bins_shared_by_all_seats(duel):
    from rulepress.runtime.simulate import histogram, score_bins, simulate
    r = simulate(duel, 30, seed=5, players=2)
    b = r["score_bins"]
    assert b["from"] == min(s["score_min"] for s in r["seats"].values())
    assert b["to"] == max(s["score_max"] for s in r["seats"].values())
    for s in r["seats"].values():
        assert sum(s["score_histogram"]) == r["finished"] and len(s["score_histogram"]) == b["count"]
    # a bin a point while there are few; twelve of equal width past that, the highest in the last
    assert histogram([0, 1, 1, 3], score_bins([0, 1, 1, 3])) == [1, 2, 0, 1]
    wide = score_bins([0, 24, 5])
    assert wide["count"] == 12 and histogram([0, 24, 5], wide) == [1, 0, 1] + [0] * 8 + [1]
    half = score_bins([0, 11.5, 2.9])  # scores that are not whole: twelve bins of 11.5/12, not one a point
    assert half["count"] == 12 and histogram([0, 11.5, 2.9], half) == [1, 0, 0, 1] + [0] * 7 + [1]


def _kept_sizes(game) -> dict:
    """How many entries each table the runtime keeps with a game holds."""
    sizes = {k: len(v) for k, v in vars(game).items() if isinstance(v, (dict, list, set))}
    sizes.update({f"cache.{k}": len(v) for k, v in vars(game.cache).items() if isinstance(v, (dict, list, set))})
    sizes.update({f"code.{k}": len(v) for k, v in vars(game.cache.code).items() if isinstance(v, (dict, list))})
    return sizes


def test_what_the_runtime_keeps_with_a_game_stops_growing_in_a_long_simulation():
    """Every turn of tests/games/watch starts and ends with a conditional trigger: once the
    rules have all been met, more games add nothing to what the game keeps (its compiled
    closures, the answers worked out once)."""
    game = game_from("tests/games/watch")
    for seed in range(100):
        _play(game, seed, players=4)
    after_100 = _kept_sizes(game)
    assert after_100["code.exprs"] and after_100["code.blocks"]
    for seed in range(100, 300):
        _play(game, seed, players=4)
    assert _kept_sizes(game) == after_100


def test_code_kept_for_ir_made_afresh_stays_within_its_bound(duel, monkeypatch):
    """A caller may hand the runtime IR of its own, afresh each time (an interruption's):
    the functions (and line tables) kept by the identity of a block or expression are
    bounded, and each block still runs as written."""
    from rulepress.runtime import pysource
    from rulepress.runtime.interpreter import Interp
    monkeypatch.setattr(pysource, "EXTRA_LIMIT", 20)
    P = "t:1:1"
    st = new_game(duel, 2, 1)
    Interp(duel, st).call_block([], {})
    own = len(duel.cache.code.blocks) + len(duel.cache.code.exprs), len(duel.cache.code.lines)
    for i in range(200):
        Interp(duel, st).call_block([["log", P, ["str", P, f"line {i}"]]], {"player": "p1"})
        assert len(duel.cache.code.blocks) + len(duel.cache.code.exprs) <= own[0] + 20 and len(duel.cache.code.lines) <= own[1] + 20
        assert len(duel.cache.code.nodes) == len(duel.cache.code.blocks) + len(duel.cache.code.exprs)
    assert [x["text"] for x in st["log"][-2:]] == ["line 198", "line 199"]  # every fresh block ran


def test_decisions_asked_where_an_effect_cannot_pause_are_answered_and_replay_alike(tmp_path):
    """A procedure that asks, called inside a list expression (a comprehension cannot pause
    its effect), and a counter's threshold that asks: each is asked, answered, and plays to
    the very state a saved and loaded game reaches (the replay path)."""
    game = _duel_variant(
        tmp_path, "      draw 1 from blades\n",
        "      draw 1 from blades\n      let yes = [x for x in [ask_gold(p) for p in players] where x]\n"
        "      gain count(yes) vp\n      gain 1 tension\n"
        "procedures:\n  - id: ask_gold\n    params: [p]\n    text: {en: \"Whether p takes a gold\", ru: \"Берёт ли p золото\"}\n"
        "    effect: |\n      may by p \"Take a gold?\":\n        gain 1 gold to p\n        return true\n      return false\n")
    game.counters["tension"]["thresholds"][0][1].insert(0, ["may", "t.yaml:1:1", ["name", "t.yaml:1:5", "first_player"], "Celebrate?", [], []])
    from rulepress.runtime import pysource
    game.forget_code()
    assert "ask_gold" in pysource.code(game).deciding.procs and "tension" in pysource.code(game).deciding.counters
    live, saved = new_game(game, 2, 5, first="p1"), new_game(game, 2, 5, first="p1")
    asked = set()
    agents_a = {p: RandomAgent(p) for p in live["players"]}
    agents_b = {p: RandomAgent(p) for p in saved["players"]}
    while live["pending"] is not None:
        if live["pending"]["kind"] == "may":
            asked.add(live["pending"]["prompt"]["en"])
        saved = json.loads(json.dumps(saved))
        for st, agents in ((live, agents_a), (saved, agents_b)):
            step(game, st, agents)
        assert state_hash(live) == state_hash(saved)
    assert asked >= {"Take a gold?", "Celebrate?"}
