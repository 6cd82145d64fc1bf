"""The rulebook's pictures (issue 36): the map drawn from locations and their connections, the
round drawn from its phases, inline SVG in the HTML book, the same for the same tables."""
import html
import re
import shutil

import pytest

from rulepress.compiler import diagrams
from rulepress.compiler.rulebook import Book
from tests.test_rulebook import page_of, tables_of

pytestmark = pytest.mark.skipif(not shutil.which("dot"), reason="Graphviz's dot is not installed (make system)")


@pytest.mark.parametrize("folder", ["content/night-city", "content/arkham-horror", "content/android"])
def test_a_game_with_connected_locations_has_its_map_with_every_connected_place(folder):
    t = tables_of(folder)
    for lang in ("en", "ru"):
        book = Book(t, lang)
        svg = book.pictures()["map"]
        assert svg and svg.startswith("<svg")
        drawn = {html.unescape(x) for x in re.findall(r"<text[^>]*>([^<]*)</text>", svg)}
        for lid, loc in t["locations"].items():  # every place a road leads to or from
            roads = set(loc.get("adjacent") or []) | set(loc.get("links") or {})
            if roads or any(lid in (o.get("adjacent") or []) or lid in (o.get("links") or {}) for o in t["locations"].values()):
                assert book.name(lid) in " ".join(drawn), (lang, lid)
        assert '<figure class="diagram map">' in page_of(folder, lang, "html")


@pytest.mark.parametrize("folder", ["content/night-city", "content/study-in-emerald", "content/arkham-horror",
                                    "content/android", "docs/tutorial/race"])
def test_every_book_draws_its_round_with_each_phase(folder):
    t = tables_of(folder)
    book = Book(t, "ru")
    svg = book.pictures()["turn"]
    for ph in t["flow"]["phases"]:
        assert book.phase_name(ph) in html.unescape(svg)
    assert '<figure class="diagram turn">' in page_of(folder, "ru", "html")


def test_a_game_without_connections_draws_no_map():
    assert Book(tables_of("content/study-in-emerald"), "en").pictures()["map"] is None


def test_the_pictures_are_the_same_for_the_same_tables_and_carry_no_version():
    args = ("Map", (("a", "Harbour"), ("b", "Market"), ("c", "Gate \\N")), (("a", "b", ""), ("b", "c", "2")))
    first = diagrams.map_svg(*args)
    diagrams.map_svg.cache_clear()
    assert diagrams.map_svg(*args) == first
    assert "<!--" not in first and "<?xml" not in first and "Gate \\N" in first


@pytest.mark.parametrize("folder", ["content/night-city", "content/android", "content/arkham-horror",
                                    "content/study-in-emerald"])
def test_the_round_shows_its_triggers_and_the_actions_offered_in_a_turn(folder):
    t = tables_of(folder)
    windows = {a: d["window"] for a, d in t["actions"].items() if d.get("window")}
    for lang in ("en", "ru"):
        book = Book(t, lang)
        svg = book.pictures()["turn"]
        drawn = " ".join(" ".join(html.unescape(x).split())
                         for x in re.findall(r"<text[^>]*>([^<]*)</text>", svg))
        for event, trs in t.get("triggers", {}).items():
            if event in ("turn_start", "turn_end", "enter") and trs:
                assert book._say(event) in drawn, (lang, event)
        if folder.endswith("arkham-horror"):  # a track that fires a rule at a value is a trigger too
            assert f"{book.name('doom')} " in drawn and f"{book.name('terror')} " in drawn, lang
        offered = book._windows()
        for a, w in windows.items():
            if w in offered:
                assert book.name(a) in drawn, (lang, a)
    assert not windows or book._windows(), "a game with windows offers them somewhere"
