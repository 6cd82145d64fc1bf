"""`rulepress schema --editor`: the content schemas added to VS Code's .vscode/settings.json.

VS Code writes that file as JSON with comments (`//`, `/* */`) and trailing commas, and
people keep settings there we know nothing of. So the file is edited as text: only the
value of `yaml.schemas` is written (or the key added at the end); every other character
stays as it was. If the file cannot be read with certainty, it is not written at all: the
caller shows the lines to paste instead. The original is kept beside it as settings.json.bak.
"""
from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import NamedTuple

MAX_SETTINGS_BYTES = 4 * 2**20
MAX_DEPTH = 200

# Content is any YAML of a game folder, wherever the folder is; scenarios have their own
# schema; CI workflows (.github) are YAML of another kind. `!` excludes (yaml.schemas).
CONTENT_GLOBS = ["**/*.yaml", "**/*.yml", "!**/scenarios/**", "!**/.github/**"]
SCENARIO_GLOBS = ["**/scenarios/*.yaml", "**/scenarios/*.yml"]


class EditorError(Exception):
    """The settings cannot be written with certainty; `snippet` is what to paste by hand."""

    def __init__(self, message: str, snippet: str):
        super().__init__(message)
        self.snippet = snippet


def schema_settings(schema_dir: str) -> dict:
    """yaml.schemas entries: absolute file:// URIs of the installed schemas -> globs."""
    def uri(name):
        return Path(schema_dir, name).resolve().as_uri()
    return {uri("content-file.json"): CONTENT_GLOBS, uri("scenario.json"): SCENARIO_GLOBS}


def _ours(key: str) -> bool:
    """An entry an earlier `schema --editor` wrote (a relative path, or another install)."""
    return bool(re.search(r"(^|[/\\])schemas[/\\](content-file|scenario)\.json$", key))


class _Token(NamedTuple):
    kind: str  # one of {}[]:, or "string", "literal"
    start: int
    end: int


_LITERAL = re.compile(r"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?|true|false|null")
_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*"')


class _Unsure(Exception):
    def __init__(self, at: int, why: str):
        super().__init__(why)
        self.at = at


def _tokens(text: str) -> list[_Token]:
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c in " \t\r\n\ufeff":
            i += 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j + 1
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j < 0:
                raise _Unsure(i, "a /* comment that never ends")
            i = j + 2
        elif c in "{}[]:,":
            out.append(_Token(c, i, i + 1))
            i += 1
        elif c == '"':
            m = _STRING.match(text, i)
            if not m:
                raise _Unsure(i, "a string that does not end on its line")
            out.append(_Token("string", i, m.end()))
            i = m.end()
        else:
            m = _LITERAL.match(text, i)
            if not m or m.end() == i:
                raise _Unsure(i, f"`{text[i:i + 12]}` is not JSON")
            out.append(_Token("literal", i, m.end()))
            i = m.end()
    return out


class _Member(NamedTuple):
    key: str
    value: object
    start: int  # where its value starts in the text
    end: int    # and ends


class _Settings(NamedTuple):
    members: list  # the top object's members, in order
    open_end: int  # just after its `{`


def _load(text: str, t: _Token):
    try:
        return json.loads(text[t.start:t.end])
    except ValueError:  # a number of more digits than Python reads
        raise _Unsure(t.start, "a value JSON cannot hold") from None


def _parse(text: str) -> _Settings:
    toks = _tokens(text)
    pos = 0

    def expect(kind):
        nonlocal pos
        if pos >= len(toks):
            raise _Unsure(len(text), f"the text ends where `{kind}` was expected")
        if toks[pos].kind != kind:
            raise _Unsure(toks[pos].start, f"`{kind}` expected")
        pos += 1
        return toks[pos - 1]

    def value(depth):
        nonlocal pos
        if pos >= len(toks):
            raise _Unsure(len(text), "the text ends where a value was expected")
        t = toks[pos]
        if depth > MAX_DEPTH:
            raise _Unsure(t.start, "nested too deep")
        if t.kind in ("string", "literal"):
            pos += 1
            return _load(text, t)
        if t.kind == "[":
            pos += 1
            items = []
            while toks[pos:pos + 1] and toks[pos].kind != "]":
                items.append(value(depth + 1))
                if toks[pos:pos + 1] and toks[pos].kind == ",":
                    pos += 1
                elif toks[pos:pos + 1] and toks[pos].kind != "]":
                    raise _Unsure(toks[pos].start, "`,` or `]` expected")
            expect("]")
            return items
        if t.kind == "{":
            return dict((m.key, m.value) for m in members(depth))
        raise _Unsure(t.start, f"`{t.kind}` where a value was expected")

    def members(depth):
        nonlocal pos
        expect("{")
        out, seen = [], set()
        while toks[pos:pos + 1] and toks[pos].kind != "}":
            k = expect("string")
            key = _load(text, k)
            if key in seen:
                raise _Unsure(k.start, f"`{key}` is set twice")
            seen.add(key)
            expect(":")
            start = toks[pos].start if pos < len(toks) else len(text)
            v = value(depth + 1)
            out.append(_Member(key, v, start, toks[pos - 1].end))
            if toks[pos:pos + 1] and toks[pos].kind == ",":
                pos += 1
            elif toks[pos:pos + 1] and toks[pos].kind != "}":
                raise _Unsure(toks[pos].start, "`,` or `}` expected")
        expect("}")
        return out

    if not toks:
        return _Settings([], -1)
    if toks[0].kind != "{":
        raise _Unsure(toks[0].start, "the settings are not an object")
    top = members(0)
    if pos != len(toks):
        raise _Unsure(toks[pos].start, "more after the settings' closing `}`")
    return _Settings(top, toks[0].end)


