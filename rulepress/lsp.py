"""`rulepress lsp`: a language server over stdio for any LSP editor.

It checks a game with the compiler's own loader and checker (compiler.pipeline.check_game),
with the editor's unsaved buffers standing in for their files (source.Buffers), so its
diagnostics are `rulepress validate`'s: the same codes at the same places. Ids are found
with rulepress/symbols.py, built-ins are explained from compiler/names.py.
"""
from __future__ import annotations

import asyncio
import json
import os
import re
from dataclasses import dataclass, field

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from .compiler.content import MANIFEST, SECTIONS
from .compiler.diagnostics import Pos, Report
from .compiler.names import BUILTIN_ATTRS, BUILTIN_NAMES, EVENTS, FUNCTIONS, VERBS
from .hints import builtin_doc, context_key, describe, describe_word, keys_of
from .compiler.source import Buffers, PMap, reading
from .completing import attr_owner, effect_before, slot
from .lsp_wire import Protocol, Refused, answered, quiet_logs, report_error
from .symbols import DSL_FIELDS, WORD, Symbols, add_scenarios, index

SETTLE = 0.015  # seconds without a change before a check: a burst of keys is checked once
SCENARIO_SETTLE = 0.4  # and before its scenarios are checked again (a few hundred ms of work)
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
    # each scenario file's (absolute path) `scenario:` map and findings, as validate checks
    # them: only while the game itself has no errors; None until they are checked
    scenarios: dict | None = None
    _with_scenarios: Symbols | None = None
    # the ids its rulebook would print as they are, for want of words (W019, as `build` finds
    # them): worked out with the scenarios, once the typing pauses
    unnamed: list = field(default_factory=list)

    def all_symbols(self) -> Symbols:
        """The ids' declarations and mentions in the content and the scenarios (indexed when
        first asked: a keystroke in the content does not wait for them)."""
        if self.scenarios is None:
            return self.symbols
        if self._with_scenarios is None:
            out = Symbols(dict(self.symbols.decls), {k: list(v) for k, v in self.symbols.uses.items()},
                          {k: list(v) for k, v in self.symbols.by_file.items()})
            add_scenarios(out, [sc for sc, _diags in self.scenarios.values()])
            self._with_scenarios = out
        return self._with_scenarios

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
        super().__init__("rulepress", version("rulepress"), protocol_cls=Protocol)
        self.games: dict[str, Checked] = {}
        self.published: dict[str, set] = {}  # game folder -> uris given diagnostics last time
        self.pending: dict = {}  # game folder -> its check waiting for the typing to pause
        self.buffers: dict[str, Buffers] = {}  # game folder -> the files as this editor has them
        self.scenario_pending: dict = {}  # game folder -> its scenarios' check, waiting
        self.scenario_shown: dict[str, dict] = {}  # game folder -> scenario uri -> findings sent

    def report_server_error(self, error, source):
        report_error(self, error)


server = RulepressServer()


# ---- checking ------------------------------------------------------------------

def fs_path(uri: str) -> str | None:
    """The file an editor's URI names, or None (another scheme, or a name no file has)."""
    try:
        path = to_fs_path(uri)
    except Exception:  # a URI no path can be made of: no file of ours
        return None
    if not path or "\0" in path or len(path) > 4096:
        return None
    return os.path.abspath(path)


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


def is_scenario(folder: str, path: str) -> bool:
    return os.path.dirname(path) == os.path.join(folder, "scenarios") and path.endswith(".yaml")


def _read_through(ls: RulepressServer, folder: str) -> Buffers:
    """The game's files as the editor has them now."""
    buffers = ls.buffers.setdefault(folder, Buffers())
    buffers.texts = {}
    for uri, doc in list(ls.workspace.text_documents.items()):
        path = fs_path(uri)
        if path and path.startswith(folder + os.sep):
            buffers.texts[path] = doc.source
    return buffers


def _shown(folder: str) -> str:
    return os.path.relpath(folder) if not os.path.relpath(folder).startswith("..") else folder


