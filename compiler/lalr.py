"""The LALR parser of the effect language: dsl.lark, run by Lark, into IR lists.

Loaded only when a process meets a statement it has not parsed before (see dsl.py).

How a text becomes IR. _IR builds the nodes from a rule's children. Its methods run inside
Lark's LALR parser as rules are reduced (an embedded transformer), so no parse tree is built.
A node stands where its first token stands (a keyword that begins a node is a named terminal
in dsl.lark so that its token reaches _IR), or where its first child stands; a child in
parentheses stands at its outermost `(`.

There are two ways through the parser, and they give the same IR:
- quick (_Quick): a small lexer here reads the text and feeds Lark's LALR parser token by
  token, on a copy of Lark's parse table that is quicker to run (_quick_table). It reads
  tokens the way Lark's contextual lexer and the Indenter would, and gives up at the first
  thing it is not sure of (a character no terminal matches, a token the parser refuses, a
  dedent that matches no block, a number too large, a tree deep enough that the standard
  way would refuse it).
- standard (_standard): Lark's own lexer and Indenter build a tree, and _IR transforms it.
  Every text the quick way gives up on is parsed again this way, so every error, and which
  error a text with several gets, is exactly Lark's, as before.
"""
from __future__ import annotations

import copy
import functools
import hashlib
import os
import re
from operator import itemgetter

import lark
from lark import Lark, Transformer
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, LarkError, VisitError
from lark.indenter import Indenter
from lark.grammar import NonTerminal, Rule
from lark.lexer import PatternRE, PatternStr

from .diagnostics import Pos, did_you_mean
from .dsl import _DEEP, DslError, ir_pos

GRAMMAR = os.path.join(os.path.dirname(__file__), "dsl.lark")


class _Indent(Indenter):
    NL_type = "_NL"
    OPEN_PAREN_types = ["LPAR", "LSQB"]
    CLOSE_PAREN_types = ["RPAR", "RSQB"]
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = 8


def _lark(transformer=None, lexer="contextual") -> Lark:
    """Lark's LALR parser for dsl.lark, its tables from the grammar cache when they are there."""
    with open(GRAMMAR, encoding="utf-8") as fh:
        text = fh.read()
    cache = os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "rulepress")
    try:
        os.makedirs(cache, exist_ok=True)
        # One file per grammar (and Lark) version and lexer, so that two versions of rulepress
        # on one machine do not keep rebuilding each other's tables. Lark checks the content
        # too; it leaves the transformer out of its key.
        digest = hashlib.sha256((text + lark.__version__).encode()).hexdigest()[:16]
        cache_file = os.path.join(cache, f"dsl-grammar-{digest}-{lexer}.cache")
    except OSError:
        cache_file = False
    return Lark(text, parser="lalr", postlex=_Indent(), maybe_placeholders=True, transformer=transformer,
                lexer=lexer, cache=cache_file)


@functools.lru_cache(maxsize=None)
def parser() -> Lark:
    """The standard parser: Lark's contextual lexer and the Indenter; builds a tree."""
    return _lark()


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


# Setting up the quick way costs as much as about a hundred standard parses: a process that
# parses a few texts (a re-check after an edit) is done sooner without it.
STANDARD_FIRST = 100
_SETTLED = [0]  # texts this process parsed the standard way so far

def whole(src: str, where) -> list:
    """The IR of a whole text, the quick way where it is sure, else the standard way."""
    quick = None
    if _SETTLED[0] < STANDARD_FIRST:
        _SETTLED[0] += 1
    else:
        quick = _quick()
    if quick is not None:
        ir = quick.parse(src, where)
        if ir is not None:
            return ir
    return _standard(src, where)


def _standard(src: str, where) -> list:
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
        return _IR(where).transform(tree)
    except VisitError as exc:  # Lark wraps what a transformer method raises
        if isinstance(exc.orig_exc, DslError):
            raise exc.orig_exc from None
        raise
    except RecursionError:
        raise DslError(where(1, 1), "D006", "the effect nests too deeply") from None


