"""The scenario format: refused choices, checkpoints, variant components, scenarios kept
elsewhere, -k, one copy among identical ones, and scenarios checked as content."""
from __future__ import annotations

import os
import shutil

import pytest
from click.testing import CliRunner

from rulepress.cli import main
from rulepress.compiler.validation import validate_game

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RACE = os.path.join(ROOT, "docs", "tutorial", "race")


@pytest.fixture
def race(tmp_path):
    """The tutorial game without its scenarios, and an empty scenarios/ folder."""
    folder = tmp_path / "race"
    shutil.copytree(RACE, folder, ignore=shutil.ignore_patterns("scenarios"))
    (folder / "scenarios").mkdir()
    return folder


def scenario(folder, name, body, sub="scenarios"):
    path = folder / sub / f"{name}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("scenario:\n  name: " + name.replace("_", " ") + "\n  players: 2\n"
                    + "".join(f"  {line}\n" for line in body.strip("\n").splitlines()), encoding="utf-8")
    return path


def run(*args):
    result = CliRunner().invoke(main, ["test", *map(str, args)])
    assert "Traceback" not in result.output
    return result


def test_refused_passes_when_the_choice_is_not_offered(race):
    scenario(race, "no_boost_with_empty_hand", "steps:\n  - refused: boost\n  - roll")
    result = run(race)
    assert result.exit_code == 0, result.output
    assert "1 passed, 0 failed" in result.output


def test_refused_fails_when_the_choice_is_offered(race):
    scenario(race, "boost_refused", 'setup: |\n  move "nitro#1" to p1.hand\nsteps:\n  - refused: [boost]')
    result = run(race)
    assert result.exit_code == 1
    assert "step 1: `boost` is offered to p1, but the scenario says it is refused here" in result.output


def test_a_checkpoint_inside_the_steps_is_checked_then_and_shows_both_sides(race):
    scenario(race, "checkpoints", "dice: [3, 4, 1, 1]\nsteps:\n  - roll\n  - expect: p1.position == 7\n"
                                  "  - roll\n  - expect: [p2.position == 3]\nexpect:\n  - p1.position == 7")
    result = run(race, "-v")
    assert result.exit_code == 1
    assert "step 4: expected `p2.position == 3`: left side is 2, right side is 3" in result.output
    assert "checkpoints.yaml:9:16: step 4" in result.output  # the checkpoint's own line


def test_variants_print_other_numbers_and_add_a_thing_without_touching_the_content(race):
    before = (race / "game.yaml").read_text(encoding="utf-8")
    scenario(race, "variants", 'variants:\n  - {thing: nitro, attrs: {speed: 5}}\n'
                               '  - {add: super_nitro, like: nitro, attrs: {speed: 9}, at: supply}\n'
                               'setup: |\n  move "nitro#2" to p1.hand\n  move super_nitro to p2.hand\n'
                               'steps: [boost, boost]\n'
                               'expect:\n  - p1.position == 5\n  - p2.position == 9\n  - super_nitro.type == "super_nitro"')
    scenario(race, "plain", 'setup: |\n  move "nitro#2" to p1.hand\nsteps: [boost]\nexpect:\n  - p1.position == 3')
    result = run(race, "-v")
    assert result.exit_code == 0, result.output
    assert "2 passed" in result.output
    assert (race / "game.yaml").read_text(encoding="utf-8") == before


@pytest.mark.parametrize("variant, message", [
    ("{thing: turbo, attrs: {speed: 5}}", "unknown thing `turbo`"),
    ("{thing: nitro, attrs: {sped: 5}}", "unknown attribute `sped`"),
    ("{add: oil, like: nitro}", "id `oil` is already used"),
    ("{add: x, like: nitro, at: nowhere}", "unknown place `nowhere`"),
    ("{add: x}", "a variant is `{thing: ID, attrs: {...}}`"),
    ("{thing: nitro, add: x, like: nitro}", "a variant is"),
    ("nitro", "should be"),
    ("{add: x, like: nitro, at: p9.hand}", "no seat `p9` in this game"),
    ("{add: x, like: nitro, attrs: {speed: {deep: [1]}}}", "should be text or a number"),
])
def test_a_wrong_variant_fails_the_scenario_with_its_error(race, variant, message):
    scenario(race, "bad_variant", f"variants:\n  - {variant}\nexpect:\n  - p1.position == 0")
    result = run(race)
    assert result.exit_code == 1
    assert message in result.output


def test_scenarios_kept_outside_the_game_folder(race, tmp_path):
    scenario(tmp_path, "elsewhere", "dice: [1, 1]\nsteps: [roll]\nexpect:\n  - p1.position == 2", sub="mine")
    result = run(race, "--scenarios", tmp_path / "mine")
    assert result.exit_code == 0, result.output
    assert "1 passed, 0 failed" in result.output
    assert run(race, "--scenarios", tmp_path / "nothing").exit_code == 2
    assert run(race, race, "--scenarios", tmp_path / "mine").exit_code == 2


