"""Where a checked game names its things: each id's declaration and every place that uses it.

Read from what the compiler loaded (positions of every value) and the model it checked
(the ids and their sections): no second parser. An id is used where a YAML value is
exactly that id (`deck: mythos`, `adjacent: [a, b]`) and where an effect or condition
names it (`gain 1 clue`, `top(mythos)`, `"arkham"` as a text an attribute holds).
Player-facing text (`en:`/`ru:`) never uses an id: it is words.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import NamedTuple

from .compiler.diagnostics import Pos
from .compiler.model import EFFECT_FIELDS, EXPR_FIELDS, Model
from .compiler.source import PList, PMap, PStr

DSL_FIELDS = EFFECT_FIELDS | EXPR_FIELDS | {"can_pass"}
SCENARIO_DSL = {"setup", "run", "expect"}  # a scenario's statements and expectations (docs/scenarios.md)
PROSE_KEYS = {"en", "ru", "text", "name", "prompt"}
# a string literal or a name: a name inside a literal is text, the literal itself may be an id
_DSL_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|#[^\n]*|[A-Za-z_][A-Za-z0-9_]*')
WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
MAX_DEPTH = 64  # as deep as the loader lets a file be


class Decl(NamedTuple):
    """Where an id is declared, in which section, and its entry (None for a phase's)."""
    section: str
    pos: Pos
    node: object


class Span(NamedTuple):
    """One mention of an id: its first character (1-based) and its length."""
    pos: Pos
    length: int
    id: str


@dataclass
class Symbols:
    decls: dict[str, Decl] = field(default_factory=dict)
    uses: dict[str, list[Span]] = field(default_factory=dict)    # id -> mentions, declaration first
    by_file: dict[str, list[Span]] = field(default_factory=dict)  # shown path -> mentions in it

    def at(self, file: str, line: int, col: int) -> Span | None:
        """The mention of an id covering (line, col) of a file, both 1-based."""
        for s in self.by_file.get(file, ()):
            if s.pos.line == line and s.pos.col <= col <= s.pos.col + s.length:
                return s
        return None

    def _add(self, span: Span) -> None:
        self.uses.setdefault(span.id, []).append(span)
        self.by_file.setdefault(span.pos.file, []).append(span)


def index(model: Model) -> Symbols:
    """Every declaration and mention of an id in the model's game."""
    out = Symbols()
    for iid, (section, pos) in model.ids.items():
        out.decls[iid] = Decl(section, pos, model.by_section.get(section, {}).get(iid))
    for pid, ph in (getattr(model, "phases", None) or {}).items():
        if pid not in out.decls:
            out.decls[pid] = Decl("phases", ph.val_pos.get("id") or ph.pos, ph)
    options = model.src.single.get("game", {}).get("options")
    if type(options) is PMap:  # a game option is declared by its key
        for name, pos in options.key_pos.items():
            if name not in out.decls:
                out.decls[name] = Decl("options", pos, options[name])
                out._add(Span(pos, len(name), name))
    known = out.decls.keys()
    for doc in model.src.docs.values():
        _walk(doc, None, known, out, 0, DSL_FIELDS)
    return out


def add_scenarios(symbols: Symbols, scenarios) -> None:
    """The mentions of the game's ids in its scenarios' `scenario:` maps: their statements and
    expectations, and values that are exactly an id (`options: {p1_gang: valentinos}`)."""
    for sc in scenarios:
        if type(sc) is PMap:
            _walk(sc, None, symbols.decls.keys(), symbols, 0, SCENARIO_DSL)


def _walk(node, key, known, out: Symbols, depth: int, dsl) -> None:
    if depth > MAX_DEPTH:
        return
    if type(node) is PMap:
        for k, v in node.items():
            if k in PROSE_KEYS:
                continue
            if isinstance(v, PStr) and k in dsl:
                _effect(v, known, out)
            elif isinstance(v, PStr):
                if v in known:
                    out._add(Span(_start(v), len(v), str(v)))
            elif type(v) is PMap or type(v) is PList:
                _walk(v, k, known, out, depth + 1, dsl)
    elif type(node) is PList:
        for v in node:
            if isinstance(v, PStr) and key in dsl:  # a list of expectations
                _effect(v, known, out)
            elif isinstance(v, PStr) and v in known:
                out._add(Span(_start(v), len(v), str(v)))
            elif type(v) is PMap or type(v) is PList:
                _walk(v, key, known, out, depth + 1, dsl)


def _start(s: PStr) -> Pos:
    """Where a plain or quoted value's text begins (inside its quotes)."""
    return s.at(1, 1)


def _effect(text: PStr, known, out: Symbols) -> None:
    line, line_start = 1, 0
    for m in _DSL_TOKEN.finditer(text):
        start = m.start()
        while True:  # (lines counted as the matches go: effects are short)
            nl = text.find("\n", line_start, start)
            if nl < 0:
                break
            line, line_start = line + 1, nl + 1
        tok = m.group()
        if tok[0] in "\"'":
            tok, start = tok[1:-1], start + 1
        elif tok[0] == "#":
            continue
        if tok in known:
            out._add(Span(text.at(line, start - line_start + 1), len(tok), tok))