def check(ls: RulepressServer, folder: str) -> Checked:
    """Check a game with the open buffers as they are now, and publish what is found; its
    scenarios are checked once the typing pauses longer (SCENARIO_SETTLE)."""
    from .compiler.memory import no_collection
    from .compiler.pipeline import check_game
    buffers = _read_through(ls, folder)
    # the collector waits until what is found is published: a keystroke's answer first
    with no_collection():
        with reading(buffers):
            model, report = check_game(_shown(folder))
        done = _publish_check(ls, folder, model, report)
    _later(ls, ls.scenario_pending, folder, SCENARIO_SETTLE, check_scenarios)
    return done


def check_scenarios(ls: RulepressServer, folder: str, only: str | None = None) -> Checked | None:
    """The game's scenario files (or the one at `only`) checked against its last check, as
    validate checks them: none while the game itself has errors."""
    from .compiler.diagnostics import Report as Found
    from .compiler.scenarios import check_file, scenario_files
    ls.scenario_pending.pop(folder, None)
    done = ls.games.get(folder)
    if done is None:
        return None
    if done.model is None or done.report.errors:
        done.scenarios = {}
    else:
        buffers = _read_through(ls, folder)
        files = [only] if only and done.scenarios is not None else scenario_files(os.path.join(folder, "scenarios"))
        found = dict(done.scenarios or {})
        if not only:
            found = {}
        with reading(buffers):
            for f in files:
                rep = Found()
                sc = check_file(done.model, f, rep)
                found[os.path.abspath(f)] = (sc, rep.sorted())
        done.scenarios = found
    done._with_scenarios = None
    unnamed = _unnamed_terms(done)
    if unnamed != done.unnamed:
        done.unnamed = unnamed
        publish(ls, done)
    else:
        _publish_scenarios(ls, done)
    return done


def _unnamed_terms(done: Checked) -> list:
    """The ids the game's rulebook prints as they are (W019), while it has no errors."""
    from .compiler.rulebook import unnamed_terms
    tables = done.tables()
    return unnamed_terms(tables) if tables is not None else []


def _later(ls: RulepressServer, pending: dict, folder: str, delay: float, then) -> None:
    """`then(ls, folder)` once nothing else asks for it for `delay` seconds (now without a loop)."""
    waiting = pending.pop(folder, None)
    if waiting is not None:
        waiting.cancel()
    try:
        pending[folder] = asyncio.get_running_loop().call_later(delay, then, ls, folder)
    except RuntimeError:  # no loop to wait in: now
        then(ls, folder)


def _publish_check(ls: RulepressServer, folder: str, model, report: Report) -> Checked:
    done = Checked(folder, report, model)
    before = ls.games.get(folder)
    if model is not None:
        done.symbols = index(model)
        done.files = [os.path.abspath(f) for f in model.src.files]
    elif before is not None:  # no file could be read (a YAML error mid-typing): the ids known last serve
        done.model, done.symbols, done.files = before.model, before.symbols, before.files
    if before is not None and not report.errors:  # the scenarios as last checked, until checked again
        done.scenarios, done.unnamed = before.scenarios, before.unnamed
    ls.games[folder] = done
    publish(ls, done)
    return done


def publish(ls: RulepressServer, done: Checked) -> None:
    by_uri: dict[str, list] = {}
    found = done.report.sorted()
    if done.unnamed and not done.report.errors:
        from .compiler.pipeline import unnamed_finding
        also = Report()
        also.warning(*unnamed_finding(done.folder, set(done.unnamed)))
        found += also.sorted()
    for d in found:
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
        _send(ls, uri, diags)
    ls.published[done.folder] = set(by_uri)
    _publish_scenarios(ls, done)


