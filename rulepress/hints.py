"""What an editor shows beside the text of a game: what a thing or a built-in word is, and
where in a file the cursor stands (rulepress/lsp.py says it in LSP)."""
from __future__ import annotations

import re

from .compiler.content import section_schemas
from .compiler.names import BUILTIN_ATTRS, BUILTIN_NAMES, EVENTS, FUNCTIONS, VERBS
from .runtime import ir
from .symbols import Decl

_BLOCK_WORDS = {"else", "otherwise"}  # lines of an effect that read like YAML keys
KEY_LINE = re.compile(r"^(\s*)(?:-\s+)?([A-Za-z_][\w]*|\"[^\"]*\")\s*:(.*)$")


def builtin_doc(word: str) -> str | None:
    """What a built-in word of the effect language means, in a line or two."""
    if word in BUILTIN_NAMES:
        return f"`{word}` (built-in name): {BUILTIN_NAMES[word]}"
    if word in FUNCTIONS:
        lo, hi, what = FUNCTIONS[word]
        args = f"{lo}" if lo == hi else f"{lo} to {hi}"
        return f"`{word}(…)` (function, {args} argument{'s' if hi > 1 else ''}: {ir.FUNCTIONS[word].takes}): {what}"
    if word in BUILTIN_ATTRS:
        return f"`x.{word}` (attribute of every thing): {BUILTIN_ATTRS[word]}"
    if word in EVENTS:
        names = ", ".join(EVENTS[word]) or "no names"
        return f"`{word}` (event; a trigger `on: {word}` is given {names})"
    if word in VERBS:
        return f"`{word}` (statement): {ir.STATEMENTS[word].does}; takes {', '.join(VERBS[word]) or 'nothing'}; see docs/dsl.md"
    return None


def _en(v) -> str:
    if isinstance(v, dict):
        return str(v.get("en") or next(iter(v.values()), ""))
    return "" if v is None else str(v)


def describe(decl: Decl, iid: str, model, tables) -> str:
    """An id's hover: what it is, its name, its rules text, and its effects in the rulebook's
    words (`tables`: the game's, or None while it has errors: then as written)."""
    node = decl.node if isinstance(decl.node, dict) else {}
    kind = decl.section[:-1] if decl.section.endswith("s") else decl.section
    out = [f"**{_en(node.get('name')) or iid}** ({kind} `{iid}`, {decl.pos})"]
    if node.get("text"):
        out.append(_en(node["text"]))
    for key in sorted(k for k in (model.ir if model else {}) if k[0] == decl.section and k[1] == iid):
        words = None
        if tables is not None:
            from .compiler.render import effect_text, expr_text
            try:
                ir = model.ir[key]
                words = (expr_text if key[2] in ("if", "when", "until") else effect_text)(ir, tables, "en", decl.section)
            except Exception:  # rendering is a courtesy here; the source text follows instead
                words = None
        if words is None and isinstance(node.get(key[2]), str):
            words = "```\n" + node[key[2]].rstrip() + "\n```"
        if words:
            out.append(f"*{key[2]}:* {words}")
    return "\n\n".join(out)


def context_key(lines: list[str], line: int, col: int) -> tuple[str | None, str | None]:
    """(the key whose value the cursor is in, or None; the top-level section) at a place in
    a file: the key on the cursor's line before it, else the nearest less indented key above
    (the key of a block such as `effect: |`)."""
    here = lines[line][:col] if line < len(lines) else ""
    m = KEY_LINE.match(here)
    key = m.group(2) if m and m.group(2) not in _BLOCK_WORDS else None
    indent = len(here) - len(here.lstrip())
    section = m.group(2) if m and not m.group(1) and not here.startswith("-") else None
    for i in range(min(line, len(lines)) - 1, -1, -1):
        text = lines[i]
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        mi = KEY_LINE.match(text)
        ind = len(text) - len(text.lstrip())
        if mi and key is None and ind < indent and mi.group(2) not in _BLOCK_WORDS:
            key = mi.group(2)
        if mi and ind == 0 and not text.startswith("-"):
            section = section or mi.group(2)
            break
    return (key.strip('"') if key else key), section


def keys_of(section: str | None) -> list[str]:
    s = section_schemas().get(section) or {}
    s = s.get("items", s) if isinstance(s, dict) else {}
    return sorted((s.get("properties") or {}).keys()) if isinstance(s, dict) else []


def describe_word(word: str, model) -> str | None:
    """A hover for a name that is no declared id: an attribute things carry, a player's or a
    thing's counter or zone read as `x.name`, a deck's discard pile, a mark, a game option."""
    if model is None:
        return None
    out = []
    if word.endswith("_discard") and word[:-len("_discard")] in model.by_section.get("decks", {}):
        out.append(f"`x.{word}` (zone): the discard pile of deck `{word[:-len('_discard')]}`, one per "
                   f"{model.zones_of.get(word[:-len('_discard')], 'owner')}")
    if word in model.counters_of or word in model.zones_of:
        scope = model.counters_of.get(word) or model.zones_of.get(word)
        what = "counter" if word in model.counters_of else "zone"
        out.append(f"`{word}` ({what}, one per {scope}" + (f": `x.{word}`)" if scope != "game" else ")"))
    if word in model.attrs and word not in model.counters_of and word not in model.zones_of \
            and not word.endswith("_discard"):
        having = []
        for sec in ("cards", "decks"):
            for iid, d in (model.by_section.get(sec) or {}).items():
                attrs = d.get("attrs") if isinstance(d, dict) else None
                if isinstance(attrs, dict) and word in attrs:
                    having.append(f"{iid} ({attrs[word]})" if not isinstance(attrs[word], (dict, list)) else iid)
        shown = ", ".join(having[:8]) + (f" and {len(having) - 8} more" if len(having) > 8 else "")
        out.append(f"`x.{word}` (attribute)" + (f": {shown}" if shown else ""))
    if not out:
        from .compiler.lint import marks_set
        try:
            marks = marks_set(model)
        except Exception:  # a half-made game: no marks to tell of
            marks = set()
        if word in marks:
            out.append(f"`{word}` (mark): set by an effect (`mark x as {word}`), tested with `x has {word}`")
    if word in (model.game.get("options") or {}):
        out.append(f"`{word}` (game option)")
    return "\n\n".join(out) or None
