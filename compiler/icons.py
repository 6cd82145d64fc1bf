"""Inline icons: `[id]` in any player-facing text must name an icon of the `icons:` section."""
from __future__ import annotations

import re

from .diagnostics import did_you_mean
from .source import PList, PMap, PStr

ICON_RE = re.compile(r"\[([a-z][a-z0-9_]*)\]")


_LANGS = frozenset(("en", "ru"))


def _texts(node):
    """Every string of every {en, ru} text below a node."""
    stack = [node] if type(node) is PMap or type(node) is PList else []
    while stack:
        n = stack.pop()
        if type(n) is PMap:
            if n and n.keys() <= _LANGS:
                for k in sorted(n):
                    if isinstance(n[k], str):
                        yield n, k, n[k]
            else:
                stack += [v for v in n.values() if type(v) is PMap or type(v) is PList]
        else:  # (only maps and lists are put on the stack)
            stack += [v for v in n if type(v) is PMap or type(v) is PList]


def _at(node, key, text, offset):
    """The file position of character `offset` of a text."""
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    if isinstance(text, PStr) and getattr(text, "pos", None) is not None:
        return text.at(line, col)
    return node.val_pos.get(key) or node.pos


def check_icons(src, icons, report, only=None) -> None:
    """R010: an `[icon]` that the game does not declare (in the files `only` names, or all)."""
    known = sorted(icons)
    for shown in sorted(src.docs if only is None else set(src.docs) & set(only)):
        if shown in src.unbracketed:  # (its text cannot spell an icon: no walk through it)
            continue
        for node, key, text in _texts(src.docs[shown]):
            if "[" not in text:
                continue
            for m in ICON_RE.finditer(text):
                if m.group(1) not in icons:
                    report.error(_at(node, key, text, m.start()), "R010",
                                 f"unknown icon `[{m.group(1)}]`: declare it under `icons:`{did_you_mean(m.group(1), known)}")
