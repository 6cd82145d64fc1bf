"""The quick yes/no schema check in front of the explaining one never changes the answer."""
from __future__ import annotations

import copy
import os
import random

from rulepress.compiler import content
from rulepress.compiler.diagnostics import Report
from rulepress.compiler.source import load_file

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _mutations(doc, rng, n):
    """Copies of a loaded file with one value changed to something of another type,
    a key added or a key removed."""
    def spots(node, path):
        yield path
        if isinstance(node, dict):
            for k, v in node.items():
                yield from spots(v, path + [k])
        elif isinstance(node, list):
            for i, v in enumerate(node):
                yield from spots(v, path + [i])
    places = list(spots(doc, []))[1:]
    for _ in range(n):
        d = copy.deepcopy(doc)
        path = rng.choice(places)
        parent = d
        for p in path[:-1]:
            parent = parent[p]
        how = rng.randrange(4)
        if how == 0:
            parent[path[-1]] = rng.choice([7, -1, 2.5, True, None, "x", "Bad Id", [], {}, [1, "a"], {"en": 1}])
        elif how == 1 and isinstance(parent, dict):
            del parent[path[-1]]
        elif how == 2 and isinstance(parent[path[-1]], dict):
            parent[path[-1]][rng.choice(["idd", "extra", "en", "count", "of"])] = rng.choice(["x", 0, []])
        else:
            parent[path[-1]] = rng.choice(["", 0, 1001, "a b"])
        yield d


def test_the_fast_schema_check_agrees_with_the_explaining_one():
    rng = random.Random(11)
    games = os.path.join(ROOT, "content")
    files = sorted(os.path.join(dp, f) for dp, _d, fs in os.walk(games) for f in fs
                   if f.endswith(".yaml") and os.sep + "scenarios" + os.sep not in dp + os.sep)
    checked = invalid = disagreements = 0
    for path in files:
        doc = load_file(path, path, Report())
        assert content._valid(doc), path
        for bad in _mutations(doc, rng, 12):
            errors = list(content._validator().iter_errors(bad))
            checked += 1
            invalid += bool(errors)
            if content._valid(bad) != (not errors):
                disagreements += 1
    assert checked > 400 and 50 < invalid < checked - 50
    assert disagreements == 0


