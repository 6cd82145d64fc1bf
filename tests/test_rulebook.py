"""The rulebook shows everything the content declares, and says every effect as the renderer does."""
import html
import json
import os
import re
import shutil

import pytest

from rulepress.compiler.pipeline import build, check_game, compile_game
from rulepress.compiler.render import LANGS, Renderer
from rulepress.compiler.rulebook import Book, _label_only, render_rulebook
from tests.conftest import ROOT


def _games():
    """Every game in content/ that builds, and the two small example games."""
    out = ["docs/tutorial/race", "tests/games/duel"]
    base = os.path.join(ROOT, "content")
    for name in sorted(os.listdir(base)) if os.path.isdir(base) else []:
        if os.path.isfile(os.path.join(base, name, "game.yaml")):
            out.append(f"content/{name}")
    return out


_CACHE = {}


def tables_of(folder):
    if folder not in _CACHE:
        text, _gid, report = compile_game(os.path.join(ROOT, folder))
        assert text is not None, f"{folder} does not build:\n" + "\n".join(d.text() for d in report.sorted())
        _CACHE[folder] = json.loads(text)
    return _CACHE[folder]


def page_of(folder, lang, fmt):
    key = (folder, lang, fmt)
    if key not in _CACHE:
        _CACHE[key] = render_rulebook(tables_of(folder), lang, fmt, os.path.join(ROOT, folder))
    return _CACHE[key]


def _effect_blocks(page):
    """(key, this, lines) of every effect block of an HTML rulebook."""
    for m in re.finditer(r'<div class="effect" data-effect="([^"]*)" data-this="([^"]*)">(.*?)</div>', page, re.S):
        lines = [(int(d), html.unescape(t)) for d, t in re.findall(r'<p class="ln d(\d+)">(.*?)</p>', m.group(3), re.S)]
        yield m.group(1), m.group(2) or None, lines


def _ir_at(tables, key):
    """The IR a rulebook effect was rendered from, found by its key in game.json."""
    node = tables
    parts = key.split(".")
    for i, part in enumerate(parts):
        if isinstance(node, list):
            node = node[int(part)]
            if parts[i - 1] == "thresholds":
                node = node[1]  # [at, effect]
        else:
            node = node[part]
    return node


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("folder", _games())
def test_every_effect_in_the_rulebook_is_the_renderers_text_of_the_compiled_effect(folder, lang):
    t = tables_of(folder)
    page = page_of(folder, lang, "html")
    blocks = list(_effect_blocks(page))
    assert blocks or all(a.get("text") for a in t["actions"].values())  # (authored text wins: none to say)
    for key, this, lines in blocks:
        r = Renderer(t, lang, this)
        if key.startswith("procedures."):  # a procedure's parameters are named as nouns
            r.given(t["procedures"][key.split(".")[1]].get("params"))
        assert lines == r.lines(_ir_at(t, key)), key
    md = page_of(folder, lang, "md")
    for _key, _this, lines in blocks:
        for _d, line in lines:
            assert line.replace("|", "\\|") in md


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("folder", _games())
def test_every_location_card_pool_token_and_action_appears_in_the_rulebook(folder, lang):
    t = tables_of(folder)
    book = Book(t, lang)
    book.context()
    for fmt in ("html", "md"):
        page = page_of(folder, lang, fmt)
        if fmt == "html":
            page = html.unescape(re.sub(r"<[^>]+>", "", page))
        else:
            page = page.replace("\\|", "|")
        for section in ("actions", "pools", "decks"):
            for ident in t[section]:
                assert book.name(ident) in page, f"{section} {ident}"
        for pid, p in t["protos"].items():
            if p["section"] in ("locations", "cards", "tokens", "pieces") and not _label_only(p):  # (a choice's label is no component)
                assert book.name(pid) in page, f"{p['section']} {pid}"
    assert not book.problems