def _publish_scenarios(ls: RulepressServer, done: Checked) -> None:
    """The scenario files' findings: sent for a file when they differ from what it was sent."""
    shown = ls.scenario_shown.setdefault(done.folder, {})
    now = {} if done.report.errors else {from_fs_path(p): diags for p, (_sc, diags) in (done.scenarios or {}).items()}
    for uri in list(shown):
        if uri not in now and shown.pop(uri):
            _send(ls, uri, [])
    for uri, diags in now.items():
        key = [(d.pos, d.code, d.message) for d in diags]
        if shown.get(uri, []) != key:
            shown[uri] = key
            _send(ls, uri, diags)


def _send(ls: RulepressServer, uri: str, diags: list) -> None:
    lines = _lines(ls, uri)
    ls.text_document_publish_diagnostics(lsp.PublishDiagnosticsParams(
        uri=uri, diagnostics=[_diagnostic(d, lines, ls.workspace.position_codec) for d in diags]))


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
    path = fs_path(uri)
    if path is None:
        return []
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read(16 * 1024 * 1024).splitlines()
    except (OSError, ValueError):
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


def _checked(ls: RulepressServer, uri: str, scenarios: bool = False) -> Checked | None:
    """The game of a file, checked as its text is now; with `scenarios`, its scenarios too."""
    path = fs_path(uri)
    folder = game_folder(path) if path else None
    if folder is None:
        return None
    pending = ls.pending.pop(folder, None)
    if pending is not None:  # a request answers from the text as it is now
        pending.cancel()
        done = check(ls, folder)
    else:
        done = ls.games.get(folder) or check(ls, folder)
    if scenarios and (done.scenarios is None or folder in ls.scenario_pending):
        waiting = ls.scenario_pending.pop(folder, None)
        if waiting is not None:
            waiting.cancel()
        done = check_scenarios(ls, folder) or done
    return done


def _on_edit(ls: RulepressServer, uri: str, typing: bool = False) -> None:
    """Check the game of an edited file: at once, or while `typing` once the keys pause
    for SETTLE seconds (a burst of changes is checked once, in its final state). A scenario
    file is checked alone, against the game as last checked."""
    path = fs_path(uri)
    folder = game_folder(path) if path and path.endswith((".yaml", ".yml")) else None
    if folder is None:
        return
    if os.sep + "scenarios" + os.sep in path[len(folder):]:
        if is_scenario(folder, path) and folder in ls.games and folder not in ls.pending:
            if typing:
                _later(ls, ls.scenario_pending, folder, SETTLE, lambda ls, f: check_scenarios(ls, f, path))
            else:
                check_scenarios(ls, folder, path)
        return
    if typing:
        _later(ls, ls.pending, folder, SETTLE, _settled)
        return
    pending = ls.pending.pop(folder, None)
    if pending is not None:
        pending.cancel()
    check(ls, folder)


def _settled(ls: RulepressServer, folder: str) -> None:
    ls.pending.pop(folder, None)
    check(ls, folder)


@server.feature(lsp.TEXT_DOCUMENT_DID_OPEN)
@answered
def did_open(ls: RulepressServer, params: lsp.DidOpenTextDocumentParams):
    path = fs_path(params.text_document.uri)
    folder = game_folder(path) if path else None
    if folder is not None and folder not in ls.games and is_scenario(folder, path):
        check(ls, folder)  # a scenario opened first: its game, then it
        check_scenarios(ls, folder)
        return
    _on_edit(ls, params.text_document.uri)


@server.feature(lsp.TEXT_DOCUMENT_DID_CHANGE)
@answered
def did_change(ls: RulepressServer, params: lsp.DidChangeTextDocumentParams):
    _on_edit(ls, params.text_document.uri, typing=True)


@server.feature(lsp.TEXT_DOCUMENT_DID_SAVE)
@answered
def did_save(ls: RulepressServer, params: lsp.DidSaveTextDocumentParams):
    _on_edit(ls, params.text_document.uri)


@server.feature(lsp.TEXT_DOCUMENT_DID_CLOSE)
@answered
def did_close(ls: RulepressServer, params: lsp.DidCloseTextDocumentParams):
    _on_edit(ls, params.text_document.uri)  # the file on disk counts again


# ---- finding ids ---------------------------------------------------------------

