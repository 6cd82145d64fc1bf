"""Secrets never leave their seat: options, counters, log lines, bots (runtime/visibility.py),
and the canary scan designers run on their games (`rulepress secrets`)."""
import json
import os
import subprocess
import sys

import pytest

from rulepress.runtime import visibility
from rulepress.runtime.agents import GreedyAgent, RandomAgent, Seen, play_out, step
from rulepress.runtime.flow import apply, decision, new_game
from rulepress.leakscan import scan
from rulepress.runtime.visibility import can_see
from rulepress.runtime.views import view
from rulepress.runtime.state import clone
from tests.conftest import ROOT, compiled, content_games, game_from


@pytest.fixture(scope="module")
def bait():
    return {name: game_from(f"tests/games/{name}") for name in
            ("leak-options", "leak-counters", "leak-log", "leak-said", "guess", "leak-kinds")}


def unfiltered_view(game, st, seat=None):
    """A seat's view as it was made before secrets were filtered: options, counters of
    things and log lines handed out as they are in the state."""
    zones, things = {}, {}
    for key in sorted(st["zones"]):
        shown = [e for e in st["zones"][key] if can_see(game, st, e, seat)]
        zones[key] = {"things": shown, "hidden": len(st["zones"][key]) - len(shown)}
        for eid in shown:
            ent = st["things"][eid]
            things[eid] = {"type": game.proto_of.get(eid, eid), "up": ent["up"], "counters": dict(ent["counters"])}
    d = st["pending"]
    dec = None
    if d is not None and d["kind"] != "secret" and d["who"] == seat:
        dec = {k: v for k, v in decision(game, st).items() if k not in ("at", "actions")}
    return {"zones": zones, "things": things, "log": list(st["log"][-50:]), "decision": dec,
            "players": {p: {"counters": {}} for p in st["players"]}}


# ---- the scan finds each bait game's leak without the filter, and none with it ----

@pytest.mark.parametrize("name, where", [
    ("leak-options", ".decision.options"),
    ("leak-counters", ".counters.charge"),
    ("leak-log", ".log["),
])
def test_the_scan_finds_each_kind_of_leak_where_nothing_filters_and_none_where_views_do(bait, name, where):
    leak, _ = scan(bait[name], n=6, seed=1, players=2, view_fn=unfiltered_view)
    assert leak is not None and where in leak.path, leak
    for players in (2, 3):
        leak, scanned = scan(bait[name], n=6, seed=1, players=players)
        assert leak is None, leak.text()
        assert scanned > 20


def test_a_leak_in_the_contents_own_words_is_reported_with_its_line(bait):
    leak, _ = scan(bait["leak-said"], n=6, seed=0, players=2)
    assert leak is not None and leak.what == "Nitro" and leak.at == "game.yaml:28:9", leak


def test_a_kind_of_card_said_as_a_kind_is_no_leak_but_the_copy_drawn_is_where_nothing_filters(bait):
    game = bait["leak-kinds"]  # `Duke` is the kind's name and each copy's
    for players in (2, 3):
        leak, scanned = scan(game, n=6, seed=1, players=players)
        assert leak is None, leak.text()  # «claims the Duke», «Tax (Duke)»: words of the rules
        assert scanned > 20
    leak, _ = scan(game, n=6, seed=1, players=2, view_fn=unfiltered_view)
    assert leak is not None and ".log[" in leak.path and leak.at == "game.yaml:37:7", leak
    assert leak.what in ("Duke", "Captain")


def test_a_kind_read_off_a_hidden_card_is_a_leak_the_scan_finds(tmp_path):
    """`{first(got).type}` names a kind, but it is the kind of the card just drawn into a
    hand: news of that card, which no view can unname."""
    import shutil
    shutil.copytree(os.path.join(ROOT, "tests/games/leak-kinds"), tmp_path / "g")
    path = tmp_path / "g" / "game.yaml"
    path.write_text(path.read_text().replace('log "{player} draws {got}"', 'log "{player} draws a {first(got).type}"'))
    leak, _ = scan(game_from(str(tmp_path / "g")), n=20, seed=1, players=2)
    assert leak is not None and leak.what in ("Duke", "Captain") and leak.at == "game.yaml:37:7", leak


