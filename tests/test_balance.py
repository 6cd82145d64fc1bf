"""`rulepress balance`: its statistics against values worked out by hand, how games ended,
the JSON byte for byte, two versions compared (a changed copy differs, an unchanged one
does not, a git revision is read without touching the work tree) and the HTML report in a
browser."""
from __future__ import annotations

import json
import re
import os
import shutil
import subprocess
import sys

import pytest

from rulepress.arguments import worker_cap
from rulepress.balance import _usage_flags, verdict
from rulepress.runtime.flow import new_game, state_hash
from rulepress.runtime.simulate import play_one
from rulepress.stats import mann_whitney, ranks, two_proportions, wilson

from conftest import game_from, rulepress

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DUEL = os.path.join(ROOT, "tests", "games", "duel")


# -- statistics, against values worked out by hand (and agreeing with R's prop.test and wilcox.test)

def test_wilson_interval():
    iv = wilson(8, 10)
    assert iv.rate == 0.8
    assert iv.low == pytest.approx(0.4902, abs=1e-4) and iv.high == pytest.approx(0.9433, abs=1e-4)
    none = wilson(0, 10)  # never 0 wide, never below 0
    assert none.low == 0 and none.high == pytest.approx(0.2775, abs=1e-4)
    assert wilson(50, 100).low == pytest.approx(0.4038, abs=1e-4)
    assert wilson(0, 0) == (0.0, 0.0, 1.0)


def test_two_proportions():
    t = two_proportions(50, 100, 30, 100)
    assert t.statistic == pytest.approx(2.8868, abs=1e-4) and t.p == pytest.approx(0.00389, abs=1e-5)
    assert t.significant
    same = two_proportions(30, 100, 30, 100)
    assert same.p == 1 and not same.significant
    assert two_proportions(0, 10, 0, 10).p == 1  # nothing can differ
    assert two_proportions(3, 0, 1, 5).p == 1


def test_mann_whitney():
    t = mann_whitney([1, 2, 3, 4, 5], [6, 7, 8, 9, 10])
    assert t.statistic == 0 and t.p == pytest.approx(0.01219, abs=1e-5)
    assert mann_whitney([6, 7, 8, 9, 10], [1, 2, 3, 4, 5]).p == pytest.approx(0.01219, abs=1e-5)
    assert mann_whitney([3] * 8, [3] * 8).p == 1  # all tied
    assert not mann_whitney([1, 2, 3, 4], [2, 3, 4, 5]).significant
    assert ranks([10, 20, 20, 30]) == [1, 2.5, 2.5, 4]


def test_the_verdict_line():
    seats = {"p1": {"rate": 0.58, "low": 0.55, "high": 0.61}, "p2": {"rate": 0.44, "low": 0.41, "high": 0.47}}
    assert verdict(seats, 0.5) == "seat 1 wins 8 ± 3 points more often than fair (50%)"
    close = {"p1": {"rate": 0.52, "low": 0.45, "high": 0.59}, "p2": {"rate": 0.48, "low": 0.41, "high": 0.55}}
    assert verdict(close, 0.5).startswith("no seat wins significantly more or less often than fair (50%)")
    fair = {"p1": {"rate": 0.501, "low": 0.44, "high": 0.56}, "p2": {"rate": 0.499, "low": 0.44, "high": 0.56}}
    assert verdict(fair, 0.5).endswith("the farthest, seat 1, is within ± 6 points of it")  # not "0 ± 6 points above"
    assert verdict({"Maelstrom": {"rate": 0.2, "low": 0.1, "high": 0.3}}, 0.5, "faction", str) == \
        "Maelstrom wins 30 ± 10 points less often than fair (50%)"


def test_never_and_rarely_used():
    rows = [{"n": 10}, {"n": 8}, {"n": 12}, {"n": 2}, {"n": 0}]
    _usage_flags(rows, lambda r: r["n"])
    assert [r["flag"] for r in rows] == ["", "", "", "rarely", "never"]


# -- how games ended: reported by the runtime, for any game

def _copy(tmp_path, name, change=None):
    dst = tmp_path / name
    shutil.copytree(DUEL, dst)
    if change:
        p = dst / "game.yaml"
        text = p.read_text()
        old, new = change
        assert old in text
        p.write_text(text.replace(old, new))
    return str(dst)


TENSION_ENDS = ("      - at: 3\n        effect: |\n          for each p in players:\n            gain 1 vp to p\n",
                "      - at: 3\n        effect: |\n          log \"the tension boils over\"\n          end game\n")
