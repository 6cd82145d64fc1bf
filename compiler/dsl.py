"""Effect language: text into IR lists, a top-level statement at a time.

IR nodes are JSON lists `[op, pos, *args]`: the same shape the runtime interprets
and the renderer reads, so nothing is lost between the stages. `pos` is the
"file:line:col" of the node in the YAML file, the file named from the game's folder
(`sources`): game.json is then the same wherever the game is built from.

A text is parsed from its statements, each parsed once per process (and kept by the
validation cache) and copied to where it stands; a statement not met before goes to the
grammar (grammar.py, which loads Lark only then).
"""
from __future__ import annotations

import marshal
import re

from .diagnostics import Pos
from ..runtime import ir as _ir

MAX_TEXT = 20_000  # one effect text; longer is surely a mistake
MAX_NEST = 40      # parenthesis/indentation depth the parser will accept
_DEEP = 120        # a statement's IR deeper than this is parsed with its whole text, not kept alone


class DslError(Exception):
    def __init__(self, pos: Pos, code: str, message: str):
        super().__init__(message)
        self.pos, self.code, self.message = pos, code, message


def parse(text: str, where, met: list | None = None) -> list:
    """Parse effect text to IR statements. `where(line, col)` maps to a file Pos.
    `met`, a list, gets (statement text, how many IR statements it gave) for each top-level
    statement when the text was parsed from them; what depends on the text alone can be
    worked out once per statement."""
    return _parse(text, where, None, met)


_DEEP_INDENT = re.compile(r"^ {%d}" % (MAX_NEST * 8 + 1), re.M)


def _parse(text: str, where, origin=None, met=None) -> list:
    if len(text) > MAX_TEXT:
        raise DslError(where(1, 1), "D004", f"effect text is {len(text)} characters; split it into procedures (limit {MAX_TEXT})")
    if "\t" in text:
        ln = text[: text.index("\t")].count("\n") + 1
        raise DslError(where(ln, 1), "D005", "tab in effect text; indent with spaces")
    if text.count("(") + text.count("[") > MAX_NEST:  # fewer brackets cannot nest deeper
        depth = 0
        for i, ch in enumerate(text):
            depth += ch in "([" and 1 or (-1 if ch in ")]" else 0)
            if depth > MAX_NEST:
                ln = text[:i].count("\n") + 1
                raise DslError(where(ln, i - text.rfind("\n", 0, i)), "D006", f"brackets nest deeper than {MAX_NEST}; simplify the expression")
    if len(text) > MAX_NEST * 8 and _DEEP_INDENT.search(text):
        raise DslError(where(1, 1), "D006", "blocks nest too deeply; move inner parts into procedures")
    src = text if text.endswith("\n") else text + "\n"
    ir = _by_statements(src, where, origin, met)
    if ir is not None:
        return ir
    return _whole(src, where)


def _whole(src: str, where) -> list:
    from . import grammar  # (Lark is loaded only for a statement this process has not met)

    def place(line, col):
        p = where(line, col)
        return ir_pos(p) if type(p) is Pos else p  # (a piece's own positions are markers: _rel)
    try:
        return grammar.parse(src, place)
    except grammar.SyntaxProblem as exc:
        raise DslError(where(exc.line, exc.col), exc.code, exc.message) from None


# ---- statements parsed once ------------------------------------------------------
#
# Effects repeat their statements: `gain 1 fame`, `lose 1 sanity`, the same `choose` over
# others. A text is cut before each line that starts in its first column (a new top-level
# statement), unless that line continues the statement above (`elif`, `else`, `otherwise`,
# a comment). Each piece is parsed once per process, with positions relative to the piece,
# and its IR is copied with the positions of each place it stands in.
#
# The pieces' IR, put together, is the IR of the whole: a top-level statement ends at the
# end of its line or block, and only those three words can continue it on a line of the
# first column. A piece that does not parse alone (a bracket left open across such a line,
# an error of any kind) or nests deeply sends the whole text the usual way, so every error
# is found, and worded, as before.

_PIECES: dict[str, list | None] = {}   # piece text -> IR with relative positions, None: not alone
_PLANS: dict[str, tuple] = {}           # piece text -> how to copy its IR (_plan)
_MAX_PIECES = 100_000
_REL: dict[str, tuple[int, int]] = {}   # marker -> (line, col) inside a piece
_REL_OF: dict[tuple[int, int], str] = {}
_GOES_ON = ("else", "elif", "otherwise")
_unpack = marshal.loads


_SOURCES: dict[str, str] = {}  # a file as diagnostics show it -> its name in IR positions


