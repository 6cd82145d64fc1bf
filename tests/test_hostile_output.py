"""Hostile output folders: nothing is ever written outside -o, nor through a link.

Each case builds the tutorial game into a folder prepared to mislead the writer (-o is a
file, a link planted where an output goes, ids that spell paths) and asserts the exit code,
one clear line, no traceback, and that every file outside -o is as it was.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rulepress.cli import main
from rulepress.compiler import writing

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RACE = os.path.join(ROOT, "docs", "tutorial", "race")
RULEPRESS = os.path.join(os.path.dirname(sys.executable), "rulepress")
OUTPUTS = ["game.json", "rulebook.en.html", "rulebook.en.md", "rulebook.ru.html", "rulebook.ru.md"]


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("RULEPRESS_CACHE_DIR", str(tmp_path / "cache"))
    # `--no-cache` sets RULEPRESS_NO_CACHE in the process: gone again after each test
    monkeypatch.setenv("RULEPRESS_NO_CACHE", "")
    monkeypatch.delenv("RULEPRESS_NO_CACHE")


@pytest.fixture
def game(tmp_path):
    folder = tmp_path / "race"
    shutil.copytree(RACE, folder, ignore=shutil.ignore_patterns("scenarios"))
    return folder


@pytest.fixture
def outside(tmp_path):
    """A folder of the user's that no build may touch: a file to aim links at, and a folder."""
    where = tmp_path / "outside"
    (where / "folder").mkdir(parents=True)
    (where / "precious.txt").write_text("keep me\n", encoding="utf-8")
    return where


def snapshot(folder):
    """Every path below `folder` with its bytes (or where its link points)."""
    out = {}
    for d, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = os.path.join(d, name)
            if os.path.islink(path):
                out[path] = "-> " + os.readlink(path)
            elif os.path.isfile(path):
                with open(path, "rb") as fh:
                    out[path] = fh.read()
            else:
                out[path] = "folder"
    return out


def run(*args):
    result = CliRunner().invoke(main, [*map(str, args)])
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return result


def build(game, out, *more):
    return run("build", game, "-o", out, *more)


def usage_error(result, says):
    assert result.exit_code == 2, result.output
    (line,) = result.stderr.splitlines()
    assert line.startswith("rulepress: ") and says in line, line


def real_files(folder):
    """The outputs, each a regular file (not a link) right inside `folder`."""
    for name in OUTPUTS:
        path = os.path.join(folder, name)
        assert os.path.isfile(path) and not os.path.islink(path), path
    return sorted(os.listdir(folder))


# ---- -o itself ----------------------------------------------------------------

def test_out_that_is_a_regular_file_is_a_usage_error(game, tmp_path):
    target = tmp_path / "build"
    target.write_text("not a folder\n", encoding="utf-8")
    usage_error(build(game, target), "not a folder")
    assert target.read_text(encoding="utf-8") == "not a folder\n"


def test_out_that_is_a_link_to_nowhere_is_a_usage_error(game, tmp_path):
    os.symlink(tmp_path / "gone", tmp_path / "build")
    usage_error(build(game, tmp_path / "build"), "not a folder")
    assert not (tmp_path / "gone").exists()


def test_out_that_is_a_fifo_is_a_usage_error(game, tmp_path):
    os.mkfifo(tmp_path / "build")
    usage_error(build(game, tmp_path / "build"), "not a folder")


def test_out_through_a_link_the_user_chose_writes_where_it_points_and_nowhere_else(game, tmp_path, outside):
    os.symlink(outside / "folder", tmp_path / "build")
    before = snapshot(outside)
    assert build(game, tmp_path / "build").exit_code == 0
    after = snapshot(outside)
    made = sorted(set(after) - set(before))
    assert made == sorted([str(outside / "folder" / "race")] + [str(outside / "folder" / "race" / n) for n in OUTPUTS])
    assert {p: after[p] for p in before} == before


def test_print_out_that_is_a_file_is_a_usage_error(game, tmp_path):
    target = tmp_path / "print"
    target.write_text("x", encoding="utf-8")
    usage_error(run("print", game, "-o", target), "not a folder")


@pytest.mark.parametrize("command", ["build", "print"])
def test_out_below_a_file_is_a_usage_error(game, tmp_path, command):
    (tmp_path / "file").write_text("x", encoding="utf-8")
    usage_error(run(command, game, "-o", tmp_path / "file" / "sub"), "which is not a folder")


# ---- links planted where outputs go --------------------------------------------

def refused(result, path):
    """Exit 1 and one line naming the link in the way: never a usage error (-o was fine)."""
    assert result.exit_code == 1, result.output
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"rulepress: {path}: ") and "refusing to write" in line, line