@pytest.mark.parametrize("folder", _games())
def test_components_are_counted_from_the_content(folder):
    t = tables_of(folder)
    comps = Book(t, "en").components()
    listed = {name: n for c in comps for name, n in c["items"] if n}
    for pid, p in t["protos"].items():
        if p["section"] in ("cards", "tokens", "pieces"):
            assert Book(t, "en").name(pid) in listed or _label_only(p)  # (a choice's label is no component)
    for pid, pool in t["pools"].items():
        assert any(c["label"].startswith(f"{Book(t, 'en').name(pid)}: {pool['total']} tokens") for c in comps)


def test_deck_sizes_are_the_sum_of_their_cards(duel):
    comps = Book(duel.data, "en").components()
    assert comps[0]["label"] == "Blades: 12 cards"
    assert Book(duel.data, "ru").components()[0]["label"] == "Клинки: 12 карт"


def test_the_build_writes_four_rulebooks_and_rewrites_them_byte_for_byte(tmp_path):
    race = os.path.join(ROOT, "docs/tutorial/race")
    a, _ = build([race], str(tmp_path / "a"))
    b, _ = build([race], str(tmp_path / "b"))
    names = sorted(os.path.basename(p) for p in a)
    assert names == ["game.json", "rulebook.en.html", "rulebook.en.md", "rulebook.ru.html", "rulebook.ru.md"]
    for x, y in zip(sorted(a), sorted(b)):
        assert open(x, "rb").read() == open(y, "rb").read()


def test_a_game_overrides_a_template_with_its_own(tmp_path):
    game = tmp_path / "race"
    shutil.copytree(os.path.join(ROOT, "docs/tutorial/race"), game)
    (game / "templates").mkdir()
    (game / "templates" / "rulebook.md.j2").write_text("# {{ title }} (house rules)\n", encoding="utf-8")
    written, report = build([str(game)], str(tmp_path / "out"))
    assert not report.errors
    md = open(str(tmp_path / "out" / "race" / "rulebook.en.md"), encoding="utf-8").read()
    assert md == "# Dice Race (house rules)\n"
    assert "<h2" in open(str(tmp_path / "out" / "race" / "rulebook.en.html"), encoding="utf-8").read()


def test_w022_names_only_the_procedures_a_printed_rule_sends_the_reader_to(tmp_path):
    """A procedure with no `text:` that a printed rule names ("Resolve «refuel»") is W022; a
    helper no printed rule names (here, one that a procedure with words does) needs no words.
    Before, every procedure without a text was W022: 92 in the content games, all helpers."""
    game = tmp_path / "race"
    shutil.copytree(os.path.join(ROOT, "docs/tutorial/race"), game, ignore=shutil.ignore_patterns("scenarios"))
    (game / "extra.yaml").write_text(
        "procedures:\n"
        "  - id: top_up\n    effect: gain 1 score\n"
        "  - id: refill\n    text: {en: Gain a point., ru: Получите очко.}\n    effect: top_up()\n"
        "  - id: refuel\n    effect: gain 1 score\n"
        "actions:\n"
        "  - id: pit_stop\n    name: {en: Pit stop, ru: Пит-стоп}\n    effect: refill()\n"
        "  - id: tank_up\n    name: {en: Tank up, ru: Заправка}\n    effect: refuel()\n", encoding="utf-8")
    _written, report = build([str(game)], str(tmp_path / "out"))
    found = [d.message for d in report.sorted() if d.code == "W022"]
    assert len(found) == 1 and "name 1 procedure " in found[0] and "`refuel`" in found[0], found
    assert "top_up" not in found[0] and "refill" not in found[0]
    assert "Resolve “refuel”" in (tmp_path / "out" / "race" / "rulebook.en.md").read_text(encoding="utf-8")


