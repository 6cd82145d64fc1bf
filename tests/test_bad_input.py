"""Broken content never crashes the checker: exit 1, FILE:LINE messages, no traceback.

Each test writes a small game folder (the tutorial race plus one broken file) and runs
`rulepress validate` on it the way a designer would.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys

import pytest
from click.testing import CliRunner

from rulepress.cli import main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RACE = os.path.join(ROOT, "docs", "tutorial", "race")
LINE = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<col>\d+): (?P<sev>error|warning): (?P<code>[A-Z]\d{3}) (?P<msg>.+)$", re.M)


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("RULEPRESS_CACHE_DIR", str(tmp_path / "cache"))


@pytest.fixture
def game(tmp_path):
    folder = tmp_path / "race"
    shutil.copytree(RACE, folder, ignore=shutil.ignore_patterns("scenarios"))
    return folder


def validate(*args):
    result = CliRunner().invoke(main, ["validate", *map(str, args)])
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def errors(result):
    return [m.groupdict() for m in LINE.finditer(result.stdout) if m["sev"] == "error"]


def only_error(result, code, file, line):
    """Exactly one error, with this code, in this file at this line."""
    assert result.exit_code == 1, result.output
    errs = errors(result)
    assert len(errs) == 1, result.output
    e = errs[0]
    assert (e["code"], os.path.basename(e["file"]), int(e["line"])) == (code, file, line), result.output
    return e["msg"]


def write(folder, name, text, mode="w"):
    path = folder / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


CARD = "cards:\n  - id: turbo\n    name: {en: Turbo, ru: Турбо}\n    deck: boosts\n"


def test_the_untouched_tutorial_is_valid(game):
    result = validate(game)
    assert result.exit_code == 0, result.output
    assert result.stdout.strip().endswith("0 errors, 0 warnings")


def test_yaml_syntax_error_points_at_its_line(game):
    write(game, "extra.yaml", CARD + "    attrs: {speed: 2\n")
    msg = only_error(validate(game), "Y001", "extra.yaml", 6)
    assert "YAML syntax" in msg


def test_tab_indentation_is_named_as_the_cause(game):
    write(game, "extra.yaml", "cards:\n  - id: turbo\n\tname: x\n")
    msg = only_error(validate(game), "Y001", "extra.yaml", 3)
    assert "tabs cannot indent YAML" in msg


def test_duplicate_key_reports_both_lines(game):
    write(game, "extra.yaml", CARD + "    deck: boosts\n")
    msg = only_error(validate(game), "Y011", "extra.yaml", 5)
    assert "duplicate key `deck`" in msg and "first at line 4" in msg


def test_unknown_key_suggests_the_right_one(game):
    write(game, "extra.yaml", CARD + "    cuont: 2\n")
    msg = only_error(validate(game), "S001", "extra.yaml", 5)
    assert "unknown key `cuont`" in msg and "did you mean `count`?" in msg


def test_wrong_type_says_what_was_expected(game):
    write(game, "extra.yaml", CARD + "    count: two\n")
    msg = only_error(validate(game), "S003", "extra.yaml", 5)
    assert "whole number" in msg and "`two`" in msg


def test_missing_required_key(game):
    write(game, "extra.yaml", "cards:\n  - id: turbo\n    deck: boosts\n")
    msg = only_error(validate(game), "S002", "extra.yaml", 2)
    assert "missing required key `name`" in msg


def test_dangling_reference_suggests_the_declared_id(game):
    write(game, "extra.yaml", CARD.replace("deck: boosts", "deck: bosts"))
    msg = only_error(validate(game), "R002", "extra.yaml", 4)
    assert "unknown deck `bosts`" in msg and "did you mean `boosts`?" in msg


def test_same_id_in_two_files_names_both(game):
    write(game, "extra.yaml", CARD.replace("turbo", "nitro"))
    result = validate(game)
    assert result.exit_code == 1
    (e,) = errors(result)
    assert e["code"] == "R001" and "`nitro`" in e["msg"]
    # one file is where it is reported, the other is named in the message with its line
    places = {(os.path.basename(e["file"]), int(e["line"]))}
    other = re.search(r"at (\S+):(\d+):\d+", e["msg"])
    places.add((os.path.basename(other[1]), int(other[2])))
    assert places == {("extra.yaml", 2), ("game.yaml", 28)}


def test_alias_bomb_is_refused_quickly(game):
    lines = ['icons:', '  - &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, 10):
        prev, cur = chr(ord("a") + i - 1), chr(ord("a") + i)
        lines.append(f"  - &{cur} [" + ", ".join([f"*{prev}"] * 9) + "]")
    write(game, "extra.yaml", "\n".join(lines) + "\n")
    import time
    start = time.perf_counter()
    result = validate(game)
    assert time.perf_counter() - start < 5
    msg = only_error(result, "Y005", "extra.yaml", 8)
    assert "aliases expand" in msg


def test_an_alias_inside_itself_is_refused(game):
    write(game, "extra.yaml", "icons: &a [*a]\n")
    assert "refers to itself" in only_error(validate(game), "Y005", "extra.yaml", 1)


def test_python_object_tag_is_refused_not_run(game, tmp_path):
    marker = tmp_path / "ran"
    write(game, "extra.yaml", f'icons:\n  - !!python/object/apply:os.system ["touch {marker}"]\n')
    msg = only_error(validate(game), "Y004", "extra.yaml", 2)
    assert "!!python/object/apply:os.system" in msg and "not allowed" in msg
    assert not marker.exists()


def test_non_utf8_bytes_point_at_the_bad_byte(game):
    write(game, "extra.yaml", CARD.encode() + b"    text: {en: caf\xe9, ru: x}\n")
    msg = only_error(validate(game), "Y002", "extra.yaml", 5)
    assert "0xe9" in msg and "UTF-8" in msg


def test_empty_file(game):
    write(game, "extra.yaml", "# nothing yet\n\n")
    assert "empty" in only_error(validate(game), "Y003", "extra.yaml", 1)


def test_one_megabyte_line_is_read_and_quoted_short(game):
    write(game, "extra.yaml", "cards:\n  - id: turbo\n    deck: boosts\n    name: " + "a" * 1_000_000 + "\n")
    msg = only_error(validate(game), "S003", "extra.yaml", 4)
    assert len(msg) < 200


def test_one_megabyte_line_of_valid_content_passes(game):
    cards = ", ".join(f"{{id: c{i:06d}, name: {{en: C, ru: C}}, deck: boosts}}" for i in range(20_000))
    write(game, "extra.yaml", f"cards: [{cards}]\n")
    assert os.path.getsize(game / "extra.yaml") > 1_000_000
    result = validate(game)
    assert result.exit_code == 0, result.output[-500:]


def test_ten_thousand_nested_lists(game):
    write(game, "extra.yaml", "icons: " + "[" * 10_000 + "]" * 10_000 + "\n")
    assert "nesting is deeper" in only_error(validate(game), "Y006", "extra.yaml", 1)


def test_deep_block_nesting(game):
    write(game, "extra.yaml", "icons:\n" + "".join(" " * i + "-\n" for i in range(200)))
    assert "nesting is deeper" in only_error(validate(game), "Y006", "extra.yaml", 66)


def test_folder_link_loop_is_reported_once(game):
    os.mkdir(game / "more")
    os.symlink("..", game / "more" / "loop")
    result = validate(game)
    (e,) = errors(result)
    assert e["code"] == "Y012" and e["file"].endswith(os.path.join("more", "loop"))
    assert result.exit_code == 1


def test_a_path_that_does_not_exist_is_a_usage_error(tmp_path):
    result = validate(tmp_path / "nowhere")
    assert result.exit_code == 2
    assert "no such file or directory" in result.stderr
    assert not errors(result)


def broken_game(game):
    """Three files, each with its own mistake, plus one in the manifest's effects."""
    write(game, "b.yaml", CARD.replace("deck: boosts", "deck: bosts"))
    write(game, "a.yaml", "zones: []\nzones: []\n")
    write(game, "c.yaml", "cards:\n  - id: c1\n    name: {en: C, ru: C}\n    deck: boosts\n    effect: |\n      gain 1 postion\n")
    return game