def sources(names: dict[str, str]) -> None:
    """Name files in IR positions by `names` (shown path -> path inside the game folder)
    from now on; a file not named keeps the path it is shown by."""
    global _SOURCES
    _SOURCES = dict(names)


def ir_pos(pos) -> str:
    """The IR position of a diagnostic position."""
    file = pos.file
    return f"{_SOURCES.get(file, file)}:{pos.line}:{pos.col}"


def _rel(line: int, col: int) -> str:
    """The position (line, col) of a piece as a marker string that no IR text can be."""
    m = _REL_OF.get((line, col))
    if m is None:
        m = _REL_OF[(line, col)] = f"\0{line}:{col}"
        _REL[m] = (line, col)
    return m


def _by_statements(src: str, where, origin=None, met=None) -> list | None:
    """The IR of the text from its pieces; None where they cannot give it. `origin` is
    (file, line, col) of the text's first character, where `where` is not simply that."""
    if "\0" in src:  # (a NUL in a quoted text could pass for a marker)
        return None
    i, end = src.index("\n") + 1, len(src)
    if origin is not None:
        f, l1, c1 = origin
    else:  # positions must shift by whole lines and columns: where(l, c) = (file, L + l, C + c)
        f, l1, c1 = where(1, 1)
        if tuple(where(1, 9)) != (f, l1, c1 + 8):
            return None
        if i < end and (tuple(where(2, 1)) != (f, l1 + 1, c1) or tuple(where(2, 9)) != (f, l1 + 1, c1 + 8)):
            return None
    prefix, out = f"{_SOURCES.get(f, f)}:", []
    for piece, first in _split(src):
        if USED is not None:
            USED.add(piece)
        ir = _PIECES.get(piece, _PIECES)
        if ir is _PIECES:
            ir = _piece(piece)
            _keep(piece, ir)
        if ir is None:
            if met:
                met.clear()
            return None
        plan = _PLANS.get(piece)
        if plan is None:
            plan = _plan(ir)
            if len(_PLANS) < _MAX_PIECES:
                _PLANS[piece] = plan
        out += _placed(plan, prefix, l1 + first - 2, c1 - 1)
        if met is not None:
            met.append((piece, len(ir)))
    return out


def _split(src: str):
    """(piece, its first line) for each top-level statement of a text that ends with a newline."""
    i, end = src.index("\n") + 1, len(src)
    start, first, lines = 0, 1, 1   # the piece's offset and first line; lines read so far
    while True:
        while i < end:  # on to the next line that begins a top-level statement
            ch = src[i]
            if ch != " " and ch != "\n" and ch != "#" and not src.startswith(_GOES_ON, i):
                break
            i = src.index("\n", i) + 1
            lines += 1
        yield src[start:i], first
        if i >= end:
            return
        start, first = i, lines + 1
        i = src.index("\n", i) + 1
        lines += 1


def learn(texts) -> set:
    """Parse the statements of these effect texts that this process has not met (an
    expression as `return <expr>`), ahead of the effects themselves; the statements met."""
    met = set()
    for text in texts:
        if not isinstance(text, str) or "\0" in text or len(text) > MAX_TEXT:
            continue
        src = text if text.endswith("\n") else text + "\n"
        for piece, _first in _split(src):
            met.add(piece)
            if piece not in _PIECES:
                _keep(piece, _piece(piece))
    return met


# The statements met while this is a set (the validation cache keeps those of a game).
USED: set | None = None


def pieces(texts=None) -> dict:
    """Statements parsed so far that parse alone (of `texts`, or all): {text: IR with
    relative positions}. Plain JSON data, for the validation cache to keep (see add_pieces)."""
    got = _PIECES.items() if texts is None else ((t, _PIECES.get(t)) for t in texts)
    return {text: ir for text, ir in sorted(got) if ir is not None}


def add_pieces(found) -> int:
    """Take statements parsed before (what `pieces` gave, read back); how many were new.
    Anything not of that shape is left out."""
    if not isinstance(found, dict):
        return 0
    n = 0
    for text, ir in found.items():
        if text in _PIECES or not isinstance(text, str) or not isinstance(ir, list) or len(_PIECES) >= _MAX_PIECES:
            continue
        try:
            _register(ir, 0)
        except (ValueError, TypeError, RecursionError):
            continue
        _keep(text, ir)
        n += 1
    return n


