"""Statements put into words once: a big game repeats the same few statements on
thousands of cards, and a statement's words do not depend on where it stands.

The words of a top-level statement follow from the statement without its positions,
from the section the effect belongs to (what `this` is) and from the names given by
`let` and loops before it in the same effect. Those three are the key; the value is its
lines and the names it gives in turn. A statement that could not be put into words
cleanly is never kept, so each of its places reports its own problem.

Working out the key from the statement (`shape`) takes as long as the words of a short
statement. Where the build knows the text each statement was parsed from, the text is the
key instead: statements parsed from the same text are the same but for their positions
(dsl.pieces places one parse of a text at each of its places), and a statement's position,
which game.json keeps, finds its text.
"""
from __future__ import annotations

_SEQ, _MAP, _TRUE, _FALSE, _TEXT = object(), object(), object(), object(), object()


def shape(node):
    """An IR value as a hashable key, without the positions of its nodes. A node is a list
    `[op, "file:line:col", *args]`; any other list, a dict, `True` and a float are marked
    as such, so no two different values share a key (1, 1.0 and True read differently)."""
    t = type(node)
    if t is list:
        out = []
        i = 0
        if len(node) > 1 and type(node[0]) is str and type(node[1]) is str and ":" in node[1]:
            out.append(node[0])
            i = 2
        else:
            out.append(_SEQ)
        for x in node[i:] if i else node:
            tx = type(x)
            out.append(x if tx is str or tx is int or x is None else shape(x))
        return tuple(out)
    if t is bool:
        return _TRUE if node else _FALSE
    if t is dict:
        return (_MAP, *[(k, shape(v)) for k, v in node.items()])
    if t is str or t is int or node is None:
        return node
    return (t, node)


class Said:
    """The words of the statements of one game in one language, by key. `texts`: a
    top-level statement's position -> (its op, the text it was parsed from, its index among
    the text's statements), from the model (Model.statements), if at hand."""

    def __init__(self, texts: dict | None = None):
        self._lines: dict = {}
        self._texts = texts or {}

    def lines(self, renderer, stmt, out: list) -> None:
        """Add the lines of one top-level statement to `out`, the way `renderer` says it."""
        names = renderer.locals
        texts = self._texts
        text = texts.get(stmt[1]) if texts and type(stmt) is list and len(stmt) > 1 and type(stmt[1]) is str else None
        scope = renderer.scope() if names or renderer.reassigned else None
        if text is not None and text[0] == stmt[0]:
            key = (_TEXT, text[1], text[2], renderer.this, scope)
        else:
            key = (shape(stmt), renderer.this, scope)
        known = self._lines.get(key)
        if known is not None:
            out += known[0]
            if known[1]:  # the names it gives, with their words
                names.update(known[1])
                renderer.nouns.update(known[2])
                renderer._live[:] = known[3]
                renderer.numbers.update(known[4])
            return
        start, problems, before = len(out), len(renderer.problems), set(names)
        renderer.statement(stmt, out)
        if len(renderer.problems) == problems:
            given = names - before
            self._lines[key] = (out[start:], given, {n: renderer.nouns[n] for n in given if n in renderer.nouns},
                                list(renderer._live), {n: renderer.numbers[n] for n in given if n in renderer.numbers})
