"""Reading YAML content safely, keeping the file position of every node.

Only plain data comes out: maps, lists, strings, numbers, booleans and null. No tag
constructs an object, aliases are expanded under a budget, keys must be unique, and
YAML 1.1 surprises (`no` read as false, `012` read as octal) are reported.
"""
from __future__ import annotations

import contextlib
import math
import operator
import os
import re
import stat

import yaml

from .diagnostics import Pos, Report

try:  # libyaml is much faster; fall back to the pure-Python parser where it is missing
    from yaml import CSafeLoader as _BaseLoader
except ImportError:  # pragma: no cover - depends on the machine
    from yaml import SafeLoader as _BaseLoader


class _Loader(_BaseLoader):
    """The safe loader with its implicit-type resolution remembered per plain value.

    libyaml composes in C but asks Python for the tag of every scalar; content repeats
    the same keys and words thousands of times, so each distinct value is resolved once."""

    def resolve(self, kind, value, implicit, _memo={}):
        if kind is _MAP:  # (no path resolvers here: a map is a map, a list a list)
            return _MAP_TAG
        if kind is _SEQ:
            return _SEQ_TAG
        if kind is _SCALAR and implicit[0]:
            tag = _memo.get(value)
            if tag is None:
                tag = super().resolve(kind, value, implicit)
                if len(_memo) < 100_000:
                    _memo[value] = tag
            return tag
        if kind is _SCALAR:  # quoted or a block: text, as the base resolver has it
            return _STR_TAG
        return super().resolve(kind, value, implicit)

    # libyaml also tells Python as it goes down into and up from every node, for resolvers
    # by path, which this loader has none of: a function of C, which takes no `self`, answers
    descend_resolver = staticmethod(operator.is_)  # (parent, index)
    ascend_resolver = staticmethod(tuple)  # ()


_MAP, _SEQ, _SCALAR = yaml.MappingNode, yaml.SequenceNode, yaml.ScalarNode
_MAP_TAG, _SEQ_TAG, _STR_TAG = _BaseLoader.DEFAULT_MAPPING_TAG, _BaseLoader.DEFAULT_SEQUENCE_TAG, _BaseLoader.DEFAULT_SCALAR_TAG

MAX_DEPTH = 64
MAX_NODES = 1_000_000  # after alias expansion: stops "billion laughs" documents
MAX_FILE_BYTES = 16 * 1024 * 1024
# aliases may repeat text, never beyond this: one long string aliased a few hundred times
# would otherwise fill memory, and game.json after it
MAX_EXPANDED_BYTES = 32 * 1024 * 1024
# every number in content is at most this far from zero: the runtime's arithmetic and
# game.json's readers (JavaScript's doubles among them) hold such numbers exactly
MAX_NUMBER = 10**15

_T = "tag:yaml.org,2002:"
_PLAIN_TAGS = {_T + t for t in ("str", "int", "float", "bool", "null", "map", "seq", "timestamp", "binary")}
_BOOL_WORDS = {"true", "false"}
# a line (after \n or \r) that is neither blank nor a comment; each try ends with its line
_CONTENT_LINE = re.compile(r"(?:^|\r)[^\S\r\n]*[^\s#]", re.M)
_OCTAL = re.compile(r"^[-+]?0[0-7]+$")
_DECIMAL = re.compile(r"^[-+]?(0|[1-9][0-9]*)$")


class PMap(dict):
    """A mapping that remembers where it, its keys and its values stand in the file."""
    __slots__ = ("pos", "key_pos", "val_pos")


class PList(list):
    __slots__ = ("pos", "item_pos")


class PStr(str):
    """A string that can map a line/column inside its own text back to the file.

    DSL effects live in such strings; their errors must point into the YAML file.
    """
    __slots__ = ("pos", "origin_line", "origin_col", "block")

    def at(self, line: int, col: int) -> Pos:
        """File position of (line, col), both 1-based, inside this string's text."""
        if self.block:
            return Pos(self.pos.file, self.origin_line + line - 1, self.origin_col + col - 1)
        if line == 1:
            return Pos(self.pos.file, self.origin_line, self.origin_col + col - 1)
        return Pos(self.pos.file, self.origin_line + line - 1, col)


_MERGE, _BOOL, _STR = _T + "merge", _T + "bool", _T + "str"
_KEYS: dict[str, str] = {}  # the keys met so far: content repeats a few hundred keys everywhere
_MAX_KEYS = 100_000
_POSITIONED = (PMap, PList, PStr)


