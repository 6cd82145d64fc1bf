"""`rulepress lsp`: a language server over stdio for any LSP editor.

It checks a game with the compiler's own loader and checker (compiler.pipeline.check_game),
with the editor's unsaved buffers standing in for their files (source.Buffers), so its
diagnostics are `rulepress validate`'s: the same codes at the same places. Ids are found
with rulepress/symbols.py, built-ins are explained from compiler/names.py.
"""
from __future__ import annotations

import asyncio
import os
import re
from dataclasses import dataclass, field

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from .compiler.content import MANIFEST, SECTIONS
from .compiler.diagnostics import Pos, Report
from .compiler.names import BUILTIN_ATTRS, BUILTIN_NAMES, EVENTS, FUNCTIONS, VERBS
from .hints import builtin_doc, context_key, describe, keys_of
from .compiler.source import Buffers, reading
from .symbols import DSL_FIELDS, WORD, Symbols, index

SETTLE = 0.015  # seconds without a change before a check: a burst of keys is checked once
MAX_UP = 16  # folders walked up from a file to find its game's manifest
ID = re.compile(r"^[a-z][a-z0-9_]*$")  # as schemas/common.json has it


@dataclass
class Checked:
    """The last check of one game folder."""
    folder: str
    report: Report
    model: object = None
    symbols: Symbols = field(default_factory=Symbols)
    files: list = field(default_factory=list)   # absolute paths of the game's content files
    _tables: object = None

    def tables(self):
        """The game's tables, for rendering rules text; None while the game has errors."""
        if self._tables is None and self.model is not None and not self.report.errors:
            from .compiler.codegen import tables
            try:
                self._tables = tables(self.model)
            except Exception:  # a half-made game: hover then shows the source text
                self._tables = False
        return self._tables or None


class RulepressServer(LanguageServer):
    def __init__(self):
        from importlib.metadata import version
        super().__init__("rulepress", version("rulepress"))
        self.games: dict[str, Checked] = {}
        self.published: dict[str, set] = {}  # game folder -> uris given diagnostics last time
        self.pending: dict = {}  # game folder -> its check waiting for the typing to pause
        self.buffers: dict[str, Buffers] = {}  # game folder -> the files as this editor has them


server = RulepressServer()


# ---- checking ------------------------------------------------------------------

def game_folder(path: str) -> str | None:
    """The folder of the game a content file belongs to (the nearest with a manifest)."""
    d = os.path.dirname(os.path.abspath(path))
    for _ in range(MAX_UP):
        if os.path.isfile(os.path.join(d, MANIFEST)):
            return d
        up = os.path.dirname(d)
        if up == d:
            return None
        d = up
    return None


def check(ls: RulepressServer, folder: str) -> Checked:
    """Check a game with the open buffers as they are now, and publish what is found."""
    from .compiler.memory import no_collection
    from .compiler.pipeline import check_game
    buffers = ls.buffers.setdefault(folder, Buffers())
    buffers.texts = {}
    for uri, doc in list(ls.workspace.text_documents.items()):
        path = to_fs_path(uri)
        if path and os.path.abspath(path).startswith(folder + os.sep):
            buffers.texts[os.path.abspath(path)] = doc.source
    shown = os.path.relpath(folder) if not os.path.relpath(folder).startswith("..") else folder
    # the collector waits until what is found is published: a keystroke's answer first
    with no_collection():
        with reading(buffers):
            model, report = check_game(shown)
        return _publish_check(ls, folder, model, report)


def _publish_check(ls: RulepressServer, folder: str, model, report: Report) -> Checked:
    done = Checked(folder, report, model)
    before = ls.games.get(folder)
    if model is not None:
        done.symbols = index(model)
        done.files = [os.path.abspath(f) for f in model.src.files]
    elif before is not None:  # no file could be read (a YAML error mid-typing): the ids known last serve
        done.model, done.symbols, done.files = before.model, before.symbols, before.files
    ls.games[folder] = done
    publish(ls, done)
    return done


def publish(ls: RulepressServer, done: Checked) -> None:
    by_uri: dict[str, list] = {}
    for d in done.report.sorted():
        path = os.path.abspath(d.pos.file)
        if not os.path.isfile(path):
            path = os.path.join(done.folder, MANIFEST)
        by_uri.setdefault(from_fs_path(path), []).append(d)
    for path in done.files:  # every file of the game: a clean one loses what it had
        by_uri.setdefault(from_fs_path(path), [])
    before = ls.published.get(done.folder, set())
    for uri in before - by_uri.keys():
        ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
    for uri, diags in by_uri.items():
        lines = _lines(ls, uri)
        ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(
            uri=uri, diagnostics=[_diagnostic(d, lines, ls.workspace.position_codec) for d in diags]))
    ls.published[done.folder] = set(by_uri)


def _client_range(codec, lines, line: int, start: int, end: int) -> lsp.Range:
    """A range on one line, from columns counted in characters (as the compiler counts them)
    to the editor's units (UTF-16 unless it asked otherwise)."""
    return lsp.Range(codec.position_to_client_units(lines, lsp.Position(line, start)),
                     codec.position_to_client_units(lines, lsp.Position(line, end)))