def _span_at(ls, uri, position, scenarios: bool = False):
    """(the game's check, the mention of an id at the position or None); with `scenarios`
    (or in a scenario file) the scenarios' mentions are known too."""
    path = fs_path(uri)
    folder = game_folder(path) if path else None
    done = _checked(ls, uri, scenarios=scenarios or (folder is not None and is_scenario(folder, path)))
    if done is None:
        return None, None
    here = _here(ls, uri, position)
    return done, done.all_symbols().at(os.path.relpath(path), here.line + 1, here.character + 1)


def _location(ls: RulepressServer, pos: Pos, length: int, seen: dict | None = None) -> lsp.Location:
    """Where a mention stands, for the editor; `seen`: files' lines read for earlier ones."""
    uri = from_fs_path(os.path.abspath(pos.file))
    seen = {} if seen is None else seen
    if uri not in seen:
        seen[uri] = _lines(ls, uri)
    col = pos.col - 1
    return lsp.Location(uri=uri, range=_client_range(ls.workspace.position_codec, seen[uri], pos.line - 1, col, col + length))


@server.feature(lsp.TEXT_DOCUMENT_DEFINITION)
@answered
def definition(ls: RulepressServer, params: lsp.DefinitionParams):
    done, span = _span_at(ls, params.text_document.uri, params.position)
    if span is None or span.id not in done.symbols.decls:
        return None
    decl = done.symbols.decls[span.id]
    return _location(ls, decl.pos, len(span.id))


@server.feature(lsp.TEXT_DOCUMENT_REFERENCES)
@answered
def references(ls: RulepressServer, params: lsp.ReferenceParams):
    done, span = _span_at(ls, params.text_document.uri, params.position, scenarios=True)
    if span is None:
        return None
    decl = done.symbols.decls.get(span.id)
    out, seen = [], {}
    for s in done.all_symbols().uses.get(span.id, ()):
        if not params.context.include_declaration and decl is not None and (s.pos.file, s.pos.line) == (decl.pos.file, decl.pos.line):
            continue
        out.append(_location(ls, s.pos, s.length, seen))
    return out


def _roots(ls: RulepressServer, folder: str) -> list[str]:
    """The folders an edit may touch: the workspace's (the game's own when the editor names none)."""
    roots = [fs_path(f.uri) for f in (ls.workspace.folders or {}).values()]
    if ls.workspace.root_uri:
        roots.append(fs_path(ls.workspace.root_uri))
    return [os.path.realpath(r) for r in roots if r] or [os.path.realpath(folder)]


def _inside(path: str, roots: list[str]) -> bool:
    """The file itself (links followed) is in one of the folders, and so is its name."""
    real, named = os.path.realpath(path), os.path.abspath(path)
    return all(any((p + os.sep).startswith(r.rstrip(os.sep) + os.sep) for r in roots) for p in (real, named))


def _renamable(ls: RulepressServer, uri: str, position) -> tuple:
    """(the check, the mention) of an id that may be renamed here; refused with the reason."""
    done, span = _span_at(ls, uri, position, scenarios=True)
    if span is None:
        raise Refused("no id of this game here: only the ids of its things can be renamed")
    if span.id not in done.symbols.decls:
        raise Refused(f"`{span.id}` is not declared in this game")
    if done.report.errors:
        raise Refused("the game has errors: fix them first, so that every use of the id is known")
    return done, span


@server.feature(lsp.TEXT_DOCUMENT_PREPARE_RENAME)
@answered
def prepare_rename(ls: RulepressServer, params: lsp.PrepareRenameParams):
    _done, span = _renamable(ls, params.text_document.uri, params.position)
    loc = _location(ls, span.pos, span.length)
    return lsp.PrepareRenamePlaceholder(range=loc.range, placeholder=span.id)


