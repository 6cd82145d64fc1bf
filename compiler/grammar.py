"""The effect language's grammar (dsl.lark) run by Lark's LALR parser, into IR lists.

Loaded only when a process meets a statement it has not parsed before (see dsl.py), and
knows nothing of files: `place(line, col)` names where a node stands in the IR, and a
text that does not parse raises SyntaxProblem with the line and column in the text.

How a text becomes IR: Lark's contextual lexer and the Indenter build a tree, and _IR
builds the nodes from each rule's children. A node stands where its first token stands (a
keyword that begins a node is a named terminal in dsl.lark so that its token reaches _IR),
or where its first child stands; a child in parentheses stands at its outermost `(`.
"""
from __future__ import annotations

import functools
import hashlib
import json
import os

import lark
from lark import Lark, Transformer
from lark.grammar import Rule
from lark.lexer import TerminalDef
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, LarkError, VisitError
from lark.indenter import Indenter

from .diagnostics import did_you_mean
from ..runtime.ir import make, view


class SyntaxProblem(Exception):
    """Effect text that does not parse: where in the text (line, col), a code and a message."""

    def __init__(self, line: int, col: int, code: str, message: str):
        super().__init__(message)
        self.line, self.col, self.code, self.message = line, col, code, message


class _Indent(Indenter):
    NL_type = "_NL"
    OPEN_PAREN_types = ["LPAR", "LSQB"]
    CLOSE_PAREN_types = ["RPAR", "RSQB"]
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = 8


_HERE = os.path.dirname(os.path.abspath(__file__))
# Lark's LALR tables for dsl.lark, made once by `python -m rulepress.compiler.grammar` and
# shipped beside it: making them takes a process ~0.15 s of CPU, a sixth of a cold validate.
# They are plain JSON (Lark's own cache of them is a pickle, which a planted file would turn
# into code) and name the grammar and the Lark they were made from; when either differs they
# are not used and the tables are made again in memory.
TABLES = "dsl.tables.json"


@functools.lru_cache(maxsize=1)
def parser() -> Lark:
    """Lark's LALR parser for dsl.lark: from the kept tables where they fit, else made here."""
    text = _grammar_text()
    kept = _kept_tables(text)
    if kept is not None:
        return Lark._load_from_dict(kept["data"], kept["memo"], postlex=_Indent())
    return _made(text)


def _grammar_text() -> str:
    with open(os.path.join(_HERE, "dsl.lark"), encoding="utf-8") as fh:
        return fh.read()


def _made(text: str) -> Lark:
    return Lark(text, parser="lalr", postlex=_Indent(), maybe_placeholders=True, lexer="contextual")


def _stamp(text: str) -> dict:
    return {"grammar": hashlib.sha256(text.encode("utf-8")).hexdigest(), "lark": lark.__version__}


def tables_json(text: str | None = None) -> str:
    """The kept tables' file: the stamp, and Lark's serialised parser as JSON."""
    text = _grammar_text() if text is None else text
    data, memo = _made(text).memo_serialize([TerminalDef, Rule])
    data = {k: v for k, v in data.items() if k != "options"} | {
        "options": {k: v for k, v in data["options"].items() if k != "postlex"}}
    return json.dumps({**_stamp(text), "data": _to_json(data), "memo": _to_json(memo)},
                      sort_keys=True, separators=(",", ":")) + "\n"


def _kept_tables(text: str):
    try:
        with open(os.path.join(_HERE, TABLES), encoding="utf-8") as fh:
            kept = json.load(fh)
    except (OSError, ValueError):
        return None
    if not isinstance(kept, dict) or any(kept.get(k) != v for k, v in _stamp(text).items()):
        return None
    return {"data": _from_json(kept.get("data")), "memo": _from_json(kept.get("memo"))}


