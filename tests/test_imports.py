"""The compiler's modules import one another without a cycle, counting imports made inside
functions: a cycle makes the order of imports matter and hides which module depends on which."""
from __future__ import annotations

import ast
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def imports(folder: str) -> dict[str, set[str]]:
    """module -> the modules of the same folder it imports (`from .x import` or `from . import x`)."""
    mods = {f[:-3] for f in os.listdir(folder) if f.endswith(".py")}
    out = {}
    for m in mods:
        with open(os.path.join(folder, m + ".py"), encoding="utf-8") as fh:
            tree = ast.parse(fh.read())
        found = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                found.update([node.module.split(".")[0]] if node.module else [a.name for a in node.names])
        out[m] = found & mods
    return out


def cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state, path = {}, []

    def visit(m):
        state[m] = "open"
        path.append(m)
        for d in sorted(graph[m]):
            if state.get(d) == "open":
                return path[path.index(d):] + [d]
            if d not in state:
                found = visit(d)
                if found:
                    return found
        state[m] = "done"
        path.pop()
        return None
    for m in sorted(graph):
        if m not in state:
            found = visit(m)
            if found:
                return found
    return None


def test_the_finder_finds_a_cycle():
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle({"a": {"b"}, "b": set()}) is None


def test_the_compiler_has_no_import_cycle():
    assert cycle(imports(os.path.join(ROOT, "compiler"))) is None


def test_the_runtime_imports_neither_the_compiler_nor_what_shows_a_game():
    """The runtime hands data; the compiler, the command line and the terminal's colours
    (rich) sit above it (docs/design.md, "Package layout")."""
    folder = os.path.join(ROOT, "runtime")
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".py"):
            continue
        with open(os.path.join(folder, name), encoding="utf-8") as fh:
            tree = ast.parse(fh.read())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                found = [("." * node.level) + (node.module or "")]
            else:
                continue
            for mod in found:
                assert not mod.startswith(("rich", "click", "rulepress", "..", "compiler")), (name, mod)
