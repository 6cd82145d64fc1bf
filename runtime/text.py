"""Texts with values: `"{p} is out of the round"`, `"Challenge {p}'s {claim}?"`.

A text with values keeps its parts (texts and the values themselves) until it is shown, so
that a log line names a thing only to the seats that may see it (runtime/visibility.py) and a
prompt, which every seat reads, names only what all of them may see.
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