@pytest.mark.parametrize("name", OUTPUTS)
@pytest.mark.parametrize("cached", [False, True], ids=["built", "copied from the build cache"])
def test_a_link_planted_at_an_output_is_refused_not_followed_nor_replaced(game, tmp_path, outside, name, cached):
    out = tmp_path / "build"
    if cached:  # the second build copies what the first kept
        assert build(game, tmp_path / "first").exit_code == 0
    (out / "race").mkdir(parents=True)
    os.symlink(outside / "precious.txt", out / "race" / name)
    before = snapshot(outside)
    refused(build(game, out), out / "race" / name)
    assert snapshot(outside) == before
    assert os.path.islink(out / "race" / name)


def test_a_link_planted_at_an_output_with_the_same_bytes_is_refused_too(game, tmp_path, outside):
    out = tmp_path / "build"
    assert build(game, out).exit_code == 0
    shutil.copy(out / "race" / "game.json", outside / "same.json")
    os.unlink(out / "race" / "game.json")
    os.symlink(outside / "same.json", out / "race" / "game.json")
    refused(build(game, out), out / "race" / "game.json")
    assert os.path.islink(out / "race" / "game.json")


def test_a_link_planted_at_the_games_folder_is_refused_not_followed(game, tmp_path, outside):
    out = tmp_path / "build"
    out.mkdir()
    os.symlink(outside / "folder", out / "race")
    before = snapshot(outside)
    refused(build(game, out), out / "race")
    assert snapshot(outside) == before
    assert os.path.islink(out / "race")


def test_a_fifo_planted_at_an_output_is_refused_not_replaced(game, tmp_path):
    out = tmp_path / "build"
    (out / "race").mkdir(parents=True)
    os.mkfifo(out / "race" / "game.json")
    refused(build(game, out), out / "race" / "game.json")
    assert not os.path.isfile(out / "race" / "game.json")


def test_a_file_in_the_place_of_the_games_folder_is_replaced(game, tmp_path):
    out = tmp_path / "build"
    out.mkdir()
    (out / "race").write_text("in the way\n", encoding="utf-8")
    assert build(game, out).exit_code == 0
    assert real_files(out / "race") == OUTPUTS


def test_a_planted_link_is_refused_by_the_real_command_too(game, tmp_path, outside):
    out = tmp_path / "build"
    (out / "race").mkdir(parents=True)
    os.symlink(outside / "precious.txt", out / "race" / "rulebook.en.md")
    done = subprocess.run([RULEPRESS, "build", str(game), "-o", str(out)], capture_output=True, text=True,
                          timeout=120, env=dict(os.environ, RULEPRESS_CACHE_DIR=str(tmp_path / "cache")))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr
    assert done.stderr.strip().endswith("refusing to write through it or over it (remove it first)"), done.stderr
    assert (outside / "precious.txt").read_text(encoding="utf-8") == "keep me\n"


def test_a_pdf_is_not_written_through_nor_over_a_planted_link(game, tmp_path, outside):
    pytest.importorskip("weasyprint")
    out = tmp_path / "print"
    out.mkdir()
    os.symlink(outside / "precious.txt", out / "race.cards.en.pdf")
    refused(run("print", game, "-o", out), out / "race.cards.en.pdf")
    assert (outside / "precious.txt").read_text(encoding="utf-8") == "keep me\n"
    assert os.path.islink(out / "race.cards.en.pdf")


def test_emit_python_refuses_a_link_planted_at_game_py(game, tmp_path, outside):
    out = tmp_path / "build"
    (out / "race").mkdir(parents=True)
    os.symlink(outside / "precious.txt", out / "race" / "game.py")
    refused(build(game, out, "--emit-python"), out / "race" / "game.py")
    assert (outside / "precious.txt").read_text(encoding="utf-8") == "keep me\n"


def test_the_output_function_refuses_dev_stdout_style_links(tmp_path, outside):
    # -o /dev/stdout, run as root, once turned /dev/stdout into a regular file
    os.symlink(outside / "precious.txt", tmp_path / "stdout")
    with pytest.raises(writing.Refused):
        writing.put_chosen(str(tmp_path / "stdout"), b"report")
    assert os.path.islink(tmp_path / "stdout")
    assert (outside / "precious.txt").read_text(encoding="utf-8") == "keep me\n"


@pytest.mark.parametrize("name", ["../escape.txt", "a/../../escape.txt", "/tmp/abs.txt", "a//b", "./a", "a/.", "",
                                  "a/\x00b"])
def test_a_name_from_outside_that_leaves_its_folder_is_refused(tmp_path, name):
    root = tmp_path / "tree"
    root.mkdir()
    with pytest.raises(writing.UnsafeName):
        writing.put_under(str(root), name, b"x")
    assert not (tmp_path / "escape.txt").exists() and os.listdir(root) == []


