"""Russian names in the case their sentence needs, by pymorphy3 and its dictionary.

A content name is a phrase: adjectives, the noun they agree with, and whatever follows it
unchanged («Тёмная колода», «Колода сделок», «Бизнес Центра»). The head noun is the first
word that can be a noun in the nominative; the adjectives before it take its gender and
number in each case; the words after it stay as written. A name whose first word is neither
(a verb, a number, a Latin word) has no forms here, and its sentence names it after a head
word instead («карта «3 шага»»).
"""
from __future__ import annotations

import functools
import re

CASES = ("nomn", "gent", "datv", "accs", "ablt", "loct")  # as render.CASES orders them: n g d a i p
GIVEN = ("nom", "gen", "dat", "acc", "ins", "pre")  # the keys of forms given by hand in content
_CYRILLIC = re.compile(r"[А-Яа-яЁё]+(?:-[А-Яа-яЁё]+)*").fullmatch
_NOT_A_NAME = frozenset(("PREP", "CONJ", "PRCL", "INTJ", "VERB", "INFN", "GRND", "NUMR", "ADVB", "NPRO", "PRED", "COMP"))


@functools.lru_cache(maxsize=1)
def _morph():
    import pymorphy3  # (loaded on first use: its dictionary takes a moment to open)
    return pymorphy3.MorphAnalyzer(lang="ru")


def _like(src: str, word: str) -> str:
    """The form written the way the name writes the word: «Колоду» for «Колода»."""
    if src.isupper() and len(src) > 1:
        return word.upper()
    return word[:1].upper() + word[1:] if src[:1].isupper() else word


def _noun(word: str, plural: bool | None):
    """The word's reading as a noun in the nominative (plural where the adjectives are)."""
    found = [p for p in _morph().parse(word) if p.tag.POS == "NOUN" and p.tag.case == "nomn"
             and "Abbr" not in p.tag and "Init" not in p.tag]
    if plural is not None:
        found = [p for p in found if (p.tag.number == "plur") == plural] or found
    return found[0] if found else None


def _adjective(word: str):
    found = [p for p in _morph().parse(word) if p.tag.POS in ("ADJF", "PRTF") and p.tag.case == "nomn"]
    return found


@functools.lru_cache(maxsize=4096)
def declined(name: str):
    """(six case forms, gender: m f n pl) of a Russian name, or None where it has no head noun
    the dictionary knows."""
    words = name.split(" ")
    adjs = []
    i = 0
    while i < len(words) - 1 and _CYRILLIC(words[i]) and _adjective(words[i]) and not _noun(words[i], None):
        adjs.append(_adjective(words[i]))
        i += 1
    if not _CYRILLIC(words[i]):
        return None
    plural = None
    if adjs:
        plural = all(any(p.tag.number == "plur" or p.tag.number is None and "plur" in str(p.tag) for p in a) for a in adjs) \
            and not all(any(p.tag.number == "sing" for p in a) for a in adjs)
    head = _noun(words[i], plural)
    if head is None or any(p.tag.POS in _NOT_A_NAME for p in _morph().parse(words[i])[:1]):
        return None
    if any(_morph().parse(w)[0].tag.POS in _NOT_A_NAME for w in words[i + 1:] if _CYRILLIC(w)):
        return None  # a clause after the noun («Ход только что закончился»): not a name to decline
    number = head.tag.number or "sing"
    gender = "pl" if number == "plur" or "Pltm" in head.tag else {"masc": "m", "femn": "f", "neut": "n"}.get(head.tag.gender, "m")
    animate = head.tag.animacy == "anim"
    forms = []
    for case in CASES:
        n = head.inflect({case, number}) if number else head.inflect({case})
        if n is None:
            return None
        out = []
        for w, parses in zip(words, adjs):
            grams = {case, "plur"} if gender == "pl" else {case, "sing", {"m": "masc", "f": "femn", "n": "neut"}[gender]}
            if case == "accs" and (gender in ("m", "pl")):
                grams = (grams - {"accs"}) | ({"gent"} if animate else {"nomn"})  # «тёмного соло», «тёмный жетон»
                if not animate and gender == "pl":
                    grams = {"nomn", "plur"}
            a = None
            for p in parses:
                a = p.inflect(grams)
                if a is not None:
                    break
            if a is None:
                return None
            out.append(_like(w, a.word))
        out.append(_like(words[i], n.word))
        forms.append(" ".join(out + words[i + 1:]))
    # the dictionary writes ё where it knows one and е elsewhere: the name's own spelling wins
    if "ё" in name.lower() and "ё" not in forms[0].lower():
        forms = [_with_yo(f, name) for f in forms]
    elif "ё" not in name.lower():  # «маркер», not the dictionary's «маркёра»
        forms = [f.replace("ё", "е").replace("Ё", "Е") for f in forms]
    return tuple(forms), gender


def _with_yo(form: str, name: str) -> str:
    """«Темной» -> «Тёмной»: each ё of the name put back where the form has е at its place."""
    out = list(form)
    for k, (a, b) in enumerate(zip(form, name)):
        if b in "ёЁ" and a in "еЕ":
            out[k] = b
    return "".join(out)


def given(forms: dict):
    """Forms given by hand (`name: {ru: {nom: …, gen: …}}`) as six, the nominative for any left out."""
    nom = forms.get("nom") or ""
    return tuple(forms.get(k) or nom for k in GIVEN)


_PREDICATE = frozenset(("VERB", "PRTS", "ADJS"))


@functools.lru_cache(maxsize=1024)
def negated_clause(name: str) -> str | None:
    """A name that is a clause («Дверь открыта», «Последняя проверка пройдена») with «не»
    before its predicate («Дверь не открыта»), or None where the name has no verb or
    short form to negate (it is a noun: «Закрыто» is both, and is left alone)."""
    words = name.split(" ")
    if len(words) < 2 or any(w.lower() in ("и", "или", "либо") for w in words):
        return None  # (a lone word could as well be a noun or an adverb; «A или B» is two clauses)
    for i, w in enumerate(words):
        if not _CYRILLIC(w):
            continue
        parses = _morph().parse(w.lower())
        if parses and parses[0].tag.POS in _PREDICATE:
            if i and words[i - 1].lower() == "не":
                return None
            return " ".join(words[:i] + ["не"] + words[i:])
    return None
