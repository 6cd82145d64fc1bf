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


@pytest.mark.parametrize("name", content_games())
def test_every_field_of_a_built_game_holds_what_its_operation_declares(name):
    with open(os.path.join(ROOT, "build", name, "game.json"), encoding="utf-8") as fh:
        data = json.load(fh)
    wrong = [(n[:2], ir.misfits(n)) for n in ir_nodes(data) if ir.misfits(n)]
    assert not wrong, wrong[:5]


def test_fields_names_a_nodes_fields():
    node = ["gain", "t:1:1", ["num", "t:1:1", 2], "gold", None]
    assert ir.fields(node) == {"amount": ["num", "t:1:1", 2], "counter": "gold", "target": None}
    v = ir.view(node)
    assert (v.op, v.pos, v.amount, v.counter, v.target) == ("gain", "t:1:1", ["num", "t:1:1", 2], "gold", None)
    assert node[ir.at("gain", "counter")] == "gold"


def test_children_and_blocks_follow_the_declared_types():
    cond, say = ["name", "t:1:4", "ready"], ["log", "t:2:3", ["str", "t:2:7", "go"], None]
    node = ["if", "t:1:1", [[cond, [say]]], [["stop", "t:4:3"]]]
    assert ir.blocks(node) == [[say], [["stop", "t:4:3"]]]
    assert ir.children(node) == [cond, say, ["stop", "t:4:3"]]
    assert ir.children(say) == [["str", "t:2:7", "go"]]


def test_docs_ir_md_is_made_from_the_table():
    """docs/ir.md is `python -m rulepress.runtime.ir > docs/ir.md`: an operation added or changed
    in runtime/ir.py is documented by running that again."""
    with open(os.path.join(ROOT, "docs", "ir.md"), encoding="utf-8") as fh:
        assert fh.read() == ir.document(), "run `python -m rulepress.runtime.ir > docs/ir.md`"


@pytest.mark.parametrize("name", content_games())
def test_every_top_level_key_of_a_built_game_is_documented(name):
    with open(os.path.join(ROOT, "build", name, "game.json"), encoding="utf-8") as fh:
        assert set(json.load(fh)) <= ir.GAME_KEYS.keys()


# ---- the built-in functions and attributes: one table each, every consumer agrees ----

def test_the_checker_and_the_editor_take_the_functions_and_attributes_from_the_ir_table():
    from rulepress.compiler import lint, model, names, render
    assert names.FUNCTIONS == {f: (d.least, d.most, d.does) for f, d in ir.FUNCTIONS.items()}
    assert names.AGGREGATES == {f for f, d in ir.FUNCTIONS.items() if d.aggregate}
    assert names.BUILTIN_ATTRS == {a: d.does for a, d in ir.ATTRIBUTES.items() if d.of == "thing"}
    assert model._BUILTIN_ATTR_TYPES == {a: d.gives for a, d in ir.THING_ATTRIBUTES.items()}
    assert {f: model._FN_TYPES.get(f, "unknown") for f in ir.FUNCTIONS} == {f: d.gives for f, d in ir.FUNCTIONS.items()}
    assert lint._VALUES_ONLY == set(ir.FUNCTIONS) - {"roll", "random"}
    assert render.Renderer._FUNCTIONS == set(ir.FUNCTIONS)


def test_the_editor_says_what_a_statement_and_a_function_do_from_the_table():
    from rulepress.hints import builtin_doc
    assert "adds to a counter; takes amount, counter, target" in builtin_doc("gain")
    assert "(function, 1 to 2 arguments: how many dice, their sides (6 unless said)): dice rolled" in builtin_doc("roll")
    assert "(attribute of every thing): whether it is face up" in builtin_doc("face_up")


def test_the_renderer_has_words_for_every_function_and_attribute_in_every_language():
    from rulepress.compiler import render
    from rulepress.compiler.wording import catalogue
    for lang in render.LANGS:
        # (`roll` is said by the renderer itself, with its dice)
        assert set(catalogue(lang).functions) - {"unknown"} | {"roll"} == set(ir.FUNCTIONS), lang
    assert set(render._BUILTIN_ATTR) == set(ir.THING_ATTRIBUTES)
    assert set(render._BUILTIN_ATTR_RU_HEAD) == set(ir.THING_ATTRIBUTES) - {"face_up"}


def test_the_runtime_runs_every_function_and_reads_every_attribute_of_the_table():
    import inspect

    from rulepress.runtime import analysis, reading
    from rulepress.runtime.interpreter import Interp
    source = inspect.getsource(Interp.function)
    assert [f for f in ir.FUNCTIONS if f'name == "{f}"' not in source] == []
    assert reading.BUILTIN_ATTRS == set(ir.ATTRIBUTES)
    assert set(reading.FAST_BUILTINS) <= set(ir.THING_ATTRIBUTES)
    assert analysis._IMPURE_FUNCTIONS == {"roll", "random"}
    assert analysis._PURE_STATEMENTS == {"let", "if", "for", "repeat", "while", "return", "do", "stop", "fail"}


def test_every_sentence_of_an_operation_is_in_every_catalogue():
    from rulepress.compiler import render
    from rulepress.compiler.wording import catalogue
    keys = {op.sentence for op in ir.OPERATIONS.values() if op.sentence}
    for lang in render.LANGS:
        assert keys <= set(catalogue(lang).sentences), lang


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


def test_a_statement_whose_handler_runs_other_effects_says_so():
    """A handler that changes a counter (its thresholds and `on_change` run), moves a thing
    (a location's `enter` triggers run), fires an event or runs a block of the game's may
    decide through them: its record says `runs` (or `decides`), which resumable code relies on."""
    import inspect

    from rulepress.runtime.interpreter import Interp
    running = ("self.set_counter(", "self.move(", "self.fire(", "self.call_block(", "self.perform(")
    never_to_a_location = {"discard", "remove"}  # the supply, a deck, its discard pile, `removed`
    for op, d in ir.STATEMENTS.items():
        if op in never_to_a_location:
            assert not d.runs, op
            continue
        handler = getattr(Interp, "s_" + op, None)
        if handler is not None and any(r in inspect.getsource(handler) for r in running):
            assert d.runs or d.decides, op
    assert ir.STATEMENTS["move"].runs  # (written inline by the code generator: `it.move`)
