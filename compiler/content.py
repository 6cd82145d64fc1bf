"""Finding a game's files, loading them and checking each against its JSON Schema."""
from __future__ import annotations

import functools
import json
import os
import re
from dataclasses import dataclass, field

from .. import runtime, schemas  # (their folders, found through the package)
from . import source, wording
from .diagnostics import Pos, Report, did_you_mean, printable
from .source import PMap, PList, load_file, locate

# Found through the package (`rulepress.schemas`, shipped as data), never a path above it;
# by its module's folder rather than importlib.resources, whose import costs every command.
SCHEMA_DIR = os.path.dirname(os.path.abspath(schemas.__file__))
RUNTIME_DIR = os.path.dirname(os.path.abspath(runtime.__file__))  # (the checker reads a few runtime modules)
MANIFEST = "game.yaml"
LIST_SECTIONS = ("counters", "zones", "decks", "cards", "pools", "pieces", "locations", "actions",
                 "procedures", "triggers", "icons")
SINGLE_SECTIONS = ("game", "flow", "scoring", "bot")
SECTIONS = SINGLE_SECTIONS + LIST_SECTIONS


class UsageError(Exception):
    """A problem with how the command was called, not with the content (exit 2)."""


@dataclass
class Item:
    """One entry of a list section, with the file it came from."""
    section: str
    data: PMap
    file: str


class Rows(PList):
    """A section's list read back from the validation cache's summary of an unchanged file:
    its first entry as it was, and the others as rows (id, line, col, kind) with the types
    of their attributes ([attribute, type, ...]): all that the checks of other files read
    of them (see cache.summaries)."""
    __slots__ = ("rows", "types")


class RowBlock:
    """The rows of a Rows list, as one entry of GameSource.items (see model._collect_ids)."""
    __slots__ = ("rows", "types")

    def __init__(self, rows, types):
        self.rows, self.types = rows, types


@dataclass
class GameSource:
    folder: str
    files: list[str] = field(default_factory=list)
    docs: dict = field(default_factory=dict)          # shown path -> loaded top-level map
    single: dict = field(default_factory=dict)        # section -> PMap
    items: dict = field(default_factory=lambda: {s: [] for s in LIST_SECTIONS})
    unbracketed: set = field(default_factory=set)     # shown paths of files whose text holds no `[` nor `\\`

    def sources(self) -> dict[str, str]:
        """Each file's shown path -> its path inside the game folder, with `/` between
        folders: how game.json names it, whatever folder the game was built from."""
        top = os.path.abspath(self.folder)
        return {shown: os.path.relpath(os.path.abspath(shown), top).replace(os.sep, "/") for shown in self.files}

    @property
    def game_id(self) -> str:
        g = self.single.get("game") or {}
        return str(g.get("id") or os.path.basename(os.path.normpath(self.folder)))


def find_games(paths: list[str]) -> list[str]:
    """Game folders named by PATHs: a game folder itself, or a folder of game folders."""
    games = []
    for path in paths:
        try:
            games += _games_in(path)
        except OSError as exc:  # unreadable, a link loop, not a folder after all...
            raise UsageError(f"{path}: cannot read: {exc.strerror or exc}") from None
    return games


def _games_in(path: str) -> list[str]:
    if not os.path.exists(path):
        why = "a link that loops" if os.path.islink(path) else "no such file or directory"
        raise UsageError(f"{path}: {why}")
    if os.path.isfile(path):
        folder = os.path.dirname(path) or "."
        # a file of a game stands for its game; any other file is no game (and the games
        # beside it were not asked for)
        if not (os.path.isfile(os.path.join(folder, MANIFEST)) or path.endswith((".yaml", ".yml"))):
            raise UsageError(f"{path}: not a game folder (nor a file in one)")
        path = folder
    elif not os.path.isdir(path):
        raise UsageError(f"{path}: not a game folder (nor a file in one)")
    if os.path.isfile(os.path.join(path, MANIFEST)):
        return [path]
    names = sorted(os.listdir(path))
    subs = [d for d in names if os.path.isfile(os.path.join(path, d, MANIFEST))]
    if not subs:
        # A folder with YAML but no manifest is content with an error, not a usage error.
        if any(f.endswith((".yaml", ".yml")) for f in names):
            return [path]
        raise UsageError(f"{path}: no game here (a game folder has a {MANIFEST})")
    return [os.path.join(path, d) for d in subs]


