"""Re-validating after an edit: each file's findings, kept by the hash of its bytes.

A full check parses every effect of the game. After an edit only the edited files need
that. For every file the cache keeps its findings and a *summary*: the file's
declarations, with each effect replaced by a few lines that use the same names, emit the
same events and call the same procedures. An edited file is checked in full against the
summaries of the others. If its own summary did not change, nothing the other files'
findings depend on changed, so theirs still hold; otherwise the whole game is checked
again. Same answers as a full check, just sooner (tests/test_cache.py holds the two together).
The cache also keeps the statements the game's effects are made of, parsed (dsl.pieces), so
that a re-check or a build parses only statements it never met.

The cache is plain JSON written by this module under ~/.cache/rulepress/validate/
(`RULEPRESS_CACHE_DIR` moves it, `RULEPRESS_NO_CACHE=1` turns it off), a folder per game
folder, at most MAX_GAMES of them. Every file of it is sealed (_sealed): a first line names
the checker that wrote it and an HMAC of the rest, keyed by a key private to the user (made
on first use in the cache folder, readable by its owner alone: see _key). A file that cannot
be read, is not sealed by this checker with this key, or holds anything but the shapes
written here is ignored, and the game is checked in full again; without a key of the user's
own nothing is kept or trusted.
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import hmac
import json
import os
import re
import stat

from . import dsl
from .content import RUNTIME_DIR, SCHEMA_DIR, GameSource, Rows, add_doc, check_file, declared_languages, load_game, \
    shown_path, yaml_files
from .diagnostics import Diagnostic, Pos, Report
from .memory import no_collection
from .names import BUILTIN_NAMES
from .model import BUILTIN_ZONES, attr_type, build_model
from .source import NotReadable, PList, PMap, PStr, read_bytes

FORMAT = 2
MAX_GAMES = 64  # game folders kept in the cache folder; the least recently checked go first
PLAYER_TEXT = {"name", "text"}  # read by the rulebook, not by any check across files


def enabled() -> bool:
    return os.environ.get("RULEPRESS_NO_CACHE", "") in ("", "0")


def cache_dir() -> str:
    if os.environ.get("RULEPRESS_CACHE_DIR"):
        return os.environ["RULEPRESS_CACHE_DIR"]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache")
    return os.path.join(base, "rulepress", "validate")


@functools.lru_cache(maxsize=1)
def checker_version() -> str:
    """A new checker or new schemas make every old entry stale.

    The checker is this module and every compiler module it imports, directly or not,
    with the grammar and the schemas; the rulebook, printing and the command line are not."""
    here = os.path.dirname(os.path.abspath(__file__))
    runtime = RUNTIME_DIR
    todo, seen = [os.path.join(here, "cache.py")], set()
    while todo:
        path = todo.pop()
        if path in seen or not os.path.isfile(path):
            continue
        seen.add(path)
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        base = os.path.dirname(path)
        todo += [os.path.join(base, n + ".py") for n in re.findall(r"^\s*from \.(\w+) import", text, re.M)]
        for names in re.findall(r"^\s*from \. import ([\w, ]+)", text, re.M):
            todo += [os.path.join(base, n.strip() + ".py") for n in names.split(",")]
        # the checker shares a few runtime modules (the IR walker)
        todo += [os.path.join(runtime, n + ".py") for n in re.findall(r"^\s*from \.\.runtime\.(\w+) import", text, re.M)]
    h = hashlib.sha1(f"{FORMAT}".encode())
    paths = sorted(seen) + [os.path.join(here, "dsl.lark")]
    paths += [os.path.join(SCHEMA_DIR, n) for n in sorted(os.listdir(SCHEMA_DIR)) if n.endswith(".json")]
    for path in paths:
        with open(path, "rb") as fh:
            h.update(os.path.basename(path).encode() + b"\0" + fh.read())
    return h.hexdigest()


def validate_game(folder: str) -> Report:
    """The report a full check of the game's content gives, from the cache where it still
    holds (its scenarios are checked by pipeline.validate_game, against the game)."""
    with no_collection():
        return _validate(folder)


def _validate(folder: str) -> Report:
    walk = Report()
    files = yaml_files(folder, walk)
    shown = [shown_path(f) for f in files]
    hashes = {s: _hash(f, folder) for f, s in zip(files, shown)}
    store = _Store(folder)
    rec = store.index()
    usable = (rec is not None and not walk.items and rec["files"] == shown and not rec["other"]
              and None not in hashes.values())
    if usable:
        changed = [s for s in shown if rec["hash"].get(s) != hashes[s]]
        if not changed:
            return _report(d for s in shown for d in rec["diags"][s])
        summary = store.summaries(rec)
        if summary is not None:
            with store.pieces(keep_known=True):
                report = _incremental(folder, files, shown, changed, rec, summary, hashes)
            if report is not None:
                store.write_index(rec)
                return report
    with store.pieces():
        report, rec, summary = _full(folder, shown, hashes)
    store.write_all(rec, summary)
    return report


def known_report(folder: str) -> Report | None:
    """The report a full check of the folder gives, when the cache holds it for exactly the
    files there now (the same ones, byte for byte); None otherwise. Checks nothing itself."""
    if not enabled():
        return None
    walk = Report()
    files = yaml_files(folder, walk)
    shown = [shown_path(f) for f in files]
    rec = _Store(folder).index()
    if rec is None or walk.items or rec["files"] != shown or rec["other"]:
        return None
    for f, s in zip(files, shown):
        h = _hash(f, folder)
        if h is None or rec["hash"].get(s) != h:
            return None
    return _report(d for s in shown for d in rec["diags"][s])


def parsed_statements(folder: str):
    """Within this, statements of effects parse from the cache when the folder's effects
    had them before (see dsl.pieces); new ones are kept for next time."""
    return _Store(folder).pieces()


def _full(folder, shown, hashes):
    report = Report()
    src = load_game(folder, report)
    model = build_model(src, report) if src.docs else None
    rec = {"version": checker_version(), "stamp": os.urandom(8).hex(), "files": shown, "hash": hashes,
           "diags": {s: [] for s in shown}, "other": [], "iface": {}}
    summary = {"stamp": rec["stamp"], "stubs": {}, "uses": {}}  # each file's as JSON text
    for d in report.items:
        rec["diags"].get(d.pos.file, rec["other"]).append(_plain(d))
    if model is not None:
        for s, (stub, uses) in summaries(model).items():
            summary["stubs"][s], summary["uses"][s], rec["iface"][s] = stub, uses, _iface_of_text(stub, uses)
    return report, rec, summary


def _incremental(folder, files, shown, changed, rec, summary, hashes):
    """Check the changed files against the others' summaries; None if that is not enough."""
    report = Report()
    src = GameSource(folder)
    src.files = list(shown)
    changed_set = set(changed)
    pooled = {"n": set(), "e": {}}  # what the unchanged files' effects use (see summaries)
    langs = declared_languages(files)
    for path, s in zip(files, shown):
        if s in changed_set:
            doc = check_file(path, s, report, langs, within=folder)
        elif summary["stubs"].get(s) is not None:
            try:
                doc, uses = _decode_text(summary["stubs"][s], s), json.loads(summary["uses"][s])
                pooled["n"].update(uses["n"])
                pooled.setdefault("m", set()).update(uses.get("m", ()))
                for ev, names in uses["e"].items():
                    pooled["e"].setdefault(ev, set()).update(names)
            except (ValueError, TypeError, KeyError, AttributeError):
                return None  # a summary not of our making: check everything
        else:
            doc = None
        if doc is not None:
            add_doc(src, s, doc, report)
    try:
        known = _facts_of(src, set(shown) - changed_set)
        model = build_model(src, report, only=changed_set, pooled=pooled, known=known)
    except (TypeError, ValueError, KeyError, AttributeError, IndexError):
        return None  # rows of a summary not of our making: check everything
    now = summaries(model, only=changed_set)
    for s in changed:
        if (s in now) != (summary["stubs"].get(s) is not None):
            return None
        if s in now and _iface_of_text(*now[s]) != rec["iface"].get(s):
            return None
    for s in changed:
        rec["diags"][s] = [_plain(d) for d in report.items if d.pos.file == s]
        rec["hash"][s] = hashes[s]
    return _report(d for s in shown for d in rec["diags"][s])