def test_k_matches_names_and_file_names_not_the_folder(race):
    scenario(race, "roll_once", "dice: [1, 1]\nsteps: [roll]\nexpect:\n  - p1.position == 2")
    (race / "scenarios" / "other.yaml").write_text("scenario:\n  name: Boosting\n  expect: [p1.position == 0]\n", encoding="utf-8")
    assert "1 passed" in run(race, "-k", "roll_once").output  # the file name
    assert "1 passed" in run(race, "-k", "boosting").output  # the name
    nothing = run(race, "-k", "race")  # the folder path is not matched
    assert "0 passed, 0 failed" in nothing.output and "nothing was tested" in nothing.output
    assert nothing.exit_code == 1  # a run that tested nothing is not a pass


def test_a_game_without_scenarios_is_named_and_alone_fails(race, tmp_path):
    scenario(race, "roll_once", "dice: [1, 1]\nsteps: [roll]\nexpect:\n  - p1.position == 2")
    bare = tmp_path / "bare"
    shutil.copytree(RACE, bare, ignore=shutil.ignore_patterns("scenarios"))
    alone = run(bare)
    assert alone.exit_code == 1 and "no scenarios in:" in alone.output and "no scenario files found" in alone.output
    both = run(race, bare)
    assert both.exit_code == 0 and "1 passed, 0 failed" in both.output and "no scenarios in:" in both.output


def test_a_copy_is_named_as_it_is_or_quoted_and_it_must_exist(race):
    scenario(race, "unquoted", "setup: |\n  move nitro#1 to p1.hand  # a comment\nexpect:\n  - count(p1.hand) == 1\n  - nitro#1 in p1.hand")
    scenario(race, "quoted", 'setup: |\n  move "nitro#2" to p1.hand\nexpect:\n  - count(p1.hand) == 1')
    scenario(race, "no_such_copy", 'setup: |\n  move "nitro#9" to p1.hand\nexpect:\n  - count(p1.hand) == 1')
    scenario(race, "no_such_copy_unquoted", 'setup: |\n  move nitro#7 to p1.hand\nexpect:\n  - count(p1.hand) == 1')
    out = run(race).output
    assert "D032 no copy `nitro#9`" in out and "D032 no copy `nitro#7`" in out
    assert "2 passed, 2 failed" in out


def test_a_misspelled_key_fails_with_did_you_mean_and_validate_reports_it(race):
    path = scenario(race, "misspelled", "dice: [1, 1]\nsteps: [roll]\nexepct:\n  - p1.position == 99")
    result = run(race)
    assert result.exit_code == 1
    assert "S001 unknown key `exepct` in scenario; did you mean `expect`?" in result.output
    assert "0 passed, 1 failed" in result.output
    found = [d.text() for d in validate_game(str(race)).errors]
    assert any(t.startswith(f"{os.path.relpath(path)}:6:3: error: S001") for t in found), found


def test_an_unknown_name_in_an_expectation_is_reported_not_read_as_null(race):
    scenario(race, "misspelled_counter", "expect:\n  - p2.postion == 0\n  - p2 has protectd")
    out = run(race).output
    assert "D014 unknown attribute or counter `postion`; did you mean `position`?" in out
    assert "D033 mark `protectd` is tested but neither the game nor the scenario sets it" in out


def test_hostile_scenario_files_fail_cleanly(race):
    (race / "scenarios" / "list.yaml").write_text("- 1\n- 2\n", encoding="utf-8")
    (race / "scenarios" / "steps.yaml").write_text("scenario:\n  name: x\n  steps:\n    - {refused: [[1]]}\n    - {p1: roll, p2: roll}\n"
                                                   "    - {expect: 3}\n", encoding="utf-8")
    (race / "scenarios" / "setup.yaml").write_text("scenario:\n  name: y\n  setup: \"let x = (\"\n", encoding="utf-8")
    scenario(race, "seat_refused", "steps:\n  - {refused: roll, seat: p9}")
    scenario(race, "seat_step", "steps:\n  - {p9: roll}")
    result = run(race)
    assert result.exit_code == 1
    assert "0 passed, 5 failed" in result.output
    assert result.output.count("no seat `p9` in a game of 2: the seats are p1, p2") == 2


def test_validate_keeps_scenario_findings_only_while_nothing_changed(race, tmp_path, monkeypatch):
    monkeypatch.setenv("RULEPRESS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("RULEPRESS_NO_CACHE", raising=False)
    path = scenario(race, "kept", "expect:\n  - p1.position == 0")
    assert not validate_game(str(race)).errors
    assert not validate_game(str(race)).errors  # (from what was kept)
    path.write_text(path.read_text(encoding="utf-8").replace("position", "postion"), encoding="utf-8")
    assert [d.code for d in validate_game(str(race)).errors] == ["D014"]
    game = race / "game.yaml"  # a change to the game is a change to what the scenarios are read against
    game.write_text(game.read_text(encoding="utf-8").replace("id: position", "id: postion").replace(
        "gain sum(dice) position", "gain sum(dice) postion").replace("gain c.speed position", "gain c.speed postion").replace(
        "p.position >= 20", "p.postion >= 20").replace("score: player.position", "score: player.postion"), encoding="utf-8")
    assert [d.text() for d in validate_game(str(race)).errors] == []
    for kept in (tmp_path / "cache" / "scenarios").iterdir():  # a kept file not of our making
        kept.write_text('{"key": 1, "diags": [[1]]', encoding="utf-8")
    assert [d.text() for d in validate_game(str(race)).errors] == []