def shown_path(path: str) -> str:
    rel = os.path.relpath(path)
    return rel if not rel.startswith("..") else path


MAX_FOLDER_DEPTH = 32  # folders inside a game folder: no game needs more, a generated tree may


def yaml_files(folder: str, report: Report) -> list[str]:
    """Every *.yaml below the folder except scenarios, following links once each; a folder
    link that leads outside the game folder is an error, and not walked."""
    out, seen = [], set()

    def walk(d, depth=0):
        if depth > MAX_FOLDER_DEPTH:
            report.error(Pos(shown_path(d), 1, 1), "Y009", f"folders nest deeper than {MAX_FOLDER_DEPTH} levels; not read")
            return
        real = os.path.realpath(d)
        if real in seen:
            report.error(Pos(shown_path(d), 1, 1), "Y012", "folder link loops back to a folder already read; remove the link")
            return
        seen.add(real)
        try:
            entries = sorted(os.scandir(d), key=lambda e: e.name)
        except OSError as exc:
            report.error(Pos(shown_path(d), 1, 1), "Y009", f"cannot read folder: {exc.strerror}")
            return
        for e in entries:
            if e.name.startswith("."):
                continue
            if e.is_dir():
                if e.name in ("scenarios", "templates"):
                    continue
                if e.is_symlink() and source.leads_outside(folder, e.path):
                    report.error(Pos(shown_path(e.path), 1, 1), "Y009", "a folder link that leads outside the game folder; not read")
                    continue
                walk(e.path, depth + 1)
            elif e.name.endswith((".yaml", ".yml")):
                out.append(e.path)

    walk(folder)
    return out


@functools.lru_cache(maxsize=1)
def _schemas() -> dict:
    schemas = {}
    for name in os.listdir(SCHEMA_DIR):
        if name.endswith(".json"):
            with open(os.path.join(SCHEMA_DIR, name), encoding="utf-8") as fh:
                schemas[name] = json.load(fh)
    return schemas


@functools.lru_cache(maxsize=1)
def _inlined():
    """The file schema with every $ref replaced by what it names, or None if it cannot be."""
    schemas = _schemas()
    try:
        return _inline(schemas["content-file.json"], "content-file.json", schemas, ())
    except (KeyError, RecursionError, ValueError):  # a recursive or unusual $ref
        return None


@functools.lru_cache(maxsize=1)
def _validator():
    """The validator that explains: every error with its path. Used when a file is not valid."""
    import jsonschema  # imported here: a check served from the cache never needs it
    from referencing import Registry, Resource
    from jsonschema import ValidationError
    from jsonschema.validators import extend

    def pattern(validator, patrn, instance, schema):
        if validator.is_type(instance, "string") and not whole_pattern(patrn).search(instance):
            yield ValidationError(f"{instance!r} does not match {patrn!r}")
    Validator = extend(jsonschema.Draft7Validator, {"pattern": pattern})
    if _inlined() is not None:  # half the time of resolving references while checking
        # (without the sections' `$schema`, which would each check with plain Draft 7)
        return Validator(_without(_inlined(), "$schema"))
    schemas = _schemas()
    registry = Registry().with_resources((name, Resource.from_contents(s)) for name, s in schemas.items())
    return Validator(schemas["content-file.json"], registry=registry)


_DOLLAR = re.compile(r"(?<!\\)\$")


@functools.lru_cache(maxsize=None)
def whole_pattern(pattern: str) -> re.Pattern:
    """A schema's pattern as JSON Schema means it (ECMA-262, where `$` is the very end of
    the text): Python's `$` also matches before a final line break, which would let an id
    `city\n` through. The fast checks (fastjsonschema) read `$` the same way."""
    return re.compile(_DOLLAR.sub(r"\\Z", pattern))


@functools.lru_cache(maxsize=len(SECTIONS))  # (called only for the schema's own sections)
def _section_check(section: str):
    """A yes/no check of one top-level section, compiled to Python code from its schema
    (fastjsonschema, in memory): fifteen times faster than interpreting the schema, and
    most files are valid. Compiled per section on first use, so a file of cards compiles
    only the schema of cards."""
    import fastjsonschema
    check = fastjsonschema.compile(_strip_notes(_inlined()["properties"][section]))

    def valid(value) -> bool:
        try:
            check(value)
            return True
        except fastjsonschema.JsonSchemaException:
            return False
    return valid


