"""How pytest-xdist hands the suite out (tests/conftest.py): a module whose fixture starts
processes that live as long as the module is given to one worker whole."""
from __future__ import annotations

import ast
import glob
import os

from conftest import ROOT, TOGETHER, work_unit

# what in a module-scoped fixture starts something that lives on beside the tests
STARTS = ("sync_playwright", "ray.init", "Cluster(", "Popen(", "Server(")


def _module_fixtures_that_start_processes(path: str) -> list:
    tree = ast.parse(open(path, encoding="utf-8").read())
    found = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            for dec in node.decorator_list:
                if isinstance(dec, ast.Call) and any(k.arg == "scope" and getattr(k.value, "value", None) == "module"
                                                     for k in dec.keywords):
                    if any(s in ast.unparse(node) for s in STARTS):
                        found.append(node.name)
    return found


def test_every_module_whose_fixture_starts_processes_is_one_workers_unit():
    loose = {}
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "test_*.py"))):
        rel = os.path.relpath(path, ROOT).replace(os.sep, "/")
        tests = [n for n in ast.parse(open(path, encoding="utf-8").read()).body
                 if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")]
        fixtures = _module_fixtures_that_start_processes(path)
        if fixtures and len(tests) > 1 and rel not in TOGETHER:
            loose[rel] = fixtures
    assert not loose, f"add these modules to conftest.TOGETHER: {loose}"


def test_a_modules_unit_holds_every_case_of_its_tests_and_a_tests_group_splits_by_case():
    assert work_unit("tests/test_table_browser.py::test_a[offer]") == work_unit("tests/test_table_browser.py::test_b")
    faces = "tests/test_cards.py::test_no_content_card_is_too_long_or_holds_a_character_no_font_draws"
    assert work_unit(faces + "[content/android]") != work_unit(faces + "[content/night-city]")
    assert work_unit("tests/test_nothing_shared.py::test_a") != work_unit("tests/test_nothing_shared.py::test_b")