class _IR(Transformer):
    """IR nodes from a rule's children: tokens (`.value`, `.line`, `.column`) and IR values.

    Runs embedded in the parser (the quick way) or over a tree (the standard way)."""

    def __init__(self, where=None):
        super().__init__()
        self.where = where
        self.paren: dict[int, str] = {}  # id(node) -> where the outermost `(` around it stands

    def _at(self, tok) -> str:
        p = self.where(tok.line, tok.column)
        return ir_pos(p) if type(p) is Pos else str(p)

    def _from(self, node) -> str:
        """Where a node that begins with this child node stands."""
        if self.paren:
            p = self.paren.get(id(node))
            if p is not None:
                return p
        return node[1]

    def start(self, c): return list(c)
    def block(self, c): return list(c)

    # statements: c[0] is the keyword
    def let(self, c): return ["let", self._at(c[0]), c[1].value, c[2]]
    def set(self, c): return ["set", self._at(c[0]), c[1], c[2]]
    def target(self, c):
        t = c[0]
        return t if type(t) is list else ["name", self._at(t), t.value]
    def gain(self, c): return ["gain", self._at(c[0]), c[1], c[2].value, c[3]]
    def lose(self, c): return ["lose", self._at(c[0]), c[1], c[2].value, c[3]]
    def pay(self, c): return ["pay", self._at(c[0]), c[1], c[2].value, c[3]]
    def move(self, c): return ["move", self._at(c[0]), c[1], c[2], _face(c[3])]
    def draw(self, c): return ["draw", self._at(c[0]), c[1], c[2], c[3], _face(c[4]), c[5].value if c[5] else None]
    def discard(self, c): return ["discard", self._at(c[0]), c[1], bool(c[2])]
    def shuffle(self, c): return ["shuffle", self._at(c[0]), c[1], c[2]]
    def reveal(self, c): return ["reveal", self._at(c[0]), c[1]]
    def show(self, c): return ["show", self._at(c[0]), c[1], c[2]]
    def conceal(self, c): return ["conceal", self._at(c[0]), c[1]]
    def remove(self, c): return ["remove", self._at(c[0]), c[1]]
    def putback(self, c): return ["putback", self._at(c[0]), c[1]]
    def mark(self, c): return ["mark", self._at(c[0]), c[1], c[2].value, c[3].value.split()[-1] if c[3] else None]
    def unmark(self, c): return ["unmark", self._at(c[0]), c[1], c[2].value]
    def fail(self, c): return ["fail", self._at(c[0]), _unq(c[1]) if c[1] else None]
    def endgame(self, c): return ["endgame", self._at(c[0])]
    def endturn(self, c): return ["endturn", self._at(c[0])]
    def stop(self, c): return ["stop", self._at(c[0])]
    def log(self, c): return ["log", self._at(c[0]), c[1], c[2]]
    def emit(self, c): return ["emit", self._at(c[0]), c[1].value, c[2] or {}]
    def args(self, c): return {k: v for k, v in c}
    def kwarg(self, c): return (c[0].value, c[1])
    def perform(self, c): return ["perform", self._at(c[0]), c[1], c[2]]
    def returnv(self, c): return ["return", self._at(c[0]), c[1]]
    def callstmt(self, c): return ["do", c[0][1], c[0]]
    def swap(self, c): return ["swap", self._at(c[0]), c[1], c[2]]

    def ifs(self, c):
        _, cond, body, elifs, orelse = c
        return ["if", self._at(c[0]), [[cond, body]] + elifs, orelse]
    def elifs(self, c): return list(c)
    def elif_(self, c): return [c[0], c[1]]
    def foreach(self, c): return ["for", self._at(c[0]), c[1].value, c[2], c[3], c[4]]
    def repeat(self, c): return ["repeat", self._at(c[0]), c[1], c[2]]
    def whiles(self, c): return ["while", self._at(c[0]), c[1], c[2]]
    def choose(self, c):
        _, upto, n, var, src, where, by, ornone, prompt, body, other = c
        return ["choose", self._at(c[0]), n if upto else None, var.value, src, where, by, bool(ornone),
                _unq(prompt) if prompt else None, body, other]
    def may(self, c):
        _, by, prompt, body, other = c
        return ["may", self._at(c[0]), by, _unq(prompt) if prompt else None, body, other]
    def secret(self, c):
        _, pvar, players, var, src, where, ornone, body = c
        # `or none`: every player is asked, and may answer nothing (the only answer of one who has no other)
        return ["secret", self._at(c[0]), pvar.value, players, var.value, src, where, body, bool(ornone)]

    # expressions
    def condexpr(self, c): return ["cond", self._from(c[0]), c[1], c[0], c[2]]
    def or_(self, c): return ["or", self._from(c[0]), c[0], c[1]]
    def and_(self, c): return ["and", self._from(c[0]), c[0], c[1]]
    def not_(self, c): return ["not", self._at(c[0]), c[1]]
    def cmp(self, c): return ["op", self._from(c[0]), c[1].value, c[0], c[2]]
    def arith(self, c): return ["op", self._from(c[0]), c[1].value, c[0], c[2]]
    def in_(self, c): return ["in", self._from(c[0]), c[0], c[1]]
    def notin(self, c):
        p = self._from(c[0])
        return ["not", p, ["in", p, c[0], c[1]]]
    def has(self, c): return ["has", self._from(c[0]), c[0], c[1].value]
    def hasno(self, c):
        p = self._from(c[0])
        return ["not", p, ["has", p, c[0], c[1].value]]
    def neg(self, c): return ["neg", self._at(c[0]), c[1]]
    def index(self, c): return ["index", self._from(c[0]), c[0], c[1]]
    def expr_attr(self, c): return ["attr", self._from(c[0]), c[0], c[1].value]
    def call(self, c):
        name, args = c[0].value, c[1]
        if args and args[0] == "gen":
            return ["gen", self._at(c[0]), name, *args[1:]]
        return ["call", self._at(c[0]), name, args or []]
    def callargs(self, c): return list(c)
    def gen(self, c): return ["gen", c[0], c[1].value, c[2], c[3]]
    def number(self, c):
        tok = c[0]
        s = tok.value
        # compare digits first: Python refuses to convert thousands of digits at all
        if len(s) > 12 and (len(s.split(".")[0].lstrip("0")) > 13 or abs(float(s) if "." in s else int(s)) > 10 ** 12):
            shown = s if len(s) <= 20 else s[:20] + "…"
            raise DslError(self.where(tok.line, tok.column), "D008", f"number {shown} is too large (limit 10^12)")
        return ["num", self._at(tok), float(s) if "." in s else int(s)]
    def string(self, c): return ["str", self._at(c[0]), _unq(c[0])]
    def name(self, c): return ["name", self._at(c[0]), c[0].value]
    def true(self, c): return ["num", self._at(c[0]), True]
    def false(self, c): return ["num", self._at(c[0]), False]
    def none(self, c): return ["none", self._at(c[0])]
    def every(self, c): return ["every", self._at(c[0]), c[1].value]
    def listlit(self, c): return ["list", self._at(c[0]), [x for x in c[1:] if x is not None]]
    def listcomp(self, c): return ["comp", self._at(c[0]), c[1], c[2].value, c[3], c[4]]

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