def _without(node, key):
    if isinstance(node, dict):
        return {k: _without(v, key) for k, v in node.items() if k != key}
    if isinstance(node, list):
        return [_without(v, key) for v in node]
    return node


def section_schemas() -> dict:
    """Each top-level section's schema (keys and what they take), as editors complete them."""
    top = _inlined()
    return dict(top["properties"]) if top is not None else {}


def _strip_notes(node):
    if isinstance(node, dict):
        return {k: _strip_notes(v) for k, v in node.items() if k not in ("description", "$schema", "$id")}
    if isinstance(node, list):
        return [_strip_notes(v) for v in node]
    return node


def _valid(doc) -> bool:
    """Whether the file is valid, as fast as can be; False may also mean "cannot tell"."""
    top = _inlined()
    if top is None or not isinstance(doc, dict):
        return False
    sections = top["properties"]
    return all(key in sections and _section_check(key)(value) for key, value in doc.items())


def _inline(node, base, schemas, refs):
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str):
            name, _, fragment = ref.partition("#")
            if (name or base, fragment) in refs:
                raise ValueError(f"recursive $ref {ref}")
            target = schemas[name or base]
            for part in filter(None, fragment.split("/")):
                target = target[part]
            return _inline(target, name or base, schemas, refs + ((name or base, fragment),))
        return {k: _inline(v, base, schemas, refs) for k, v in node.items()}
    if isinstance(node, list):
        return [_inline(v, base, schemas, refs) for v in node]
    return node


def _schema_props(error) -> list[str]:
    return sorted((error.schema.get("properties") or {}).keys())


def schema_check(doc, shown: str, report: Report) -> None:
    if _valid(doc):
        return
    for err in _validator().iter_errors(doc):
        _report_schema_error(err, doc, shown, report)


def _leaf_errors(err):
    """For anyOf/oneOf, the branch errors say more than the summary."""
    if err.context:
        from jsonschema.exceptions import best_match
        best = best_match(err.context)
        return [best] if best is not None else [err]
    return [err]


def _report_schema_error(err, doc, shown, report):
    for e in _leaf_errors(err):
        path = list(e.absolute_path)
        pos = locate(doc, path) or Pos(shown, 1, 1)
        where = ".".join(str(p) for p in path) or "file"
        v = e.validator
        if v == "additionalProperties":
            allowed = _schema_props(e)
            for key in sorted(set(e.instance) - set(allowed)):
                kpos = e.instance.key_pos.get(key, pos) if isinstance(e.instance, PMap) else pos
                if not path:
                    report.error(kpos, "S001", f"unknown section `{key}`{did_you_mean(key, allowed) or '; sections are ' + ', '.join(SECTIONS)}")
                else:
                    report.error(kpos, "S001", f"unknown key `{key}` in {where}{did_you_mean(key, allowed)}")
        elif v == "required":
            missing = [k for k in e.validator_value if k not in e.instance]
            report.error(pos, "S002", f"{where} is missing required key `{missing[0] if missing else e.message}`")
        elif v == "type":
            want = e.validator_value if isinstance(e.validator_value, str) else " or ".join(e.validator_value)
            report.error(pos, "S003", f"{where} should be {_a(want)}, not {_kind(e.instance)}")
        elif v == "enum":
            opts = ", ".join(map(str, e.validator_value))
            report.error(pos, "S004", f"{where} is `{_short(e.instance)}`; expected one of {opts}{did_you_mean(e.instance, e.validator_value)}")
        elif v == "pattern":
            report.error(pos, "S005", f"{where} `{_short(e.instance)}` is not a valid id: use lower-case letters, digits and _ (like `city_hall`)")
        elif v in ("minimum", "maximum", "minItems", "minProperties"):
            report.error(pos, "S006", f"{where}: {e.message}")
        elif v == "maxItems":  # (the message would print the whole list)
            report.error(pos, "S006", f"{where}: {len(e.instance)} entries, at most {e.validator_value}")
        else:
            report.error(pos, "S000", f"{where}: {e.message}")


def _a(t: str) -> str:
    names = {"object": "a map", "array": "a list", "string": "text", "integer": "a whole number",
             "number": "a number", "boolean": "true or false"}
    return " or ".join(names.get(p.strip(), p) for p in t.split(" or "))