@pytest.mark.parametrize("action, kinds", [("guess", ["duke", "captain", "princess"]), ("guess_royal", ["princess", "queen"])])
def test_a_card_of_one_copy_offered_as_its_kind_is_that_kind_not_where_it_lies(bait, action, kinds):
    """The Princess has one copy, so her card's id is her kind's: named among kinds, a
    handle («card 3 of Pile») would tell where she lies. With other kinds of several copies
    in the list, or the list written as kinds, she is offered as the kind."""
    game = bait["leak-kinds"]
    st = new_game(game, 2, "kinds")
    seat = st["pending"]["who"]
    assert "princess" in st["things"] and not can_see(game, st, "princess", seat)
    apply(game, st, action, seat)
    offered = visibility.seat_options(game, st, seat, st["pending"]["options"])
    assert [o["id"] for o in offered] == kinds
    assert offered[kinds.index("princess")]["label"]["en"] == "Princess"
    assert [o["id"] for o in view(game, st, seat)["decision"]["options"]] == kinds
    apply(game, st, "princess", seat)  # chosen as it is offered
    assert st["things"][seat]["counters"]["guesses"] == 1


def test_a_choice_among_hidden_cards_still_offers_handles_where_a_card_has_one_copy(bait):
    game = bait["leak-kinds"]
    st = new_game(game, 2, "kinds")
    seat = st["pending"]["who"]
    hidden = sorted(st["zones"]["pile"])
    offered = visibility.seat_options(game, st, seat, [{"id": x, "label": {"en": x}} for x in hidden])
    assert all(o["id"].startswith(visibility.HANDLE) for o in offered) and "princess" in hidden


@pytest.mark.parametrize("name", ["love-letter", "coup"])
def test_the_examples_raise_no_false_alarm(name):
    """Love Letter says a card's name as it is played face up, and shuffles it away again
    before the next decision; Coup says the role a player claims."""
    game = game_from(f"docs/examples/{name}")
    for players in range(game.players_min, game.players_max + 1):
        leak, _ = scan(game, n=4, seed=0, players=players)
        assert leak is None, leak.text()


def _content_counts():
    """(content game, player count) for each count each content game is for."""
    out = []
    for name in content_games():
        players = json.loads(compiled(f"content/{name}"))["game"]["players"]
        out += [(name, n) for n in range(players["min"], players["max"] + 1)]
    return out


@pytest.mark.parametrize("name, players", _content_counts(), ids=[f"{g}-{n}" for g, n in _content_counts()])
def test_a_whole_random_game_of_each_content_game_leaks_nothing(name, players):
    """`rulepress secrets GAME -n 1` at each player count: one game played to its end (here,
    so the counts spread over the cores).

    At three players (the count nearest three where a game has no three) every decision is
    scanned: every kind of sight is met there (a seat alone, its one opponent, an opponent
    among others, the spectator), and the rules say who sees what by seat and zone, never
    by the number of seats. At the other counts what the count changes is scanned whole:
    the set-up and first round (the first 40 decisions: every deal and per-count set-up)
    and the end; in between, each decision the first time the line of the rules that asks
    it is met, and one in four below three players, one in sixteen from four on (where a
    decision costs a view per seat and the games run longest): a thing left in sight of a
    seat that must not see it stays in sight until it moves, and the log lines written in
    between are read at the next decision scanned. What the sample can miss is an option
    or a view wrong at a few decisions only, and only at a count other than three."""
    counts = json.loads(compiled(f"content/{name}"))["game"]["players"]
    whole = min(max(3, counts["min"]), counts["max"])
    every = 1 if players == whole else 4 if players < whole else 16
    leak, scanned = scan(game_from(os.path.join("content", name)), n=1, seed="0", players=players, every=every, head=40)
    assert leak is None, leak.text()
    assert scanned > 0


def test_a_sampled_scan_reads_the_log_lines_written_between_the_decisions_it_scans(bait):
    """The leak scan of a long game scans one decision in sixteen (above): a line that says a
    hidden card's name is still found at the next decision scanned (a view hands out the
    last 50 lines; the content games write at most 16 in 16 decisions)."""
    leak, _ = scan(bait["leak-said"], n=4, seed=0, every=16)
    assert leak is not None and leak.what == "Nitro" and ".log[" in leak.path