def _unq(tok) -> str:
    return tok.value[1:-1]


class _Tok(tuple):
    """A token of the quick way: what Lark's parser and _IR read of a Token, made cheaply."""
    __slots__ = ()
    type = property(itemgetter(0))
    value = property(itemgetter(1))
    line = property(itemgetter(2))
    column = property(itemgetter(3))


_PLAIN, _RENAMED, _NEWLINE, _IGNORED, _OPEN, _CLOSE = range(6)  # kinds of token for the quick lexer


def _quick_table(conf, ir):
    """Lark's parse table and callbacks, made quicker to run; the same moves, the same values.

    - Each rule is replaced by a stand-in that hashes and compares by identity (a Rule does
      both in Python, several times per reduction).
    - A rule that only passes on its one child (`?sum: product`) gets a callback in C, the
      others one function each for Lark's chain of wrappers (_fused).
    - Such unit rules mostly come in chains: an operand reduced on a lookahead that ends the
      expression climbs through all nine levels from atom to expr, one reduction each. Where
      such a chain ends depends only on the state below, the nonterminal reduced and the
      lookahead, so each reduction gets a stand-in per lookahead, and the goto of that stand-in
      leads to the state at the end of the chain: one step for up to ten.
    """
    # (Lark's internals, imported here: a Lark without them leaves only the standard way)
    from lark.parse_tree_builder import ExpandSingleChild
    from lark.parsers.lalr_analysis import Shift
    stand_in = {r: _Rule(r.origin, r.expansion) for r in conf.callbacks if isinstance(r, Rule)}
    fused = _fused(conf.callbacks, ir) or conf.callbacks
    callbacks, units = {}, set()
    for r, f in conf.callbacks.items():
        if type(f) is ExpandSingleChild and len(r.expansion) == 1:
            units.add(stand_in[r])
            callbacks[stand_in[r]] = itemgetter(0)
        else:
            callbacks[stand_in.get(r, r)] = fused[r]
    states = {s: {t: (a, x if a is Shift else stand_in[x]) for t, (a, x) in acts.items()}
              for s, acts in conf.states.items()}
    below = {}  # nonterminal -> states with a goto on it
    for s, acts in states.items():
        for t in acts:
            if not t.isupper():
                below.setdefault(t, []).append(s)
    starts = {u.expansion[0].name for u in units}  # what a unit rule can be reduced from
    # Lookaheads on which exactly the same unit reductions happen climb the same chains.
    unit_on = {}  # lookahead -> {state: unit rule reduced there on it}
    for s, acts in states.items():
        for t, (a, r) in acts.items():
            if a is not Shift and r in units and t != "$END":  # (the parser checks for the end after each reduction)
                unit_on.setdefault(t, {})[s] = r
    kinds: dict = {}
    kind = {t: kinds.setdefault(frozenset(m.items()), len(kinds)) for t, m in unit_on.items()}
    ends = {}   # (nonterminal, kind of lookahead) -> name of the goto that ends its chain, or None
    chained = {}
    for acts in list(states.values()):
        for t, (a, r) in list(acts.items()):
            if a is Shift or t not in kind or r.origin.name not in starts:
                continue
            n, k = r.origin.name, kind[t]
            if (n, k) not in ends:
                name, gotos, unit_here, climbs = f"{n}@{k}", [], unit_on[t], False
                for b in below[n]:
                    row = states[b]
                    goto = row[n][1]
                    if goto in unit_here:
                        climbs = True
                        while goto in unit_here:
                            goto = row[unit_here[goto].origin.name][1]
                    gotos.append((row, goto))
                if climbs:
                    for row, goto in gotos:
                        row[name] = (Shift, goto)
                else:
                    name = None
                ends[n, k] = name
            name = ends[n, k]
            if name is not None:
                c = chained.get((r, name))
                if c is None:
                    c = chained[r, name] = _Rule(NonTerminal(name), r.expansion)
                    callbacks[c] = callbacks[r]
                acts[t] = (a, c)
    return states, callbacks


