"""Texts with values: `"{p} is out of the round"`, `"Challenge {p}'s {claim}?"`.

A text with values keeps its parts (texts and the values themselves) until it is shown, so
that a log line names a thing only to the seats that may see it (runtime/visibility.py) and a
prompt, which every seat reads, names only what all of them may see.

Every text of the content or of a player that reaches a terminal goes through `printable`
first (the terminal table, diagnostics).
"""
from __future__ import annotations


class Said(str):
    """A text part of a Text, as written (never read as a thing's id)."""

    __slots__ = ()


class Text(tuple):
    """The parts of a text with values, in order: texts and values."""

    __slots__ = ()

    def __str__(self):
        return "".join(str(p) for p in self)


def printable(text: str) -> str:
    """Text with its control, format and other unprintable characters written as escapes
    (`\\u001b`, `\\u202e`, `\\n`): content's text must not drive the terminal it is printed
    on (set its title, clear it, recolour it), turn a line around (bidi), or start a line
    of its own where it could pass for another line of the program's."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else _ESCAPES.get(c) or f"\\u{ord(c):04x}" for c in text)


_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
