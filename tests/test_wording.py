"""Message catalogues: a rulebook's own words come from compiler/messages/<lang>.yaml."""
import copy
import os
import shutil

import pytest
import yaml

from rulepress.compiler import wording
from rulepress.compiler.render import ru_count
from rulepress.compiler.rulebook import Book, books, environment, render_rulebook
from rulepress.compiler.wording import CatalogueError, catalogue, languages
from tests.test_rulebook import tables_of


@pytest.fixture
def messages(tmp_path, monkeypatch):
    """A copy of the shipped catalogues, read instead of them."""
    folder = tmp_path / "messages"
    shutil.copytree(wording.MESSAGES, folder)
    monkeypatch.setattr(wording, "MESSAGES", str(folder))
    return folder


def _xx(messages, drop=None):
    """A third language: the English file with every label marked, so each shows where it lands."""
    doc = yaml.safe_load((messages / "en.yaml").read_text())
    doc["labels"] = {k: v if k in ("yes", "no") else "XX " + v for k, v in doc["labels"].items() if k != drop}
    doc["language"]["locale"] = "en"  # (no language of CLDR's: it counts as English does)
    (messages / "xx.yaml").write_text(yaml.safe_dump(doc, allow_unicode=True, sort_keys=False, width=1000))


def test_a_new_language_is_one_file_and_makes_rulebooks_in_it(messages):
    _xx(messages)
    assert languages() == ("en", "ru", "xx")
    tables = tables_of("tests/games/duel")
    made = books(tables, [], environment(None), ["xx"])
    assert set(made) == {"rulebook.xx.html", "rulebook.xx.md"}
    md = made["rulebook.xx.md"]
    assert "## XX Components" in md and "## XX Setup" in md and "XX Playing the game" in md
    assert "XX The game lasts 8 rounds." in md
    assert "Components" not in md.replace("XX Components", "")  # no English label left behind
    assert '<html lang="xx"' in made["rulebook.xx.html"]


def test_a_missing_message_is_an_error_naming_it_not_an_english_word(messages):
    _xx(messages, drop="setup")
    with pytest.raises(CatalogueError, match=r"xx\.yaml: no message `labels\.setup`"):
        Book(tables_of("tests/games/duel"), "xx")


def test_the_shipped_languages_have_every_message():
    assert languages()[:2] == ("en", "ru")
    for lang in languages():
        catalogue(lang)  # (raises for a missing key)


@pytest.mark.parametrize("n, form", [(1, "раунд"), (2, "раунда"), (4, "раунда"), (5, "раундов"), (11, "раундов"),
                                     (12, "раундов"), (14, "раундов"), (21, "раунд"), (22, "раунда"), (100, "раундов"),
                                     (101, "раунд"), (111, "раундов"), (0, "раундов")])
def test_russian_counts_agree_with_their_number(n, form):
    ru = catalogue("ru").without(catalogue("ru").language["own_round_name"])
    assert ru.say("rounds", n=n, round="Раунд", round_lower="раунд", rounds="rounds") == f"Игра длится {n} {form}."


def test_english_counts_agree_with_their_number():
    en = catalogue("en")
    assert en.say("deck_of", name="Blades", n=1) == "Blades: 1 card"
    assert en.say("deck_of", name="Blades", n=2) == "Blades: 2 cards"
    assert en.counted("time", 1) == "once" and en.counted("time", 3) == "three times" and en.counted("time", 12) == "12 times"
    assert en.counted("action", 1) == "one action" and en.counted("action", 2) == "two actions"


def test_the_russian_cldr_rules_say_what_russian_grammar_says():
    def by_hand(n):
        if n % 10 == 1 and n % 100 != 11:
            return "one"
        if 2 <= n % 10 <= 4 and not 12 <= n % 100 <= 14:
            return "few"
        return "many"
    ru = catalogue("ru")
    assert [ru.category(n) for n in range(300)] == [by_hand(n) for n in range(300)]
    assert ru_count(1, "a", "b", "c") == "a" and ru_count(3, "a", "b", "c") == "b" and ru_count(None, "a", "b", "c") == "c"