def _fused(callbacks: dict, ir) -> dict | None:
    """Lark's callbacks (an _IR method inside a chain of Lark's wrappers: one that drops filtered
    tokens, expands `_rule` children and puts None for missing optional parts, one that passes
    a `?rule`'s single child on) as one function each, or None if one is of a kind not known here.

    The lists that `_rule`s (`stmt*`, ...) collect for their parents stay plain lists rather
    than trees; only these functions read them."""
    from lark.parse_tree_builder import ChildFilterLALR, ChildFilterLALR_NoPlaceholders, ExpandSingleChild
    made: dict[str, object] = {}
    out = {}
    for rule, f in callbacks.items():
        plan, tail, single = None, 0, False
        if type(f) is ChildFilterLALR:
            plan, tail, f = list(f.to_include), f.append_none, f.node_builder
        elif type(f) is ChildFilterLALR_NoPlaceholders:
            plan, f = [(i, x, 0) for i, x in f.to_include], f.node_builder
        if type(f) is ExpandSingleChild:
            single, f = True, f.node_builder
        if getattr(f, "__self__", None) is ir:
            kind = "call"
        elif isinstance(f, functools.partial) and len(f.args) == 1 and isinstance(f.args[0], str):
            kind = "list" if f.args[0].startswith("_") else "call"  # no method: a tree, or a list to expand
        else:
            return None
        # the children as the method gets them, with the positions in `s` as parameters i0, i1, ...
        if plan is None:
            items, at = None, []
        else:
            items, at = [], [i for i, _, _ in plan]
            for k, (i, expand, nones) in enumerate(plan):
                items += ["None"] * nones + [f"*s[i{k}]" if expand else f"s[i{k}]"]
            items += ["None"] * tail
        if kind == "list":
            out[rule] = list if items is None else (f"return [{', '.join(items)}]", f, at)
        elif single and items is not None and len(items) == 1 and items[0].startswith("s["):
            out[rule] = itemgetter(plan[0][0])
        elif single:
            children = "s" if items is None else f"[{', '.join(items)}]"
            out[rule] = (f"c = {children}\n        return c[0] if len(c) == 1 else m(c)", f, at)
        else:
            out[rule] = f if items is None else (f"return m([{', '.join(items)}])", f, at)
    # Each kind of body once: make_<n>(m, i0, i1, ...) gives a callback cb(s) with that body.
    bodies = list(dict.fromkeys((v[0], len(v[2])) for v in out.values() if type(v) is tuple))
    exec("".join(f"def make_{n}(m, {''.join(f'i{k}, ' for k in range(size))}):\n    def cb(s):\n        {body}\n    return cb\n"
                 for n, (body, size) in enumerate(bodies)), made)
    number = {b: n for n, b in enumerate(bodies)}
    for rule, v in out.items():
        if type(v) is tuple:
            out[rule] = made[f"make_{number[v[0], len(v[2])]}"](v[1], *v[2])
    return out