def _kind(v) -> str:
    if isinstance(v, bool):
        return f"`{str(v).lower()}` (true/false)"
    if isinstance(v, dict):
        return "a map"
    if isinstance(v, list):
        return "a list"
    if v is None:
        return "empty"
    if isinstance(v, (int, float)):
        return f"the number {v}"
    return f"text `{_short(v)}`"


def _short(v, limit=60) -> str:
    """A value as shown in a message: one line, never a whole megabyte."""
    s = printable(str(v))  # (a line break shown as `\n`: an id `city\n` is not `city `)
    return s if len(s) <= limit else s[:limit] + "…"


LANGUAGES = ("en", "ru")  # the languages a game is written in unless its manifest says `languages:`


def declared_languages(files) -> tuple:
    """The languages of the game whose files these are (see game_languages). Read before the
    files are checked: a text lacks a translation only into one of them."""
    for path in files:
        if os.path.basename(path) == MANIFEST:
            doc = load_file(path, MANIFEST, Report(), within=os.path.dirname(path) or ".")
            return game_languages(doc.get("game") if isinstance(doc, PMap) else None)
    return LANGUAGES


def game_languages(game) -> tuple:
    """The languages a game is written in: those its manifest declares (`languages:`), else
    those its name is written in (`name: {en: Sprint}`: English alone; `name: Sprint`: English),
    else all."""
    if not isinstance(game, dict):
        return LANGUAGES
    langs, name = game.get("languages"), game.get("name")
    if not (isinstance(langs, list) and langs):
        if isinstance(name, dict) and name:
            langs = list(name)
        elif isinstance(name, str):  # `name: Sprint`: a game in one language, English unless it says
            langs = [LANGUAGES[0]]
    if isinstance(langs, list) and langs and all(isinstance(x, str) and _LANGUAGE_TAG(x) for x in langs):
        return tuple(dict.fromkeys(sorted(langs, key=lambda x: (LANGUAGES.index(x) if x in LANGUAGES else len(LANGUAGES), x))))
    return LANGUAGES


_LANGUAGE_TAG = re.compile(r"[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})*").fullmatch  # BCP 47, as the schema has it


def check_languages(node, report, langs=LANGUAGES):
    """A player-facing text with a language missing is a warning, not an error; only the
    game's declared languages are missed. A text in a language the game does not declare
    (`rus:` for `ru:`) is read by no one: a warning too."""
    stack = [node] if type(node) is PMap or type(node) is PList else []
    want = set(langs)
    texts = _TEXT_KEYS | want
    while stack:
        n = stack.pop()
        if type(n) is PMap:
            keys = n.keys()
            text = keys <= texts
            if keys and text and not want <= keys:
                missing = [x for x in langs if x not in keys]
                report.warning(n.pos, "S101", f"text has no `{missing[0]}` translation")
            if not text and not _TEXT_KEYS.isdisjoint(keys) \
                    and all(type(v) is not PMap and type(v) is not PList for v in n.values()):
                for k in sorted(keys - texts):  # (a key the schema let through: a language tag)
                    if isinstance(k, str):
                        report.warning(n.key_pos.get(k, n.pos), "S102",
                                       f"text in `{printable(k)}`, a language the game does not declare "
                                       f"({', '.join(langs)}; `game: languages:`){did_you_mean(k, texts)}")
            stack += [v for v in n.values() if type(v) is PMap or type(v) is PList]
        else:  # (only maps and lists are put on the stack)
            stack += [v for v in n if type(v) is PMap or type(v) is PList]


_TEXT_KEYS = frozenset(("en", "ru"))


def load_game(folder: str, report: Report, check: bool = True) -> GameSource:
    """The game's files, loaded and checked one by one (`check`: with the schemas and the
    rest of check_file; without, only loaded, for a game whose findings are known)."""
    src = GameSource(folder)
    files = yaml_files(folder, report)
    langs = declared_languages(files)
    one = functools.partial(check_file if check else _load_only, langs=langs, within=folder)
    src.files = [shown_path(f) for f in files]
    if not any(os.path.basename(f) == MANIFEST for f in files):
        report.error(Pos(shown_path(os.path.join(folder, MANIFEST)), 1, 1), "G001",
                     f"game folder has no {MANIFEST}; it must hold the `game:` manifest")
    docs = {}
    for path, shown in zip(files, src.files):
        docs[shown] = one(path, shown, report)
        if shown in source.UNBRACKETED:
            src.unbracketed.add(shown)
    for shown, doc in docs.items():  # (what spans files is found once every file is loaded)
        if doc is not None:
            add_doc(src, shown, doc, report)
    return src