# JSON keys are texts: a table keyed by numbers is kept as {"#": [[key, value], ...]}.
def _to_json(v):
    if isinstance(v, dict):
        if v and all(type(k) is int for k in v):
            return {"#": [[k, _to_json(x)] for k, x in v.items()]}
        return {k: _to_json(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_to_json(x) for x in v]
    return v


def _from_json(v):
    if isinstance(v, dict):
        if len(v) == 1 and "#" in v:
            return {k: _from_json(x) for k, x in v["#"]}
        return {k: _from_json(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_from_json(x) for x in v]
    return v


# Words a designer recognises, for tokens the parser expected.
_WORDS = {
    "_NL": "end of line", "_INDENT": "an indented block", "_DEDENT": "end of block", "NAME": "a name",
    "NUMBER": "a number", "STRING": "a quoted text", "COLON": "`:`", "LPAR": "`(`", "RPAR": "`)`",
    "LSQB": "`[`", "RSQB": "`]`", "COMMA": "`,`", "DOT": "`.`", "EQUAL": "`=`", "COMPOP": "a comparison",
    "ADDOP": "`+` or `-`", "MULOP": "`*`, `/` or `%`", "$END": "end of effect", "FACE": "`face up` or `face down`",
    "ORNONE": "`or none`", "UPTO": "`up to`",
}


def _expected(exp) -> str:
    words = []
    for name in sorted(exp):
        w = _WORDS.get(name)
        if w is None:
            w = f"`{name.lower()}`" if name.isupper() else name
        if w not in words:
            words.append(w)
    keywords = [w for w in words if w.startswith("`")]
    # Show the few most useful words, keywords first.
    shown = (keywords + [w for w in words if not w.startswith("`")])[:6]
    return ", ".join(shown)


_TOKEN_SHOWN = {"_NL": "end of line", "_INDENT": "indentation", "_DEDENT": "end of block", "$END": "end of effect"}


# Words that open a statement; anything else at the start of a line must be a call.
_KEYWORDS = {"let", "set", "gain", "lose", "pay", "move", "draw", "discard", "shuffle", "reveal", "show", "hide", "conceal",
             "remove", "put", "mark", "unmark", "fail", "end", "stop", "log", "emit", "perform", "return",
             "swap", "offer", "if", "elif", "else", "for", "repeat", "while", "choose", "may", "each", "otherwise"}


def _translate(exc: UnexpectedInput, text) -> tuple[int, int, str]:
    line, col = getattr(exc, "line", 1) or 1, getattr(exc, "column", 1) or 1
    if isinstance(exc, UnexpectedCharacters):
        ch = text.split("\n")[line - 1][col - 1:col] if line - 1 < len(text.split("\n")) else "?"
        if ch == '"':
            return line, col, "unterminated text: a quoted text must close with `\"` on the same line"
        return line, col, f"unexpected character `{ch}`"
    if isinstance(exc, UnexpectedToken):
        tok = exc.token
        exp = set(exc.expected) | set(getattr(exc, "accepts", None) or ())
        shown = _TOKEN_SHOWN.get(tok.type, f"`{tok.value}`")
        if tok.type == "_NL" and "COLON" in exp:
            return tok.line or line, tok.column or col, "expected `:` at the end of this line, before its indented block"
        if tok.type == "_NL" and tok.line:
            # the newline token starts at the end of the unfinished line
            return tok.line, tok.column, f"this line ends too early; expected {_expected(exp)}"
        first = text.split("\n")[(tok.line or line) - 1].split()[:1] if tok.line else []
        if first and first[0].isidentifier() and first[0] not in _KEYWORDS and "LPAR" in exp and tok.type != "LPAR":
            # `jump 3 spaces`: a word the language does not know, read as a call missing its `(`
            return tok.line, 1 + len(text.split("\n")[tok.line - 1]) - len(text.split("\n")[tok.line - 1].lstrip()), \
                f"unknown statement `{first[0]}`: a line starts with a verb (let, gain, move, draw, ...) or calls a procedure as `name(...)`{did_you_mean(first[0], sorted(_KEYWORDS))}"
        if tok.type in ("_INDENT",):
            return tok.line or line, tok.column or col, "unexpected indentation: only a line ending with `:` opens a block"
        if tok.type == "$END":
            return line, col, f"the effect ends too early; expected {_expected(exp)}"
        return tok.line or line, tok.column or col, f"unexpected {shown}; expected {_expected(exp)}"
    if isinstance(exc, UnexpectedEOF):
        return line, col, "the effect ends too early"
    return line, col, str(exc).split("\n")[0]


def parse(src: str, place) -> list:
    """The IR of a text that ends with a newline; raises SyntaxProblem."""
    try:
        tree = parser().parse(src)
    except UnexpectedInput as exc:
        line, col, msg = _translate(exc, src)
        raise SyntaxProblem(line, col, "D001", msg) from None
    except (LarkError, RecursionError) as exc:  # the indenter raises plain errors on bad dedents
        msg = str(exc).split("\n")[0]
        if "dedent" in msg.lower():
            msg = "this line's indentation matches no enclosing block"
        raise SyntaxProblem(1, 1, "D001", msg) from None
    try:
        return _IR(place).transform(tree)
    except VisitError as exc:  # Lark wraps what a transformer method raises
        if isinstance(exc.orig_exc, SyntaxProblem):
            raise exc.orig_exc from None
        raise
    except RecursionError:
        raise SyntaxProblem(1, 1, "D006", "the effect nests too deeply") from None


class _IR(Transformer):
    """IR nodes from a rule's children: tokens (`.value`, `.line`, `.column`) and IR values."""

    def __init__(self, place):
        super().__init__()
        self.place = place
        self.paren: dict[int, str] = {}  # id(node) -> where the outermost `(` around it stands

    def _at(self, tok) -> str:
        return self.place(tok.line, tok.column)

    def _from(self, node) -> str:
        """Where a node that begins with this child node stands."""
        if self.paren:
            p = self.paren.get(id(node))
            if p is not None:
                return p
        return node[1]

    def start(self, c): return list(c)
    def block(self, c): return list(c)

    # statements: c[0] is the keyword; each node laid out by the IR table (runtime/ir.py)
    def let(self, c): return make("let", self._at(c[0]), name=c[1].value, value=c[2])
    def set(self, c): return make("set", self._at(c[0]), target=c[1], value=c[2])
    def target(self, c):
        t = c[0]
        return t if type(t) is list else make("name", self._at(t), name=t.value)
    def gain(self, c): return make("gain", self._at(c[0]), amount=c[1], counter=c[2].value, target=c[3])
    def lose(self, c): return make("lose", self._at(c[0]), amount=c[1], counter=c[2].value, target=c[3])
    def pay(self, c): return make("pay", self._at(c[0]), amount=c[1], counter=c[2].value, target=c[3])
    def move(self, c): return make("move", self._at(c[0]), thing=c[1], destination=c[2], face=_face(c[3]))
    def draw(self, c): return make("draw", self._at(c[0]), amount=c[1], source=c[2], destination=c[3], face=_face(c[4]),
                                   name=c[5].value if c[5] else None)
    def discard(self, c): return make("discard", self._at(c[0]), thing=c[1], under=bool(c[2]))
    def shuffle(self, c): return make("shuffle", self._at(c[0]), pile=c[1], into=c[2])
    def reveal(self, c): return make("reveal", self._at(c[0]), thing=c[1])
    def show(self, c): return make("show", self._at(c[0]), thing=c[1], players=c[2])
    def hide(self, c): return make("hide", self._at(c[0]), thing=c[1], players=c[2])
    def conceal(self, c): return make("conceal", self._at(c[0]), thing=c[1])
    def remove(self, c): return make("remove", self._at(c[0]), thing=c[1])
    def putback(self, c): return make("putback", self._at(c[0]), thing=c[1])
    def mark(self, c): return make("mark", self._at(c[0]), thing=c[1], mark=c[2].value, until=_until(c[3]))
    def unmark(self, c): return make("unmark", self._at(c[0]), thing=c[1], mark=c[2].value)
    def fail(self, c): return make("fail", self._at(c[0]), reason=self._said(c[1]) if c[1] else None)
    def endgame(self, c): return make("endgame", self._at(c[0]))
    def endturn(self, c): return make("endturn", self._at(c[0]))
    def stop(self, c): return make("stop", self._at(c[0]))
    def log(self, c): return make("log", self._at(c[0]), message=c[1], to=c[2])
    def emit(self, c): return make("emit", self._at(c[0]), event=c[1].value, given=c[2] or {})
    def args(self, c): return {k: v for k, v in c}
    def kwarg(self, c): return (c[0].value, c[1])
    def perform(self, c): return make("perform", self._at(c[0]), thing=c[1], by=c[2])
    def returnv(self, c): return make("return", self._at(c[0]), value=c[1])
    def callstmt(self, c): return make("do", c[0][1], call=c[0])
    def swap(self, c): return make("swap", self._at(c[0]), first=c[1], second=c[2])
    def offer(self, c): return make("offer", self._at(c[0]), window=c[1].value, players=c[2], given=c[3] or {},
                                    name=c[4].value if c[4] else None)

    def ifs(self, c):
        _, cond, body, elifs, orelse = c
        return make("if", self._at(c[0]), branches=[[cond, body]] + elifs, otherwise=orelse)
    def elifs(self, c): return list(c)
    def elif_(self, c): return [c[0], c[1]]
    def foreach(self, c): return make("for", self._at(c[0]), name=c[1].value, collection=c[2], where=c[3], body=c[4])
    def repeat(self, c): return make("repeat", self._at(c[0]), times=c[1], body=c[2])
    def whiles(self, c): return make("while", self._at(c[0]), condition=c[1], body=c[2])
    def choose(self, c):
        _, upto, n, var, src, where, by, ornone, prompt, body, other = c
        return make("choose", self._at(c[0]), up_to=n if upto else None, name=var.value, options=src, where=where, by=by,
                    or_none=bool(ornone), prompt=self._said(prompt) if prompt else None, body=body, otherwise=other)
    def may(self, c):
        _, by, prompt, body, other = c
        return make("may", self._at(c[0]), by=by, prompt=self._said(prompt) if prompt else None, body=body, otherwise=other)
    def secret(self, c):
        _, pvar, players, var, src, where, ornone, prompt, body = c
        # `or none`: every player is asked, and may answer nothing (the only answer of one who has no other)
        return make("secret", self._at(c[0]), chooser=pvar.value, choosers=players, name=var.value, options=src,
                    where=where, body=body, or_none=bool(ornone), prompt=self._said(prompt) if prompt else None)

    # expressions
    def condexpr(self, c): return make("cond", self._from(c[0]), test=c[1], then=c[0], otherwise=c[2])
    def or_(self, c): return make("or", self._from(c[0]), left=c[0], right=c[1])
    def and_(self, c): return make("and", self._from(c[0]), left=c[0], right=c[1])
    def not_(self, c): return make("not", self._at(c[0]), operand=c[1])
    def cmp(self, c): return make("op", self._from(c[0]), operator=c[1].value, left=c[0], right=c[2])
    def arith(self, c): return make("op", self._from(c[0]), operator=c[1].value, left=c[0], right=c[2])
    def in_(self, c): return make("in", self._from(c[0]), item=c[0], collection=c[1])
    def notin(self, c):
        p = self._from(c[0])
        return make("not", p, operand=make("in", p, item=c[0], collection=c[1]))
    def has(self, c): return make("has", self._from(c[0]), thing=c[0], mark=c[1].value)
    def hasno(self, c):
        p = self._from(c[0])
        return make("not", p, operand=make("has", p, thing=c[0], mark=c[1].value))
    def neg(self, c): return make("neg", self._at(c[0]), operand=c[1])
    def index(self, c): return make("index", self._from(c[0]), of=c[0], index=c[1])
    def expr_attr(self, c): return make("attr", self._from(c[0]), of=c[0], attribute=c[1].value)
    def call(self, c):
        name, args = c[0].value, c[1]
        if args and args[0] == "gen":  # (the aggregate's loop, from `gen` below)
            _gen, body, var, src, where = args
            return make("gen", self._at(c[0]), function=name, body=body, name=var, source=src, where=where)
        return make("call", self._at(c[0]), function=name, args=args or [])
    def callargs(self, c): return list(c)
    def gen(self, c): return ["gen", c[0], c[1].value, c[2], c[3]]  # (no node: the loop of a call, above)
    def number(self, c):
        tok = c[0]
        s = tok.value
        # compare digits first: Python refuses to convert thousands of digits at all
        if len(s) > 12 and (len(s.split(".")[0].lstrip("0")) > 13 or abs(float(s) if "." in s else int(s)) > 10 ** 12):
            shown = s if len(s) <= 20 else s[:20] + "…"
            raise SyntaxProblem(tok.line, tok.column, "D008", f"number {shown} is too large (limit 10^12)")
        return make("num", self._at(tok), value=float(s) if "." in s else int(s))
    def string(self, c):
        tok = c[0]
        return self._text(tok) if "{" in tok.value or "}" in tok.value else make("str", self._at(tok), value=_unq(tok))

    def _said(self, tok):
        """A prompt or a reason: the text itself, or a text node where it carries values."""
        return self._text(tok) if "{" in tok.value or "}" in tok.value else _unq(tok)

    def _text(self, tok):
        """`"{p} is out of the round"`: a text with values, ["text", pos, parts], each part a
        text or an expression. `{{` and `}}` write a brace."""
        raw, parts, i, plain = tok.value[1:-1], [], 0, []
        while i < len(raw):
            ch = raw[i]
            if raw.startswith("{{", i) or raw.startswith("}}", i):
                plain.append(ch)
                i += 2
                continue
            if ch == "}":
                raise SyntaxProblem(tok.line, tok.column + 1 + i, "D001", "a `}` closes no `{`: write `}}` for a brace in a text")
            if ch != "{":
                plain.append(ch)
                i += 1
                continue
            end = raw.find("}", i)
            if end < 0:
                raise SyntaxProblem(tok.line, tok.column + 1 + i, "D001",
                                    "a `{` in a text opens a value: close it with `}` (write `{{` for a brace)")
            inner = raw[i + 1:end]
            if not inner.strip():
                raise SyntaxProblem(tok.line, tok.column + 1 + i, "D001", "`{}` holds no value: write `{name}` or `{{}}` for braces")
            if plain:
                parts.append("".join(plain))
                plain = []
            parts.append(self._inner(inner, tok.line, tok.column + 2 + i))
            i = end + 1
        if plain:
            parts.append("".join(plain))
        return make("text", self._at(tok), parts=parts)

    def _inner(self, text, line, col):
        """The expression between braces, standing where it is written in the text."""
        try:
            tree = parser().parse("return " + text + "\n")
        except UnexpectedInput as exc:
            _l, c, msg = _translate(exc, "return " + text + "\n")
            raise SyntaxProblem(line, col + max(0, c - 8), "D001", f"in `{{{text}}}`: {msg}") from None
        outer = self.place
        node = _IR(lambda _l, c: outer(line, col + c - 8)).transform(tree)[0]
        return view(node).value  # (the `return` statement's)
    def name(self, c): return make("name", self._at(c[0]), name=c[0].value)
    def true(self, c): return make("num", self._at(c[0]), value=True)
    def false(self, c): return make("num", self._at(c[0]), value=False)
    def none(self, c): return make("none", self._at(c[0]))
    def every(self, c): return make("every", self._at(c[0]), kind=c[1].value)
    def listlit(self, c): return make("list", self._at(c[0]), items=[x for x in c[1:] if x is not None])
    def listcomp(self, c): return make("comp", self._at(c[0]), body=c[1], name=c[2].value, source=c[3], where=c[4])

    def atom(self, c):
        """`( expr )`: the expression itself; a node that begins with it stands at the `(`."""
        node = c[1]
        self.paren[id(node)] = self._at(c[0])
        return node


# `elif` is a Python keyword, so the rule's method needs an alias.
setattr(_IR, "elif", _IR.elif_)


def _face(tok):
    if not tok:
        return None
    return "up" if tok.value.split()[-1] == "up" else "down"


def _until(tok):
    """When a mark goes: `turn`, `round` or `game` (at its end), `next_turn` (as the marking
    player's next turn starts) or None (never by itself)."""
    if not tok:
        return None
    words = tok.value.split()
    return "next_turn" if words[1] == "your" else words[-1]


def _unq(tok) -> str:
    return tok.value[1:-1]


def depth(ir) -> int:
    """How deeply the IR nests (lists and maps)."""
    deepest, todo = 0, [(ir, 1)]
    while todo:
        node, d = todo.pop()
        deepest = max(deepest, d)
        for x in (node.values() if type(node) is dict else node):
            if type(x) is list or type(x) is dict:
                todo.append((x, d + 1))
    return deepest


if __name__ == "__main__":  # writes the kept tables after an edit of dsl.lark
    # (Lark numbers the states in an order that varies from run to run: the file written again
    # differs in bytes, never in the language it parses. Write it only after an edit.)
    from .writing import put_text
    put_text(os.path.join(_HERE, TABLES), tables_json())
