"""Reading YAML content safely, keeping the file position of every node.

Only plain data comes out: maps, lists, strings, numbers, booleans and null. No tag
constructs an object, aliases are expanded under a budget, keys must be unique, and
YAML 1.1 surprises (`no` read as false, `012` read as octal) are reported.
"""
from __future__ import annotations

import contextlib
import operator
import os
import re

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


def read_text(path: str, shown: str, report: Report) -> str | None:
    if _BUFFERS is not None:
        text = _BUFFERS.texts.get(os.path.abspath(path))
        if text is not None:
            if len(text) > MAX_FILE_BYTES:
                report.error(Pos(shown, 1, 1), "Y008", f"file is over {MAX_FILE_BYTES} bytes; content files are limited to {MAX_FILE_BYTES}")
                return None
            return text[1:] if text.startswith("\ufeff") else text
    try:
        size = os.path.getsize(path)
        if size > MAX_FILE_BYTES:
            report.error(Pos(shown, 1, 1), "Y008", f"file is {size} bytes; content files are limited to {MAX_FILE_BYTES}")
            return None
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        report.error(Pos(shown, 1, 1), "Y009", f"cannot read file: {exc.strerror}")
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


UNBRACKETED: set[str] = set()  # files, as shown, whose text as last loaded has no `[` nor `\\`


def load_yaml(path: str, shown: str, report: Report):
    """Load one YAML file into PMap/PList/PStr values, or None after reporting why not."""
    text = read_text(path, shown, report)
    if text is None:
        return None
    # no text of such a file can hold an inline icon (`[id]`, an escape could spell one)
    if "[" in text or "\\" in text:
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
    if nodes and "*" in text:  # aliases: measure the expanded size before building anything
        _expanded_size(nodes[0], shown, {}, 0)
    lines = text.splitlines()
    return _convert(nodes[0], shown, lines, report, 0, _Budget(), set()) if nodes else None


_new_pos = tuple.__new__  # Pos(...) without the Python-level constructor: one per node adds up


def _pos(node, shown) -> Pos:
    m = node.start_mark
    return _new_pos(Pos, (shown, m.line + 1, m.column + 1))


def _expanded_size(node, shown, sizes, depth) -> int:
    """Nodes the document has once aliases are expanded; each distinct node is measured once."""
    known = sizes.get(id(node), 0)
    if known is None:
        raise _Abort(_pos(node, shown), "Y005", "an alias refers to itself")
    if known:
        return known
    if depth > MAX_DEPTH:
        raise _Abort(_pos(node, shown), "Y006", f"nesting is deeper than {MAX_DEPTH} levels")
    sizes[id(node)] = None
    n = 1
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            n += _expanded_size(k, shown, sizes, depth + 1) + _expanded_size(v, shown, sizes, depth + 1)
    elif isinstance(node, yaml.SequenceNode):
        for item in node.value:
            n += _expanded_size(item, shown, sizes, depth + 1)
    if n > MAX_NODES:
        raise _Abort(_pos(node, shown), "Y005",
                     f"aliases expand to more than {MAX_NODES} nodes; do not nest anchors inside anchors")
    sizes[id(node)] = n
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
            if _DECIMAL.match(raw):  # the common case, without starting a YAML parser per number
                return int(raw)
            try:
                return yaml.safe_load(raw)
            except yaml.YAMLError:
                return raw
        if tag == _T + "float":
            if raw.lower().lstrip("+-") in (".inf", ".nan"):
                raise _Abort(pos, "Y007", f"`{raw}` is not a usable number")
            return float(yaml.safe_load(raw))
    if tag in (_T + "int", _T + "float", _T + "bool", _T + "null") and style not in (None, ""):
        raise _Abort(pos, "Y004", f"tag `{tag.replace(_T, '!!')}` on a quoted value is not allowed")
    if tag == _T + "binary":
        raise _Abort(pos, "Y004", "tag `!!binary` is not allowed: content is plain data")
    return _text(node, raw, style, pos, lines)


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