class _Rule:
    __slots__ = ("origin", "expansion")

    def __init__(self, origin, expansion):
        self.origin, self.expansion = origin, expansion


class _Lexer:
    """One regexp for a set of terminals (in Lark's order), that reads them as Lark's lexer does."""

    def __init__(self, terms, kind_of: dict, read_as: dict):
        unless: dict[str, dict[str, str]] = {}
        embedded = set()
        names = {t.name for t in terms}
        for t in terms:
            for r in read_as.get(t.name, ()):
                if r in names:
                    unless.setdefault(r, {})[t.pattern.value] = t.name
                    embedded.add(t.name)
        # Each terminal is followed by an empty group that tells which one matched: a named group
        # around it would come first in the branch, where the regexp engine can no longer skip
        # the branch at a glance when the next character cannot begin it.
        alts = []
        self.types = [None]
        for t in terms:
            if t.name not in embedded:
                regexp = t.pattern.to_regexp()
                alts.append(f"(?:{regexp})()")
                inner = re.compile(regexp).groups
                self.types += [None] * inner + [t.name]
        self.match = re.compile("|".join(alts)).match
        # by the number of a token's group in the regexp: its type, what to do with it, its renames
        self.kinds = [_RENAMED if t in unless else kind_of.get(t, _PLAIN) for t in self.types]
        self.renames = [unless.get(t) for t in self.types]


_ASCII = [chr(i) for i in range(128)]
_ASCII_SET = frozenset(_ASCII)
_CATEGORIES = {"CATEGORY_DIGIT": r"\d", "CATEGORY_NOT_DIGIT": r"\D", "CATEGORY_SPACE": r"\s",
               "CATEGORY_NOT_SPACE": r"\S", "CATEGORY_WORD": r"\w", "CATEGORY_NOT_WORD": r"\W"}


def _first_chars(regexp: str) -> frozenset | None:
    """The ASCII characters a match of the regexp can begin with; None if it cannot tell."""
    try:
        from re import _parser as sre
    except ImportError:  # a Python that keeps the regexp parser elsewhere
        return None

    def chars(test, icase):
        return {ch for ch in _ASCII if test(ch) or (icase and (test(ch.lower()) or test(ch.upper())))}

    def seq(items, icase):  # -> (first characters, whether it can match nothing)
        out = set()
        for op, av in items:
            first, empty = one(op, av, icase)
            if first is None:
                return None, False
            out |= first
            if not empty:
                return out, False
        return out, True

    def one(op, av, icase):
        if op is sre.LITERAL or op is sre.NOT_LITERAL:
            if av > 127 and icase:
                return None, False
            if op is sre.LITERAL:
                return chars(lambda ch: ord(ch) == av, icase), False
            return (None if icase else chars(lambda ch: ord(ch) != av, False)), False
        if op is sre.IN:
            tests, negate = [], False
            for op2, av2 in av:
                if op2 is sre.NEGATE and not icase:
                    negate = True
                elif op2 is sre.LITERAL and (av2 < 128 or not icase):
                    tests.append(lambda ch, v=av2: ord(ch) == v)
                elif op2 is sre.RANGE and (av2[1] < 128 or not icase):
                    tests.append(lambda ch, r=av2: r[0] <= ord(ch) <= r[1])
                elif op2 is sre.CATEGORY and str(av2) in _CATEGORIES:
                    tests.append(re.compile(_CATEGORIES[str(av2)]).match)
                else:
                    return None, False
            return chars(lambda ch: any(t(ch) for t in tests) != negate, icase), False
        if op is sre.SUBPATTERN:
            _, add, delete, p = av
            return seq(p, (icase or bool(add & re.I)) and not delete & re.I)
        if op is sre.BRANCH:
            out, empty = set(), False
            for p in av[1]:
                first, e = seq(p, icase)
                if first is None:
                    return None, False
                out, empty = out | first, empty or e
            return out, empty
        if op in (sre.MAX_REPEAT, sre.MIN_REPEAT):
            first, empty = seq(av[2], icase)
            return first, empty or av[0] == 0
        if op is sre.AT:
            return set(), True
        return None, False

    try:
        parsed = sre.parse(regexp)
        first, _ = seq(list(parsed), bool(parsed.state.flags & re.I))
    except Exception:
        return None
    return None if first is None else frozenset(first)