def _load_only(path: str, shown: str, report: Report, langs=LANGUAGES, within: str | None = None):
    doc = load_file(path, shown, report, within)
    if isinstance(doc, PMap) and len(langs) == 1:
        plain_texts(doc, langs[0])
    return doc if isinstance(doc, PMap) else None


_TEXT_FIELDS = frozenset(("name", "text", "summary", "round_name", "back"))  # player-facing texts (schemas: common text)


def plain_texts(doc, lang: str) -> None:
    """A game of one language may write a text as plain text, `name: Sprint`: each becomes
    `{lang: text}` where it stands, before the schemas see it. Every walk is bounded by the
    document, which the loader already bounded."""
    stack = [doc]
    while stack:
        n = stack.pop()
        if type(n) is PMap:
            for k, v in list(n.items()):
                if isinstance(v, source.PStr) and k in _TEXT_FIELDS:
                    n[k] = _in_language(v, lang)
                elif k == "notes" and type(v) is PList:
                    for i, item in enumerate(v):
                        if isinstance(item, source.PStr):
                            v[i] = _in_language(item, lang)
                elif k == "terms" and type(v) is PMap:  # words for ids: each a text
                    for t, word in list(v.items()):
                        if isinstance(word, source.PStr):
                            v[t] = _in_language(word, lang)
                elif type(v) is PMap or type(v) is PList:
                    stack.append(v)
        else:
            stack += [v for v in n if type(v) is PMap or type(v) is PList]


def _in_language(text, lang):
    m = PMap({lang: text})
    m.pos = text.pos
    m.key_pos = {lang: text.pos}
    m.val_pos = {lang: text.pos}
    return m


def check_file(path: str, shown: str, report: Report, langs=LANGUAGES, within: str | None = None):
    """Everything that can be checked in one file alone (and the game's languages); the loaded
    map, or None. `within`: the game's folder, which the file's real path may not leave."""
    doc = load_file(path, shown, report, within)
    if doc is None:
        return None
    if isinstance(doc, PMap) and len(langs) == 1:
        plain_texts(doc, langs[0])
    if not isinstance(doc, PMap):
        report.error(getattr(doc, "pos", Pos(shown, 1, 1)), "S003",
                     f"a content file is a map of sections ({', '.join(SECTIONS)}), not {_kind(doc)}")
        return None
    schema_check(doc, shown, report)
    check_languages(doc, report, langs)
    if os.path.basename(path) != MANIFEST and "game" in doc:
        report.error(doc.key_pos["game"], "G002", f"the `game:` manifest belongs in {MANIFEST}")
    if os.path.basename(path) == MANIFEST and "game" not in doc:
        report.error(doc.pos, "G003", f"{MANIFEST} must have a `game:` section")
    if os.path.basename(path) == MANIFEST and type(doc.get("game")) is PMap:
        _check_catalogues(doc["game"].get("languages"), report)
    return doc


def _check_catalogues(declared, report) -> None:
    """A declared language gets a rulebook only where rulepress has its message catalogue
    (compiler/messages/<tag>.yaml): say so at the tag rather than leave the book out unsaid."""
    if type(declared) is not PList:
        return
    have = wording.languages()
    for i, tag in enumerate(declared):
        if isinstance(tag, str) and _LANGUAGE_TAG(tag) and tag not in have:
            pos = declared.item_pos[i] if hasattr(declared, "item_pos") else declared.pos
            report.warning(pos, "S103", f"no rulebook in `{tag}`: rulepress has no message catalogue for it "
                                        f"(it has {', '.join(have)}; a new one is a file, docs/content.md#languages)")


def add_doc(src: GameSource, shown: str, doc: PMap, report: Report) -> None:
    """Add one file's sections to the game."""
    src.docs[shown] = doc
    for key, value in doc.items():
        if key in SINGLE_SECTIONS and isinstance(value, PMap):
            if key in src.single:
                first = src.single[key].pos
                report.error(doc.key_pos[key], "G004", f"section `{key}` is already given at {first}; a game has one")
            else:
                src.single[key] = value
        elif key in LIST_SECTIONS and isinstance(value, PList):
            for item in value:
                if isinstance(item, PMap):
                    src.items[key].append(Item(key, item, shown))
            if type(value) is Rows:
                src.items[key].append(Item(key, RowBlock(value.rows, value.types), shown))