def test_a_name_from_outside_is_not_written_through_a_link_on_its_way(tmp_path, outside):
    root = tmp_path / "tree"
    root.mkdir()
    os.symlink(outside / "folder", root / "sub")
    with pytest.raises(writing.Refused):
        writing.put_under(str(root), "sub/x.yaml", b"x")
    assert os.listdir(outside / "folder") == []
    assert writing.put_under(str(root), "deep/er/x.yaml", b"x") == str(root / "deep" / "er" / "x.yaml")


# ---- ids that spell paths ------------------------------------------------------

@pytest.mark.parametrize("gid", ["../escape", "..", "a/b", "/tmp/abs", "race\\n", "race\\nx", "Race", "-race",
                                 "race\\u0000", "r" * 10 + "/../..", "."])
def test_a_game_id_that_spells_a_path_is_refused_and_nothing_is_written(game, tmp_path, gid):
    text = (game / "game.yaml").read_text(encoding="utf-8")
    (game / "game.yaml").write_text(text.replace("id: race", f'id: "{gid}"', 1), encoding="utf-8")
    before = snapshot(tmp_path)
    result = build(game, tmp_path / "out" / "build")
    assert result.exit_code == 1, result.output
    assert ": error: S005 game.id" in result.stdout
    assert not (tmp_path / "out").exists()
    cache = str(tmp_path / "cache")
    assert {p: v for p, v in snapshot(tmp_path).items() if not p.startswith(cache)} == \
        {p: v for p, v in before.items() if not p.startswith(cache)}


@pytest.mark.parametrize("name", ["..", ".", "", "a/b", "../x", "x\n", "x\x00", "/abs", "..."])
def test_the_writer_refuses_names_that_leave_the_folder(tmp_path, name):
    if "/" not in name:  # (a file's path is its folder, made by folder_in, and its name)
        with pytest.raises(writing.UnsafeName):
            writing.put(os.path.join(tmp_path, name), b"data")
    with pytest.raises(writing.UnsafeName):
        writing.folder_in(str(tmp_path / "out"), name)
    assert snapshot(tmp_path) in ({}, {str(tmp_path / "out"): "folder"})


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.from_regex(r"\A[a-z][a-z0-9-]{0,8}(|\n|/|/\.\.|\.\.)\Z")
       | st.text(alphabet=st.sampled_from("ab-_./\\\n\x00:~ ") | st.characters(), min_size=1, max_size=12))
def test_any_game_id_builds_inside_out_or_not_at_all(game, tmp_path, gid):
    out = tmp_path / "out"
    shutil.rmtree(out, ignore_errors=True)
    text = (game / "game.yaml").read_text(encoding="utf-8")
    start = text.index("  id: ")
    end = text.index("\n", start)
    (game / "game.yaml").write_text(text[:start] + "  id: " + json.dumps(gid) + text[end:], encoding="utf-8")
    before = {p: v for p, v in snapshot(tmp_path).items() if not p.startswith((str(out), str(tmp_path / "cache")))}
    result = run("build", "--no-cache", game, "-o", out)
    assert result.exit_code in (0, 1), result.output
    after = {p: v for p, v in snapshot(tmp_path).items() if not p.startswith((str(out), str(tmp_path / "cache")))}
    assert after == before  # nothing written outside -o
    if result.exit_code == 0:
        assert os.listdir(out) == [gid] and writing._NAME.fullmatch(gid)
        assert real_files(out / gid) == OUTPUTS
    (game / "game.yaml").write_text(text, encoding="utf-8")


@pytest.mark.parametrize("name", ["index.html", "race.html"])
def test_coverage_html_refuses_a_link_planted_in_its_folder(game, tmp_path, outside, name):
    out = tmp_path / "report"
    out.mkdir()
    os.symlink(outside / "precious.txt", out / name)
    result = run("coverage", game, "-n", "0", "--html", out)
    assert result.exit_code == 1, result.output
    (line,) = result.stderr.splitlines()
    assert line.startswith("rulepress: cannot write the HTML report") and "refusing to write" in line, line
    assert (outside / "precious.txt").read_text(encoding="utf-8") == "keep me\n"
    assert os.path.islink(out / name)


def test_print_png_refuses_a_link_planted_at_its_folder_of_cards(game, tmp_path, outside):
    pytest.importorskip("weasyprint")
    if not shutil.which("pdftoppm"):
        pytest.skip("no pdftoppm")
    out = tmp_path / "print"
    out.mkdir()
    os.symlink(outside / "folder", out / "race.cards.en")
    refused(run("print", game, "-o", out, "--png"), out / "race.cards.en")
    assert os.listdir(outside / "folder") == []