def _register(node, depth: int) -> None:
    """Know the position markers of an IR read back (they are made by _rel when parsed here)."""
    if depth > _DEEP:
        raise ValueError("too deep")
    for x in (node.values() if type(node) is dict else node):
        t = type(x)
        if t is str and x[:1] == "\0":
            line, col = x[1:].split(":")
            if _rel(int(line), int(col)) != x:
                raise ValueError(x)
        elif t is list or t is dict:
            _register(x, depth + 1)


def _keep(piece: str, ir) -> None:
    if len(_PIECES) < _MAX_PIECES:
        _PIECES[piece] = ir
        if ir is not None and _DIGIT.search(piece):
            _SHAPES.setdefault(_DIGIT.sub("0", piece), piece)


# A designer's commonest edit changes a number: `gain 2 fame` becomes `gain 3 fame`. The
# tokens are the same but for a number's value, so the LALR parse is the same too, and the
# transformer copies a number's value without looking at it. A statement that differs from
# a known one only in such numbers (digit for digit in place and length, so no position
# moves) is that statement's IR with the values changed, without loading Lark.
_SHAPES: dict[str, str] = {}             # piece with each digit 0 -> a known piece of that shape
_DIGIT = re.compile(r"[0-9]")
_RUN = re.compile(r"[0-9]+")
_WORDLIKE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.")


_VALUE = _ir.at("num", "value")  # a number node's value


def _by_shape(src: str) -> list | None:
    """The IR of a piece from a known piece of the same shape; None where there is none."""
    known = _SHAPES.get(_DIGIT.sub("0", src)) if _DIGIT.search(src) else None
    ir = _PIECES.get(known) if known is not None else None
    if ir is None:
        return None
    changed = {}  # marker of a number token -> (its old value, its new value)
    for m in _RUN.finditer(src):
        a, b = m.span()
        old = known[a:b]
        if old == m.group():
            continue
        if b - a > 12 or (a and src[a - 1] in _WORDLIKE) or src[b:b + 1] in _WORDLIKE:
            return None  # part of a name or a decimal, or long enough to be checked for size
        line = src.count("\n", 0, a) + 1
        changed[_rel(line, a - src.rfind("\n", 0, a))] = (int(old), int(m.group()))
    out = _unpack(marshal.dumps(ir, 2))
    stack, done = [out], set()
    while stack:
        node = stack.pop()
        if type(node) is dict:
            stack.extend(x for x in node.values() if type(x) is list or type(x) is dict)
            continue
        if len(node) == 3 and node[0] == "num" and node[1] in changed:
            old, new = changed[node[1]]
            if type(node[_VALUE]) is not int or node[_VALUE] != old:
                return None
            node[_VALUE] = new
            done.add(node[1])
            continue
        stack.extend(x for x in node if type(x) is list or type(x) is dict)
    return out if len(done) == len(changed) else None  # each a number token, not a text's digits


def _piece(src: str) -> list | None:
    shaped = _by_shape(src)
    if shaped is not None:
        return shaped
    try:
        ir = _whole(src, _rel)
    except DslError:
        return None
    if len(src) > _DEEP:
        from .grammar import depth
        if depth(ir) > _DEEP:
            return None
    return ir


def _plan(ir: list) -> tuple:
    """How to copy a piece's IR quickly: the IR packed (marshal, in memory only) and, for
    each position, the path to it and its line and column in the piece."""
    spots: list = []

    def walk(node, path):
        for i, x in (node.items() if type(node) is dict else enumerate(node)):
            if type(x) is str and x in _REL:
                spots.append((path, i, _REL[x]))
            elif type(x) is list or type(x) is dict:
                walk(x, path + (i,))
    walk(ir, ())
    return marshal.dumps(ir, 2), spots  # (version 2 shares no object between two places)


def _placed(plan: tuple, prefix: str, dl: int, dc: int) -> list:
    """A copy of a piece's IR with its positions where the piece stands in the file."""
    packed, spots = plan
    out = _unpack(packed)
    for path, last, (line, col) in spots:
        node = out
        for k in path:
            node = node[k]
        node[last] = f"{prefix}{dl + line}:{dc + col}"
    return out


def parse_expr(text: str, where, met: list | None = None) -> list:
    """An expression alone (conditions, scores) is parsed as `return <expr>`."""
    if "\n" in text.strip():
        raise DslError(where(1, 1), "D007", "a condition is one expression on one line")
    # Every token of the expression stands at column 8 or later of `return <expr>`.
    f, line, col = where(1, 1)
    origin = (f, line, col - 7) if tuple(where(1, 9)) == (f, line, col + 8) else None
    body = _parse("return " + text, lambda l, c: where(l, max(1, c - 7)), origin, met)
    return body[0][2]