def test_a_sampled_scan_reads_each_place_in_the_rules_a_decision_is_asked_at(bait):
    """Between the decisions sampled, one asked at a line of the rules not met before is
    scanned too: a choice that leaks only while it is asked is found however seldom it comes."""
    leak, scanned = scan(bait["leak-options"], n=1, seed=1, players=2, view_fn=unfiltered_view, every=10**6)
    assert leak is not None and ".decision.options" in leak.path, leak


def test_the_secrets_command_exits_1_with_the_line_that_leaks_and_0_on_a_clean_game():
    cmd = [sys.executable, "-m", "rulepress", "secrets"]
    bad = subprocess.run(cmd + ["tests/games/leak-said", "-n", "4"], cwd=ROOT, capture_output=True, text=True)
    assert bad.returncode == 1 and "log \"someone holds a Nitro\"" in bad.stdout and "Traceback" not in bad.stderr
    good = subprocess.run(cmd + ["tests/games/leak-options", "-n", "2"], cwd=ROOT, capture_output=True, text=True)
    assert good.returncode == 0 and "no leak" in good.stdout
    usage = subprocess.run(cmd + ["tests/games/leak-options", "--players", "9"], cwd=ROOT, capture_output=True, text=True)
    assert usage.returncode == 2 and "Traceback" not in usage.stderr


# ---- options --------------------------------------------------------------------

def _stealing(game, seed=1):
    st = new_game(game, 2, seed)
    me = st["pending"]["who"]
    apply(game, st, "steal", me)
    while st["pending"]["kind"] == "choose" and st["pending"]["options"][0]["id"] in st["players"]:
        apply(game, st, st["pending"]["options"][0]["id"], me)  # from whom
    return st, me


def test_a_choice_among_hidden_cards_offers_handles_that_map_back_only_on_the_server(bait):
    game = bait["leak-options"]
    st, me = _stealing(game)
    other = next(p for p in st["players"] if p != me)
    hand = st["zones"][f"{other}.hand"]
    offered = view(game, st, me)["decision"]["options"]
    text = json.dumps(offered)
    for eid in hand:
        assert eid not in text and game.name(eid) not in text and game.proto_of[eid] not in text
    assert [o["label"]["en"] for o in offered] == [f"card {i} of Player {other[1:]}'s Hand" for i in (1, 2)]
    assert [visibility.resolve(st, o["id"]) for o in offered] == hand
    taken = hand[1]
    apply(game, st, visibility.resolve(st, offered[1]["id"]), me)
    assert st["things"][taken]["zone"] == f"{me}.hand"


def test_a_handle_that_names_no_place_is_not_a_choice(bait):
    st = new_game(bait["leak-options"], 2, 1)
    for bad in ("?nowhere#1", "?p1.hand#0", "?p1.hand#99", "?p1.hand#x", "?"):
        assert visibility.resolve(st, bad) == bad


def test_a_choice_among_things_the_chooser_may_see_shows_them(bait):
    game = bait["leak-options"]
    st = new_game(game, 2, 1)
    me = st["pending"]["who"]
    opts = [{"id": e, "label": {"en": game.name(e)}} for e in st["zones"][f"{me}.hand"]]
    assert visibility.seat_options(game, st, me, opts) == opts


# ---- counters and log lines ------------------------------------------------------

def test_a_hidden_counter_on_a_card_shows_only_to_the_player_whose_zone_holds_it(bait):
    game = bait["leak-counters"]
    st = new_game(game, 2, 1)
    me = st["pending"]["who"]
    other = next(p for p in st["players"] if p != me)
    apply(game, st, "charge_up", me)
    mine = st["zones"][f"{me}.rig"][0]
    assert view(game, st, me)["things"][mine]["counters"] == {"charge": 1}
    assert "counters" not in view(game, st, other)["things"][mine]
    assert "counters" not in view(game, st, None)["things"][mine]