SEAT_1_BONUS = ("      set p.loyalty to p.seat\n", "      set p.loyalty to p.seat\n      if p.seat == 1:\n"
                "        gain 3 vp to p\n")


def test_a_game_says_how_it_ended(tmp_path, duel):
    r = play_one(duel, 0, 0, 2, "random")
    assert r["ended"] == {"by": "last round", "at": "flow.rounds = 8"}
    assert r["first"] in ("p1", "p2") and r["cards"] == ["dagger", "sabre"]
    ended = play_one(game_from(_copy(tmp_path, "tense", TENSION_ENDS)), 0, 0, 2, "random")["ended"]
    assert ended["by"] == "end game" and ended["at"].startswith("game.yaml:")
    assert ended["said"] == "the tension boils over"
    love = game_from("docs/examples/love-letter")
    assert play_one(love, 0, 0, 2, "random")["ended"]["by"] == "end condition"


def test_a_card_setup_puts_in_play_is_used_and_one_in_hand_is_not(tmp_path, duel):
    from rulepress.runtime.simulate import _in_play
    zone = ("  - id: table\n", "  - id: tableau\n    name: {en: Tableau, ru: Перед игроком}\n    of: player\n"
            "  - id: table\n")
    game = game_from(_copy(tmp_path, "tableau", zone))
    assert _in_play(game, "p1.tableau", ["p1", "p2"])
    assert not _in_play(game, "p1.hand", ["p1", "p2"])  # a hand is seen by its owner alone
    assert not _in_play(game, "table", ["p1", "p2"]) and not _in_play(game, "p3.tableau", ["p1", "p2"])


def test_how_it_ended_is_not_in_the_hash(duel):
    # logs recorded before games said how they ended still replay to the same hash
    st = new_game(duel, 2, 5)
    before = state_hash(st)
    st["ended"] = {"by": "end game", "at": "x:1:1"}
    assert state_hash(st) == before


# -- the command

def test_json_is_the_same_bytes_every_time(capsys, monkeypatch):
    runs = [rulepress(capsys, monkeypatch, "balance", DUEL, "-n", 30, "--seed", 4, "--json", "--no-coverage")
            for _ in range(2)]
    assert runs[0][0] == 0 and runs[0][1] == runs[1][1]
    if worker_cap() >= 2:  # games are seeded by their number: two processes play the same games
        two = rulepress(capsys, monkeypatch, "balance", DUEL, "-n", 30, "--seed", 4, "--json", "--no-coverage",
                        "--workers", 2)
        assert two[1] == runs[0][1]
    (r,) = json.loads(runs[0][1])["reports"]
    assert r["finished"] == 30 and set(r["seats"]) == {"p1", "p2"}
    wins = sum(s["wins"] for s in r["seats"].values())
    assert r["fair"] == round(wins / 60, 4)
    for s in r["seats"].values():
        assert s["low"] <= s["rate"] <= s["high"]
        assert sum(s["score"]["histogram"]) == 30
    assert r["ended"] == [{"at": "flow.rounds = 8", "by": "last round", "games": 30, "key": "last round at flow.rounds = 8",
                           "said": "", "share": 1.0, "words": "after the last round (round 8)"}]
    assert {a["id"] for a in r["actions"]} == {"arm", "dig", "duel"}
    assert "fair" in r["verdict"]
    for row in r["actions"] + r["cards"]:  # every seat-game on one side: taken (chosen) or not
        w = row["wins"]
        assert w["with"]["games"] + w["without"]["games"] == 60
        assert w["with"]["wins"] + w["without"]["wins"] == wins
        for side in w.values():
            assert side["low"] <= side["rate"] <= side["high"]


def test_a_changed_copy_differs_and_an_unchanged_one_does_not(tmp_path, capsys, monkeypatch):
    a, same = _copy(tmp_path, "a"), _copy(tmp_path, "same")
    b = _copy(tmp_path, "b", SEAT_1_BONUS)
    code, out, _ = rulepress(capsys, monkeypatch, "balance", a, b, "-n", 60, "--json")
    assert code == 0
    c = json.loads(out)["reports"][0]["compare"]
    assert c["seats"]["p1"]["significant"] and c["seats"]["p1"]["difference"] > 0.2
    assert c["scores"]["p1"]["significant"] and c["scores"]["p1"]["difference"] == 3
    assert any(line.startswith("seat 1 win rate") for line in c["significant"])
    code, out, _ = rulepress(capsys, monkeypatch, "balance", a, same, "-n", 60, "--json")
    c = json.loads(out)["reports"][0]["compare"]
    assert c["significant"] == [] and all(not d["significant"] for d in c["seats"].values())


