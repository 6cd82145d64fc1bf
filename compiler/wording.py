"""Message catalogues: the rulebook's own words, one file per language.

`compiler/messages/<lang>.yaml` holds a language's headings and fixed phrases (`labels`),
its words that change with a number (`words`, a form per CLDR plural category, which Babel
picks for a number by the language's tag) and the sentences that say effects in
words (`sentences`, with a case asked of each value where the language has cases). A new language is a new file:
every key of the English file must be in it, and a missing one is an error when the
catalogue is read, never an English word in a rulebook of another language.
"""
from __future__ import annotations

import functools
import os
import re

import babel
import yaml

MESSAGES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "messages")
REFERENCE = "en"  # the catalogue every other one must match key for key
PROSE = ("en", "ru")  # languages the effect renderer (render.py) has sentence builders for
MAX_CATALOGUE_BYTES = 256 * 1024
_LANG_FILE = re.compile(r"([a-z]{2,3}(?:-[A-Za-z0-9]{2,8})*)\.yaml").fullmatch
_PLACE = re.compile(r"\{([a-z_][a-z0-9_]*)(?:\|([a-z_][a-z0-9_]*))?\}")
_SLOT = re.compile(r"\{([a-z_][a-z0-9_]*|\d)(?::([ngdaip]))?\}")  # a sentence's value, in a case
_NAMES = re.compile(r"\{([a-z_][a-z0-9_]*|\d)[:|}]")  # the value names of any message


class CatalogueError(Exception):
    """A catalogue that cannot be used: which file and why, in one line."""


def languages(folder: str | None = None) -> tuple:
    """The languages there is a catalogue for: English first, then by tag."""
    folder = folder or MESSAGES
    try:
        names = os.listdir(folder)
    except OSError:
        return ()
    found = sorted(m.group(1) for m in map(_LANG_FILE, names) if m)
    return tuple(sorted(found, key=lambda lang: (lang != REFERENCE, lang)))


# ---- plural categories: CLDR's, through Babel ---------------------------------------

def plural_locale(lang: str, given: str | None, where: str):
    """The Babel locale whose CLDR plural rules a catalogue's counts follow: its own tag's,
    or the one its `language: locale:` names for a tag CLDR does not know."""
    try:
        return babel.Locale.parse((given or lang).replace("-", "_"))
    except (babel.UnknownLocaleError, ValueError, TypeError):
        raise CatalogueError(f"{where}: CLDR has no plural rules for `{given or lang}` "
                             f"(name a known locale as language: locale:)") from None


# ---- a language's catalogue -------------------------------------------------------

class Catalogue:
    """One language's messages, checked against the reference catalogue's keys."""

    def __init__(self, lang: str, data: dict, where: str):
        self.lang, self.where = lang, where
        self.labels: dict = data["labels"]
        self.sentences: dict = data["sentences"]
        self.functions: dict = data["functions"]
        self.names: dict = data["names"]
        self.words: dict = data["words"]
        self.numbers: list = data.get("numbers") or []
        self.language: dict = data["language"]
        self.prose: str = self.language["prose"]
        self._data = data
        if "plural" in data:  # (the rules were once written out here; CLDR's are Babel's now)
            raise CatalogueError(f"{where}: plural: the plural rules come from CLDR through Babel; "
                                 f"remove the section (language: locale: names the locale for an unknown tag)")
        self.plural = plural_locale(lang, self.language.get("locale"), where).plural_form

    def without(self, part: str) -> "Catalogue":
        """The same messages with a part of them left out everywhere (the game's own name for
        its round, where it is the plain word)."""
        data = dict(self._data, labels={k: v.replace(part, "") for k, v in self.labels.items()},
                    words={w: {c: f.replace(part, "") for c, f in forms.items()} for w, forms in self.words.items()})
        return Catalogue(self.lang, data, self.where)

    def category(self, n) -> str:
        """The CLDR plural category of a whole number; `other` for anything else."""
        if type(n) is not int:
            return "other"
        return self.plural(abs(n))

    def counted(self, word: str, n, **args) -> str:
        """A word in the form the number wants: `=N` forms first, then the plural category."""
        forms = self.words[word]
        form = forms.get(f"={n}") if type(n) is int else None
        if form is None:
            form = forms.get(self.category(n), forms["other"])
        return self.fill(form, n=n, n_words=self.number_words(n), **args)

    def number_words(self, n) -> str:
        return str(self.numbers[n]) if type(n) is int and 0 <= n < len(self.numbers) else str(n)

    def say(self, key: str, **args) -> str:
        """A label with its values put in: `{x}` a value, `{n|word}` the word counted by n."""
        return self.fill(self.labels[key], **args)

    def sentence(self, key: str, **values) -> str:
        """An effect's sentence: `{x}` the value in words, `{x:a}` in a case (a value
        without cases, such as a number, reads the same in each)."""
        return self.put(self.sentences[key], values)

    def put(self, template: str, values: dict) -> str:
        def put(m):
            v = values[m.group(1)]
            return v.c(m.group(2)) if m.group(2) and hasattr(v, "c") else str(v)
        return _SLOT.sub(put, template)

    def fill(self, template: str, **args) -> str:
        def put(m):
            name, word = m.group(1), m.group(2)
            if word is None:
                return str(args[name])
            return self.counted(word, args[name], **{k: v for k, v in args.items() if k != "n"})
        return _PLACE.sub(put, template)


