"""Inline icons: `[id]` (or `{icon:id}`) in any player-facing text must name an icon of the
`icons:` section; an icon's declared `words:` stand for it too. `icon_parts` splits a text
into words and icons for whatever draws it (card faces, the rulebook, the web table)."""
from __future__ import annotations

import functools
import html
import re

from markupsafe import Markup

from .diagnostics import did_you_mean
from .render import text_of
from .source import PList, PMap, PStr

ICON_RE = re.compile(r"\[([a-z][a-z0-9_]*)\]")            # the spelling in the tables
SPELLED_RE = re.compile(r"\{icon:([a-z][a-z0-9_]*)\}")    # the other spelling content may use
_ANY_RE = re.compile(ICON_RE.pattern + "|" + SPELLED_RE.pattern)


@functools.lru_cache(maxsize=64)
def _words_re(pairs: tuple) -> re.Pattern | None:
    """One pattern for every declared word of a language, longest first, whole words only."""
    words = sorted({w for w, _i in pairs}, key=lambda w: (-len(w), w))
    return re.compile(r"(?<!\w)(" + "|".join(map(re.escape, words)) + r")(?!\w)", re.IGNORECASE) if words else None


def icon_html(text, icons: dict, lang: str, image=lambda _iid: None) -> Markup:
    """HTML of a text with its icons drawn: `image(icon id)` gives an icon's picture (a data:
    URL) or None, and then its glyph stands in. (The rulebook and the web table draw theirs so.)"""
    out = []
    for kind, value in icon_parts(text, icons, lang):
        if kind == "text":
            out.append(html.escape(value))
            continue
        i = icons[value]
        title = html.escape(text_of(i.get("name"), lang, value))
        url = image(value)
        out.append(f'<img class="icon icon-{value}" src="{html.escape(url)}" alt="{title}" title="{title}">' if url else
                   f'<span class="icon icon-{value}" title="{title}">{html.escape(i.get("glyph", ""))}</span>')
    return Markup("".join(out))


def icon_parts(text, icons: dict, lang: str) -> list[tuple[str, str]]:
    """A text as ("text", words) and ("icon", icon id) parts: each `[id]` of a declared icon,
    and each of an icon's `words:` in the reader's language (`[id]` of no icon stays text)."""
    s = str(text or "")
    pairs = tuple((w.lower(), i) for i, d in sorted(icons.items()) for w in ((d.get("words") or {}).get(lang) or ()))
    by_word = dict(pairs)
    words = _words_re(pairs)
    out: list[tuple[str, str]] = []

    def plain(chunk: str) -> None:
        last = 0
        for m in (words.finditer(chunk) if words else ()):
            out.append(("text", chunk[last:m.start()]))
            out.append(("icon", by_word[m.group(1).lower()]))
            last = m.end()
        out.append(("text", chunk[last:]))

    last = 0
    for m in _ANY_RE.finditer(s):
        iid = m.group(1) or m.group(2)
        if iid not in icons:
            continue
        plain(s[last:m.start()])
        out.append(("icon", iid))
        last = m.end()
    plain(s[last:])
    return [p for p in out if p[1]]


_LANGS = frozenset(("en", "ru"))


def _texts(node):
    """Every string of every {en, ru} text below a node."""
    stack = [node] if type(node) is PMap or type(node) is PList else []
    while stack:
        n = stack.pop()
        if type(n) is PMap:
            if n and n.keys() <= _LANGS:
                for k in sorted(n):
                    if isinstance(n[k], str):
                        yield n, k, n[k]
            else:
                stack += [v for v in n.values() if type(v) is PMap or type(v) is PList]
        else:  # (only maps and lists are put on the stack)
            stack += [v for v in n if type(v) is PMap or type(v) is PList]


def _at(node, key, text, offset):
    """The file position of character `offset` of a text."""
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    if isinstance(text, PStr) and getattr(text, "pos", None) is not None:
        return text.at(line, col)
    return node.val_pos.get(key) or node.pos


def check_icons(src, icons, report, only=None) -> None:
    """R010: an `[icon]` or `{icon:id}` that the game does not declare (in the files `only` names, or all)."""
    known = sorted(icons)
    for shown in sorted(src.docs if only is None else set(src.docs) & set(only)):
        if shown in src.unbracketed:  # (its text cannot spell an icon: no walk through it)
            continue
        for node, key, text in _texts(src.docs[shown]):
            if "[" not in text and "{icon:" not in text:
                continue
            for m in _ANY_RE.finditer(text):
                iid = m.group(1) or m.group(2)
                if iid not in icons:
                    report.error(_at(node, key, text, m.start()), "R010",
                                 f"unknown icon `{m.group(0)}`: declare it under `icons:`{did_you_mean(iid, known)}")
