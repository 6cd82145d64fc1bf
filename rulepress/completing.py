"""What may be typed at a place in an effect: the effect language's own parser says which
tokens it accepts there (Lark's interactive parser, `accepts()`), and the game's model says
which names fit the slot (a counter after `gain 1`, a player's counters and zones after
`player.`). rulepress/lsp.py turns the answer into completion items.
"""
from __future__ import annotations

import re
from typing import NamedTuple

from .compiler.model import EXPR_FIELDS
from .hints import KEY_LINE

_PARTIAL = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")
_OWNER = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\.\s*[A-Za-z0-9_]*$")
_SEAT = re.compile(r"p[1-9][0-9]?$")
_AMOUNT_VERB = re.compile(r"^\s*(gain|lose|pay)\b")  # `gain N counter`: the name after N is a counter
PLAYER_NAMES = {"player", "first_player"}  # built-in names that stand for a player
MAX_TEXT = 64 * 1024  # characters of an effect read to answer: the parse is per keystroke


class Slot(NamedTuple):
    """What the grammar accepts at the cursor: its keywords, whether a name may stand there,
    and what kind of name fits (None: any)."""
    keywords: set
    name: bool
    kind: str | None  # "counter" or None
    statement: bool   # a statement may start here (the verbs)


def effect_before(lines: list[str], line: int, col: int, key: str) -> str | None:
    """The text of the effect or condition under `key` from its start up to the cursor
    (the word being typed left out), dedented as the DSL reads it; None if not found."""
    here = lines[line][:col]
    m = KEY_LINE.match(here)
    if m and m.group(2).strip('"') == key:  # `effect: gain 1 ` on the key's own line
        text = m.group(3).lstrip()
        if text[:1] in "|>\"'":
            return None
    else:
        indent = len(here) - len(here.lstrip()) if here.strip() else None
        start = None
        for i in range(line - 1, max(-1, line - 2000), -1):
            mi = KEY_LINE.match(lines[i])
            if mi and mi.group(2).strip('"') == key and mi.group(3).strip()[:1] in ("|", ">", ""):
                start = i + 1
                break
        if start is None:
            return None
        body = list(lines[start:line]) + [here]
        widths = [len(x) - len(x.lstrip()) for x in body if x.strip()]
        cut = min(widths + ([indent] if indent is not None else [])) if widths else 0
        text = "\n".join(x[cut:] for x in body)
    text = _PARTIAL.sub("", text)
    return text[-MAX_TEXT:] if len(text) <= MAX_TEXT else None


def attr_owner(before: str, effect: str | None = None) -> str | None:
    """After `x.` (and the start of a name): "player_attr" when x is a player (a built-in
    name for one, a seat, a variable bound over `players` or `others` in `effect`, the text
    before the cursor), "thing_attr" when it is bound over something else, "any" when it is
    not known; None when the cursor does not follow a dot."""
    owner = _OWNER.search(before)
    if owner is None:
        return None
    name = owner[1]
    if name in PLAYER_NAMES or _SEAT.match(name):
        return "player_attr"
    bound = None
    for m in re.finditer(rf"\b(?:each|chooses?(?:\s+upto\s+\S+)?)\s+{re.escape(name)}\s+(?:in|from)\s+([A-Za-z_]\w*)", effect or ""):
        bound = m[1]
    if bound is None:
        return "any"
    return "player_attr" if bound in ("players", "others") else "thing_attr"


def slot(text: str, key: str) -> Slot | None:
    """What the parser accepts after `text`; None where it cannot tell (an error before it)."""
    from lark.exceptions import LarkError
    from .compiler.grammar import parser
    p = parser()
    source = ("return " + text) if key in EXPR_FIELDS else text
    try:
        ip = p.parse_interactive(source)
        ip.exhaust_lexer()
        accepts = ip.accepts()
    except (LarkError, RecursionError, ValueError, IndexError, AssertionError):
        return None
    literal = {t.name: t.pattern.value for t in p.terminals if t.pattern.type == "str"}
    keywords = {literal[a] for a in accepts if a in literal and literal[a].isalpha()}
    name = "NAME" in accepts
    kind = None
    last = text.rsplit("\n", 1)[-1]
    if name and "ADDOP" in accepts and _AMOUNT_VERB.match(last):  # `gain 1 |`: the amount is written
        kind = "counter"
    statement = "GAIN" in accepts
    return Slot(keywords, name, kind, statement)