def test_a_log_line_naming_a_drawn_card_is_read_unnamed_by_the_others(bait):
    game = bait["leak-log"]
    st = new_game(game, 2, 2)
    me = st["pending"]["who"]
    other = next(p for p in st["players"] if p != me)
    apply(game, st, "draw_one", me)
    card = game.name(st["zones"][f"{me}.hand"][0])
    assert view(game, st, me)["log"][-1]["text"].endswith(f"draws, {card}")
    assert view(game, st, other)["log"][-1]["text"].endswith("draws, a card")
    assert view(game, st, None)["log"][-1]["text"].endswith("draws, a card")


def test_a_log_line_to_a_player_is_theirs_alone(bait):
    game = bait["leak-log"]
    st = new_game(game, 2, 2)
    me = st["pending"]["who"]
    other = next(p for p in st["players"] if p != me)
    apply(game, st, "peek", me)
    top = game.name(st["zones"]["pile"][0])
    assert view(game, st, me)["log"][-1]["text"] == f"the pile's top card is, {top}"
    assert all("top card" not in line["text"] for line in view(game, st, other)["log"])
    assert all("top card" not in line["text"] for line in view(game, st, None)["log"])


def test_why_an_action_failed_is_told_to_its_actor_alone(duel):
    st = new_game(duel, 2, 1, first="p1")
    st["things"]["p1"]["counters"]["gold"] = 0
    st["log"].append({"r": 1, "text": "Player 1: Dig cannot be done (p1 holds a Sabre)", "seen": ["p1"],
                      "unnamed": "Player 1: Dig cannot be done"})
    assert view(duel, st, "p1")["log"][-1]["text"].endswith("(p1 holds a Sabre)")
    assert view(duel, st, "p2")["log"][-1]["text"] == "Player 1: Dig cannot be done"


# ---- bots -------------------------------------------------------------------------

def test_an_agent_is_handed_its_seat_never_the_state(bait):
    handed = []

    class Spy(RandomAgent):
        def choose(self, game, seen, seat, options):
            handed.append((seen, options))
            return super().choose(game, seen, seat, options)

    game = bait["leak-options"]
    st = new_game(game, 2, 5)
    play_out(game, st, {p: Spy(p) for p in st["players"]})
    assert handed
    for seen, options in handed:
        assert type(seen) is Seen and not hasattr(seen, "st") and not hasattr(seen, "__dict__")
        for o in options:
            assert not o["id"].startswith(("nitro#", "smg#")) or o["id"] in json.dumps(seen.view()["things"])


def test_a_sample_keeps_what_the_seat_sees_and_deals_the_rest_again(bait):
    game = bait["leak-options"]
    st = new_game(game, 3, 1)
    me = st["players"][0]
    dealer = {"rng": visibility.rng.seed_state("t")}
    moved = 0
    for _ in range(20):
        world = visibility.sample(game, st, me, dealer)
        assert world["zones"][f"{me}.hand"] == st["zones"][f"{me}.hand"]
        assert sorted(world["things"]) == sorted(st["things"])
        assert view(game, world, me) == view(game, st, me)
        moved += world["zones"]["p2.hand"] != st["zones"]["p2.hand"]
    assert moved > 10


def _guess_rate(game, agent_for, games=150):
    right = 0
    for i in range(games):
        st = new_game(game, 2, f"g{i}")
        play_out(game, st, {p: agent_for(st, p, i) for p in st["players"]})
        right += sum(st["scores"].values())
    return right / (2 * games)


class _StateGreedy(GreedyAgent):
    """The greedy bot as it was: trying each option on the real state."""

    def __init__(self, st, seed):
        super().__init__(seed)
        self.st = st

    def choose(self, game, seen, seat, options):
        real = self.st

        class Peek:
            def hides(self):
                return False

            def sample(self, _rng):
                return clone(real)  # the real state, waiting effect and all, as data
        return super().choose(game, Peek(), seat, options)


def test_the_greedy_bot_guesses_a_hidden_card_no_better_than_its_view_allows(bait):
    game = bait["guess"]
    honest = _guess_rate(game, lambda st, p, i: GreedyAgent(f"{i}{p}"))
    blind = _guess_rate(game, lambda st, p, i: RandomAgent(f"{i}{p}"))
    cheat = _guess_rate(game, lambda st, p, i: _StateGreedy(st, f"{i}{p}"), games=20)
    assert cheat == 1.0  # the test can tell: a bot reading the state always knows
    # 1 in 5 by chance; 300 guesses: three standard deviations are about 0.07
    assert abs(honest - 0.2) < 0.08 and abs(blind - 0.2) < 0.08, (honest, blind)


