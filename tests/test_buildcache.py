"""A rebuild of an unchanged game copies the kept outputs: the same bytes a full build gives."""
from __future__ import annotations

import os
import shutil
import sys

import pytest

from rulepress.compiler import buildcache
from rulepress.compiler.pipeline import build

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from gen_synthetic import generate  # noqa: E402


@pytest.fixture
def game(tmp_path, monkeypatch):
    monkeypatch.setenv("RULEPRESS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("RULEPRESS_NO_CACHE", raising=False)
    return generate(str(tmp_path / "synthetic"), cards=40, files=3, seed=5)


@pytest.fixture
def made(tmp_path, monkeypatch):
    """The built-in templates compiled as `make setup` compiles them, here for this test."""
    monkeypatch.setattr(buildcache, "_made_dir", lambda: str(tmp_path / buildcache.MADE / "toolchain"))
    return buildcache.made_templates()


def outputs(paths):
    return {os.path.basename(p): open(p, "rb").read() for p in paths}


def fresh(folder, out, monkeypatch):
    """What a build with no cache at all writes."""
    monkeypatch.setenv("RULEPRESS_NO_CACHE", "1")
    try:
        written, report = build([folder], out)
    finally:
        monkeypatch.delenv("RULEPRESS_NO_CACHE")
    return outputs(written), [d.text() for d in report.sorted()]


def test_a_rebuild_is_copied_byte_for_byte_and_leaves_unchanged_files_alone(game, tmp_path, monkeypatch):
    first, rep1 = build([game], str(tmp_path / "a"))
    assert buildcache.lookup(game, buildcache.inputs_key(game)) is not None
    stamps = {p: os.stat(p).st_mtime_ns for p in first}
    again, rep2 = build([game], str(tmp_path / "a"))
    assert again == first and {p: os.stat(p).st_mtime_ns for p in again} == stamps
    elsewhere, _ = build([game], str(tmp_path / "b"))  # an empty output folder gets full copies
    want, want_rep = fresh(game, str(tmp_path / "c"), monkeypatch)
    assert outputs(first) == outputs(again) == outputs(elsewhere) == want
    assert [d.text() for d in rep1.sorted()] == [d.text() for d in rep2.sorted()] == want_rep


def test_an_edit_makes_a_new_build(game, tmp_path, monkeypatch):
    build([game], str(tmp_path / "a"))
    path = os.path.join(game, sorted(f for f in os.listdir(game) if f.startswith("cards_"))[0])
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text.replace("name: {en: ", "name: {en: Renamed ", 1))
    written, _ = build([game], str(tmp_path / "a"))
    got = outputs(written)
    assert b"Renamed " in got["rulebook.en.md"]
    assert got == fresh(game, str(tmp_path / "c"), monkeypatch)[0]


def test_templates_compiled_by_one_build_serve_the_next(game, made, tmp_path, monkeypatch):
    own = os.path.join(game, "templates")  # the built-in ones come compiled: see the test above
    os.makedirs(own)
    shutil.copy(os.path.join(ROOT, "compiler", "templates", "rulebook.md.j2"), own)
    build([game], str(tmp_path / "a"))
    root = tmp_path / "cache" / "templates"
    (kept,) = os.listdir(root)
    # the game's own rulebook in Markdown, and the built-in HTML rulebook with the style sheet
    # it includes, compiled again for the sandbox a game with templates of its own renders in
    assert len(os.listdir(root / kept)) == 3
    path = os.path.join(game, sorted(f for f in os.listdir(game) if f.startswith("cards_"))[-1])
    with open(path, "a", encoding="utf-8") as fh:
        fh.write("  - id: one_more\n    name: {en: One more, ru: Ещё одна}\n    deck: market\n")
    written, _ = build([game], str(tmp_path / "a"))
    assert os.listdir(root) == [kept]
    assert outputs(written) == fresh(game, str(tmp_path / "c"), monkeypatch)[0]


def test_an_output_that_differs_only_in_line_ends_is_written_again_and_kept_as_built(game, tmp_path, monkeypatch):
    first, _ = build([game], str(tmp_path / "a"))
    for path in first:
        with open(path, "rb") as fh:
            data = fh.read()
        with open(path, "wb") as fh:
            fh.write(data.replace(b"\n", b"\r\n"))
    monkeypatch.setenv("RULEPRESS_CACHE_DIR", str(tmp_path / "other-cache"))
    again, _ = build([game], str(tmp_path / "a"))  # built, not copied: this cache is empty
    kept, _ = build([game], str(tmp_path / "b"))  # copied from what the last build kept
    want = fresh(game, str(tmp_path / "c"), monkeypatch)[0]
    assert outputs(again) == outputs(kept) == want


