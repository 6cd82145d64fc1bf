"""The IR table (runtime/ir.py) against what the parser makes, and the runtime's imports."""
import ast
import json
import os

import pytest
from conftest import content_games

from rulepress.runtime import ir
from rulepress.runtime.analysis import ir_nodes

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.parametrize("name", content_games())
def test_every_node_of_a_built_game_is_an_operation_of_the_table_with_its_fields(name):
    with open(os.path.join(ROOT, "build", name, "game.json"), encoding="utf-8") as fh:
        data = json.load(fh)
    seen = set()
    for n in ir_nodes(data):
        op = ir.STATEMENTS.get(n[0]) or ir.EXPRESSIONS.get(n[0])
        assert op is not None, n[:2]
        assert len(n) - 2 == len(op.fields), (n[:2], op.fields)
        seen.add(n[0])
    assert len(seen) > 20  # the walk found the game's effects


def test_fields_names_a_nodes_fields():
    node = ["gain", "t:1:1", ["num", "t:1:1", 2], "gold", None]
    assert ir.fields(node) == {"amount": ["num", "t:1:1", 2], "counter": "gold", "target": None}


def _runtime_imports() -> dict:
    """Runtime module -> the runtime modules it imports anywhere in it (late imports too)."""
    here = os.path.join(ROOT, "runtime")
    graph = {}
    for f in sorted(os.listdir(here)):
        if not f.endswith(".py"):
            continue
        with open(os.path.join(here, f), encoding="utf-8") as fh:
            tree = ast.parse(fh.read())
        out = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                assert not (node.level >= 2 or "compiler" in (node.module or "")), (f, node.module)
                if node.level == 1:
                    out |= {node.module} if node.module else {a.name for a in node.names}
        graph[f[:-3]] = out
    return graph


def test_the_runtime_imports_no_module_that_imports_it_back():
    graph = _runtime_imports()
    assert {"interpreter", "pysource", "reading"} <= graph.keys()

    def reach(m, path):
        for n in graph.get(m, ()):
            assert n not in path, " -> ".join(path + [n])
            reach(n, path + [n])
    for m in graph:
        reach(m, [m])


def test_every_statement_is_written_inline_or_has_a_handler():
    """The generated code writes a few statements as Python and calls the interpreter's
    handler `s_<op>` for every other: a statement added to the IR has one or the other."""
    from rulepress.runtime import pysource
    from rulepress.runtime.interpreter import Interp
    missing = {op for op in ir.STATEMENTS if op not in pysource._INLINE and not hasattr(Interp, "s_" + op)}
    assert not missing
    assert pysource._INLINE <= ir.STATEMENTS.keys()