def test_greedy_bots_stay_deterministic(bait):
    game = bait["leak-options"]
    runs = []
    for _ in range(2):
        st = new_game(game, 3, 9)
        play_out(game, st, {p: GreedyAgent(f"9{p}") for p in st["players"]})
        runs.append(st["history"])
    assert runs[0] == runs[1]


def test_step_and_play_out_apply_the_thing_a_handle_stands_for(bait):
    game = bait["leak-options"]
    st = new_game(game, 2, 1)
    agents = {p: RandomAgent(p) for p in st["players"]}
    for _ in range(12):
        if st["pending"] is None:
            break
        step(game, st, agents)
    assert all(not c.startswith(visibility.HANDLE) for _w, c in st["history"])


# ---- decisions that do not reveal, and the checker's warnings -------------------------

def test_or_none_asks_every_player_alike_and_those_without_an_answer_get_only_nothing():
    game = game_from("tests/games/leak-decision")
    for seed in range(8):
        st = new_game(game, 3, seed)
        me = st["pending"]["who"]
        apply(game, st, "show_all", me)
        d = st["pending"]
        assert d["kind"] == "secret" and sorted(d["who"]) == st["players"]
        for p in st["players"]:
            holds = [e for e in st["zones"][f"{p}.hand"] if game.proto_of[e] == "nitro"]
            assert [o["id"] for o in d["options"][p]] == holds + ["none"]
        for p in st["players"]:
            apply(game, st, "none", p)
        assert st["pending"] is None or st["pending"]["kind"] == "action"


def _validate(folder):
    return subprocess.run([sys.executable, "-m", "rulepress", "validate", "--no-cache", folder],
                          cwd=ROOT, capture_output=True, text=True)


def test_the_checker_warns_when_being_asked_depends_on_a_hidden_card_but_not_when_all_are_asked():
    out = _validate("tests/games/leak-decision").stdout
    assert "leak-decision/game.yaml:38:11: warning: W017" in out
    assert out.count("W017") == 1  # `show_all` asks every player alike: no warning


def test_the_checker_warns_when_a_public_log_line_names_a_drawn_card_but_not_a_private_one():
    out = _validate("tests/games/leak-log").stdout
    assert "leak-log/game.yaml:28:7: warning: W016" in out
    assert out.count("W016") == 1  # `log ... to player` (line 33) is the player's alone


def test_a_bots_sample_does_not_carry_other_players_hidden_counters(duel):
    st = new_game(duel, 2, 1, first="p1")
    assert st["things"]["p2"]["counters"]["loyalty"] == 2  # set in setup to the seat number
    world = visibility.sample(duel, st, "p1", {"rng": visibility.rng.seed_state("t")})
    assert world["things"]["p2"]["counters"]["loyalty"] == duel.counters["loyalty"]["initial"]
    assert world["things"]["p1"]["counters"]["loyalty"] == st["things"]["p1"]["counters"]["loyalty"]  # its own it knows


def test_two_states_a_seat_cannot_tell_apart_give_it_the_same_samples(bait):
    """A sample deals the hidden things by their places: what was really where (and the real
    dice to come) cannot show through in what a bot looks ahead on."""
    game = bait["leak-options"]
    st = new_game(game, 3, 2)
    me = st["players"][0]
    # the same game to p1, dealt otherwise (the first of a few deals that moves p2's hand)
    other = next(o for o in (visibility.sample(game, st, me, {"rng": r}) for r in range(20))
                 if o["zones"]["p2.hand"] != st["zones"]["p2.hand"])
    other["log"], other["history"] = st["log"], st["history"]
    assert view(game, other, me) == view(game, st, me)
    assert other["rng"] != st["rng"]
    for k in range(5):
        assert visibility.sample(game, st, me, {"rng": k}) == visibility.sample(game, other, me, {"rng": k})
    assert visibility.sample(game, st, me, {"rng": 1})["rng"] not in (st["rng"], visibility.sample(game, st, me, {"rng": 2})["rng"])