# ---- summaries -----------------------------------------------------------------

def summaries(model, only=None) -> dict:
    """file -> (its declarations, what its effects use), each as compact JSON text.

    A procedure keeps what its effect names, calls and emits (which procedures it calls
    decides whether procedures call themselves); all other effects of a file are pooled
    into the names they use and the events they emit. Local names (`let`, loop names)
    are left out: they matter to no other file, and any change to the declared ids
    changes some file's summary, which forces a full check.
    """
    ids = set(model.ids)
    subst, drop, uses = {}, {}, {}  # id(map) -> {key: its effect's stand-in} / {keys that go}
    for sec, iid, field, text, bound, is_expr, node in model.sites:
        key = "effect" if field.startswith("thresholds.") else field.split(".")[-1]
        found = model.facts.get((sec, iid, field)) if (sec, iid, field) in model.ir else None
        if sec == "procedures":
            subst.setdefault(id(node), {})[key] = _facts_list(_uses(found or (set(), set(), {}), ids))
            continue
        drop.setdefault(id(node), set()).add(key)
        if found is not None:
            u = uses.setdefault(node.pos.file, {"n": set(), "e": {}})
            found = _uses(found, ids)
            u["n"] |= found["n"]
            for ev, names in found["e"].items():
                u["e"].setdefault(ev, set()).update(names)
    docs, out = model.src.docs, {}
    for file in docs:
        if only is not None and file not in only:
            continue
        u = uses.get(file, {"n": set(), "e": {}})
        out[file] = (_compact(_encode(docs[file], subst, drop, 0, ids)),
                     _compact({"n": sorted(u["n"]), "e": {k: sorted(v) for k, v in sorted(u["e"].items())},
                               "m": sorted(model.marks_by_file.get(file, ()))}))  # see lint
    return out