def test_the_built_in_templates_come_compiled_with_the_toolchain(game, made, tmp_path, monkeypatch):
    from rulepress.compiler.outputs import warm_templates
    from rulepress.compiler.rulebook import all_compiled, environment
    assert all_compiled(environment(game, compiled=buildcache.compiled_templates()))  # an empty cache folder
    monkeypatch.setenv("RULEPRESS_NO_CACHE", "1")
    assert all_compiled(environment(game, compiled=buildcache.compiled_templates()))  # no cache at all
    monkeypatch.delenv("RULEPRESS_NO_CACHE")
    assert warm_templates(game, buildcache.compiled_templates()) is None  # nothing left to compile
    for i, name in enumerate(sorted(os.listdir(made))):  # code that is not what Jinja would make now is not used
        with open(os.path.join(made, name), "r+b") as fh:
            fh.truncate(10 + 5 * i)  # (cut in the magic, in the checksum, in the code)
    assert not all_compiled(environment(game, compiled=buildcache.compiled_templates()))
    written, _ = build([game], str(tmp_path / "a"))
    assert outputs(written) == fresh(game, str(tmp_path / "b"), monkeypatch)[0]


def test_a_build_leaves_a_games_own_templates_compiled_and_a_changed_one_is_not(game, tmp_path):
    from rulepress.compiler.rulebook import all_compiled, environment
    own = os.path.join(game, "templates")
    os.makedirs(own)
    with open(os.path.join(own, "rulebook.md.j2"), "w", encoding="utf-8") as fh:
        fh.write("# {{ title }}\n")
    assert not all_compiled(environment(game, compiled=buildcache.compiled_templates()))
    build([game], str(tmp_path / "a"))
    assert all_compiled(environment(game, compiled=buildcache.compiled_templates()))
    with open(os.path.join(own, "rulebook.md.j2"), "w", encoding="utf-8") as fh:
        fh.write("# {{ title }}!\n")
    assert not all_compiled(environment(game, compiled=buildcache.compiled_templates()))


def test_a_games_own_template_is_part_of_what_is_kept(game, tmp_path, monkeypatch):
    build([game], str(tmp_path / "a"))
    own = os.path.join(game, "templates")
    os.makedirs(own)
    shutil.copy(os.path.join(ROOT, "compiler", "templates", "rulebook.md.j2"), own)
    with open(os.path.join(own, "rulebook.md.j2"), "a", encoding="utf-8") as fh:
        fh.write("\nOwn template.\n")
    written, _ = build([game], str(tmp_path / "a"))
    assert outputs(written)["rulebook.en.md"].endswith(b"Own template.\n")


def test_warnings_come_back_with_the_kept_build(tmp_path, monkeypatch):
    monkeypatch.setenv("RULEPRESS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("RULEPRESS_NO_CACHE", raising=False)
    game = generate(str(tmp_path / "g"), cards=10, files=1, seed=1)
    with open(os.path.join(game, "extra.yaml"), "w", encoding="utf-8") as fh:
        fh.write("procedures:\n  - id: spare\n    effect: |\n      log \"unused\"\n")
    _w, first = build([game], str(tmp_path / "a"))
    _w, again = build([game], str(tmp_path / "a"))
    assert any(d.code == "W001" for d in first.items)
    assert [d.text() for d in again.sorted()] == [d.text() for d in first.sorted()]


def test_no_cache_keeps_nothing(game, tmp_path, monkeypatch):
    monkeypatch.setenv("RULEPRESS_NO_CACHE", "1")
    build([game], str(tmp_path / "a"))
    assert not os.path.exists(str(tmp_path / "cache"))


def test_a_build_after_validate_takes_its_findings_instead_of_checking_again(game, tmp_path, monkeypatch):
    from rulepress.compiler import content
    from rulepress.compiler.cache import validate_game
    with open(os.path.join(game, "extra.yaml"), "w", encoding="utf-8") as fh:
        fh.write("procedures:\n  - id: spare\n    effect: |\n      log \"unused\"\n")
    want, want_rep = fresh(game, str(tmp_path / "c"), monkeypatch)
    assert any("W001" in d for d in want_rep)
    validate_game(game)

    def no_second_check(*_a, **_k):
        raise AssertionError("the files were checked again")
    monkeypatch.setattr(content, "schema_check", no_second_check)
    written, report = build([game], str(tmp_path / "a"))
    assert outputs(written) == want
    assert [d.text() for d in report.sorted()] == want_rep


def test_a_build_after_a_validate_with_errors_writes_nothing(game, tmp_path, monkeypatch):
    from rulepress.compiler.cache import validate_game
    with open(os.path.join(game, "extra.yaml"), "w", encoding="utf-8") as fh:
        fh.write("cards:\n  - id: broken\n    deck: nowhere\n    effect: |\n      gain 1 nothing_at_all\n")
    _want, want_rep = fresh(game, str(tmp_path / "c"), monkeypatch)
    assert validate_game(game).errors
    written, report = build([game], str(tmp_path / "a"))
    assert written == [] and report.errors
    assert [d.text() for d in report.sorted()] == want_rep


def test_the_toolchain_names_the_library_versions_importlib_names():
    from importlib import metadata
    found = buildcache._installed()
    for dist in ("Jinja2", "MarkupSafe", "lark", "PyYAML", "jsonschema"):
        assert found[buildcache._dist_key(dist)] == metadata.version(dist)