class _Quick:
    """Lark's LALR parser with _IR embedded, fed by a lexer that reads like Lark's contextual
    lexer followed by the Indenter, or gives up (parse() returns None)."""

    def __init__(self):
        self.ir = _IR()
        lk = _lark(self.ir, lexer="basic")  # (its lexer is not used: the same table, less to load)
        state = lk.parse_interactive("").parser_state
        self.State = type(state)
        self.conf = copy.copy(state.parse_conf)
        self.states, self.conf.callbacks = _quick_table(state.parse_conf, self.ir)
        self.conf.states = self.states
        ind = lk.options.postlex
        self.nl, self.indent, self.dedent, self.tab_len = ind.NL_type, ind.INDENT_type, ind.DEDENT_type, ind.tab_len
        self.kind_of = {ind.NL_type: _NEWLINE, **{t: _IGNORED for t in lk.lexer_conf.ignore},
                        **{t: _OPEN for t in ind.OPEN_PAREN_types}, **{t: _CLOSE for t in ind.CLOSE_PAREN_types}}
        # Lark's lexer order: priority, then the longest possible match, then the longest pattern.
        self.terms = sorted(lk.lexer_conf.terminals, key=lambda t: (-t.priority, -t.pattern.max_width, -len(t.pattern.value), t.name))
        self.always = {ind.NL_type, *lk.lexer_conf.ignore}
        # Tokens are read as Lark's basic lexer reads them (all terminals at once). Where the
        # parser does not take the token read, the lexer of that parser state decides
        # (_in_state), as the contextual lexer does.
        # A string terminal that a regexp terminal of the same priority matches whole (a keyword
        # and NAME, `-` and ADDOP) is read as the regexp, then renamed if the text is that string.
        self.read_as: dict[str, list[str]] = {}  # string terminal -> regexp terminals
        for r in self.terms:
            if isinstance(r.pattern, PatternRE):
                for t in self.terms:
                    if isinstance(t.pattern, PatternStr) and t.priority == r.priority:
                        m = re.match(r.pattern.to_regexp(), t.pattern.value)
                        if m and m.group(0) == t.pattern.value:
                            if t.pattern.flags:
                                raise ValueError(f"terminal {t.name} has flags")
                            self.read_as.setdefault(t.name, []).append(r.name)
        # By the character a token begins with, a lexer of only the terminals that can begin
        # with it, in the same order: it reads what the lexer of all would, sooner. Made when
        # a text first has a token that begins with that character (_for_char).
        self.firsts = {t.name: (frozenset(t.pattern.value[:1]) if isinstance(t.pattern, PatternStr) and not t.pattern.flags
                                else _first_chars(t.pattern.to_regexp())) for t in self.terms}
        self.by_char: dict[str, tuple] = {}
        self.by_names: dict[tuple, tuple] = {}
        self.in_state: dict[int, _Lexer] = {}

    def _for_char(self, ch: str) -> tuple:
        if ch in _ASCII_SET:
            names = tuple(t.name for t in self.terms if self.firsts[t.name] is None or ch in self.firsts[t.name])
        else:
            names = tuple(t.name for t in self.terms)
        lexer = self.by_names.get(names)
        if lexer is None:
            one = _Lexer([t for t in self.terms if t.name in names], self.kind_of, self.read_as)
            lexer = self.by_names[names] = (one.match, one.types, one.kinds, one.renames)
        self.by_char[ch] = lexer
        return lexer

    def _in_state(self, state) -> _Lexer:
        lexer = self.in_state.get(state)
        if lexer is None:
            names = set(self.states[state]) | self.always
            lexer = self.in_state[state] = _Lexer([t for t in self.terms if t.name in names], self.kind_of, self.read_as)
        return lexer

    def parse(self, src: str, where):
        ir = self.ir
        ir.where = where
        if ir.paren:
            ir.paren = {}
        state = self.State(self.conf, None)
        feed, stack, states = state.feed_token, state.state_stack, self.states
        by_char = self.by_char
        NL, INDENT, DEDENT = self.nl, self.indent, self.dedent
        tok = tuple.__new__
        pos = 0
        line, line_start = 1, 0   # as Lark counts them: 1-based line, offset where it starts
        paren, levels, n = 0, [0], 0
        try:
            end = len(src)  # (which ends with a newline)
            while pos < end:
                # The one space between two tokens is stepped over; more are read as an ignored
                # token. No terminal of dsl.lark but that one begins with a space.
                c = src[pos]
                if c == " ":
                    pos += 1
                    c = src[pos]
                match, types, kinds, renames = by_char.get(c) or self._for_char(c)
                m = match(src, pos)
                if m is None:
                    return None
                i = m.lastindex
                val = m[0]
                pos = m.end()
                typ = types[i]
                kind = kinds[i]
                if kind:
                    if kind == _NEWLINE:
                        # the Indenter: newlines inside brackets go; an indented line opens a block,
                        # a line indented less closes blocks down to its own level.
                        col = pos - len(val) - line_start + 1
                        nl = val.rfind("\n")
                        tok_line = line
                        line += val.count("\n")
                        line_start = pos - len(val) + nl + 1
                        if paren:
                            continue
                        feed(tok(_Tok, (NL, val, tok_line, col)))
                        spaces = val[nl + 1:]
                        width = spaces.count(" ") + spaces.count("\t") * self.tab_len
                        if width > levels[-1]:
                            levels.append(width)
                            feed(tok(_Tok, (INDENT, spaces, tok_line, col)))
                        else:
                            while width < levels[-1]:
                                levels.pop()
                                feed(tok(_Tok, (DEDENT, spaces, tok_line, col)))
                            if width != levels[-1]:
                                return None
                        n += 1
                        continue
                    if kind == _IGNORED:
                        continue
                acts = states[stack[-1]]
                if kind == _RENAMED:
                    kw = renames[i].get(val)
                    if kw is not None and (kw in acts or typ not in acts):
                        typ = kw
                if typ not in acts:
                    # not what the parser takes here: read it again as the contextual lexer would
                    other = self._in_state(stack[-1])
                    m = other.match(src, pos - len(val))
                    if m is None:
                        return None
                    i = m.lastindex
                    val = m[0]
                    pos = m.end()
                    typ = other.types[i]
                    kind = other.kinds[i]
                    if kind == _RENAMED:
                        typ = other.renames[i].get(val, typ)
                    elif kind == _NEWLINE or kind == _IGNORED:
                        return None
                if kind >= _OPEN:
                    if kind == _OPEN:
                        paren += 1
                    elif paren:
                        paren -= 1
                    else:
                        return None
                feed(tok(_Tok, (typ, val, line, pos - len(val) - line_start + 1)))
                n += 1
            while len(levels) > 1:
                levels.pop()
                feed(tok(_Tok, (DEDENT, "", line, 1)))
            result = feed(tok(_Tok, ("$END", "", line, 1)), True)
        except Exception:  # a token the parser refuses, a number too large, ...: the standard way tells
            return None
        if n > _DEEP and depth(result) > _DEEP:
            return None
        return result


@functools.lru_cache(maxsize=None)
def _quick() -> _Quick | None:
    try:
        return _Quick()
    except Exception:  # a Lark this does not know: every text goes the standard way
        return None


def depth(ir) -> int:
    deepest, todo = 0, [(ir, 1)]
    while todo:
        node, d = todo.pop()
        deepest = max(deepest, d)
        for x in (node.values() if type(node) is dict else node):
            if type(x) is list or type(x) is dict:
                todo.append((x, d + 1))
    return deepest