def _race_with_summary(tmp_path, en, ru):
    game = tmp_path / "race"
    shutil.copytree(os.path.join(ROOT, "docs/tutorial/race"), game)
    src = (game / "game.yaml").read_text(encoding="utf-8")
    src = src.replace("name: {en: Dice Race, ru: Гонка на кубиках}",
                      f'name: {{en: Dice Race, ru: Гонка на кубиках}}\n  summary: {{en: "{en}", ru: "{ru}"}}')
    src += '\nicons:\n  - {id: time, glyph: "⌛", name: {en: Time, ru: Время}}\n'
    (game / "game.yaml").write_text(src, encoding="utf-8")
    return game, src


def test_an_unknown_icon_is_an_error_at_its_place(tmp_path):
    game, src = _race_with_summary(tmp_path, "Spend [time] on [tiem]", "Гонка")
    _model, report = check_game(str(game))
    assert [d.code for d in report.errors] == ["R010"], [d.text() for d in report.errors]
    d = report.errors[0]
    line = next(i for i, ln in enumerate(src.splitlines(), 1) if "[tiem]" in ln)
    assert (d.pos.line, d.pos.col) == (line, src.splitlines()[line - 1].index("[tiem]") + 1)
    assert "did you mean `time`" in d.message


def test_icons_become_glyphs_in_html_rulebooks(tmp_path):
    game, _src = _race_with_summary(tmp_path, "Race on [time]", "Гонка на [time]")
    text, _gid, report = compile_game(str(game))
    assert text is not None, [d.text() for d in report.errors]
    t = json.loads(text)
    page = render_rulebook(t, "en", "html", str(game))
    assert 'Race on <span class="icon icon-time" title="Time">⌛</span>' in page
    assert "Гонка на ⌛" in render_rulebook(t, "ru", "md", str(game))


@pytest.mark.parametrize("folder", [g for g in _games() if g.startswith("content/")])
def test_committed_rulebooks_are_fresh(folder):
    t = tables_of(folder)
    target = os.path.join(ROOT, "build", t["game"]["id"])
    assert os.path.isfile(os.path.join(target, "game.json")), f"{folder} is not in build/: run `rulepress build content -o build`"
    for lang in LANGS:
        for fmt in ("html", "md"):
            path = os.path.join(target, f"rulebook.{lang}.{fmt}")
            assert os.path.exists(path), f"{path} is missing: run `rulepress build`"
            with open(path, encoding="utf-8") as fh:
                assert fh.read() == page_of(folder, lang, fmt), f"{path} is stale: run `rulepress build`"


# What the rulebook templates wrote for these pieces with Jinja macros, before they were
# written in Python: the pieces must still write exactly this.
_MACROS_HTML = """{% macro counted(items) %}{% for name, n in items %}{{ name }}{% if n and n > 1 %} ×{{ n }}{% endif %}{% if not loop.last %}, {% endif %}{% endfor %}{% endmacro %}
{% macro effect(e, label=None) -%}
{% if e %}<div class="effect" data-effect="{{ e.key }}" data-this="{{ e.this }}">{% if label %}<span class="label">{{ label }}</span>{% endif %}
{% for depth, line in e.lines %}<p class="ln d{{ depth }}">{{ line }}</p>
{% endfor %}</div>{% endif %}
{%- endmacro %}
{% macro cond(text, label) -%}
{% if text %}<p class="cond"><span class="label">{{ label }}:</span> {{ text }}</p>{% endif %}
{%- endmacro %}
{% macro attrs(items) -%}
{% if items %}<div class="attrs">{% for k, v in items %}<span class="kv"><b>{{ k }}:</b> {{ v }}</span> {% endfor %}</div>{% endif %}
{%- endmacro %}
{% macro card(c, L) %}
<div class="card-entry" id="card-{{ c.id }}">
<span class="copies">×{{ c.count }}</span>
<h4>{{ c.name }}</h4>
{{ attrs(c.attrs) }}
{% if c.text %}<p>{{ icon(c.text) }}</p>{% endif %}
{{ cond(c["if"], L.only_if) }}
{{ effect(c.effect) }}
</div>
{% endmacro %}"""
_MACROS_MD = """{% macro counted(items) %}{% for name, n in items %}{{ name }}{% if n and n > 1 %} ×{{ n }}{% endif %}{% if not loop.last %}, {% endif %}{% endfor %}{% endmacro %}
{% macro effect(e, label=None) -%}
{% if e %}
{% if label %}*{{ label }}:*

{% endif %}
{% for depth, line in e.lines %}{{ "  " * depth }}- {{ line | md }}
{% endfor %}
{% endif %}
{%- endmacro %}
{% macro card(c, L) %}
**{{ c.name }}** ×{{ c.count }}

{% if c.attrs %}{% for k, v in c.attrs %}{{ k }}: {{ v }}{% if not loop.last %}; {% endif %}{% endfor %}

{% endif %}
{% if c.text %}{{ icon(c.text) }}

{% endif %}
{% if c["if"] %}*{{ L.only_if }}:* {{ c["if"] }}

{% endif %}
{{ effect(c.effect) }}

{% endmacro %}"""

