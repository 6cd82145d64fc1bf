"""Commands on the game of the current folder, the game of a log found by its id, and an
output place checked before any work: what a designer types inside a game's folder."""
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DUEL = os.path.join(ROOT, "tests", "games", "duel")
RULEPRESS = os.path.join(os.path.dirname(sys.executable), "rulepress")


def run(*args, cwd):
    return subprocess.run([RULEPRESS, *args], capture_output=True, text=True, cwd=cwd, timeout=300,
                          env={**os.environ, "RULEPRESS_NO_CACHE": "1"})


@pytest.fixture()
def games(tmp_path):
    shutil.copytree(DUEL, tmp_path / "games" / "duel")
    return tmp_path / "games"


def test_a_command_given_no_game_takes_the_game_of_the_current_folder(games):
    here = games / "duel"
    got = run("validate", cwd=here)
    assert got.returncode == 0 and "1 game checked: 0 errors" in got.stdout, got.stdout + got.stderr
    got = run("simulate", "-n", "2", cwd=here)
    assert got.returncode == 0 and got.stdout.startswith("duel: 2/2 games finished"), got.stderr
    got = run("secrets", "-n", "1", cwd=here)
    assert got.returncode == 0 and "no leak" in got.stdout, got.stderr
    elsewhere = run("simulate", cwd=games)
    assert elsewhere.returncode == 2 and elsewhere.stderr.startswith("rulepress: no game given")
    assert "Traceback" not in elsewhere.stderr


def test_replay_finds_the_game_by_the_logs_id_here_and_in_a_folder_of_games(games, tmp_path):
    log = tmp_path / "duel.log"
    got = run("play", "--seed", "1", "--bots", "p1,p2", "--log", str(log), cwd=games / "duel")
    assert got.returncode == 0, got.stderr
    for cwd, extra in ((games / "duel", ()), (games, ()), (tmp_path, ("--game", str(games)))):
        got = run("replay", str(log), *extra, cwd=cwd)
        assert got.returncode == 0 and "matches" in got.stdout, (cwd, got.stderr)
    lost = run("replay", str(log), cwd=tmp_path)
    assert lost.returncode == 1 and "name it with --game" in lost.stderr


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs /proc, where no file can be made")
def test_an_output_place_no_file_can_be_made_in_is_refused_before_any_game(games):
    got = run("balance", "duel", "-n", "50", "-o", "/proc/report.html", cwd=games)
    assert got.returncode == 2 and got.stdout == "" and "cannot be written to" in got.stderr
    got = run("build", "duel", "-o", "/proc/out", cwd=games)
    assert got.returncode == 2 and "cannot be written to" in got.stderr


def test_build_says_wrote_only_for_the_files_it_changed(games):
    first = run("build", "duel", "-o", "out", cwd=games)
    wrote = [x for x in first.stdout.splitlines() if x.startswith("wrote ")]
    assert first.returncode == 0 and "wrote out/duel/game.json" in wrote
    again = run("build", "duel", "-o", "out", cwd=games)
    assert again.returncode == 0 and "wrote" not in again.stdout and f"out: up to date ({len(wrote)} files)" in again.stdout
    game = games / "duel" / "game.yaml"
    game.write_text(game.read_text(encoding="utf-8").replace("en: Sabre", "en: Sword"), encoding="utf-8")
    changed = run("build", "duel", "-o", "out", cwd=games)
    lines = [x for x in changed.stdout.splitlines() if x.startswith("wrote ")]
    assert "wrote out/duel/game.json" in lines and len(lines) < len(wrote) + 1