def _here(ls: RulepressServer, uri: str, position: lsp.Position) -> lsp.Position:
    """The editor's position, in characters."""
    return ls.workspace.position_codec.position_from_client_units(_lines(ls, uri), position)


def _lines(ls: RulepressServer, uri: str) -> list[str]:
    doc = ls.workspace.text_documents.get(uri)
    if doc is not None:
        return doc.lines
    try:
        with open(to_fs_path(uri), encoding="utf-8", errors="replace") as fh:
            return fh.read(16 * 1024 * 1024).splitlines()
    except OSError:
        return []


def _diagnostic(d, lines, codec) -> lsp.Diagnostic:
    line, col = max(d.pos.line - 1, 0), max(d.pos.col - 1, 0)
    text = lines[line] if line < len(lines) else ""
    m = WORD.match(text, col)
    end = m.end() if m else col + 1
    return lsp.Diagnostic(
        range=_client_range(codec, lines, line, col, end),
        message=d.message, code=d.code, source="rulepress",
        severity=lsp.DiagnosticSeverity.Error if d.severity == "error" else lsp.DiagnosticSeverity.Warning)


def _checked(ls: RulepressServer, uri: str) -> Checked | None:
    path = to_fs_path(uri)
    folder = game_folder(path) if path else None
    if folder is None:
        return None
    pending = ls.pending.pop(folder, None)
    if pending is not None:  # a request answers from the text as it is now
        pending.cancel()
        return check(ls, folder)
    return ls.games.get(folder) or check(ls, folder)


def _on_edit(ls: RulepressServer, uri: str, typing: bool = False) -> None:
    """Check the game of an edited file: at once, or while `typing` once the keys pause
    for SETTLE seconds (a burst of changes is checked once, in its final state)."""
    path = to_fs_path(uri)
    folder = game_folder(path) if path and path.endswith((".yaml", ".yml")) else None
    if folder is None or os.sep + "scenarios" + os.sep in path[len(folder):]:
        return
    pending = ls.pending.pop(folder, None)
    if pending is not None:
        pending.cancel()
    if typing:
        try:
            ls.pending[folder] = asyncio.get_running_loop().call_later(SETTLE, _settled, ls, folder)
            return
        except RuntimeError:  # no loop to wait in: check now
            pass
    check(ls, folder)


def _settled(ls: RulepressServer, folder: str) -> None:
    ls.pending.pop(folder, None)
    check(ls, folder)


@server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: RulepressServer, params: lsp.DidOpenTextDocumentParams):
    _on_edit(ls, params.text_document.uri)


@server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: RulepressServer, params: lsp.DidChangeTextDocumentParams):
    _on_edit(ls, params.text_document.uri, typing=True)


@server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: RulepressServer, params: lsp.DidSaveTextDocumentParams):
    _on_edit(ls, params.text_document.uri)


@server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: RulepressServer, params: lsp.DidCloseTextDocumentParams):
    _on_edit(ls, params.text_document.uri)  # the file on disk counts again


# ---- finding ids ---------------------------------------------------------------

def _span_at(ls, uri, position):
    done = _checked(ls, uri)
    if done is None:
        return None, None
    shown = os.path.relpath(to_fs_path(uri))
    here = _here(ls, uri, position)
    return done, done.symbols.at(shown, here.line + 1, here.character + 1)


def _location(ls: RulepressServer, pos: Pos, length: int, seen: dict | None = None) -> lsp.Location:
    """Where a mention stands, for the editor; `seen`: files' lines read for earlier ones."""
    uri = from_fs_path(os.path.abspath(pos.file))
    seen = {} if seen is None else seen
    if uri not in seen:
        seen[uri] = _lines(ls, uri)
    col = pos.col - 1
    return lsp.Location(uri=uri, range=_client_range(ls.workspace.position_codec, seen[uri], pos.line - 1, col, col + length))


@server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
def definition(ls: RulepressServer, params: lsp.DefinitionParams):
    done, span = _span_at(ls, params.text_document.uri, params.position)
    if span is None or span.id not in done.symbols.decls:
        return None
    decl = done.symbols.decls[span.id]
    return _location(ls, decl.pos, len(span.id))


@server.feature(lsp.TEXT_DOCUMENT_REFERENCES)
def references(ls: RulepressServer, params: lsp.ReferenceParams):
    done, span = _span_at(ls, params.text_document.uri, params.position)
    if span is None:
        return None
    decl = done.symbols.decls.get(span.id)
    out, seen = [], {}
    for s in done.symbols.uses.get(span.id, ()):
        if not params.context.include_declaration and decl is not None and (s.pos.file, s.pos.line) == (decl.pos.file, decl.pos.line):
            continue
        out.append(_location(ls, s.pos, s.length, seen))
    return out


