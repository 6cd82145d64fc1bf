"""The schema checks made ahead of time (compiler/schemacode.py) say what compiling the
schema says, and serve only the schema they were made from."""
from __future__ import annotations

import importlib.util
import os
import random

import fastjsonschema
import pytest

from rulepress.compiler import content, schemacode
from rulepress.compiler.diagnostics import Report
from rulepress.compiler.source import load_file
from test_parallel import ROOT, _mutations


def made_checks(folder):
    sections = content.section_schemas()
    names = schemacode.write(sections, str(folder))
    assert sorted(names) == sorted(sections)  # every section gets its code
    mods = {}
    for name in names:
        spec = importlib.util.spec_from_file_location(f"made_{name}", os.path.join(folder, f"{name}.py"))
        mods[name] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mods[name])
    return sections, mods


def passes(check, failure, value) -> bool:
    try:
        check(value)
        return True
    except failure:
        return False


def test_made_code_accepts_and_refuses_what_the_compiled_schema_does(tmp_path):
    sections, mods = made_checks(tmp_path)
    compiled = {name: fastjsonschema.compile(schema) for name, schema in sections.items()}
    rng = random.Random(5)
    files = sorted(os.path.join(dp, f) for dp, _d, fs in os.walk(os.path.join(ROOT, "content")) for f in fs
                   if f.endswith(".yaml") and os.sep + "scenarios" + os.sep not in dp + os.sep)
    checked = refused = 0
    for path in files:
        doc = load_file(path, path, Report())
        for bad in [doc] + list(_mutations(doc, rng, 10)):
            for name, value in bad.items():
                mod = mods[name]
                made = passes(mod.validate, mod.JsonSchemaValueException, value)
                assert made == passes(compiled[name], fastjsonschema.JsonSchemaException, value), (path, name)
                checked += 1
                refused += not made
    assert checked > 500 and refused > 50


def test_made_code_serves_only_the_schema_it_was_made_from(monkeypatch):
    schema = content.section_schemas()["cards"]
    if content._made_check("cards", schema) is None:
        pytest.skip("no schema code made here (make setup makes it)")
    monkeypatch.setattr(schemacode, "digest", lambda s: "another schema")
    assert content._made_check("cards", schema) is None
    assert content._made_check("not a section name", schema) is None
