"""Every code the checker can give is explained, and every example does what it says."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest
from click.testing import CliRunner

from rulepress.compiler.catalogue import CATALOGUE, render, render_doc
from rulepress.cli import main
from rulepress.compiler.pipeline import build, check_game
from rulepress.compiler.scenarios import check_folder

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RACE = os.path.join(ROOT, "docs", "tutorial", "race")
CODE = re.compile(r"""["']([A-Z]\d{3})["']""")


def codes_in_source() -> set[str]:
    found = set()
    for package in ("compiler", "runtime", "rulepress"):
        folder = os.path.join(ROOT, package)
        for name in os.listdir(folder):
            if name.endswith(".py") and name != "catalogue.py":
                with open(os.path.join(folder, name), encoding="utf-8") as fh:
                    found |= set(CODE.findall(fh.read()))
    return found


def test_every_code_in_the_source_is_explained():
    codes = codes_in_source()
    assert len(codes) > 40  # the search itself works
    assert sorted(codes - set(CATALOGUE)) == []


def test_the_catalogue_explains_no_code_that_cannot_happen():
    assert sorted(set(CATALOGUE) - codes_in_source()) == []


def test_only_the_schema_fallback_goes_untested():
    assert [c for c, e in CATALOGUE.items() if e.get("untested")] == ["S000"]


def test_every_entry_is_complete():
    for code, entry in CATALOGUE.items():
        assert re.fullmatch(r"[YSGRDW]\d{3}", code)
        for key in ("title", "explain", "wrong", "right"):
            assert isinstance(entry.get(key), str) and entry[key].strip(), (code, key)
        assert entry["wrong"] != entry["right"] or entry.get("encoding") or entry.get("file") != entry.get("right_file", entry.get("file")), code


def test_docs_errors_md_is_what_the_catalogue_renders():
    with open(os.path.join(ROOT, "docs", "errors.md"), encoding="utf-8") as fh:
        assert fh.read() == render_doc(), "regenerate: python -m rulepress.compiler.catalogue > docs/errors.md"


def test_the_module_prints_the_doc():
    out = subprocess.run([sys.executable, "-m", "rulepress.compiler.catalogue"], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout
    assert out == render_doc()


def test_explain_prints_the_entry_and_lists_all_codes():
    runner = CliRunner()
    result = runner.invoke(main, ["explain", "r002"])
    assert result.exit_code == 0
    assert result.output.strip() == render("R002", CATALOGUE["R002"]).strip()
    listing = runner.invoke(main, ["explain"]).output.splitlines()
    assert len(listing) == len(CATALOGUE) and listing[0].startswith("D001")
    unknown = runner.invoke(main, ["explain", "Z999"])
    assert unknown.exit_code == 2


def make_game(tmp_path, entry, which):
    """The folder an example describes; returns it."""
    folder = tmp_path / which / "game"
    if entry.get("alone"):
        folder.mkdir(parents=True)
    else:
        shutil.copytree(RACE, folder, ignore=shutil.ignore_patterns("scenarios"))
    name = entry.get("right_file", entry.get("file", "extra.yaml")) if which == "right" else entry.get("file", "extra.yaml")
    text = entry[which]
    special = entry.get("special") if which == "wrong" else None
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)  # (scenarios/...)
    if special == "huge":
        line = "  - {id: c%07d, name: {en: C, ru: C}, deck: boosts}\n"
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.write("".join(line % i for i in range(17 * 1024 * 1024 // 40)))
    elif special == "dangling":
        os.symlink(folder / "gone.yaml", path)
    elif special == "long":
        path.write_text(text.replace("      gain 1 position\n", "      gain 1 position\n" * 1500, 1), encoding="utf-8")
    elif special == "loop":
        path.write_text(text, encoding="utf-8")
        (folder / "more").mkdir()
        os.symlink("..", folder / "more" / "loop")
    else:
        path.parent.mkdir(parents=True, exist_ok=True)  # (templates/ for a game's own template)
        path.write_bytes(text.encode(entry.get("encoding", "utf-8") if which == "wrong" else "utf-8"))
    return str(folder)


def codes_for(folder, built=False, printed=False):
    if printed:  # a finding only printing makes (a card face, laid out)
        from rulepress.compiler.printing import print_game
        lines: list[str] = []
        # (the card faces alone: they make every finding of printing, the rulebook none)
        print_game(folder, ("en", "ru"), out_dir=folder + "-print", warnings=lines, rulebook=False)
        report = check_game(folder)[1]
        return {ln.split(": warning: ")[1].split(" ")[0] for ln in lines}, report
    if built:  # a finding only a build makes (a game's own template, rendered)
        _written, report = build([folder], folder + "-out")
        return {d.code for d in report.items}, report
    model, report = check_game(folder)
    if model is not None and not report.errors:  # scenarios are content too, read against the game
        report.extend(check_folder(folder))
    return {d.code for d in report.items}, report


@pytest.mark.parametrize("code", sorted(CATALOGUE))
def test_the_wrong_example_gives_the_code_and_the_right_one_does_not(code, tmp_path, monkeypatch):
    entry = CATALOGUE[code]
    monkeypatch.setenv("RULEPRESS_CACHE_DIR", str(tmp_path / "cache"))
    if entry.get("untested"):
        pytest.skip(entry["untested"])
    wrong, report = codes_for(make_game(tmp_path, entry, "wrong"), entry.get("build"), entry.get("print"))
    assert code in wrong, "\n".join(d.text() for d in report.sorted())
    right, report = codes_for(make_game(tmp_path, entry, "right"), entry.get("build"), entry.get("print"))
    assert code not in right, "\n".join(d.text() for d in report.sorted())
    if not code.startswith("W") and not entry.get("alone"):
        # a right example is content a designer could keep: no errors at all
        assert not report.errors, "\n".join(d.text() for d in report.sorted())
