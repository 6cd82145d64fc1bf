"""Positioned errors and warnings: the one currency every stage reports in."""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import NamedTuple


def printable(text: str) -> str:
    """Text with its control, format and other unprintable characters written as escapes
    (`\\u001b`, `\\u202e`, `\\n`): content's text must not drive the terminal it is printed
    on (set its title, clear it, recolour it), turn a line around (bidi), or start a line
    of its own where it could pass for another line of the program's (a line break in a key
    or a file name passing for another diagnostic). Every text of the content or of a player
    that reaches a terminal goes through it: diagnostics, the terminal table, reports."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else _ESCAPES.get(c) or f"\\u{ord(c):04x}" for c in text)


_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


class Pos(NamedTuple):
    """A place in a file; a plain tuple so that millions are cheap to make and to store."""
    file: str
    line: int = 0
    col: int = 0

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


@dataclass(frozen=True)
class Diagnostic:
    pos: Pos
    severity: str  # "error" | "warning"
    code: str
    message: str

    def __post_init__(self):
        # made printable once, here, so that every format shows the same safe text
        if not self.message.isprintable():
            object.__setattr__(self, "message", printable(self.message))
        file = getattr(self.pos, "file", None)
        if type(file) is str and not file.isprintable():
            object.__setattr__(self, "pos", self.pos._replace(file=printable(self.pos.file)))

    def sort_key(self):
        return (self.pos.file, self.pos.line, self.pos.col, self.code, self.message)

    def text(self) -> str:
        return f"{self.pos}: {self.severity}: {self.code} {self.message}"

    def as_json(self) -> dict:
        return {"file": self.pos.file, "line": self.pos.line, "col": self.pos.col,
                "severity": self.severity, "code": self.code, "message": self.message}


@dataclass
class Report:
    """Collects every finding of a run so the designer sees them all at once."""
    items: list[Diagnostic] = field(default_factory=list)

    def error(self, pos: Pos, code: str, message: str) -> None:
        self.items.append(Diagnostic(pos, "error", code, message))

    def warning(self, pos: Pos, code: str, message: str) -> None:
        self.items.append(Diagnostic(pos, "warning", code, message))

    def extend(self, other: "Report") -> None:
        self.items.extend(other.items)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.items if d.severity == "error"]

    @property
    def warnings(self) -> list[Diagnostic]:
        return [d for d in self.items if d.severity == "warning"]

    def sorted(self) -> list[Diagnostic]:
        # Duplicates can arise when two stages see the same node; report each once.
        return sorted(set(self.items), key=Diagnostic.sort_key)


def did_you_mean(word: str, candidates) -> str:
    """A short suffix suggesting the nearest known name, or ''."""
    close = difflib.get_close_matches(str(word), sorted(set(map(str, candidates))), n=1, cutoff=0.6)
    return f"; did you mean `{close[0]}`?" if close else ""
