"""`simulate --profile`: which lines of the content take the time of played games."""
import os

from click.testing import CliRunner
from conftest import ROOT, game_from

from rulepress.cli import main
from rulepress.runtime.profile import attach
from rulepress.runtime.simulate import simulate

DUEL = os.path.join(ROOT, "tests", "games", "duel")


def _line_of(text):
    """game.yaml:LINE:COL of the statement that starts with `text` in the duel's file."""
    with open(os.path.join(DUEL, "game.yaml"), encoding="utf-8") as fh:
        for n, line in enumerate(fh, 1):
            if line.strip() == text:
                return f"game.yaml:{n}:{len(line) - len(line.lstrip()) + 1}"
    raise AssertionError(f"no line `{text}`")


def _profiled(games, seed):
    game = game_from("tests/games/duel")
    prof = attach(game)
    return simulate(game, games, seed=seed, players=2), prof


def test_profiling_counts_each_line_and_plays_the_same_games(duel):
    result, prof = _profiled(6, 4)
    plain = simulate(duel, 6, seed=4, players=2)
    assert {k: v for k, v in result.items() if k != "profile"} == plain
    rows = {r["at"]: r for r in prof.rows(6, top=1000)}
    # setup runs once a game: its loop once, what it does for each of the two players twice
    assert rows[_line_of("for each p in players:")]["runs_per_game"] == 1
    assert rows[_line_of("draw 2 from blades to p.hand")]["runs_per_game"] == 2
    assert rows[_line_of("set p.loyalty to p.seat")]["runs_per_game"] == 2
    # an action's condition is clocked on its own, under its own line
    arm = [r for r in rows.values() if r["what"] == "condition of arm"]
    assert len(arm) == 1 and arm[0]["runs_per_game"] > 0
    shares = [r["share"] for r in rows.values()]
    assert all(0 <= s <= 1 for s in shares) and 0 < result["profile"]["in_lines"] <= 1
    assert sum(shares) <= result["profile"]["in_lines"] + 0.01
    # writing the code, once, is counted apart from the lines that first ran it
    assert 0 < result["profile"]["building"] and result["profile"]["in_lines"] + result["profile"]["building"] <= 1


def test_runs_a_game_are_the_same_on_every_run():
    _r1, a = _profiled(5, 9)
    _r2, b = _profiled(5, 9)
    assert a.runs == b.runs and a.runs


def test_the_command_shows_the_lines_that_take_the_time():
    out = CliRunner().invoke(main, ["simulate", DUEL, "-n", "3", "--seed", "1", "--profile"])
    assert out.exit_code == 0, out.output
    assert "where the time of 3 games goes" in out.output
    assert "draw 2 from blades to p.hand" in out.output  # the line's own text, from the content
    assert "took" in out.output and "of the time" in out.output


def test_a_line_is_shown_as_written(capsys):
    from rulepress.report import profile as render
    profile = {"lines": [{"at": "cards.yaml:100:7", "what": "return", "share": 0.5, "runs_per_game": 3,
                          "text": "return [c for c in p.hand where c.cost > 0]"}], "in_lines": 0.5}
    render(profile, 1)
    out = capsys.readouterr().out
    assert "[c for c in p.hand" in out and "cards.yaml:100:7" in out  # not read as markup or an emoji



def test_the_json_profile_carries_each_lines_text():
    import json
    out = CliRunner().invoke(main, ["simulate", DUEL, "-n", "2", "--profile", "--json"])
    assert out.exit_code == 0, out.output
    rows = json.loads(out.output)["profile"]["lines"]
    assert rows and all(set(r) >= {"at", "what", "share", "runs_per_game", "text"} for r in rows)
    assert "draw 2 from blades to p.hand" in [r["text"] for r in rows]