@server.feature(lsp.TEXT_DOCUMENT_RENAME)
@answered
def rename(ls: RulepressServer, params: lsp.RenameParams):
    done, span = _renamable(ls, params.text_document.uri, params.position)
    new = params.new_name
    if not ID.match(new):
        raise Refused(f"`{new[:60]}` is not an id: use lower-case letters, digits and _ (like `city_hall`)")
    if new in done.symbols.decls or new in BUILTIN_NAMES or new in FUNCTIONS:
        raise Refused(f"`{new}` is already a name of this game")
    roots = _roots(ls, done.folder)
    changes: dict[str, list] = {}
    seen: dict = {}
    for s in done.all_symbols().uses.get(span.id, ()):
        if not _inside(s.pos.file, roots):
            raise Refused(f"`{span.id}` is used in {s.pos.file}, outside the workspace (or reached through "
                          "a link leaving it): nothing is renamed")
        loc = _location(ls, s.pos, s.length, seen)
        changes.setdefault(loc.uri, []).append(lsp.TextEdit(range=loc.range, new_text=new))
    return lsp.WorkspaceEdit(changes=changes)


# ---- what a file holds, and quick fixes ---------------------------------------------

_KINDS = {"cards": lsp.SymbolKind.Object, "counters": lsp.SymbolKind.Variable, "zones": lsp.SymbolKind.Array,
          "decks": lsp.SymbolKind.Array, "procedures": lsp.SymbolKind.Function, "actions": lsp.SymbolKind.Method,
          "triggers": lsp.SymbolKind.Event, "phases": lsp.SymbolKind.Enum, "options": lsp.SymbolKind.Property}