def test_every_error_is_reported_at_once_sorted_by_file_and_line(game):
    result = validate(broken_game(game))
    assert result.exit_code == 1
    errs = errors(result)
    got = [(os.path.basename(e["file"]), int(e["line"]), e["code"]) for e in errs]
    assert got == [("a.yaml", 2, "Y011"), ("b.yaml", 4, "R002"), ("c.yaml", 6, "D011")]
    assert result.stdout.strip().endswith("1 game checked: 3 errors, 0 warnings")


def test_json_format_has_the_same_items(game):
    broken_game(game)
    text = validate(game)
    result = validate(game, "--format", "json")
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["version"] == 1 and data["errors"] == 3 and data["warnings"] == 0
    import jsonschema  # the output is what docs/diagnostics-output.schema.json documents
    with open(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                           "docs", "diagnostics-output.schema.json"), encoding="utf-8") as fh:
        jsonschema.Draft7Validator(json.load(fh)).validate(data)
    as_lines = [f"{d['file']}:{d['line']}:{d['col']}: {d['severity']}: {d['code']} {d['message']}"
                for d in data["diagnostics"]]
    assert as_lines == [m.group(0) for m in LINE.finditer(text.stdout)]


def test_github_format_annotates_and_keeps_the_plain_list(game):
    broken_game(game)
    result = validate(game, "--format", "github")
    assert result.exit_code == 1
    notes = re.findall(r"^::error file=([^,]+),line=(\d+),col=(\d+),title=([A-Z]\d{3})::(.+)$", result.stdout, re.M)
    plain = errors(result)
    assert len(notes) == len(plain) == 3
    for (file, line, col, code, msg), e in zip(notes, plain):
        assert (file, line, col, code, msg) == (e["file"], e["line"], e["col"], e["code"], e["msg"])