def test_the_russian_rulebook_counts_players_rounds_and_cards_in_good_russian():
    tables = copy.deepcopy(tables_of("tests/games/duel"))
    tables["game"]["players"] = {"min": 2, "max": 5}
    tables["flow"]["rounds"] = 21
    ctx = Book(tables, "ru").context()
    assert ctx["players"] == "2–5 игроков"
    assert ctx["turn"]["intro"].startswith("Игра длится 21 раунд.")
    tables["game"]["players"] = {"min": 1, "max": 1}
    tables["flow"]["rounds"] = 1
    ctx = Book(tables, "ru").context()
    assert ctx["players"] == "1 игрок" and ctx["turn"]["intro"].startswith("Игра длится 1 раунд.")
    labels = [c["label"] for c in ctx["components"]]
    assert any(label.endswith(" карты") or label.endswith(" карт") or label.endswith(" карта") for label in labels), labels


def test_the_book_of_a_built_game_still_names_its_own_round():
    md = render_rulebook(tables_of("content/android"), "ru", "md")
    assert "Игра длится 12 раундов («Сутки»)." in md


# ---- hostile catalogues: one line, the file, never an object --------------------------

@pytest.mark.parametrize("text, why", [
    ("language: [1\n", r"xx\.yaml:\d+:\d+: not YAML"),
    ("- a list\n", "expected a map of sections"),
    ("!!python/object/apply:os.system ['echo hi']\n", "not YAML"),
])
def test_a_broken_catalogue_is_a_one_line_error(messages, text, why):
    (messages / "xx.yaml").write_text(text)
    with pytest.raises(CatalogueError, match=why) as exc:
        catalogue("xx")
    assert "\n" not in str(exc.value)


def test_a_language_cldr_does_not_know_must_name_the_locale_it_counts_like(messages):
    _xx(messages)
    path = messages / "xx.yaml"
    doc = yaml.safe_load(path.read_text())
    del doc["language"]["locale"]
    path.write_text(yaml.safe_dump(doc))
    with pytest.raises(CatalogueError, match=r"xx\.yaml: CLDR has no plural rules for `xx`"):
        catalogue("xx")


def test_plural_rules_written_in_a_catalogue_are_refused_not_ignored(messages):
    _xx(messages)
    path = messages / "xx.yaml"
    doc = yaml.safe_load(path.read_text())
    doc["plural"] = {"one": "n = 1"}
    path.write_text(yaml.safe_dump(doc))
    with pytest.raises(CatalogueError, match=r"xx\.yaml: plural: the plural rules come from CLDR"):
        catalogue("xx")


def test_a_language_with_other_plural_categories_counts_by_its_own_cldr_rules(messages):
    """Polish (one, few, many) from its catalogue alone: no English- or Russian-shaped path."""
    _xx(messages)
    doc = yaml.safe_load((messages / "xx.yaml").read_text())
    doc["language"]["locale"] = "pl"
    doc["words"]["card"] = {"one": "karta", "few": "karty", "many": "kart", "other": "karty"}
    (messages / "xx.yaml").write_text(yaml.safe_dump(doc, allow_unicode=True))
    xx = catalogue("xx")
    assert [xx.counted("card", n) for n in (1, 2, 5, 22, 25)] == ["karta", "karty", "kart", "karty", "kart"]


def test_a_word_without_its_other_form_and_a_prose_with_no_sentence_builders_are_errors(messages):
    _xx(messages)
    path = messages / "xx.yaml"
    good = yaml.safe_load(path.read_text())
    path.write_text(yaml.safe_dump(dict(good, words=dict(good["words"], card={"one": "card"}))))
    with pytest.raises(CatalogueError, match=r"words\.card: expected a form per plural category"):
        catalogue("xx")
    wording._catalogue.cache_clear()
    path.write_text(yaml.safe_dump(dict(good, language=dict(good["language"], prose="xx"))))
    with pytest.raises(CatalogueError, match=r"language\.prose"):
        catalogue("xx")