def test_holm_keeps_a_difference_only_when_it_stands_among_all_compared():
    from rulepress.balance import holm
    diffs = [{"p": p, "significant": p < 0.05} for p in (0.001, 0.01, 0.03, 0.04, 0.5)]
    assert holm(diffs) == 5
    assert [d["significant"] for d in diffs] == [True, True, False, False, False]  # 5 x 0.001, 4 x 0.01; 3 x 0.03 > 0.05
    assert [d["p_holm"] for d in diffs] == [0.005, 0.04, 0.09, 0.09, 0.5]


def test_endings_are_said_in_words_and_compared_things_by_name(tmp_path, capsys, monkeypatch):
    from rulepress.balance import ending_words
    race = game_from("docs/tutorial/race")
    assert ending_words(race, "end condition") == \
        "the end condition: for at least one player, the Position of that player is at least 20"
    assert ending_words(race, "last round") == "after the last round (round 30)"
    assert ending_words(race, "end game", "the tension boils over") == "`end game`: the tension boils over"
    night_city = game_from("content/night-city")  # its `end_text`, not the condition read out
    assert ending_words(night_city, "end condition") == \
        "the end condition: a gang has 25 reputation or more; the current gang's turn is finished first"
    a, b = _copy(tmp_path, "a"), _copy(tmp_path, "b", SEAT_1_BONUS)
    code, out, _ = rulepress(capsys, monkeypatch, "balance", a, b, "-n", 20, "--json", "--no-coverage")
    c = json.loads(out)["reports"][0]["compare"]
    assert {d["label"] for d in c["actions"].values()} == {a_["name"] for a_ in json.loads(out)["reports"][0]["a"]["actions"]}
    assert all(d["label"] != k for k, d in c["ended"].items())
    assert all("p_holm" in d and d["p_holm"] >= d["p"] for d in c["seats"].values())


TEAM_PLAY = ("  score: player.vp\n  tie: no_winner\n",
             "  score: sum(q.vp for q in players)\n  wins: sum(q.vp for q in players) >= 8\n  tie: share\n")


def test_a_cooperative_report_speaks_of_the_team_not_of_seats(tmp_path, capsys, monkeypatch):
    """All win or none: a first player's edge and "games without a winner" mean nothing there;
    what the team lost is said instead."""
    pytest.importorskip("matplotlib")
    team, out = _copy(tmp_path, "team", TEAM_PLAY), tmp_path / "team.html"
    code, said, _ = rulepress(capsys, monkeypatch, "balance", team, "-n", 20, "--no-coverage", "-o", out)
    assert code == 0 and "cooperative" in said and "first player" not in said
    html = out.read_text()
    assert "First player" not in html and "had no winner" not in html
    assert re.search(r"The players lost \d+ of 20 games together", html)


def test_without_a_terminal_the_summary_is_still_printed(capsys, monkeypatch):
    """In CI (no terminal) there is no progress bar, but the verdict must still be said."""
    code, out, err = rulepress(capsys, monkeypatch, "balance", DUEL, "-n", 10, "--no-coverage")
    assert code == 0 and err == ""
    assert out.startswith("Duel, 2 players, 10 of 10 games (random): ") and "fair" in out
    assert "first player wins" in out


def _git(cwd, *args):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd, check=True,
                   capture_output=True)


@pytest.mark.skipif(not shutil.which("git"), reason="no git")
def test_against_a_revision_leaves_the_work_tree_alone(tmp_path, capsys, monkeypatch):
    repo = tmp_path / "repo"
    repo.mkdir()
    game = _copy(repo, "duel")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "duel")
    p = os.path.join(game, "game.yaml")
    with open(p) as fh:
        text = fh.read()
    changed = text.replace(*SEAT_1_BONUS)
    with open(p, "w") as fh:
        fh.write(changed)
    status = subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True).stdout
    code, out, err = rulepress(capsys, monkeypatch, "balance", game, "--against", "HEAD", "-n", 60, "--json")
    assert code == 0, err
    r = json.loads(out)["reports"][0]
    assert r["names"] == [f"{game} at HEAD", f"{game} as it is now"]
    assert r["compare"]["seats"]["p1"]["significant"] and r["compare"]["seats"]["p1"]["difference"] > 0
    with open(p) as fh:
        assert fh.read() == changed  # the work tree as it was
    assert subprocess.run(["git", "status", "--porcelain"], cwd=repo, capture_output=True, text=True).stdout == status
    assert subprocess.run(["git", "worktree", "list"], cwd=repo, capture_output=True, text=True).stdout.count("\n") == 1
    # and an unchanged folder shows no difference
    _git(repo, "commit", "-qam", "bonus")
    code, out, err = rulepress(capsys, monkeypatch, "balance", game, "--against", "HEAD", "-n", 30, "--json")
    assert json.loads(out)["reports"][0]["compare"]["significant"] == []