class _Budget:
    def __init__(self):
        self.nodes = 0
        self.text_bytes = 0  # (of the text an expansion of aliases makes: see _expanded_size)


def pos_of(node, key=None) -> Pos | None:
    """Position of a loaded value, or of the value under `key` in a map/list."""
    if key is None:
        return getattr(node, "pos", None)
    if isinstance(node, PMap):
        return node.val_pos.get(key) or node.pos
    if isinstance(node, PList) and isinstance(key, int) and 0 <= key < len(node.item_pos):
        return node.item_pos[key]
    return getattr(node, "pos", None)


def locate(root, path) -> Pos | None:
    """Walk a jsonschema-style path into a loaded document; the deepest known position."""
    node, best = root, getattr(root, "pos", None)
    for part in path:
        p = pos_of(node, part)
        if p is not None:
            best = p
        try:
            node = node[part]
        except (KeyError, IndexError, TypeError):
            break
    return best


def _line_col(data: bytes, offset: int) -> tuple[int, int]:
    line = data.count(b"\n", 0, offset) + 1
    col = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    return line, col


class NotReadable(Exception):
    """A path that is not a regular file of a readable size; the message says why."""

    def __init__(self, message: str, too_large: bool = False):
        super().__init__(message)
        self.too_large = too_large


def read_bytes(path: str, limit: int = MAX_FILE_BYTES, within: str | None = None) -> bytes:
    """The bytes of a regular file of at most `limit` bytes: the one reader of every file of
    a game (content, scenarios, templates, art). With `within` (the game's folder), a path
    whose real place is outside that folder — a link to /etc/passwd, to /proc/self/environ,
    a linked folder — is refused, never opened; nor is a FIFO, device or socket (reading one
    may block for ever or never end): the check is made on the file opened, so it cannot be
    swapped between the check and the read. No message says anything of what a refused file holds."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_BINARY", 0)
    if within is not None:
        path = inside(within, path)
        flags |= getattr(os, "O_NOFOLLOW", 0)  # (the real path: a link put there since is not followed)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise NotReadable(f"cannot read file: {exc.strerror}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise NotReadable("not a regular file (a pipe, device or socket cannot be content)")
        if info.st_size > limit:
            raise NotReadable(f"file is {info.st_size} bytes; content files are limited to {limit}", too_large=True)
        with os.fdopen(fd, "rb", closefd=False) as fh:
            # (a buffer of the file's size, not of the limit; a file growing meanwhile is
            # still read no further than the limit)
            data = fh.read(min(info.st_size, limit) + 1)
            if len(data) > info.st_size:
                data += fh.read(limit + 1 - len(data))
    except OSError as exc:
        raise NotReadable(f"cannot read file: {exc.strerror}") from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise NotReadable(f"file is over {limit} bytes; content files are limited to {limit}", too_large=True)
    return data


def inside(folder: str, path: str) -> str:
    """The real path of `path`, which must lie inside `folder` (itself followed, whatever it
    is: the folder is the user's choice); NotReadable where it leads outside."""
    real = os.path.realpath(path)
    if leads_outside(folder, real):
        raise NotReadable("a link that leads outside the game folder; not read")
    return real


def leads_outside(folder: str, path: str) -> bool:
    """Whether the real path of `path` lies outside the real path of `folder`: a walk of a
    game's folders goes no further (a link to / would have it list the whole machine)."""
    top, real = os.path.realpath(folder), os.path.realpath(path)
    return real != top and not real.startswith(os.path.join(top, ""))


class Buffers:
    """An editor's view of a game's files (rulepress/lsp.py owns one per game): the texts of
    its unsaved buffers, which stand in for their files, by absolute path; and each file as
    last loaded, by what it was loaded from, since at a keystroke all files but the edited
    one are as they were."""
    MAX_LOADED = 10_000

    def __init__(self):
        self.texts: dict[str, str] = {}
        self.loaded: dict = {}  # (path, shown) -> (its text or its file's stamp, value, diagnostics)


_BUFFERS: Buffers | None = None  # the editor's view, while a check reads through it


@contextlib.contextmanager
def reading(buffers: Buffers):
    """Within this, files are read through `buffers`."""
    global _BUFFERS
    _BUFFERS = buffers
    try:
        yield
    finally:
        _BUFFERS = None


def read_text(path: str, shown: str, report: Report, within: str | None = None) -> str | None:
    if _BUFFERS is not None:
        text = _BUFFERS.texts.get(os.path.abspath(path))
        if text is not None:
            if len(text) > MAX_FILE_BYTES:
                report.error(Pos(shown, 1, 1), "Y008", f"file is over {MAX_FILE_BYTES} bytes; content files are limited to {MAX_FILE_BYTES}")
                return None
            return text[1:] if text.startswith("\ufeff") else text
    try:
        data = read_bytes(path, within=within)
    except NotReadable as exc:
        report.error(Pos(shown, 1, 1), "Y008" if exc.too_large else "Y009", str(exc))
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, col = _line_col(data, exc.start)
        report.error(Pos(shown, line, col), "Y002", f"file is not UTF-8 (byte 0x{data[exc.start]:02x}); save it as UTF-8")
        return None
    if text.startswith("\ufeff"):
        text = text[1:]
    return text


UNBRACKETED: set[str] = set()  # files, as shown, whose text as last loaded has no `[`, `{icon:` nor `\\`


def load_yaml(path: str, shown: str, report: Report, within: str | None = None):
    """Load one YAML file into PMap/PList/PStr values, or None after reporting why not."""
    text = read_text(path, shown, report, within)
    if text is None:
        return None
    # no text of such a file can hold an inline icon (`[id]`, `{icon:id}`, an escape could spell one)
    if "[" in text or "\\" in text or "{icon:" in text:
        UNBRACKETED.discard(shown)
    else:
        UNBRACKETED.add(shown)
    if not _CONTENT_LINE.search(text):  # only blank lines and comments
        report.error(Pos(shown, 1, 1), "Y003", "file is empty; remove it or give it content")
        return None
    try:
        nodes = list(yaml.compose_all(text, Loader=_Loader))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, col = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        problem = (exc.problem or exc.context or "invalid YAML").strip()
        if "nesting depth" in problem:  # libyaml's own guard against deep documents
            report.error(Pos(shown, line, col), "Y006", f"nesting is deeper than {MAX_DEPTH} levels")
        elif re.search(r"^( *)\t", text, re.M) and "\t" in text.splitlines()[line - 1] if line - 1 < len(text.splitlines()) else False:
            report.error(Pos(shown, line, col), "Y001", f"YAML syntax: {problem} (tabs cannot indent YAML; use spaces)")
        else:
            report.error(Pos(shown, line, col), "Y001", f"YAML syntax: {problem}")
        return None
    except yaml.YAMLError as exc:
        report.error(Pos(shown, 1, 1), "Y001", f"YAML syntax: {exc}")
        return None
    except RecursionError:
        report.error(Pos(shown, 1, 1), "Y006", f"nesting is too deep (more than {MAX_DEPTH} levels)")
        return None
    if len(nodes) > 1:
        report.error(Pos(shown, nodes[1].start_mark.line + 1, 1), "Y010", "a content file holds one YAML document; remove the `---` separator")
        return None
    if not nodes or _is_null(nodes[0]):  # `~`, `null` or a lone `---`: nothing, as an empty file
        report.error(Pos(shown, 1, 1), "Y003", "file is empty; remove it or give it content")
        return None
    if "*" in text:  # aliases: measure the expanded size before building anything
        _expanded_size(nodes[0], shown, {}, 0, _Budget())
    lines = text.splitlines()
    return _convert(nodes[0], shown, lines, report, 0, _Budget(), set())


def _is_null(node) -> bool:
    return type(node) is _SCALAR and node.tag == _T + "null" and node.style in (None, "")


_new_pos = tuple.__new__  # Pos(...) without the Python-level constructor: one per node adds up


def _pos(node, shown) -> Pos:
    m = node.start_mark
    return _new_pos(Pos, (shown, m.line + 1, m.column + 1))


def _expanded_size(node, shown, sizes, depth, budget) -> int:
    """Nodes the document has once aliases are expanded; each distinct node is measured
    once (its nodes, and the bytes of text it holds). budget.text_bytes adds up the text
    the whole expansion makes."""
    known = sizes.get(id(node), 0)
    if known is None:
        raise _Abort(_pos(node, shown), "Y005", "an alias refers to itself")
    if known:
        n, size = known
        budget.text_bytes += size
        if budget.text_bytes > MAX_EXPANDED_BYTES:
            raise _Abort(_pos(node, shown), "Y005",
                         f"aliases expand to more than {MAX_EXPANDED_BYTES} bytes of text; repeat less, or repeat short values")
        return n
    if depth > MAX_DEPTH:
        raise _Abort(_pos(node, shown), "Y006", f"nesting is deeper than {MAX_DEPTH} levels")
    sizes[id(node)] = None
    n, before = 1, budget.text_bytes
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            n += _expanded_size(k, shown, sizes, depth + 1, budget) + _expanded_size(v, shown, sizes, depth + 1, budget)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            n += _expanded_size(item, shown, sizes, depth + 1, budget)
    else:
        value = node.value
        budget.text_bytes += len(value) if value.isascii() else len(value.encode("utf-8", "replace"))
    if n > MAX_NODES:
        raise _Abort(_pos(node, shown), "Y005",
                     f"aliases expand to more than {MAX_NODES} nodes; do not nest anchors inside anchors")
    if budget.text_bytes > MAX_EXPANDED_BYTES:
        raise _Abort(_pos(node, shown), "Y005",
                     f"aliases expand to more than {MAX_EXPANDED_BYTES} bytes of text; repeat less, or repeat short values")
    sizes[id(node)] = (n, budget.text_bytes - before)
    return n


def _convert(node, shown, lines, report, depth, budget, active):
    budget.nodes += 1
    if budget.nodes > MAX_NODES:
        raise _Abort(Pos(shown, node.start_mark.line + 1, node.start_mark.column + 1), "Y005",
                     f"aliases expand to more than {MAX_NODES} nodes; do not nest anchors inside anchors")
    if depth > MAX_DEPTH:
        raise _Abort(_pos(node, shown), "Y006", f"nesting is deeper than {MAX_DEPTH} levels")
    if node.tag not in _PLAIN_TAGS:
        raise _Abort(_pos(node, shown), "Y004",
                     f"tag `{node.tag.replace(_T, '!!')}` is not allowed: content is plain data (maps, lists, text, numbers)")
    kind = type(node)
    if kind is _MAP:
        if id(node) in active:
            raise _Abort(_pos(node, shown), "Y005", "an alias refers to itself")
        active.add(id(node))
        out = PMap()
        out.pos, out.key_pos, out.val_pos = _pos(node, shown), {}, {}
        key_pos, val_pos = out.key_pos, out.val_pos
        for knode, vnode in node.value:
            if knode.tag == _MERGE:
                raise _Abort(_pos(knode, shown), "Y004", "merge keys (`<<`) are not supported; repeat the keys")
            if type(knode) is _SCALAR and (knode.tag == _STR or (knode.style in (None, "") and knode.tag == _BOOL)):
                # a key is plain text, one object for each distinct key (its position is in
                # key_pos); `on:` is a key here, never the boolean YAML 1.1 makes of it
                budget.nodes += 1
                key = _KEYS.get(knode.value)
                if key is None:
                    key = _KEYS[knode.value] = str(knode.value) if len(_KEYS) < _MAX_KEYS else knode.value
            else:
                key = _convert(knode, shown, lines, report, depth + 1, budget, active)
                if not isinstance(key, str):
                    raise _Abort(_pos(knode, shown), "Y007", f"keys must be text, not {type(key).__name__} `{knode.value}`; "
                                 f"quote it: `\"{knode.value}\":`")
                key = str(key)
            if key in out:
                first = key_pos[key]
                report.error(_pos(knode, shown), "Y011", f"duplicate key `{key}` (first at line {first.line}); YAML would silently keep only the last")
                continue
            key_pos[key] = _pos(knode, shown)
            value = out[key] = _convert(vnode, shown, lines, report, depth + 1, budget, active)
            # a converted map, list or text knows its own position: share it
            val_pos[key] = value.pos if type(value) in _POSITIONED else _pos(vnode, shown)
        active.discard(id(node))
        return out
    if kind is _SEQ:
        if id(node) in active:
            raise _Abort(_pos(node, shown), "Y005", "an alias refers to itself")
        active.add(id(node))
        out = PList()
        out.pos, out.item_pos = _pos(node, shown), []
        item_pos = out.item_pos
        for item in node.value:
            value = _convert(item, shown, lines, report, depth + 1, budget, active)
            item_pos.append(value.pos if type(value) in _POSITIONED else _pos(item, shown))
            out.append(value)
        active.discard(id(node))
        return out
    return _scalar(node, shown, lines, report)


def _scalar(node, shown, lines, report):
    tag, raw, style = node.tag, node.value, node.style
    pos = _pos(node, shown)
    if tag == _STR:  # most scalars: text
        return _text(node, raw, style, pos, lines)
    if style in (None, ""):  # only plain scalars get implicit types
        if tag == _T + "bool":
            if raw.lower() not in _BOOL_WORDS:
                report.warning(pos, "Y101", f"`{raw}` is read as {str(raw.lower() in ('yes', 'y', 'on')).lower()}; quote it if you meant text, or write true/false")
            return raw.lower() in ("true", "yes", "y", "on")
        if tag == _T + "null":
            return None
        if tag == _T + "int":
            if _OCTAL.match(raw):
                report.warning(pos, "Y102", f"`{raw}` has a leading zero and is read as the octal number {int(raw, 8)}; quote it if you meant text")
            if len(raw) < 16 and _DECIMAL.match(raw):  # the common case: at most 15 digits, within bounds
                return int(raw)
            return _number(raw, pos, int)
        if tag == _T + "float":
            return _number(raw, pos, float)
    if tag in (_T + "int", _T + "float", _T + "bool", _T + "null") and style not in (None, ""):
        raise _Abort(pos, "Y004", f"tag `{tag.replace(_T, '!!')}` on a quoted value is not allowed")
    if tag == _T + "binary":
        raise _Abort(pos, "Y004", "tag `!!binary` is not allowed: content is plain data")
    return _text(node, raw, style, pos, lines)


def _number(raw: str, pos: Pos, kind):
    """A plain number as `kind` (int or float), within MAX_NUMBER; NaN and the infinities
    are refused (no JSON can hold them, and no rule means them)."""
    if len(raw) > 40:  # no number within bounds is written this long (and none reaches int()'s limit)
        raise _Abort(pos, "Y007", f"`{raw[:20]}…` is not a usable number: numbers are limited to ±10^15")
    if kind is int and _DECIMAL.match(raw):  # the common case, without starting a YAML parser per number
        value = int(raw)
    else:
        try:
            value = yaml.safe_load(raw)
            value = value if kind is int and type(value) is int else float(value)
        except (yaml.YAMLError, ValueError, TypeError, OverflowError, IndexError):  # (`!!float` of nothing)
            raise _Abort(pos, "Y007", f"`{raw}` is not a usable number") from None
    if type(value) is float and not math.isfinite(value):
        raise _Abort(pos, "Y007", f"`{raw}` is not a usable number: not-a-number and the infinities cannot be content")
    if abs(value) > MAX_NUMBER:
        raise _Abort(pos, "Y007", f"`{raw}` is too large: numbers are limited to ±10^15")
    return value


def _text(node, raw, style, pos, lines):
    s = PStr(raw)
    s.pos = pos
    s.block = style in ("|", ">")
    if s.block:
        ln = node.start_mark.line + 1  # first text line (0-based index) after the indicator
        while ln < len(lines) and not lines[ln].strip():
            ln += 1
        indent = len(lines[ln]) - len(lines[ln].lstrip(" ")) if ln < len(lines) else 0
        s.origin_line, s.origin_col = ln + 1 - _leading_blank(raw), indent + 1
    else:
        s.origin_line = pos.line
        s.origin_col = pos.col + (1 if style in ('"', "'") else 0)
    return s


def _leading_blank(raw: str) -> int:
    n = 0
    for ln in raw.split("\n"):
        if ln.strip():
            break
        n += 1
    return n


class _Abort(Exception):
    def __init__(self, pos, code, message):
        super().__init__(message)
        self.pos, self.code, self.message = pos, code, message


def load_file(path: str, shown: str, report: Report, within: str | None = None):
    """Load a content file; every problem becomes a diagnostic, never an exception. With
    `within` (the game's folder), a file whose real place is outside it is refused (Y009)."""
    buffers = _BUFFERS
    if buffers is None:
        return _load_file(path, shown, report, within)
    version = buffers.texts.get(os.path.abspath(path))
    if version is None:
        try:
            st = os.stat(path)
            version = (st.st_mtime_ns, st.st_size, st.st_ino)
        except OSError:
            return _load_file(path, shown, report, within)
    kept = buffers.loaded.get((path, shown))
    if kept is not None and kept[0] == version:
        report.items.extend(kept[2])
        return kept[1]
    mine = Report()
    doc = _load_file(path, shown, mine, within)
    report.extend(mine)
    if len(buffers.loaded) < buffers.MAX_LOADED or (path, shown) in buffers.loaded:
        buffers.loaded[(path, shown)] = (version, doc, mine.items)
    return doc


def _load_file(path: str, shown: str, report: Report, within: str | None):
    try:
        return load_yaml(path, shown, report, within)
    except _Abort as exc:
        report.error(exc.pos, exc.code, exc.message)
    except RecursionError:
        report.error(Pos(shown, 1, 1), "Y006", f"nesting is deeper than {MAX_DEPTH} levels")
    return None