@server.feature(lsp.TEXT_DOCUMENT_RENAME)
def rename(ls: RulepressServer, params: lsp.RenameParams):
    done, span = _span_at(ls, params.text_document.uri, params.position)
    if span is None:
        return None
    new = params.new_name
    if not ID.match(new):
        raise ValueError(f"`{new}` is not an id: use lower-case letters, digits and _ (like `city_hall`)")
    if new in done.symbols.decls or new in BUILTIN_NAMES or new in FUNCTIONS:
        raise ValueError(f"`{new}` is already a name of this game")
    changes: dict[str, list] = {}
    seen: dict = {}
    for s in done.symbols.uses.get(span.id, ()):
        loc = _location(ls, s.pos, s.length, seen)
        changes.setdefault(loc.uri, []).append(lsp.TextEdit(range=loc.range, new_text=new))
    return lsp.WorkspaceEdit(changes=changes)


# ---- hover -----------------------------------------------------------------------

@server.feature(lsp.TEXT_DOCUMENT_HOVER)
def hover(ls: RulepressServer, params: lsp.HoverParams):
    done, span = _span_at(ls, params.text_document.uri, params.position)
    if done is None:
        return None
    if span is not None and span.id in done.symbols.decls:
        text = describe(done.symbols.decls[span.id], span.id, done.model, done.tables())
    else:
        word = _word_at(ls, params.text_document.uri, params.position)
        text = builtin_doc(word) if word else None
    if not text:
        return None
    return lsp.Hover(contents=lsp.MarkupContent(kind=lsp.MarkupKind.Markdown, value=text))


def _word_at(ls, uri, position) -> str | None:
    lines = _lines(ls, uri)
    position = _here(ls, uri, position)
    if position.line >= len(lines):
        return None
    for m in WORD.finditer(lines[position.line]):
        if m.start() <= position.character <= m.end():
            return m.group()
    return None


# ---- completion ------------------------------------------------------------------

def _item(label, kind, detail) -> lsp.CompletionItem:
    return lsp.CompletionItem(label=label, kind=kind, detail=detail)


@server.feature(lsp.TEXT_DOCUMENT_COMPLETION, lsp.CompletionOptions(trigger_characters=["."]))
def completion(ls: RulepressServer, params: lsp.CompletionParams):
    uri = params.text_document.uri
    pos = _here(ls, uri, params.position)
    done = _checked(ls, uri)
    if done is None:
        return None
    lines = _lines(ls, uri)
    here = lines[pos.line][:pos.character] if pos.line < len(lines) else ""
    K = lsp.CompletionItemKind
    ids = [_item(i, K.Reference, d.section[:-1] if d.section.endswith("s") else d.section)
           for i, d in sorted(done.symbols.decls.items())]
    if re.search(r"\.\w*$", here):  # after `x.`: attributes, counters and zones of things
        attrs = set(done.model.attrs if done.model else ()) | set(BUILTIN_ATTRS)
        return lsp.CompletionList(is_incomplete=False, items=[_item(a, K.Field, "attribute") for a in sorted(attrs)])
    key, section = context_key(lines, pos.line, pos.character)
    if re.fullmatch(r"\s*(-\s+)?\w*", here):  # where a key is written
        if not here.strip() or (here[0] not in " -" and key is None):
            words = [_item(s, K.Module, "section") for s in SECTIONS]
        else:
            words = [_item(k, K.Property, f"{section} key") for k in keys_of(section)]
        if key not in DSL_FIELDS:
            return lsp.CompletionList(is_incomplete=False, items=words)
    events = [_item(e, K.Event, "event") for e in sorted(set(EVENTS) | set(done.model.emitted if done.model else ()))
              if e != "__all__"]
    if key == "on":  # a trigger's event
        return lsp.CompletionList(is_incomplete=False, items=events)
    if key in DSL_FIELDS:
        items = ids + [_item(n, K.Variable, BUILTIN_NAMES[n]) for n in sorted(BUILTIN_NAMES)]
        items += [_item(f, K.Function, FUNCTIONS[f][2]) for f in sorted(FUNCTIONS)]
        items += [_item(v, K.Keyword, "statement") for v in sorted(VERBS)]
        return lsp.CompletionList(is_incomplete=False, items=items + events)
    return lsp.CompletionList(is_incomplete=False, items=ids)


MAX_HEADER_LINE = 4096        # bytes of one header line; an editor's are a few dozen
MAX_MESSAGE = 64 * 2**20      # bytes of one message: a content file is at most 16 MiB


class _BoundedStdin:
    """The editor's end of the pipe, bounded: a header line or a message longer than any
    editor sends ends the session (as the pipe closing would), where reading it whole
    would take all the memory there is."""

    def __init__(self, raw):
        self.raw = raw

    def readline(self) -> bytes:
        line = self.raw.readline(MAX_HEADER_LINE)
        return line if len(line) < MAX_HEADER_LINE else b""

    def read(self, n: int) -> bytes:
        return self.raw.read(n) if 0 <= n <= MAX_MESSAGE else b""


def serve() -> None:
    import sys
    server.start_io(_BoundedStdin(sys.stdin.buffer))