def test_a_language_tag_is_never_a_path(messages):
    for lang in ("../en", "en/../../x", "EN", ""):
        with pytest.raises(CatalogueError, match="not a language tag"):
            catalogue(lang)


def test_a_huge_catalogue_is_refused_unread(messages):
    (messages / "xx.yaml").write_text("labels: {}\n" + "#" * (wording.MAX_CATALOGUE_BYTES + 10))
    with pytest.raises(CatalogueError, match="larger than"):
        catalogue("xx")


@pytest.fixture(autouse=True)
def _fresh_cache():
    wording._catalogue.cache_clear()
    yield
    wording._catalogue.cache_clear()


def test_a_game_that_declares_a_new_language_gets_its_rulebook_and_its_texts(messages, tmp_path, monkeypatch):
    from rulepress.compiler.pipeline import build
    from tests.conftest import ROOT
    monkeypatch.setenv("RULEPRESS_CACHE_DIR", str(tmp_path / "cache"))
    _xx(messages)
    game = tmp_path / "race"
    shutil.copytree(os.path.join(ROOT, "docs/tutorial/race"), game)
    manifest = game / "game.yaml"
    manifest.write_text(manifest.read_text().replace(
        "  name: {en: Dice Race, ru: Гонка на кубиках}\n", "  name: {en: Dice Race, xx: Xx Race}\n  languages: [en, xx]\n", 1))
    written, report = build([str(game)], str(tmp_path / "out"))
    assert not report.errors, [d.text() for d in report.sorted()]
    out = tmp_path / "out" / "race"
    assert sorted(p.name for p in out.iterdir()) == ["game.json", "rulebook.en.html", "rulebook.en.md",
                                                     "rulebook.xx.html", "rulebook.xx.md"]
    md = (out / "rulebook.xx.md").read_text()
    assert md.startswith("# Xx Race") and "## XX Components" in md
    codes = {d.code for d in report.items}
    assert "S103" not in codes and "S101" in codes  # (the race has no `xx` translations but its name)


def test_a_declared_language_without_a_catalogue_is_said_at_its_tag_and_gets_no_rulebook(tmp_path, monkeypatch):
    from rulepress.compiler.pipeline import build
    from tests.conftest import ROOT
    monkeypatch.setenv("RULEPRESS_CACHE_DIR", str(tmp_path / "cache"))
    game = tmp_path / "race"
    shutil.copytree(os.path.join(ROOT, "docs/tutorial/race"), game)
    manifest = game / "game.yaml"
    manifest.write_text(manifest.read_text().replace("  version: 1\n", "  version: 1\n  languages: [en, de]\n", 1))
    written, report = build([str(game)], str(tmp_path / "out"))
    s103 = [d for d in report.items if d.code == "S103"]
    assert len(s103) == 1 and "`de`" in s103[0].text() and s103[0].pos.line == 5, s103
    assert sorted(p.name for p in (tmp_path / "out" / "race").iterdir()) == ["game.json", "rulebook.en.html", "rulebook.en.md"]


@pytest.mark.parametrize("text", ["{en: Turbo, rus: Турбо}", '{en: Turbo, "ru\\n": Турбо}'])
def test_a_text_in_a_language_the_game_does_not_declare_is_a_warning_at_its_key(tmp_path, text):
    from rulepress.compiler.pipeline import check_game
    from tests.conftest import ROOT
    game = tmp_path / "race"
    shutil.copytree(os.path.join(ROOT, "docs/tutorial/race"), game, ignore=shutil.ignore_patterns("scenarios"))
    (game / "extra.yaml").write_text(f"cards:\n  - id: turbo\n    name: {text}\n    deck: boosts\n")
    _model, report = check_game(str(game))
    s102 = [d.text() for d in report.items if d.code == "S102"]
    assert len(s102) == 1 and "extra.yaml:3:" in s102[0] and "\n" not in s102[0], s102


