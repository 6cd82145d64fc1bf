"""Hostile input to `rulepress balance`: wrong arguments are refused before any game with
exit 2 and one line; a revision that cannot be had, a missing plotting library or a
report that cannot be written end with exit 1 and one line; content's words reach the
HTML escaped; a link where the report goes is refused, neither written through nor replaced
(hostile repositories: test_hostile_git.py)."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import rulepress, one_line

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DUEL = os.path.join(ROOT, "tests", "games", "duel")
DUEL_JSON = os.path.join(ROOT, "build", "android", "game.json")  # a built game


@pytest.fixture
def places(tmp_path):
    (tmp_path / "a-file").write_text("x")
    (tmp_path / "a-folder").mkdir()
    return {"FILE": str(tmp_path / "a-file"), "DIR": str(tmp_path / "a-folder"),
            "UNDER_FILE": str(tmp_path / "a-file" / "r.html"), "NOWHERE": str(tmp_path / "no" / "such" / "r.html")}


BAD = [
    (["balance", DUEL, "-n", "0"], r"'-n'.*0 is not in the range"),
    (["balance", DUEL, "-n", "lots"], r"'-n'"),
    (["balance", DUEL, "--players", "99"], r"--players: duel is for 2 to 3 players, not 99"),
    (["balance", DUEL, "--players", "2", "--players", "1"], r"--players: duel is for 2 to 3 players, not 1"),
    (["balance", DUEL, "--agent", "nobody"], r"--agent: unknown agent `nobody`"),
    (["balance", DUEL, "--agent", "p7=random"], r"--agent: no seat `p7`"),
    (["balance", DUEL, "--agent", ""], r"--agent: name an agent"),
    (["balance", DUEL, "--seed", "x" * 101], r"--seed: a seed of at most 100 characters"),
    (["balance", DUEL, "--workers", "999"], r"--workers must be from 1"),
    (["balance", DUEL, "--option", "nope=1"], r"--option: duel has no option `nope`"),
    (["balance", DUEL, DUEL, DUEL], r"one game, or two to compare, not 3"),
    (["balance", DUEL, DUEL, "--against", "HEAD"], r"--against compares one game folder"),
    (["balance", DUEL, "--against", "--output=x"], r"--against: `--output=x` is not a git revision"),
    (["balance", DUEL, "--against", "a..b"], r"--against: `a..b` is not a git revision"),
    (["balance", DUEL_JSON, "--against", "HEAD"], r"--against needs a game folder"),
    (["balance", "no-such-game"], r"no game `no-such-game`"),
    (["balance", DUEL, "-o", "DIR"], r"-o: .* is a folder, not a file"),
    (["balance", DUEL, "-o", "UNDER_FILE"], r"-o: the folder .* does not exist"),
    (["balance", DUEL, "-o", "NOWHERE"], r"-o: the folder .* does not exist"),
    (["balance"], r"Missing argument"),
]


@pytest.mark.parametrize("args, said", BAD, ids=[" ".join(a)[:60] for a, _ in BAD])
def test_bad_arguments_exit_2_with_one_line(args, said, places, capsys, monkeypatch):
    if DUEL_JSON in args and not os.path.isfile(DUEL_JSON):
        pytest.skip("no built game")
    args = [places.get(a, a) for a in args]
    code, out, err = rulepress(capsys, monkeypatch, *args)
    assert code == 2, (out, err)
    assert re.search(said, one_line(err)), err


def _git(cwd, *args):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd, check=True,
                   capture_output=True)


@pytest.mark.skipif(not shutil.which("git"), reason="no git")
def test_revisions_that_cannot_be_had(tmp_path, capsys, monkeypatch):
    outside = tmp_path / "outside"
    shutil.copytree(DUEL, outside)
    code, _out, err = rulepress(capsys, monkeypatch, "balance", outside, "--against", "HEAD", "-n", 1)
    assert code == 1 and "is not inside a git repository" in one_line(err)
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "README").write_text("x")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-qm", "first")
    game = repo / "duel"
    shutil.copytree(DUEL, game)  # not committed: at HEAD the folder does not exist
    code, _out, err = rulepress(capsys, monkeypatch, "balance", game, "--against", "HEAD", "-n", 1)
    assert code == 1 and "rulepress: " in one_line(err) and "duel" in err
    code, _out, err = rulepress(capsys, monkeypatch, "balance", game, "--against", "no-such-branch", "-n", 1)
    assert code == 1 and one_line(err)


def test_without_matplotlib_the_report_says_how_to_get_it(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    code, out, err = rulepress(capsys, monkeypatch, "balance", DUEL, "-n", 5, "-o", tmp_path / "r.html")
    assert code == 1 and "pip install 'rulepress[balance]'" in one_line(err)
    assert not (tmp_path / "r.html").exists() and out == ""  # and no game was played for nothing
    # the figures themselves need no plots
    code, out, err = rulepress(capsys, monkeypatch, "balance", DUEL, "-n", 5, "--json", "--no-coverage")
    assert code == 0 and '"reports"' in out


def test_content_words_reach_the_report_escaped(tmp_path, capsys, monkeypatch):
    pytest.importorskip("matplotlib")
    game = tmp_path / "duel"
    shutil.copytree(DUEL, game)
    text = (game / "game.yaml").read_text()
    (game / "game.yaml").write_text(text.replace("name: {en: Dig, ru: Копать}",
                                                 "name: {en: \"<script>alert(1)</script>\", ru: Копать}"))
    report = tmp_path / "r.html"
    code, _out, err = rulepress(capsys, monkeypatch, "balance", game, "-n", 5, "--no-coverage", "-o", report)
    assert code == 0, err
    page = report.read_text()
    assert "<script" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_a_link_where_the_report_goes_is_refused_before_any_game(tmp_path, capsys, monkeypatch):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    report = tmp_path / "r.html"
    report.symlink_to(victim)
    code, out, err = rulepress(capsys, monkeypatch, "balance", DUEL, "-n", 3, "--no-coverage", "-o", report)
    assert code == 2 and "-o: " in one_line(err) and "is a link" in err and out == ""
    assert victim.read_text() == "keep me" and report.is_symlink()


def test_a_link_planted_while_the_games_play_is_refused_too(tmp_path, capsys, monkeypatch):
    pytest.importorskip("matplotlib")
    from rulepress.balance_html import page as real_page
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    report = tmp_path / "r.html"

    def plant_then_page(r):
        if not report.is_symlink():
            report.symlink_to(victim)
        return real_page(r)
    monkeypatch.setattr("rulepress.balance_html.page", plant_then_page)
    code, _out, err = rulepress(capsys, monkeypatch, "balance", DUEL, "-n", 3, "--no-coverage", "-o", report)
    assert code == 1 and "refusing to write" in one_line(err)
    assert victim.read_text() == "keep me" and report.is_symlink()


@pytest.mark.skipif(not os.path.islink("/dev/stdout"), reason="/dev/stdout is no link here")
@pytest.mark.parametrize("command", [["balance", DUEL, "-n", 1, "-o"], ["play", DUEL, "--bots", "p1,p2", "--log"]])
def test_dev_stdout_as_the_file_to_write_is_a_usage_error_and_stays_a_link(capsys, monkeypatch, command):
    # (as root, writing beside /dev/stdout and renaming onto it once made it a regular file)
    code, out, err = rulepress(capsys, monkeypatch, *command, "/dev/stdout")
    assert code == 2 and "/dev/stdout is a link" in one_line(err) and out == ""
    assert os.path.islink("/dev/stdout")
