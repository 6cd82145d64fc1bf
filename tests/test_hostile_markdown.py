"""The Markdown rulebook prints content's text as text (compiler/rulebook.md_text).

A card's name or text may hold HTML (`<script>`, `<img onerror>`) or a Markdown link whose
target runs code (`javascript:`, `data:`). The rulebook is rendered here by a CommonMark
renderer that lets raw HTML and every link through, as the most trusting reader's would:
no tag but the Markdown's own and no link but to the web comes out, and the text still
reads as the designer wrote it.
"""
from __future__ import annotations

import html
import json
import os
import shutil
from html.parser import HTMLParser

import pytest
from markdown_it import MarkdownIt

from rulepress.compiler.pipeline import compile_game
from rulepress.compiler.rulebook import md_text, rulebooks
from tests.conftest import ROOT

HOSTILE = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    '<a href="javascript:alert(1)">Click me</a>',
    "<style>*{display:none}</style><!-- hidden -->",
    "<javascript:alert(1)>",
    "[Click me](javascript:alert(1))",
    "[Click me]( JavaScript:alert(1))",
    "[Click me](<javascript:alert(1)>)",
    "[Click me](\njavascript:alert(1))",
    "[Click me](data:text/html,alert)",
    "[Click me](vbscript:msgbox)",
    "![Pic it](javascript:alert(1))",
    "[Click me\\](javascript:alert(1))",
    "[Click me\\\\](javascript:alert(1))",
    "[Click me][R s]\n\n[R s]: javascript:alert(1)",
    "[Click me][R s]\n\n[R s]:\n  javascript:alert(1)",
    "&lt;script&gt;alert(1)&lt;/script&gt; &#60;b&#62;",
    "Fish & Chips <3",
]

TAGS = {"h1", "h2", "h3", "h4", "p", "ul", "ol", "li", "strong", "em", "table", "thead", "tbody", "tr", "th", "td",
        "br", "hr", "code", "a"}


class Scan(HTMLParser):
    """The tags, link targets and text of an HTML page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.targets, self.text = set(), [], []

    def handle_starttag(self, tag, attrs):
        self.tags.add(tag)
        self.targets += [v or "" for k, v in attrs if k in ("href", "src")]

    def handle_comment(self, data):
        self.tags.add("<!--")

    def handle_data(self, data):
        self.text.append(data)


def rendered(md: str) -> Scan:
    renderer = MarkdownIt("commonmark", {"html": True})
    renderer.validateLink = lambda url: True  # a reader that trusts every link
    page = Scan()
    page.feed(renderer.render(md))
    return page


@pytest.fixture(scope="module")
def books(tmp_path_factory):
    """The tutorial game with every hostile text as a card's name and another card's text."""
    folder = tmp_path_factory.mktemp("md") / "race"
    shutil.copytree(os.path.join(ROOT, "docs", "tutorial", "race"), folder, ignore=shutil.ignore_patterns("scenarios"))
    cards = "".join(
        f"  - id: c{i}\n    name: {{en: {json.dumps(text)}, ru: {json.dumps(text)}}}\n    deck: boosts\n"
        f"    text: {{en: {json.dumps('Says ' + text)}, ru: {json.dumps('Says ' + text)}}}\n    attrs: {{speed: 1}}\n"
        for i, text in enumerate(HOSTILE))
    game = (folder / "game.yaml").read_text(encoding="utf-8")
    (folder / "game.yaml").write_text(game.replace("\ncards:\n", "\ncards:\n" + cards, 1), encoding="utf-8")
    text, _gid, report = compile_game(str(folder))
    assert text is not None, "\n".join(d.text() for d in report.sorted())
    return {name: book for name, book in rulebooks(text, str(folder)).items() if name.endswith(".md")}


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_no_tag_nor_link_of_the_content_comes_out_of_the_markdown_rulebook(books, lang):
    page = rendered(books[f"rulebook.{lang}.md"])
    assert page.tags <= TAGS, page.tags - TAGS
    assert all(t.startswith(("http://", "https://", "mailto:", "#")) for t in page.targets), page.targets


@pytest.mark.parametrize("i", range(len(HOSTILE)), ids=[t[:30] for t in HOSTILE])
def test_a_hostile_name_and_text_still_read_as_written(books, i):
    text = " ".join(HOSTILE[i].split())  # (a line break in a text reads as a space)
    page = " ".join("".join(rendered(books["rulebook.en.md"]).text).split())
    assert text in page and f"Says {text}" in page


@pytest.mark.parametrize("text", HOSTILE, ids=[t[:30] for t in HOSTILE])
def test_md_text_alone_lets_no_tag_nor_unsafe_link_through(text):
    page = rendered(md_text(text))
    assert page.tags <= {"p"}, page.tags
    assert not page.targets
    assert " ".join("".join(page.text).split()) == " ".join(text.split())


def test_links_to_the_web_and_plain_text_are_left_as_written():
    for text in ["[rules](https://example.org/rules)", "[mail us](mailto:a@example.org)", "Fish & Chips",
                 "Тайна «Изумруда» [2]: pass", "a > b and c < d"]:
        assert html.unescape(md_text(text)) == text or md_text(text) == text.replace("<", "&lt;")
    assert md_text("[rules](https://example.org/rules)") == "[rules](https://example.org/rules)"