# ---- loaded values as plain data ---------------------------------------------------
# A process that loaded some files hands them to another as plain data (marshal), which
# rebuilds the same values several times faster than it would load the YAML.

def encode(v):
    """A loaded value as tuples, lists and plain values: (0, text, line, col, origin_line,
    origin_col, block) for text, (1, line, col, [key, (line, col), value, (line, col) or
    None, ...]) for a map, (2, line, col, [value, ...], [(line, col) or None, ...]) for a list."""
    t = type(v)
    if t is PStr:
        return (0, str(v), v.pos[1], v.pos[2], v.origin_line, v.origin_col, v.block)
    if t is PMap:
        flat, key_pos, val_pos = [], v.key_pos, v.val_pos
        for k, x in v.items():
            p, kp = val_pos[k], key_pos[k]
            flat += (k, (kp[1], kp[2]), encode(x), None if type(x) in _POSITIONED else (p[1], p[2]))
        return (1, v.pos[1], v.pos[2], flat)
    if t is PList:
        return (2, v.pos[1], v.pos[2], [encode(x) for x in v],
                [None if type(x) in _POSITIONED else (p[1], p[2]) for x, p in zip(v, v.item_pos)])
    return v


def decode(e, shown: str):
    """The value `encode` made, back with its positions in the file `shown`."""
    if type(e) is not tuple:
        return e
    kind = e[0]
    if kind == 0:
        s = PStr(e[1])
        s.pos = _new_pos(Pos, (shown, e[2], e[3]))
        s.origin_line, s.origin_col, s.block = e[4], e[5], e[6]
        return s
    if kind == 1:
        out = PMap()
        out.pos = _new_pos(Pos, (shown, e[1], e[2]))
        key_pos, val_pos = out.key_pos, out.val_pos = {}, {}
        flat = e[3]
        for i in range(0, len(flat), 4):
            key, kp, value, p = _KEYS.get(flat[i]) or str(flat[i]), flat[i + 1], decode(flat[i + 2], shown), flat[i + 3]
            out[key] = value
            key_pos[key] = _new_pos(Pos, (shown, kp[0], kp[1]))
            val_pos[key] = value.pos if p is None else _new_pos(Pos, (shown, p[0], p[1]))
        return out
    out = PList([decode(x, shown) for x in e[3]])
    out.pos = _new_pos(Pos, (shown, e[1], e[2]))
    out.item_pos = [x.pos if p is None else _new_pos(Pos, (shown, p[0], p[1])) for x, p in zip(out, e[4])]
    return out


class _Abort(Exception):
    def __init__(self, pos, code, message):
        super().__init__(message)
        self.pos, self.code, self.message = pos, code, message


def load_file(path: str, shown: str, report: Report):
    """Load a content file; every problem becomes a diagnostic, never an exception."""
    buffers = _BUFFERS
    if buffers is None:
        return _load_file(path, shown, report)
    version = buffers.texts.get(os.path.abspath(path))
    if version is None:
        try:
            st = os.stat(path)
            version = (st.st_mtime_ns, st.st_size, st.st_ino)
        except OSError:
            return _load_file(path, shown, report)
    kept = buffers.loaded.get((path, shown))
    if kept is not None and kept[0] == version:
        report.items.extend(kept[2])
        return kept[1]
    mine = Report()
    doc = _load_file(path, shown, mine)
    report.extend(mine)
    if len(buffers.loaded) < buffers.MAX_LOADED or (path, shown) in buffers.loaded:
        buffers.loaded[(path, shown)] = (version, doc, mine.items)
    return doc


def _load_file(path: str, shown: str, report: Report):
    try:
        return load_yaml(path, shown, report)
    except _Abort as exc:
        report.error(exc.pos, exc.code, exc.message)
    except RecursionError:
        report.error(Pos(shown, 1, 1), "Y006", f"nesting is deeper than {MAX_DEPTH} levels")
    return None
