"""A rebuild of an unchanged game writes the kept outputs: the same bytes a full build gives."""
from __future__ import annotations

import json
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


# ---- a kept build that is not of our making ------------------------------------------------

def _entry(game):
    (name,) = os.listdir(buildcache._entry_root(game))
    return os.path.join(buildcache._entry_root(game), name, "build.json")


def _reseal(path, change):
    """The entry changed by `change(meta)` and sealed again, as a forger who knows the format would."""
    from rulepress.compiler import cache
    with open(path, encoding="utf-8") as fh:
        meta = json.loads(cache._unsealed(fh.read(), buildcache.build_version()))
    change(meta)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(cache._sealed(json.dumps(meta), buildcache.build_version()))


def _set(key, value):
    return lambda meta: meta.__setitem__(key, value)


def _rename_file(meta):
    meta["files"]["../../../escaped.md"] = meta["files"].pop("rulebook.en.md")


def _add_file(meta):
    meta["files"]["/tmp/planted.txt"] = meta["files"]["game.json"]


def _other_digest(meta):
    meta["files"]["game.json"] = meta["files"]["rulebook.en.md"]


@pytest.mark.parametrize("change", [
    _set("game", "../../escaped"), _set("game", "/tmp/escaped"), _set("game", ""), _set("game", 7),
    _rename_file, _add_file, _other_digest, _set("files", ["game.json"]), _set("files", {"game.json": 1}),
    _set("diags", [["a.yaml", 1, 2, "error", "X1"]]),            # a diagnostic one field short
    _set("diags", [["a.yaml", "1", 2, "error", "X1", "m"]]),     # a line that is not a number
    _set("diags", {"a": 1}), _set("key", "0" * 40),
], ids=lambda c: getattr(c, "__name__", "change"))
def test_a_tampered_entry_is_no_entry_and_names_no_path(game, tmp_path, monkeypatch, change):
    out = tmp_path / "out" / "deep"
    first, _ = build([game], str(out))
    for path in first:  # a kept output is written where the output differs
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(" ")
    _reseal(_entry(game), change)
    if change is not _other_digest:  # (a digest is read only where a kept output is written)
        assert buildcache.lookup(game, buildcache.inputs_key(game)) is None
    again, _ = build([game], str(out))
    assert outputs(again) == fresh(game, str(tmp_path / "fresh"), monkeypatch)[0]
    everything = [os.path.join(d, f) for d, _dirs, fs in os.walk(tmp_path) for f in fs]
    assert not any("escaped" in p or "planted" in p for p in everything)
    assert not os.path.exists("/tmp/escaped") and not os.path.exists("/tmp/planted.txt")


@pytest.mark.parametrize("damage", [
    lambda text: text[: len(text) // 2],                     # cut short
    lambda text: text.replace("rulebook", "rulebooK", 1),    # changed by hand, seal left as it was
    lambda text: text.split("\n", 1)[1],                     # no seal
    lambda text: "\x80\x81 not text",                        # not even UTF-8 (written as latin-1 below)
    lambda text: "",
], ids=["cut", "edited", "unsealed", "bytes", "empty"])
def test_a_damaged_entry_is_built_again(game, tmp_path, monkeypatch, damage):
    first, _ = build([game], str(tmp_path / "a"))
    path = _entry(game)
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    with open(path, "w", encoding="latin-1", errors="replace") as fh:
        fh.write(damage(text))
    assert buildcache.lookup(game, buildcache.inputs_key(game)) is None
    again, report = build([game], str(tmp_path / "b"))
    assert outputs(again) == outputs(first) and not report.errors
    assert buildcache.lookup(game, buildcache.inputs_key(game)) is not None  # and kept again


def test_only_the_latest_build_of_a_folder_is_kept(game, tmp_path):
    build([game], str(tmp_path / "a"))
    path = os.path.join(game, sorted(f for f in os.listdir(game) if f.startswith("cards_"))[0])
    with open(path, "a", encoding="utf-8") as fh:
        fh.write("\n# an edit\n")
    build([game], str(tmp_path / "a"))
    assert os.listdir(buildcache._entry_root(game)) == [buildcache.inputs_key(game)]


@pytest.mark.parametrize("name", ["game.json", "rulebook.ru.html"])
def test_a_kept_output_changed_in_the_cache_is_never_written(game, tmp_path, name):
    first, _ = build([game], str(tmp_path / "a"))
    kept = os.path.join(os.path.dirname(_entry(game)), name)
    with open(kept, "a", encoding="utf-8") as fh:
        fh.write("planted")
    again, _ = build([game], str(tmp_path / "b"))  # an empty folder: every kept output would be written
    assert outputs(again) == outputs(first)
    os.remove(kept)
    again, _ = build([game], str(tmp_path / "c"))
    assert outputs(again) == outputs(first)