def _uses(found, ids) -> dict:
    """The declared things an effect names or calls, and the events it emits with their names
    (from the effect's facts, see model.facts)."""
    names, calls, emits = found
    return {"n": names & ids, "c": calls & ids, "e": emits}


def _facts_list(uses) -> list:
    """A procedure's effect in a summary: what it names, calls and emits (see model.facts),
    as plain lists, in place of its text (a re-check reads it back with _facts_of)."""
    return ["facts", sorted(uses["n"]), sorted(uses["c"]), [[ev, sorted(names)] for ev, names in sorted(uses["e"].items())]]


def _facts_of(src, files) -> dict:
    """The facts lists the procedures of these files hold in place of effects (see
    _facts_list), taken out of them: {(section, id, field): (names, calls, emits)}."""
    out = {}
    for item in src.items["procedures"]:
        d = item.data
        if item.file not in files or not isinstance(d.get("id"), str):
            continue
        for key, v in list(d.items()):
            if type(v) is list and len(v) == 4 and v[0] == "facts":
                del d[key]
                out["procedures", d["id"], key] = (set(v[1]), set(v[2]), {ev: set(names) for ev, names in v[3]})
    return out


def _encode(v, subst, drop, depth, ids=None):
    """A loaded value as plain JSON: maps {"m": [key, value, ...]}, lists {"l": [...]}.

    Effects become what `subst` says or go (`drop`); player-facing texts go. Only the
    positions that findings about other files quote are kept: where each section and
    each id stands. A file's cards are rows where they can be (see _rows; `ids` are the
    game's)."""
    t = type(v)
    if t is PMap:
        flat = []
        put = subst.get(id(v), ())
        gone = drop.get(id(v), ())
        for k, x in v.items():
            if k in put:
                x = put[k]
            elif k in gone or (k in PLAYER_TEXT and type(x) is PMap and set(x) <= {"en", "ru"}):
                continue
            tx = type(x)
            if depth == 0 and k in ROW_SECTIONS and tx is PList and ids is not None:
                rows = _rows(x, subst, ids)
                if rows is not None:
                    flat += [k, {"l": [_encode(x[0], subst, drop, 2)], **rows}]
                    continue
            flat += [k, _encode(x, subst, drop, depth + 1) if tx is PMap or tx is PList or tx is PStr else x]
        out = {"m": flat}
        if depth == 1:
            out["p"] = list(v.pos[1:])
        if "id" in v and v.val_pos.get("id"):
            out["i"] = list(v.val_pos["id"][1:])
        return out
    if t is PList:
        return {"l": [_encode(x, subst, drop, depth + 1) for x in v]}
    return str(v) if isinstance(v, str) else v


