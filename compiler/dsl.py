"""Effect language: parse text with the LALR grammar in dsl.lark into IR lists.

IR nodes are JSON lists `[op, pos, *args]`: the same shape the runtime interprets
and the renderer reads, so nothing is lost between the stages. `pos` is the
"file:line:col" of the node in the YAML file.
"""
from __future__ import annotations

import functools
import os

from lark import Lark, Transformer, Token, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, LarkError, VisitError
from lark.indenter import Indenter

from .diagnostics import Pos, did_you_mean

GRAMMAR = os.path.join(os.path.dirname(__file__), "dsl.lark")
MAX_TEXT = 20_000  # one effect text; longer is surely a mistake
MAX_NEST = 40      # parenthesis/indentation depth the parser will accept


class _Indent(Indenter):
    NL_type = "_NL"
    OPEN_PAREN_types = ["LPAR", "LSQB"]
    CLOSE_PAREN_types = ["RPAR", "RSQB"]
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = 8


@functools.lru_cache(maxsize=None)
def parser() -> Lark:
    cache = os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "rulepress")
    try:
        os.makedirs(cache, exist_ok=True)
        cache_file = os.path.join(cache, "dsl-grammar.cache")
    except OSError:
        cache_file = False
    with open(GRAMMAR, encoding="utf-8") as fh:
        text = fh.read()
    return Lark(text, parser="lalr", postlex=_Indent(), maybe_placeholders=True,
                propagate_positions=True, cache=cache_file or False)


class DslError(Exception):
    def __init__(self, pos: Pos, code: str, message: str):
        super().__init__(message)
        self.pos, self.code, self.message = pos, code, message