_AWKWARD = ["plain", "a <b> & 'c' \"d\"", "pipe | and\nbreak", "«ёлка» — ×2", ""]


def _cards():
    effect = {"key": "protos.x.effect", "this": "cards", "lines": [(0, "If it <rains>:"), (1, "Gain 1 \"gold\" | more."), (0, "Pay 2 & go.")]}
    out = []
    for i, s in enumerate(_AWKWARD):
        out.append({"id": f"c{i}", "name": s or "n", "count": i + 1, "text": s, "if": s or None, "attrs": [(s or "k", s), ("power", "3")] if i % 2 else [],
                    "effect": effect if i % 3 else None})
    return out


@pytest.mark.parametrize("fmt", ["html", "md"])
def test_the_pieces_of_a_rulebook_write_what_its_macros_wrote(fmt):
    from markupsafe import Markup, escape

    from rulepress.compiler.rulebook import HtmlPieces, MarkdownPieces, environment
    from rulepress.compiler.wording import catalogue

    L = catalogue("en").labels
    env = environment(None)
    env.autoescape = fmt == "html"
    icon = (lambda s: Markup(escape(s).upper())) if fmt == "html" else (lambda s: s.upper())
    macros = env.from_string(_MACROS_HTML if fmt == "html" else _MACROS_MD).make_module({"icon": icon})
    pieces = (HtmlPieces if fmt == "html" else MarkdownPieces)(L, icon)
    cards = _cards()
    cards += [dict(c, id=c["id"] + "_again") for c in cards]  # the same attributes met again
    # the card index ends its last entry where the template's next line begins
    assert str(pieces.cards(cards)) + ("\n" if fmt == "html" else "") == "".join(str(macros.card(c, L)) for c in cards)
    items = [(s or "n", i) for i, s in enumerate(_AWKWARD)] + [("none", None)]
    assert str(pieces.counted(items)) == str(macros.counted(items))
    for c in cards:
        for label in (None, "", "Cost <1>"):
            assert str(pieces.effect(c["effect"], label)) == str(macros.effect(c["effect"], label))
    if fmt == "html":
        for c in cards:
            assert str(pieces.attrs(c["attrs"])) == str(macros.attrs(c["attrs"]))
        for s in _AWKWARD:
            assert str(pieces.cond(s, "Only <if>")) == str(macros.cond(s, "Only <if>"))


def test_attributes_that_are_equal_values_of_other_types_read_each_their_own_way():
    book = Book({}, "en")
    said = [book.attrs(a) for a in ({"x": True}, {"x": 1}, {"x": 1.0}, {"x": True}, {"x": [1, "a"]}, {"x": [1, "a"]})]
    assert said == [[("x", "yes")], [("x", "1")], [("x", "1.0")], [("x", "yes")], [("x", "1, a")], [("x", "1, a")]]