def _where(text: str, at: int) -> str:
    line = text.count("\n", 0, at) + 1
    return f"{line}:{at - (text.rfind(chr(10), 0, at) + 1) + 1}"


def _indented(value, indent: str) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n" + indent)


def merged_text(text: str, entries: dict) -> str:
    """The settings text with `entries` in its yaml.schemas, all else as it was."""
    settings = _parse(text)
    by_key = {m.key: m for m in settings.members}
    if settings.open_end < 0:  # an empty file
        return json.dumps({"yaml.schemas": entries}, indent=2) + "\n"
    old = by_key.get("yaml.schemas")
    if old is not None:
        if not isinstance(old.value, dict):
            raise _Unsure(old.start, "yaml.schemas is not an object")
        schemas = {k: v for k, v in old.value.items() if not _ours(k) and k not in entries}
        schemas.update(entries)
        line_start = text.rfind("\n", 0, old.start) + 1
        indent = re.match(r"[ \t]*", text[line_start:]).group(0)
        return text[:old.start] + _indented(schemas, indent) + text[old.end:]
    if settings.members:
        last = settings.members[-1]
        line_start = text.rfind("\n", 0, last.start) + 1
        indent = re.match(r"[ \t]*", text[line_start:]).group(0) or "  "
        return text[:last.end] + f',\n{indent}"yaml.schemas": {_indented(entries, indent)}' + text[last.end:]
    at = settings.open_end
    return text[:at] + f'\n  "yaml.schemas": {_indented(entries, "  ")}\n' + text[at:]


def snippet(entries: dict) -> str:
    return '"yaml.schemas": ' + json.dumps(entries, indent=2)


def add_schemas(path: str, schema_dir: str) -> str:
    """Add the schemas to the settings file at `path`; the line saying what was done."""
    entries = schema_settings(schema_dir)

    def refuse(why):
        return EditorError(f"{path}: {why}; it is left as it was: add these lines to it by hand:", snippet(entries))

    text = ""
    if os.path.lexists(path):
        if not os.path.isfile(path):
            raise refuse("not a file")
        try:
            with open(path, "rb") as fh:
                raw = fh.read(MAX_SETTINGS_BYTES + 1)
        except OSError as exc:
            raise refuse(f"cannot be read ({exc.strerror})") from None
        if len(raw) > MAX_SETTINGS_BYTES:
            raise refuse("larger than any settings file")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise refuse(f"byte {exc.start} is not UTF-8") from None
    try:
        new = merged_text(text, entries)
        before = {m.key: m.value for m in _parse(text).members}
        after = {m.key: m.value for m in _parse(new).members}
    except _Unsure as exc:
        raise refuse(f"{_where(text, exc.at)}: {exc} (cannot be read with certainty)") from None
    if any(after.get(k) != v for k, v in before.items() if k != "yaml.schemas"):  # pragma: no cover - a check of the edit itself
        raise refuse("the edit would change another setting")
    if new == text:
        return f"{path} already maps the schemas"
    folder = os.path.dirname(path) or "."
    if os.path.lexists(folder) and not os.path.isdir(folder):
        raise refuse(f"{folder} is not a folder")
    os.makedirs(folder, exist_ok=True)
    if text:
        with open(path + ".bak", "w", encoding="utf-8") as fh:
            fh.write(text)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(new)
    os.replace(tmp, path)
    return f"wrote {path}" + (f" (the file as it was: {path}.bak)" if text else "")