# Words a designer recognises, for tokens the parser expected.
_WORDS = {
    "_NL": "end of line", "_INDENT": "an indented block", "_DEDENT": "end of block", "NAME": "a name",
    "NUMBER": "a number", "STRING": "a quoted text", "COLON": "`:`", "LPAR": "`(`", "RPAR": "`)`",
    "LSQB": "`[`", "RSQB": "`]`", "COMMA": "`,`", "DOT": "`.`", "EQUAL": "`=`", "COMPOP": "a comparison",
    "ADDOP": "`+` or `-`", "MULOP": "`*`, `/` or `%`", "$END": "end of effect", "FACE": "`face up` or `face down`",
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
_KEYWORDS = {"let", "set", "gain", "lose", "pay", "move", "draw", "discard", "shuffle", "reveal", "show", "conceal",
             "remove", "put", "mark", "unmark", "fail", "end", "stop", "log", "emit", "perform", "return",
             "swap", "if", "elif", "else", "for", "repeat", "while", "choose", "may", "each", "otherwise"}


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


# Parsed effects kept between runs by the validation cache: (text, where it stands) -> IR.
# None (the default) keeps nothing.
MEMO: dict | None = None


def parse(text: str, where) -> list:
    """Parse effect text to IR statements. `where(line, col)` maps to a file Pos."""
    if MEMO is None:
        return _parse(text, where)
    # Three sample points pin down every position mapping a text can have (they are
    # affine per line), so equal keys give equal IR.
    key = (text, tuple(where(1, 9)), tuple(where(2, 9)), tuple(where(2, 10)))
    ir = MEMO.get(key)
    if ir is None:
        ir = MEMO[key] = _parse(text, where)
    return ir


def _parse(text: str, where) -> list:
    if len(text) > MAX_TEXT:
        raise DslError(where(1, 1), "D004", f"effect text is {len(text)} characters; split it into procedures (limit {MAX_TEXT})")
    if "\t" in text:
        ln = text[: text.index("\t")].count("\n") + 1
        raise DslError(where(ln, 1), "D005", "tab in effect text; indent with spaces")
    depth = 0
    for i, ch in enumerate(text):
        depth += ch in "([" and 1 or (-1 if ch in ")]" else 0)
        if depth > MAX_NEST:
            ln = text[:i].count("\n") + 1
            raise DslError(where(ln, i - text.rfind("\n", 0, i)), "D006", f"brackets nest deeper than {MAX_NEST}; simplify the expression")
    lines = text.split("\n")
    if max((len(ln) - len(ln.lstrip(" ")) for ln in lines), default=0) > MAX_NEST * 8:
        raise DslError(where(1, 1), "D006", "blocks nest too deeply; move inner parts into procedures")
    src = text if text.endswith("\n") else text + "\n"
    try:
        tree = parser().parse(src)
    except UnexpectedInput as exc:
        line, col, msg = _translate(exc, src)
        raise DslError(where(line, col), "D001", msg) from None
    except (LarkError, RecursionError) as exc:  # the indenter raises plain errors on bad dedents
        msg = str(exc).split("\n")[0]
        if "Unexpected dedent" in msg or "dedent" in msg.lower():
            msg = "this line's indentation matches no enclosing block"
        raise DslError(where(1, 1), "D001", msg) from None
    try:
        return _ToIR(where).transform(tree)
    except VisitError as exc:  # Lark wraps what a transformer method raises
        if isinstance(exc.orig_exc, DslError):
            raise exc.orig_exc from None
        raise
    except RecursionError:
        raise DslError(where(1, 1), "D006", "the effect nests too deeply") from None


def parse_expr(text: str, where) -> list:
    """An expression alone (conditions, scores) is parsed as `return <expr>`."""
    if "\n" in text.strip():
        raise DslError(where(1, 1), "D007", "a condition is one expression on one line")
    body = parse("return " + text, lambda l, c: where(l, max(1, c - 7)))
    return body[0][2]


def _p(where, meta) -> str:
    if getattr(meta, "empty", True):
        return str(where(1, 1))
    return str(where(meta.line, meta.column))


@v_args(meta=True)
class _ToIR(Transformer):
    def __init__(self, where):
        super().__init__()
        self.where = where

    def _n(self, op, meta, *args):
        return [op, _p(self.where, meta), *args]

    def _name(self, tok: Token):
        return str(tok)

    def start(self, meta, stmts):
        return list(stmts)

    def block(self, meta, stmts):
        return list(stmts)

    # statements
    def let(self, meta, c): return self._n("let", meta, str(c[0]), c[1])
    def set(self, meta, c): return self._n("set", meta, c[0], c[1])
    def target(self, meta, c):
        t = c[0]
        return ["name", self._tokpos(t), str(t)] if isinstance(t, Token) else t
    def gain(self, meta, c): return self._n("gain", meta, c[0], self._tname(c[1]), c[2])
    def lose(self, meta, c): return self._n("lose", meta, c[0], self._tname(c[1]), c[2])
    def pay(self, meta, c): return self._n("pay", meta, c[0], self._tname(c[1]), c[2])
    def move(self, meta, c): return self._n("move", meta, c[0], c[1], _face(c[2]))
    def draw(self, meta, c): return self._n("draw", meta, c[0], c[1], c[2], _face(c[3]), str(c[4]) if c[4] else None)
    def discard(self, meta, c): return self._n("discard", meta, c[0], bool(c[1]))
    def shuffle(self, meta, c): return self._n("shuffle", meta, c[0], c[1])
    def reveal(self, meta, c): return self._n("reveal", meta, c[0])
    def show(self, meta, c): return self._n("show", meta, c[0], c[1])
    def conceal(self, meta, c): return self._n("conceal", meta, c[0])
    def remove(self, meta, c): return self._n("remove", meta, c[0])
    def putback(self, meta, c): return self._n("putback", meta, c[0])
    def mark(self, meta, c): return self._n("mark", meta, c[0], self._tname(c[1]), str(c[2]).split()[-1] if c[2] else None)
    def unmark(self, meta, c): return self._n("unmark", meta, c[0], self._tname(c[1]))
    def fail(self, meta, c): return self._n("fail", meta, _unq(c[0]) if c[0] else None)
    def endgame(self, meta, c): return self._n("endgame", meta)
    def endturn(self, meta, c): return self._n("endturn", meta)
    def stop(self, meta, c): return self._n("stop", meta)
    def log(self, meta, c): return self._n("log", meta, c[0])
    def emit(self, meta, c): return self._n("emit", meta, self._tname(c[0]), c[1] or {})
    def args(self, meta, c): return {k: v for k, v in c}
    def kwarg(self, meta, c): return (str(c[0]), c[1])
    def perform(self, meta, c): return self._n("perform", meta, c[0], c[1])
    def returnv(self, meta, c): return self._n("return", meta, c[0])
    def callstmt(self, meta, c): return self._n("do", meta, c[0])
    def swap(self, meta, c): return self._n("swap", meta, c[0], c[1])

    def ifs(self, meta, c):
        cond, body, elifs, orelse = c
        return self._n("if", meta, [[cond, body]] + elifs, orelse)
    def elifs(self, meta, c): return list(c)
    def elif_(self, meta, c): return [c[0], c[1]]
    def foreach(self, meta, c): return self._n("for", meta, str(c[0]), c[1], c[2], c[3])
    def repeat(self, meta, c): return self._n("repeat", meta, c[0], c[1])
    def whiles(self, meta, c): return self._n("while", meta, c[0], c[1])
    def choose(self, meta, c):
        upto, n, var, src, where, by, ornone, prompt, body, other = c
        return self._n("choose", meta, n if upto else None, str(var), src, where, by, bool(ornone),
                       _unq(prompt) if prompt else None, body, other)
    def may(self, meta, c):
        by, prompt, body, other = c
        return self._n("may", meta, by, _unq(prompt) if prompt else None, body, other)
    def secret(self, meta, c):
        pvar, players, var, src, where, body = c
        return self._n("secret", meta, str(pvar), players, str(var), src, where, body)

    # expressions
    def condexpr(self, meta, c): return self._n("cond", meta, c[1], c[0], c[2])
    def or_(self, meta, c): return self._n("or", meta, c[0], c[1])
    def and_(self, meta, c): return self._n("and", meta, c[0], c[1])
    def not_(self, meta, c): return self._n("not", meta, c[0])
    def cmp(self, meta, c): return self._n("op", meta, str(c[1]), c[0], c[2])
    def arith(self, meta, c): return self._n("op", meta, str(c[1]), c[0], c[2])
    def in_(self, meta, c): return self._n("in", meta, c[0], c[1])
    def notin(self, meta, c): return self._n("not", meta, self._n("in", meta, c[0], c[1]))
    def has(self, meta, c): return self._n("has", meta, c[0], self._tname(c[1]))
    def hasno(self, meta, c): return self._n("not", meta, self._n("has", meta, c[0], self._tname(c[1])))
    def neg(self, meta, c): return self._n("neg", meta, c[0])
    def index(self, meta, c): return self._n("index", meta, c[0], c[1])
    def expr_attr(self, meta, c): return self._n("attr", meta, c[0], self._tname(c[1]))
    def call(self, meta, c):
        name, args = str(c[0]), c[1]
        if args and args[0] == "gen":
            return self._n("gen", meta, name, *args[1:])
        return self._n("call", meta, name, args or [])
    def callargs(self, meta, c): return list(c)
    def gen(self, meta, c): return ["gen", c[0], str(c[1]), c[2], c[3]]
    def number(self, meta, c):
        s = str(c[0])
        # compare digits first: Python refuses to convert thousands of digits at all
        if len(s.split(".")[0].lstrip("0")) > 13 or abs(float(s) if "." in s else int(s)) > 10 ** 12:
            shown = s if len(s) <= 20 else s[:20] + "…"
            raise DslError(self.where(meta.line, meta.column), "D008", f"number {shown} is too large (limit 10^12)")
        v = float(s) if "." in s else int(s)
        return self._n("num", meta, v)
    def string(self, meta, c): return self._n("str", meta, _unq(c[0]))
    def name(self, meta, c): return self._n("name", meta, str(c[0]))
    def true(self, meta, c): return self._n("num", meta, True)
    def false(self, meta, c): return self._n("num", meta, False)
    def none(self, meta, c): return self._n("none", meta)
    def every(self, meta, c): return self._n("every", meta, str(c[0]))
    def listlit(self, meta, c): return self._n("list", meta, [x for x in c if x is not None])
    def listcomp(self, meta, c): return self._n("comp", meta, c[0], str(c[1]), c[2], c[3])

    def _tokpos(self, tok):
        return str(self.where(tok.line, tok.column))

    def _tname(self, tok):
        return str(tok)


# `elif` is a Python keyword, so the rule's method needs an alias.
setattr(_ToIR, "elif", _ToIR.elif_)


def _face(tok):
    if not tok:
        return None
    return "up" if str(tok).split()[-1] == "up" else "down"


def _unq(tok) -> str:
    return str(tok)[1:-1]