def test_a_new_languages_file_says_the_effects_sentences(messages):
    from rulepress.compiler.render import Renderer
    _xx(messages)
    path = messages / "xx.yaml"
    doc = yaml.safe_load(path.read_text())
    doc["sentences"]["shuffle"] = "mische {x}"
    doc["sentences"]["endgame"] = "das Spiel endet"
    path.write_text(yaml.safe_dump(doc, allow_unicode=True))
    tables = {"decks": {"pile": {"name": {"en": "Pile", "xx": "Stapel"}, "discard": "pile_discard"}}}
    lines = Renderer(tables, "xx").lines([["shuffle", "f:1:1", ["name", "f:1:1", "pile"], None], ["endgame", "f:2:1"]])
    assert lines == [(0, "Mische Stapel."), (0, "Das Spiel endet.")]


def test_a_russian_sentence_puts_each_value_in_its_case():
    from rulepress.compiler.render import Renderer
    stmt = ["show", "f:1:1", ["name", "f:1:6", "this"], ["name", "f:1:14", "others"]]
    assert Renderer({}, "ru", "cards").lines([stmt]) == [(0, "Покажите эту карту только другим игрокам.")]
    assert Renderer({}, "en", "cards").lines([stmt]) == [(0, "Show this card to the other players only.")]


@pytest.mark.parametrize("section, key, text", [("sentences", "move", "move {x} to {where}"), ("labels", "deck_of", "{name}: {m}")])
def test_a_message_that_says_a_value_it_is_not_given_is_an_error(messages, section, key, text):
    _xx(messages)
    path = messages / "xx.yaml"
    doc = yaml.safe_load(path.read_text())
    doc[section][key] = text
    path.write_text(yaml.safe_dump(doc, allow_unicode=True))
    with pytest.raises(CatalogueError, match=rf"xx\.yaml: {section}\.{key}: `\{{(where|m)\}}` is no value of this message"):
        catalogue("xx")


def test_a_functions_words_come_from_the_file_and_decline_where_they_are_six(messages):
    from rulepress.compiler.render import Renderer
    _xx(messages)
    path = messages / "xx.yaml"
    doc = yaml.safe_load(path.read_text())
    doc["functions"]["count"] = "die Anzahl von {0}"
    path.write_text(yaml.safe_dump(doc, allow_unicode=True))
    tables = {"zones": {"hand": {"name": {"en": "Hand", "xx": "Hand"}}}}
    count = ["call", "f:1:1", "abs", [["num", "f:1:7", 3]]]
    assert Renderer(tables, "xx").expr(["call", "f:1:1", "count", [["list", "f:1:7", []]]]) == "die Anzahl von nothing"
    assert Renderer(tables, "ru")._e(count).c("g") == "модуля 3"  # (a list of six: one per case)
    doc["functions"]["count"] = ["a {0}", "b {0}"]
    path.write_text(yaml.safe_dump(doc, allow_unicode=True))
    wording._catalogue.cache_clear()
    with pytest.raises(CatalogueError, match=r"functions\.count: expected text, or a list of six"):
        catalogue("xx")


def test_the_words_for_names_the_rules_know_come_from_the_file(messages):
    from rulepress.compiler.render import Renderer
    _xx(messages)
    path = messages / "xx.yaml"
    doc = yaml.safe_load(path.read_text())
    doc["names"]["player"] = "du"
    doc["names"]["this_cards"] = "diese Karte"
    path.write_text(yaml.safe_dump(doc, allow_unicode=True))
    stmt = ["show", "f:1:1", ["name", "f:1:6", "this"], ["name", "f:1:14", "player"]]
    assert Renderer({}, "xx", "cards").lines([stmt]) == [(0, "Show diese Karte to du only.")]