# A game's cards are most of its entries, and the checks of other files read little of
# them: in a summary, all but a file's first card are rows of just that (content.Rows).
ROW_SECTIONS = ("cards",)


def _rows(items, subst, ids) -> dict | None:
    """{"rows": [id, line, col, kind] for each entry but the first, "types": [attribute,
    type, ...] of their attributes}, or None where one of them is anything else than a map
    whose id, kind and attributes the model reads as such (the list is then summarised in
    full, and read as before)."""
    if len(items) < 2:
        return None
    rows, types = [], {}
    for c in items[1:]:
        if type(c) is not PMap or id(c) in subst:
            return None
        iid, kind, attrs = c.get("id"), c.get("kind"), c.get("attrs")
        if not isinstance(iid, str) or iid in BUILTIN_NAMES or iid in BUILTIN_ZONES \
                or not (kind is None or isinstance(kind, str)) or not (attrs is None or type(attrs) is PMap):
            return None
        if attrs:
            for k, v in attrs.items():
                types[str(k), attr_type(v, ids)] = None
        at = c.val_pos.get("id") or c.pos
        rows.append([str(iid), at.line, at.col, None if kind is None else str(kind)])
    return {"rows": rows, "types": [x for pair in types for x in pair]}


def _decode_text(text: str, file: str) -> PMap:
    """A file's summary (JSON text, see _encode) back into loaded values; positions nobody
    quotes are all one dummy. Every JSON object of a summary is a map or a list of the file,
    so the decoder builds them as it reads."""
    dummy = Pos(file, 0, 0)
    pos_of = {}  # (line, col) -> Pos: a place is quoted once or twice at most, but cheaply kept

    def at(lc):
        key = (lc[0], lc[1])
        p = pos_of.get(key)
        if p is None:
            p = pos_of[key] = Pos(file, lc[0], lc[1])
        return p

    def node(o):
        a = o.get("m")
        if a is not None:
            out = PMap(zip(a[::2], a[1::2]))
            out.pos = at(o["p"]) if "p" in o else dummy
            out.val_pos = {"id": at(o["i"])} if "i" in o else {}
            out.key_pos = {}
            return out
        if "rows" in o:
            out = Rows(o["l"])
            out.rows, out.types = o["rows"], o["types"]
        else:
            out = PList(o["l"])
        out.pos = dummy
        out.item_pos = [dummy] * len(out)
        return out

    doc = json.loads(text, object_hook=node)
    if type(doc) is not PMap:
        raise TypeError("a summary is a map")
    doc.key_pos = dict.fromkeys(doc, doc.pos)
    return doc


def _iface_of_text(stub: str, uses: str) -> str:
    return hashlib.sha1((stub + "\n" + uses).encode()).hexdigest()


_compact = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


# ---- storage -------------------------------------------------------------------

def _hash(path, within=None):
    try:  # (only a regular file of a content file's size: the loader reports the others)
        return hashlib.sha1(read_bytes(path, within=within)).hexdigest()
    except NotReadable:
        return None


def _plain(d: Diagnostic) -> list:
    return [d.pos.file, d.pos.line, d.pos.col, d.severity, d.code, d.message]


def _report(diags) -> Report:
    """A report of diagnostics as _plain gives them, checked already (diagnostics_of)."""
    report = Report()
    report.items = [Diagnostic(Pos(f, line, col), sev, code, msg) for f, line, col, sev, code, msg in diags]
    return report


def _is_diagnostic(d) -> bool:
    return (type(d) is list and len(d) == 6 and type(d[0]) is str and type(d[1]) is int and type(d[2]) is int
            and d[3] in ("error", "warning") and type(d[4]) is str and type(d[5]) is str)


def diagnostics_of(found) -> list | None:
    """Diagnostics read back (a list of what _plain gives), or None where that is not what they are."""
    if type(found) is not list or not all(_is_diagnostic(d) for d in found):
        return None
    return found