def _chromium():
    return shutil.which("chromium") or shutil.which("chromium-browser")


def test_html_is_the_same_bytes_every_time(tmp_path, capsys, monkeypatch):
    pytest.importorskip("matplotlib")
    for name in ("one.html", "two.html"):
        code, _out, err = rulepress(capsys, monkeypatch, "balance", DUEL, "-n", 20, "--no-coverage",
                                    "-o", tmp_path / name)
        assert code == 0, err
    assert (tmp_path / "one.html").read_bytes() == (tmp_path / "two.html").read_bytes()


def test_means_are_written_to_three_figures():
    from rulepress.balance_html import _num
    assert [_num(x) for x in (23.117, 320.383, 2.033, 0.04, 25.0, -1.25)] == ["23.1", "320", "2.03", "0.04", "25", "-1.25"]


@pytest.mark.skipif(not _chromium(), reason="no chromium: `make browser` installs it")
def test_the_report_opens_in_a_browser_with_its_plots(tmp_path, capsys, monkeypatch):
    pytest.importorskip("matplotlib")
    playwright = pytest.importorskip("playwright.sync_api", reason="playwright is in the test extra")
    b = _copy(tmp_path, "b", SEAT_1_BONUS)
    one, two = tmp_path / "one.html", tmp_path / "two.html"
    assert rulepress(capsys, monkeypatch, "balance", DUEL, "-n", 20, "-o", one)[0] == 0
    assert rulepress(capsys, monkeypatch, "balance", DUEL, b, "-n", 20, "-o", two)[0] == 0
    with playwright.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=os.path.realpath(_chromium()), args=["--no-sandbox"])
        try:
            page = browser.new_page()
            page.goto(one.as_uri())
            assert page.title() == "Balance: Duel, 2 players"  # the name the rulebook prints, not the folder
            # win rate, scores, length, endings, actions, cards: each a plot the browser drew
            assert page.locator("figure > svg").count() == 6
            box = page.locator("figure > svg").first.bounding_box()
            assert box and box["width"] > 200 and box["height"] > 50
            assert "seat 1" in page.locator("figure").first.inner_text()
            assert "fair" in page.locator(".verdict").first.inner_text()
            page.goto(two.as_uri())
            assert page.locator("figure > svg").count() == 3 + 2 * 6  # the comparison's, then each version's
            assert "significant" in page.locator(".verdict").first.inner_text()
            assert page.locator("li.sig").count() >= 1
        finally:
            browser.close()


@pytest.mark.skipif(not _chromium(), reason="no chromium: `make browser` installs it")
def test_each_content_game_has_a_report_with_its_plots(tmp_path, capsys, monkeypatch):
    pytest.importorskip("matplotlib")
    playwright = pytest.importorskip("playwright.sync_api", reason="playwright is in the test extra")
    base = os.path.join(ROOT, "content")
    games = sorted(g for g in os.listdir(base) if os.path.isfile(os.path.join(base, g, "game.yaml")))
    for g in games:
        code, _out, err = rulepress(capsys, monkeypatch, "balance", os.path.join(base, g), "-n", 2,
                                    "--no-coverage", "-o", tmp_path / f"{g}.html")
        assert code == 0, err
    with playwright.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=os.path.realpath(_chromium()), args=["--no-sandbox"])
        try:
            page = browser.new_page()
            for g in games:
                page.goto((tmp_path / f"{g}.html").as_uri())
                # seats, scores, length, endings, actions at least; factions and cards where the game has them
                assert page.locator("figure > svg").count() >= 5, g
                assert page.locator("figure > svg text").count() > 20, g
                assert page.locator(".verdict").first.inner_text(), g
        finally:
            browser.close()