@server.feature(lsp.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
@answered
def document_symbols(ls: RulepressServer, params: lsp.DocumentSymbolParams):
    """The file's sections, each with the things it declares."""
    uri = params.text_document.uri
    done = _checked(ls, uri)
    path = fs_path(uri)
    if done is None or done.model is None:
        return None
    shown = os.path.relpath(path)
    doc = done.model.src.docs.get(shown)
    lines = _lines(ls, uri)
    if type(doc) is not PMap:
        return []
    sections = sorted((pos.line, key) for key, pos in doc.key_pos.items())
    decls = sorted((d.pos.line, d.pos.col, iid, d.section) for iid, d in done.symbols.decls.items() if d.pos.file == shown)
    out = []
    for i, (line, key) in enumerate(sections):
        last = (sections[i + 1][0] - 1) if i + 1 < len(sections) else len(lines)
        children = []
        for dl, dc, iid, section in decls:
            if line <= dl <= last:
                r = _client_range(ls.workspace.position_codec, lines, dl - 1, dc - 1, dc - 1 + len(iid))
                node = done.symbols.decls[iid].node
                name = node.get("name") if isinstance(node, dict) else None
                detail = str(name.get("en") if isinstance(name, dict) else name or "") or None
                children.append(lsp.DocumentSymbol(name=iid, kind=_KINDS.get(section, lsp.SymbolKind.Constant),
                                                   range=r, selection_range=r, detail=detail))
        start = lsp.Position(line - 1, 0)
        end_line = max(line - 1, min(last, len(lines)) - 1)
        end = lsp.Position(end_line, len(lines[end_line]) if end_line < len(lines) else 0)
        head = _client_range(ls.workspace.position_codec, lines, line - 1, 0, len(str(key)))
        out.append(lsp.DocumentSymbol(name=str(key), kind=lsp.SymbolKind.Module, range=lsp.Range(start, end),
                                      selection_range=head, children=children))
    return out


_SUGGESTED = re.compile(r"did you mean `([^`]+)`\?")
_QUOTED = re.compile(r"`([^`]+)`")
_NO_TRANSLATION = re.compile(r"^text has no `([a-z]{2,3}(?:-[A-Za-z0-9]{2,8})*)` translation$")


@server.feature(lsp.TEXT_DOCUMENT_CODE_ACTION,
                lsp.CodeActionOptions(code_action_kinds=[lsp.CodeActionKind.QuickFix]))
@answered
def code_actions(ls: RulepressServer, params: lsp.CodeActionParams):
    """Quick fixes for the findings at the cursor: the name a "did you mean" suggests, and
    a missing translation (the text it has, to be translated)."""
    uri = params.text_document.uri
    if fs_path(uri) is None:
        return None
    lines = _lines(ls, uri)
    out = []
    for d in params.context.diagnostics:
        if d.source != "rulepress":
            continue
        fix = _suggestion_fix(ls, uri, lines, d) or _translation_fix(ls, uri, lines, d) or _terms_fix(ls, uri, lines, d)
        if fix is not None:
            out.append(fix)
    return out


def _suggestion_fix(ls, uri, lines, d) -> lsp.CodeAction | None:
    m = _SUGGESTED.search(d.message)
    if not m:
        return None
    codec = ls.workspace.position_codec
    start = codec.position_from_client_units(lines, d.range.start)
    end = codec.position_from_client_units(lines, d.range.end)
    if start.line >= len(lines) or start.line != end.line:
        return None
    text = lines[start.line]
    named = [w for w in _QUOTED.findall(d.message[:m.start()]) if WORD.fullmatch(w)]
    if not named:
        return None
    wrong = named[0]
    if text[start.character:end.character] == wrong:
        col = start.character
    else:  # the finding stands at its statement: the name is further on the line
        found = re.search(rf"(?<![A-Za-z0-9_]){re.escape(wrong)}(?![A-Za-z0-9_])", text[start.character:])
        if found is None:
            return None
        col = start.character + found.start()
    where = _client_range(ls.workspace.position_codec, lines, start.line, col, col + len(wrong))
    return lsp.CodeAction(title=f"Change `{wrong}` to `{m[1]}`", kind=lsp.CodeActionKind.QuickFix, diagnostics=[d],
                          is_preferred=True,
                          edit=lsp.WorkspaceEdit(changes={uri: [lsp.TextEdit(range=where, new_text=m[1])]}))


def _translation_fix(ls, uri, lines, d) -> lsp.CodeAction | None:
    m = _NO_TRANSLATION.match(d.message)
    if not m or d.code != "S101":
        return None
    codec = ls.workspace.position_codec
    at = codec.position_from_client_units(lines, d.range.start)
    if at.line >= len(lines):
        return None
    text = lines[at.line]
    lang = m[1]
    if text[at.character:at.character + 1] == "{":  # a flow map: `{en: Sabre}`
        first = re.match(r"\{\s*([\w-]+)\s*:\s*(\"(?:[^\"\\]|\\.)*\"|'(?:[^']|'')*'|[^,}]*)", text[at.character:])
        value = first[2].strip() if first else '""'
        where, new_text = lsp.Position(at.line, at.character + 1), f"{lang}: {value or chr(34) * 2}, "
    else:  # a block map: a line of its own, indented as its first key
        first = re.match(r"\s*(?:-\s+)?[\w-]+\s*:\s*(.*)$", text[at.character:])
        value = first[1].strip() if first and first[1].strip() and first[1].strip()[0] not in "|>" else '""'
        where, new_text = lsp.Position(at.line + 1, 0), " " * at.character + f"{lang}: {value}\n"
        if at.line + 1 > len(lines):
            return None
    pos = codec.position_to_client_units(lines, where) if where.line < len(lines) else where
    return lsp.CodeAction(title=f"Add the `{lang}` translation (a copy of the text, to translate)",
                          kind=lsp.CodeActionKind.QuickFix, diagnostics=[d],
                          edit=lsp.WorkspaceEdit(changes={uri: [lsp.TextEdit(range=lsp.Range(pos, pos), new_text=new_text)]}))


def _terms_fix(ls, uri, lines, d) -> lsp.CodeAction | None:
    """W019: the ids the rulebook prints as they are, each given an entry under `game: terms:`
    in game.yaml, its words in every language the game declares (the id in words, to be
    written as the game would say it)."""
    if d.code != "W019":
        return None
    path = fs_path(uri)
    done = ls.games.get(os.path.dirname(path)) if path and os.path.basename(path) == MANIFEST else None
    if done is None or not done.unnamed or done.tables() is None:
        return None
    from .compiler.render import LANGS, humanize
    langs = (done.tables().get("game") or {}).get("languages") or LANGS
    entries = [f"{i}: {{{', '.join(f'{lang}: {json.dumps(humanize(i), ensure_ascii=False)}' for lang in langs)}}}"
               for i in done.unnamed]
    edit = _terms_edit(lines, entries)
    if edit is None:
        return None
    (line, col), text = edit
    pos = ls.workspace.position_codec.position_to_client_units(lines, lsp.Position(line, col)) \
        if line < len(lines) else lsp.Position(line, col)
    what = f"`{done.unnamed[0]}`" if len(done.unnamed) == 1 else f"the {len(done.unnamed)} ids"
    return lsp.CodeAction(title=f"Give {what} words in `game: terms:`", kind=lsp.CodeActionKind.QuickFix,
                          diagnostics=[d], is_preferred=True,
                          edit=lsp.WorkspaceEdit(changes={uri: [lsp.TextEdit(range=lsp.Range(pos, pos), new_text=text)]}))


_GAME_KEY = re.compile(r"^game:\s*(#.*)?$")


def _terms_edit(lines: list, entries: list):
    """Where and what to insert into game.yaml's lines so `game: terms:` holds these entries
    (`id: {en: ..., ru: ...}`): ((line, column), text), or None for a layout it cannot read
    (the game map written as a flow map, an anchor)."""
    top = next((i for i, ln in enumerate(lines) if _GAME_KEY.match(ln)), None)
    if top is None:
        return None
    end = next((i for i in range(top + 1, len(lines)) if lines[i][:1] not in ("", " ", "#")), len(lines))
    body = [i for i in range(top + 1, end) if lines[i].strip() and not lines[i].lstrip().startswith("#")]
    indent = len(lines[body[0]]) - len(lines[body[0]].lstrip(" ")) if body else 2
    for i in body:
        m = re.match(rf"^ {{{indent}}}terms:[ \t]*(.*)$", lines[i])
        if m is None:
            continue
        rest = m[1]
        if rest.startswith("{"):  # terms: {a: ..., b: ...}
            col = lines[i].index("{", indent) + 1
            empty = rest[1:].lstrip().startswith("}")
            return (i, col), ", ".join(entries) + ("" if empty else ", ")
        if rest and not rest.startswith("#"):
            return None
        below = next((j for j in range(i + 1, end) if lines[j].strip() and not lines[j].lstrip().startswith("#")), None)
        inner = len(lines[below]) - len(lines[below].lstrip(" ")) if below is not None else indent + 2
        inner = inner if inner > indent else indent + 2
        return (i + 1, 0), "".join(" " * inner + e + "\n" for e in entries)
    return (top + 1, 0), " " * indent + "terms:\n" + "".join(" " * (indent + 2) + e + "\n" for e in entries)


# ---- hover -----------------------------------------------------------------------

@server.feature(lsp.TEXT_DOCUMENT_HOVER)
@answered
def hover(ls: RulepressServer, params: lsp.HoverParams):
    done, span = _span_at(ls, params.text_document.uri, params.position)
    if done is None:
        return None
    if span is not None and span.id in done.symbols.decls:
        text = describe(done.symbols.decls[span.id], span.id, done.model, done.tables())
    else:
        word = _word_at(ls, params.text_document.uri, params.position)
        text = (builtin_doc(word) or describe_word(word, done.model)) if word else None
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
@answered
def completion(ls: RulepressServer, params: lsp.CompletionParams):
    uri = params.text_document.uri
    pos = _here(ls, uri, params.position)
    done = _checked(ls, uri)
    if done is None:
        return None
    lines = _lines(ls, uri)
    here = lines[pos.line][:pos.character] if pos.line < len(lines) else ""
    K = lsp.CompletionItemKind
    key, section = context_key(lines, pos.line, pos.character)
    model = done.model

    def listed(items):
        return lsp.CompletionList(is_incomplete=False, items=items)

    before = effect_before(lines, pos.line, pos.character, key) if key in DSL_FIELDS and pos.line < len(lines) else None
    owner = attr_owner(here, before) if key in DSL_FIELDS or re.search(r"\.\w*$", here) else None
    if owner is not None:  # after `x.`: what a player has, or what a thing has
        return listed(_attr_items(model, owner))
    if re.fullmatch(r"\s*(-\s+)?\w*", here) and key not in DSL_FIELDS:  # where a key is written
        if here[:1] not in (" ", "-") and key is None:  # at the left margin: a section
            return listed([_item(s, K.Module, "section") for s in SECTIONS])
        return listed([_item(k, K.Property, f"{section} key") for k in keys_of(section)])
    events = [_item(e, K.Event, "event") for e in sorted(set(EVENTS) | set(model.emitted if model else ()))
              if e != "__all__"]
    if key == "on":  # a trigger's event
        return listed(events)
    ids = [_item(i, K.Reference, d.section[:-1] if d.section.endswith("s") else d.section)
           for i, d in sorted(done.symbols.decls.items())]
    if key not in DSL_FIELDS:
        return listed(ids)
    fits = slot(before, key) if before is not None else None
    if fits is None:  # the text before the cursor does not parse: everything that could be meant
        items = ids + [_item(n, K.Variable, BUILTIN_NAMES[n]) for n in sorted(BUILTIN_NAMES)]
        items += [_item(f, K.Function, FUNCTIONS[f][2]) for f in sorted(FUNCTIONS)]
        items += [_item(v, K.Keyword, "statement") for v in sorted(VERBS)]
        return listed(items + events)
    if fits.kind == "counter":
        counters = sorted(model.counters_of) if model else []
        return listed([_item(c, K.Variable, f"counter (one per {model.counters_of[c]})") for c in counters])
    items = [_item(w, K.Keyword, "statement" if fits.statement and w in VERBS else "keyword") for w in sorted(fits.keywords)]
    if fits.name:
        items += ids + [_item(n, K.Variable, BUILTIN_NAMES[n]) for n in sorted(BUILTIN_NAMES)]
        items += [_item(f, K.Function, FUNCTIONS[f][2]) for f in sorted(FUNCTIONS)]
        if fits.statement:
            items += events if re.search(r"\bemit\s+$", before) else []
    return listed(items)


def _attr_items(model, owner: str) -> list:
    """`player.`: the counters and zones every player has, and a player's built-ins; `x.`
    for a thing: the attributes, counters and zones things carry, and a thing's built-ins."""
    K = lsp.CompletionItemKind
    if model is None:
        return [_item(a, K.Field, BUILTIN_ATTRS[a]) for a in sorted(BUILTIN_ATTRS)]
    per_player = {k for k, s in list(model.counters_of.items()) + list(model.zones_of.items()) if s == "player"}
    per_player |= {k + "_discard" for k in per_player if k in model.by_section.get("decks", {})}
    if owner == "player_attr":
        names = per_player | {"id", "name", "seat"}
    elif owner == "thing_attr":
        names = {a for a in model.attrs if a not in per_player and a != "seat"}
    else:  # a name whose kind the text does not say
        names = set(model.attrs) | per_player
    return [_item(a, K.Field, BUILTIN_ATTRS.get(a) or ("counter" if a in model.counters_of else
                                                      "zone" if a in model.zones_of or a.endswith("_discard") else "attribute"))
            for a in sorted(names)]


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


def _interrupted(_signum, _frame) -> None:
    """Ctrl-C: the editor's end may still be open, so no waiting for it: one line, exit 130."""
    import sys
    try:
        sys.stderr.write("rulepress: interrupted\n")
        sys.stderr.flush()
    finally:
        os._exit(130)


def serve() -> None:
    import signal
    import sys
    quiet_logs()
    signal.signal(signal.SIGINT, _interrupted)
    server.start_io(_BoundedStdin(sys.stdin.buffer))