def _is_index(rec) -> bool:
    """Whether a read index has the shape write_all gives it."""
    if not (type(rec) is dict and rec.get("version") == checker_version() and type(rec.get("stamp")) is str):
        return False
    files, hashes, diags, iface = rec.get("files"), rec.get("hash"), rec.get("diags"), rec.get("iface")
    return (type(files) is list and all(type(f) is str for f in files)
            and type(hashes) is dict and all(type(h) is str for h in hashes.values())
            and type(diags) is dict and set(diags) == set(files)
            and all(diagnostics_of(d) is not None for d in diags.values())
            and diagnostics_of(rec.get("other")) is not None
            and type(iface) is dict and all(type(v) is str for v in iface.values()))


class _Store:
    """The cache of one game folder: an index (hashes and findings), the files' summaries,
    and the statements its effects are made of, parsed. Only sealed JSON written here is
    read back; whatever is read is checked for shape before use."""

    def __init__(self, folder):
        self.dir = os.path.join(cache_dir(), hashlib.sha1(os.fsencode(os.path.realpath(folder))).hexdigest())

    @contextlib.contextmanager
    def pieces(self, keep_known=False):
        """Statements parsed before by this checker at hand while parsing (dsl.add_pieces),
        and those met meanwhile kept for next time (with the known ones if `keep_known`).
        One file per game: a few hundred statements make thousands of effects."""
        path = os.path.join(self.dir, "statements.json")
        known = _load(path) if enabled() else None
        known = known if isinstance(known, dict) else {}
        dsl.add_pieces(known)
        outer, dsl.USED = dsl.USED, set()
        try:
            yield
        finally:
            used, dsl.USED = dsl.USED, outer
            if outer is not None:
                outer |= used
            now = dsl.pieces(used | set(known) if keep_known else used)
            if enabled() and now.keys() != known.keys():
                _save(path, now)

    def index(self):
        rec = _load(os.path.join(self.dir, "index.json"))
        return rec if _is_index(rec) else None

    def summaries(self, rec):
        """The summaries written with this index: each file's stub and uses as JSON text,
        read back only for the files a check needs (see write_all)."""
        body = _read_sealed(os.path.join(self.dir, "summaries.jsonl"))
        if body is None:
            return None
        lines = body.split("\n")
        try:
            head = json.loads(lines[0])
            names = head["files"]
            ok = (head["stamp"] == rec["stamp"] and isinstance(names, list) and len(lines) == 2 * len(names) + 1
                  and all(isinstance(n, str) for n in names))
        except (ValueError, KeyError, TypeError, IndexError):
            return None
        if not ok:
            return None
        return {"stamp": head["stamp"], "stubs": dict(zip(names, lines[1::2])), "uses": dict(zip(names, lines[2::2]))}

    def write_index(self, rec):
        _save(os.path.join(self.dir, "index.json"), rec)

    def write_all(self, rec, summary):
        """`summary` holds each file's stub and uses as JSON text already (see _full): a line
        each (compact JSON has no line break), after a line naming the files."""
        names = list(summary["stubs"])
        lines = [_compact({"stamp": summary["stamp"], "files": names})]
        for f in names:
            lines += [summary["stubs"][f], summary["uses"][f]]
        _save_text(os.path.join(self.dir, "summaries.jsonl"), _sealed("\n".join(lines)))
        _save(os.path.join(self.dir, "index.json"), rec)
        _prune(self.dir)


def _prune(kept: str) -> None:
    """At most MAX_GAMES game folders in the cache folder: the least recently written go."""
    import shutil  # (only here: its import costs every command more than this takes)
    root = os.path.dirname(kept)
    try:
        games = [e for e in os.scandir(root) if e.is_dir(follow_symlinks=False) and len(e.name) == 40]
        if len(games) <= MAX_GAMES:
            return
        games.sort(key=lambda e: e.stat(follow_symlinks=False).st_mtime, reverse=True)
        for e in games[MAX_GAMES:]:
            if e.path != kept:
                shutil.rmtree(e.path, ignore_errors=True)
    except OSError:
        pass  # a cache that cannot be tidied only costs room