def test_the_command_itself_prints_no_traceback():
    """The installed command, in its own process, on a folder full of mistakes."""
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        folder = os.path.join(tmp, "race")
        shutil.copytree(RACE, folder)
        with open(os.path.join(folder, "deep.yaml"), "w") as fh:
            fh.write("icons: " + "[" * 10_000 + "]" * 10_000 + "\n")
        with open(os.path.join(folder, "bad.yaml"), "wb") as fh:
            fh.write(b"procedures:\n  - id: p\n    effect: gain 99999999999999 position\n  - id: q\n    effect: \xff\n")
        proc = subprocess.run([sys.executable, "-m", "rulepress", "validate", folder],
                              capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr
    assert re.search(r"deep\.yaml:1:\d+: error: Y006", proc.stdout)
    assert re.search(r"bad\.yaml:5:\d+: error: Y002", proc.stdout)


def test_a_number_too_large_in_an_effect(game):
    write(game, "extra.yaml", "procedures:\n  - id: p\n    effect: gain 99999999999999 position\n")
    msg = only_error(validate(game), "D008", "extra.yaml", 3)
    assert "too large" in msg


def test_an_unknown_verb_is_named(game):
    write(game, "extra.yaml", "procedures:\n  - id: p\n    effect: |\n      gain 1 position\n      jump 3 position\n")
    msg = only_error(validate(game), "D001", "extra.yaml", 5)
    assert "unknown statement `jump`" in msg


def test_the_command_ends_with_its_exit_code_and_all_its_output(tmp_path):
    """The console script ends its process without freeing what it made (compiler.memory):
    the exit code is the command's, and nothing it printed is lost, however long."""
    rulepress = os.path.join(os.path.dirname(sys.executable), "rulepress")
    folder = tmp_path / "race"
    shutil.copytree(RACE, folder)
    (folder / "many.yaml").write_text("procedures:\n" + "".join(
        f"  - id: p{i}\n    effect: jump {i} position\n" for i in range(3000)))
    env = {**os.environ, "RULEPRESS_CACHE_DIR": str(tmp_path / "cache")}
    bad = subprocess.run([rulepress, "validate", str(folder)], capture_output=True, text=True, env=env, timeout=120)
    assert bad.returncode == 1
    assert len(re.findall(r"error: D001", bad.stdout)) == 3000
    assert re.fullmatch(r"1 game checked: 3000 errors, \d+ warnings", bad.stdout.splitlines()[-1])
    missing = subprocess.run([rulepress, "validate", str(tmp_path / "nowhere")], capture_output=True, text=True, env=env)
    assert missing.returncode == 2 and "no such file" in missing.stderr
    (folder / "many.yaml").unlink()
    good = subprocess.run([rulepress, "validate", str(folder)], capture_output=True, text=True, env=env)
    assert good.returncode == 0 and good.stdout.splitlines()[-1].startswith("1 game checked: 0 errors")