def _read(path: str, shown: str) -> dict:
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_CATALOGUE_BYTES + 1)
    except OSError as exc:
        raise CatalogueError(f"{shown}: cannot be read: {exc.strerror}") from None
    if len(data) > MAX_CATALOGUE_BYTES:
        raise CatalogueError(f"{shown}: larger than {MAX_CATALOGUE_BYTES} bytes")
    try:
        doc = yaml.load(data, Loader=yaml.SafeLoader)  # (plain data only: no tag makes an object)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        at = f":{mark.line + 1}:{mark.column + 1}" if mark else ""
        raise CatalogueError(f"{shown}{at}: not YAML: {getattr(exc, 'problem', None) or exc}") from None
    if not isinstance(doc, dict):
        raise CatalogueError(f"{shown}: expected a map of sections")
    return doc


def _keys(doc: dict) -> set:
    """Every message key of a catalogue, as section.key (the plural rules are the language's own)."""
    out = set()
    for section in ("language", "labels", "words", "sentences", "functions", "names"):
        value = doc.get(section)
        if isinstance(value, dict):
            out |= {f"{section}.{k}" for k in value}
        else:
            out.add(section)
    return out


def catalogue(lang: str, folder: str | None = None) -> Catalogue:
    """The catalogue of a language, with every key the reference has (else CatalogueError);
    read once."""
    return _catalogue(lang, folder or MESSAGES)


@functools.lru_cache(maxsize=32)
def _catalogue(lang: str, folder: str) -> Catalogue:
    if not _LANG_FILE(f"{lang}.yaml"):
        raise CatalogueError(f"`{lang}` is not a language tag")
    path = os.path.join(folder, f"{lang}.yaml")
    shown = f"{os.path.basename(folder)}/{lang}.yaml"
    if not os.path.isfile(path):
        raise CatalogueError(f"no message catalogue for the language `{lang}` ({shown})")
    doc = _read(path, shown)
    reference = doc if lang == REFERENCE else _read(os.path.join(folder, f"{REFERENCE}.yaml"), f"{REFERENCE}.yaml")
    if lang != REFERENCE:
        missing = sorted(_keys(reference) - _keys(doc))
        if missing:
            more = f" and {len(missing) - 1} more" if len(missing) > 1 else ""
            raise CatalogueError(f"{shown}: no message `{missing[0]}`{more} (every key of {REFERENCE}.yaml is needed)")
    for section in ("labels", "words", "language", "sentences", "functions", "names"):
        if not isinstance(doc.get(section), dict):
            raise CatalogueError(f"{shown}: `{section}` must be a map")
    for section in ("functions", "names"):  # a phrase, or one in each of the six cases
        for key, value in doc[section].items():
            if not (isinstance(value, str) or isinstance(value, list) and len(value) == 6
                    and all(isinstance(v, str) for v in value)):
                raise CatalogueError(f"{shown}: {section}.{key}: expected text, or a list of six (a phrase in each case)")
    for section in ("labels", "sentences", "functions", "names"):
        for key, value in doc[section].items():
            value = " ".join(value) if isinstance(value, list) else value
            if not isinstance(value, str):
                raise CatalogueError(f"{shown}: {section}.{key}: expected text")
            said = (reference.get(section) or {}).get(key, "")
            given = set(_NAMES.findall(" ".join(said) if isinstance(said, list) else str(said)))
            if section == "functions":  # (a function may name any of its arguments, and itself)
                given |= {"0", "1", "2", "3", "name"}
            if section == "labels":  # (every label may say the game's round: Book gives it)
                given |= {"round", "round_lower", "rounds"}
            unknown = sorted(set(_NAMES.findall(value)) - given)
            if unknown:
                raise CatalogueError(f"{shown}: {section}.{key}: `{{{unknown[0]}}}` is no value of this message "
                                     f"(it has {', '.join('{' + g + '}' for g in sorted(given)) or 'none'})")
    for key, forms in doc["words"].items():
        if not isinstance(forms, dict) or "other" not in forms or not all(isinstance(f, str) for f in forms.values()):
            raise CatalogueError(f"{shown}: words.{key}: expected a form per plural category, `other` among them")
    quotes = doc["language"].get("quotes")
    if not (isinstance(quotes, list) and len(quotes) == 2 and all(isinstance(q, str) for q in quotes)):
        raise CatalogueError(f"{shown}: language.quotes: expected the opening and the closing quote")
    if doc["language"].get("prose") not in PROSE:
        raise CatalogueError(f"{shown}: language.prose: the effects' sentences are built for {', '.join(PROSE)} only")
    return Catalogue(lang, doc, shown)