# ---- sealed files ----------------------------------------------------------------
# A cache file is a first line {"version": who wrote it, "mac": HMAC-SHA256 of the version
# and the rest}, then the rest. A file cut short, changed by hand, written by another checker
# or planted by anyone without the user's key does not match its seal and is not read.
# A digest alone would prove nothing: whoever can write a file can compute its digest.
# (Paths are kept as the system gives them: a folder name that is not UTF-8 holds lone
# surrogates, which "surrogatepass" writes and reads back unchanged.)

KEY_NAME = "seal.key"
KEY_BYTES = 32


def _key() -> bytes | None:
    return _key_in(cache_dir()) if enabled() else None


@functools.lru_cache(maxsize=8)
def _key_in(folder: str) -> bytes | None:
    """The key that seals this user's cache files: random bytes in the cache folder, made on
    first use with mode 0600. None where it cannot be made, or is not a regular file of the
    user's that no one else may read or write (a link, another user's, mode 0644): then no
    cache file is written, and none is trusted."""
    path = os.path.join(folder, KEY_NAME)
    nofollow = getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, os.O_RDONLY | nofollow)
    except FileNotFoundError:
        try:
            os.makedirs(folder, mode=0o700, exist_ok=True)
            tmp = f"{path}.{os.getpid()}-{os.urandom(4).hex()}.tmp"
            with open(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | nofollow, 0o600), "wb") as fh:
                fh.write(os.urandom(KEY_BYTES))
            try:
                os.link(tmp, path)  # whole or not at all; where another process won, its key is the key
            except FileExistsError:
                pass
            finally:
                os.remove(tmp)
            fd = os.open(path, os.O_RDONLY | nofollow)
        except OSError:
            return None
    except OSError:
        return None
    with open(fd, "rb") as fh:
        info = os.fstat(fh.fileno())
        if not stat.S_ISREG(info.st_mode):
            return None
        if os.name == "posix" and (info.st_mode & 0o077 or info.st_uid != os.geteuid()):
            return None
        key = fh.read(KEY_BYTES + 1)
    return key if len(key) == KEY_BYTES else None


def _mac(key: bytes, version: str, body: str) -> str:
    return hmac.new(key, version.encode("utf-8") + b"\0" + body.encode("utf-8", "surrogatepass"), hashlib.sha256).hexdigest()


def _sealed(body: str, version: str | None = None) -> str | None:
    """The sealed text, or None where the user has no key (then nothing is written)."""
    key = _key()
    if key is None:
        return None
    version = version or checker_version()
    return _compact({"version": version, "mac": _mac(key, version, body)}) + "\n" + body


def _unsealed(text: str, version: str | None = None) -> str | None:
    """The body of a sealed text, or None where the seal does not match."""
    head, nl, body = text.partition("\n")
    try:
        seal = json.loads(head) if nl else None
    except ValueError:
        return None
    version = version or checker_version()
    key = _key()
    if not (key is not None and type(seal) is dict and seal.get("version") == version and type(seal.get("mac")) is str
            and hmac.compare_digest(seal["mac"], _mac(key, version, body))):
        return None
    return body


def _read_sealed(path: str, version: str | None = None) -> str | None:
    if not enabled():
        return None
    try:
        with open(path, encoding="utf-8", errors="surrogatepass") as fh:
            return _unsealed(fh.read(), version)
    except (OSError, ValueError):  # (UnicodeDecodeError is a ValueError)
        return None


def _load(path):
    body = _read_sealed(path)
    try:
        return json.loads(body) if body is not None else None
    except (ValueError, RecursionError):
        return None


def _save(path, data) -> None:
    _save_text(path, _sealed(_compact(data)))


def _save_text(path, text: str | None) -> None:
    if not enabled() or text is None:
        return
    # a name of its own (not tempfile's: its import costs more than this whole write)
    tmp = f"{path}.{os.getpid()}-{os.urandom(4).hex()}.tmp"
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "wb") as fh:
            fh.write(text.encode("utf-8", "surrogatepass"))
        os.replace(tmp, path)
    except OSError:  # a cache that cannot be written only costs time
        with contextlib.suppress(OSError):
            os.remove(tmp)
