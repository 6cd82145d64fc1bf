"""Card faces for playtesting (issues #28 and #38): named attributes, text measured to fit in a
readable size, no character the fonts cannot draw, card sizes, per-deck templates, a
contact sheet and a PNG per card; a face a player reads at arm's length."""
import copy
import functools
import os
import re
import shutil

import pytest
from click.testing import CliRunner

from rulepress.cli import main
from rulepress.compiler.cards import (FIT_SIZES, CardSize, Pictures, card_faces, card_size, installed_glyphs,
                                      per_page, render_cards)
from rulepress.compiler.content import UsageError
from rulepress.compiler.fitting import fitted_faces
from rulepress.compiler.render import Names
from tests.conftest import ROOT
from tests.test_rulebook import tables_of

CONTENT = [f"content/{g}" for g in ("android", "arkham-horror", "night-city", "study-in-emerald")]
EXAMPLES = ["docs/examples/love-letter", "docs/examples/coup", "docs/tutorial/race"]
RACE = os.path.join(ROOT, "docs", "tutorial", "race")


@functools.cache
def _fit(folder: str, lang: str) -> tuple:
    """A repository game's fitted faces in one language and the warnings of the fit, made
    once a worker: three tests below read them (the fit lays out a page per card). (Not
    through a file for all workers: copies of a card share one face, which JSON loses.)"""
    warnings = []
    faces = fitted_faces(tables_of(folder), lang, os.path.join(ROOT, folder), warnings=warnings)
    return faces, tuple(w.message for w in warnings)


def fitted(folder: str, lang: str) -> list:
    """_fit's faces, a copy of their own for each caller."""
    return copy.deepcopy(_fit(folder, lang)[0])


@pytest.mark.parametrize("lang", ["en", "ru"])
@pytest.mark.parametrize("folder", CONTENT)
def test_card_faces_show_attributes_by_their_names_only(folder, lang):
    t = tables_of(folder)
    names = Names(t)
    faces = card_faces(t, lang, pictures=Pictures(os.path.join(ROOT, folder)))
    assert faces
    for f in faces:
        for key, (label, _value) in f["named"].items():
            assert label == names.attr_name(key, lang) and not re.search(r"[a-z]_[a-z]", label), (f["id"], key, label)
        assert list(f["named"].values()) == f["attrs"]


@pytest.mark.parametrize("folder", CONTENT + EXAMPLES)
def test_no_content_card_is_too_long_or_holds_a_character_no_font_draws(folder):
    for lang in ("en", "ru"):
        # (measured with the game's own templates, which give their text more or less room)
        assert list(_fit(folder, lang)[1]) == []


def _laid_out(doc):
    """Each front face of a card sheet as WeasyPrint laid it out: (card id, the bottom of the
    face's safe area, the lowest bottom of any line of its text, its text's font size in pt)."""
    out = []

    def walk(box, card=None):
        el = getattr(box, "element", None)
        if el is not None and el.get("data-card"):
            card = el.get("data-card")
        yield box, card
        for child in getattr(box, "children", []) or []:
            yield from walk(child, card)

    for page in doc.pages:
        for box, card in walk(page._page_box):
            el = getattr(box, "element", None)
            if el is None or "safe" not in (el.get("class") or "").split() or box.element_tag != "div":
                continue
            bottom = max((b.position_y + b.height for b, _c in walk(box)
                          if type(b).__name__ == "LineBox" and b is not box), default=box.position_y)
            inside = box.position_y + box.margin_height() - box.border_bottom_width
            out.append((card, inside, bottom, box.style["font_size"] * 0.75))
    return out


# The contact sheets the faces are checked on as laid out and as printed: one a game and
# language, laid out once for both checks (they were two sheets a game, a third of this
# module's time). Android in both languages: its Russian texts are the only ones of the
# content the fit sets smaller, and its English faces have the most room left empty (34%,
# the others 18-24% in either language); the other games in one language each, every
# game's card templates on a sheet, and both languages among them.
SHEET_LANGS = {"content/android": ("ru", "en"), "content/arkham-horror": ("ru",), "content/night-city": ("en",),
               "content/study-in-emerald": ("ru",)}
SHEETS = CONTENT + EXAMPLES


@functools.cache
def _sheet(folder: str, lang: str) -> tuple:
    """(the faces as _laid_out gives them, the distinct cards in the order they are placed,
    the sheet as a PDF), the contact sheet of a game's fitted faces laid out once a worker."""
    import weasyprint
    path = os.path.join(ROOT, folder)
    faces = fitted(folder, lang)
    doc = weasyprint.HTML(string=render_cards(tables_of(folder), lang, "a4", path, layout="contact", faces=faces),
                          base_url=path).render()
    return _laid_out(doc), [f["id"] for f in {f["id"]: f for f in faces}.values()], doc.write_pdf()


@pytest.mark.parametrize("folder", SHEETS)
def test_every_card_text_fits_its_face_at_a_readable_size_when_laid_out(folder):
    """The fit measures one page per card; this lays the contact sheet out and looks at its boxes."""
    for lang in SHEET_LANGS.get(folder, ("en",)):
        faces, _ids, _pdf = _sheet(folder, lang)
        assert len(faces) == len({f["id"] for f in card_faces(tables_of(folder), lang)})
        for card, inside, bottom, pt in faces:
            assert bottom <= inside + 0.5, f"{card} ({lang}): the text runs {bottom - inside:.1f} px past the face"
            assert pt >= FIT_SIZES[-1] - 0.01, f"{card} ({lang}): {pt} pt"


def test_a_text_too_long_for_the_card_is_shrunk_to_the_minimum_and_warned_of_with_its_overflow():
    t = tables_of("docs/tutorial/race")
    t = dict(t, protos={k: (dict(p, text={"en": "Move ahead. " * 200}) if p.get("section") == "cards" else p)
                        for k, p in t["protos"].items()})
    warnings = []
    faces = fitted_faces(t, "en", RACE, warnings=warnings)
    assert faces and all(f["size"] == FIT_SIZES[-1] and not f["fits"] for f in faces)
    assert {w.code for w in warnings} == {"W020"} and all(f"card `{w.card}`" in w.message for w in warnings)
    # (the overflow is measured: some 200 short sentences at 6 pt run far past a poker card)
    assert all(re.search(r"runs (\d+\.\d) mm past", w.message) and float(re.search(r"runs (\d+\.\d)", w.message).group(1)) > 40
               for w in warnings)


def test_a_text_that_fits_only_smaller_is_measured_down_to_the_size_that_fits():
    t = tables_of("docs/tutorial/race")
    some = sorted(k for k, p in t["protos"].items() if p.get("section") == "cards")
    # the same number of letters twice: short words wrap less than one long word per line
    words = "Move ahead one space and draw a card. " * 9
    t = dict(t, protos=dict(t["protos"], **{some[0]: dict(t["protos"][some[0]], text={"en": words})}))
    faces = {f["id"]: f for f in fitted_faces(t, "en", RACE)}
    assert faces[some[0]]["fits"] and FIT_SIZES[-1] <= faces[some[0]]["size"] <= FIT_SIZES[0]
    assert faces[some[1]]["size"] == FIT_SIZES[0]


def test_a_short_text_keeps_the_largest_size_and_gives_the_art_the_rest():
    faces = fitted_faces(tables_of("docs/tutorial/race"), "en", RACE)
    assert faces and all(f["size"] == FIT_SIZES[0] and f["fits"] for f in faces)
    assert all(f["art_h"] > 30 for f in faces)  # (of a poker card's 82 mm inside the frame)


@pytest.mark.skipif(installed_glyphs() is None, reason="fonts cannot be listed here")
def test_a_character_no_font_draws_is_a_warning_with_the_cards_id():
    t = tables_of("docs/tutorial/race")
    some = next(k for k, p in t["protos"].items() if p.get("section") == "cards")
    t = dict(t, protos=dict(t["protos"], **{some: dict(t["protos"][some], text={"en": "Gain \ue000 and ★"})}))
    warnings = []
    card_faces(t, "en", warnings=warnings)
    assert [(w.card, w.code) for w in warnings] == [(some, "W021")]
    assert "U+E000" in warnings[0].message and "★" not in warnings[0].message


def test_an_icon_with_an_image_is_drawn_as_the_image_not_the_glyph(tmp_path):
    game = tmp_path / "sie"
    shutil.copytree(os.path.join(ROOT, "content", "study-in-emerald"), game, ignore=shutil.ignore_patterns("scenarios"))
    t = tables_of("content/study-in-emerald")
    html_text = render_cards(t, "en", "a4", str(game), layout="contact")
    assert 'class="icon icon-assassin" src="data:image/svg+xml;base64,' in html_text
    assert "Ⓐ" not in html_text
    os.remove(game / "art" / "icons" / "assassin.svg")
    warnings = []
    card_faces(t, "en", pictures=Pictures(str(game)), warnings=warnings)
    if installed_glyphs() is not None:
        assert {w.code for w in warnings} == {"W021"}


def test_a_picture_linked_from_outside_the_game_folder_is_not_read(tmp_path):
    game = tmp_path / "g"
    (game / "art" / "icons").mkdir(parents=True)
    secret = tmp_path / "secret.svg"
    secret.write_text("<svg>private</svg>")
    os.symlink(secret, game / "art" / "icons" / "bomb.svg")
    (game / "art" / "icons" / "star.svg").write_text("<svg/>")
    pictures = Pictures(str(game))
    assert pictures.icon("bomb") is None
    assert pictures.icon("star").startswith("data:image/svg+xml;base64,")
    assert pictures.icon("../../secret") is None and pictures.art("../secret") is None


@pytest.mark.parametrize("spec, size", [("poker", (63, 88)), ("bridge", (57, 89)), ("tarot", (70, 120)),
                                        ("mini", (44, 63)), ("square", (70, 70)), ("70x100", (70, 100)),
                                        ("63.5x88.9", (63.5, 88.9)), (None, (63, 88))])
def test_card_sizes_by_name_or_in_millimetres(spec, size):
    assert card_size(spec) == CardSize(*size)


@pytest.mark.parametrize("spec", ["huge", "9999x1", "1x1", "63x", "x88", "63*88", "../x", "63x88; rm", "1e3x88", ""])
def test_a_card_size_that_is_no_size_is_a_usage_error(spec):
    if spec == "":
        assert card_size(spec) == CardSize(63, 88)  # (an empty option is the default)
        return
    with pytest.raises(UsageError):
        card_size(spec)


def test_how_many_cards_a_page_holds_follows_the_card_size():
    assert per_page("a4", CardSize(63, 88)) == (3, 3)
    assert per_page("letter", CardSize(63, 88)) == (3, 3)
    assert per_page("a4", CardSize(44, 63)) == (4, 4)
    assert per_page("a4", CardSize(70, 120)) == (2, 2)


def test_a_deck_template_of_the_game_draws_that_decks_faces_in_the_sandbox(tmp_path):
    game = tmp_path / "race"
    shutil.copytree(RACE, game, ignore=shutil.ignore_patterns("scenarios"))
    (game / "templates").mkdir()
    (game / "templates" / "card.boosts.html.j2").write_text(
        '<div class="safe">BOOST {{ c.name }} {{ c.named.get("speed", ("", ""))|join("=") }}</div>')
    t = tables_of("docs/tutorial/race")
    html_text = render_cards(t, "en", "a4", str(game))
    assert "BOOST Nitro Speed=" in html_text or "BOOST " in html_text
    assert re.search(r"BOOST \w+ Speed=\d", html_text)
    (game / "templates" / "card.boosts.html.j2").write_text("{{ c.__class__.__mro__ }}")
    from rulepress.compiler.rulebook import TemplateRefused
    with pytest.raises(TemplateRefused):
        render_cards(t, "en", "a4", str(game))


def test_print_writes_a_contact_sheet_and_a_png_per_card_of_the_chosen_size(tmp_path):
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["print", RACE, "--size", "mini", "--png", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert (out / "race.contact.en.pdf").is_file() and (out / "race.cards.en.pdf").is_file()
    t = tables_of("docs/tutorial/race")
    cards = sorted(k for k, p in t["protos"].items() if p.get("section") == "cards")
    pngs = sorted(os.listdir(out / "race.cards.en"))
    assert pngs == sorted(f"{c}.png" for c in cards)
    with open(out / "race.cards.en" / pngs[0], "rb") as fh:
        head = fh.read(24)
    width, height = int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")
    # a mini card with its bleed, 50×69 mm, at 300 dpi
    assert abs(width - 50 / 25.4 * 300) < 3 and abs(height - 69 / 25.4 * 300) < 3


def test_print_refuses_a_size_that_is_no_size_as_a_usage_error(tmp_path):
    result = CliRunner().invoke(main, ["print", RACE, "--size", "9999x1", "-o", str(tmp_path / "o")])
    assert result.exit_code == 2 and "card size" in result.output and "Traceback" not in result.output


def test_love_letters_value_stands_in_the_corner_and_without_it_is_w023():
    t = tables_of("docs/examples/love-letter")
    faces = {f["id"]: f for f in card_faces(t, "en")}
    assert {cid: f["corner"][1] for cid, f in faces.items()} == {"guard": 1, "priest": 2, "baron": 3, "handmaid": 4, "princess": 8}
    html_text = render_cards(t, "en", "a4", os.path.join(ROOT, "docs/examples/love-letter"), layout="contact")
    assert re.search(r'class="corner"[^>]*>8</div>', html_text)
    # no corner, and no words for the value either: no face shows it
    bare = dict(t, decks={d: {k: v for k, v in deck.items() if k != "face"} for d, deck in t["decks"].items()},
                game=dict(t["game"], terms={k: v for k, v in t["game"]["terms"].items() if k != "value"}))
    warnings = []
    card_faces(bare, "en", warnings=warnings)
    assert sorted((w.card, w.code) for w in warnings) == sorted((c, "W023") for c in faces)
    assert all("`value` (" in w.message for w in warnings)


def test_a_value_the_cards_text_says_needs_no_corner():
    t = tables_of("docs/examples/love-letter")
    bare = dict(t, decks={d: {k: v for k, v in deck.items() if k != "face"} for d, deck in t["decks"].items()},
                protos={k: (dict(p, text={"en": f"Value {p['attrs']['value']}."}) if p.get("section") == "cards" else p)
                        for k, p in t["protos"].items()})
    warnings = []
    card_faces(bare, "en", warnings=warnings)
    assert warnings == []


def test_the_copies_of_a_card_show_on_the_contact_sheet_not_on_its_face():
    t = tables_of("docs/examples/love-letter")
    folder = os.path.join(ROOT, "docs/examples/love-letter")
    assert '<div class="copies">×5</div>' in render_cards(t, "en", "a4", folder, layout="contact")
    assert "×5" not in render_cards(t, "en", "a4", folder)


def test_art_is_the_games_picture_named_after_the_card_or_its_kind_else_a_placeholder(tmp_path):
    game = tmp_path / "ll"
    shutil.copytree(os.path.join(ROOT, "docs/examples/love-letter"), game, ignore=shutil.ignore_patterns("scenarios"))
    (game / "art").mkdir()
    (game / "art" / "guard.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>')
    faces = {f["id"]: f for f in card_faces(tables_of("docs/examples/love-letter"), "en", pictures=Pictures(str(game)))}
    assert faces["guard"]["art"].startswith("data:image/svg+xml;base64,")
    assert faces["priest"]["art"] == "" and faces["priest"]["initial"] == "P"
    html_text = render_cards(tables_of("docs/examples/love-letter"), "en", "a4", str(game), layout="contact")
    assert html_text.count('class="art placeholder"') == 4 and html_text.count('class="art" ') == 1


def _empty_share(gray, x0, y0, x1, y1):
    """The share of a face's pixel rows with no ink: every pixel the face's own paper colour."""
    rows = [gray[y][x0:x1] for y in range(y0, y1)]
    return sum(1 for r in rows if min(r) >= 235) / max(1, len(rows))


@pytest.mark.parametrize("folder", SHEETS)
def test_no_face_is_more_than_40_percent_empty_on_the_rendered_page(folder, tmp_path):
    """Measured on the contact sheet as printed (PNG at 50 dpi): each face's safe area, row by row."""
    import subprocess

    from rulepress.compiler.cards import SAFE, _slots
    if shutil.which("pdftoppm") is None:
        pytest.skip("no pdftoppm")
    for lang in SHEET_LANGS.get(folder, ("en",)):
        _faces, distinct, pdf_bytes = _sheet(folder, lang)
        pdf = tmp_path / f"contact.{lang}.pdf"
        pdf.write_bytes(pdf_bytes)
        subprocess.run(["pdftoppm", "-r", "50", "-gray", str(pdf), str(tmp_path / f"p{lang}")], check=True)
        slots, _marks = _slots("a4", back=False)
        px = 50 / 25.4
        worst = []
        for n, page in enumerate(sorted(p for p in os.listdir(tmp_path) if p.startswith(f"p{lang}"))):
            with open(tmp_path / page, "rb") as fh:
                data = fh.read()
            # a binary PGM: P5 width height maxval, then one byte a pixel
            head = data.split(b"\n", 3)
            w, h = map(int, head[1].split())
            body = head[3]
            gray = [body[y * w:(y + 1) * w] for y in range(h)]
            for slot, card in zip(slots, distinct[n * len(slots):(n + 1) * len(slots)]):
                x0, y0 = slot["x"] + slot["tx"] + SAFE + 1, slot["y"] + slot["ty"] + SAFE + 1
                x1, y1 = x0 + 63 - 2 * SAFE - 2, y0 + 88 - 2 * SAFE - 2
                worst.append((_empty_share(gray, round(x0 * px), round(y0 * px), round(x1 * px), round(y1 * px)), card))
        assert len(worst) == len(distinct)
        assert max(worst)[0] <= 0.40, (lang, sorted(worst)[-5:])


def _race_with(tmp_path, extra: str):
    game = tmp_path / "race"
    shutil.copytree(RACE, game, ignore=shutil.ignore_patterns("scenarios"))
    (game / "extra.yaml").write_text(extra, encoding="utf-8")
    (game / "art" / "icons").mkdir(parents=True)
    (game / "art" / "icons" / "fuel.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8"/>')
    return game


ICON_GAME = ("icons:\n  - id: fuel\n    glyph: F\n    name: {en: Fuel, ru: Топливо}\n"
             "    words: {en: [fuel], ru: [топливо, топлива]}\n"
             "cards:\n  - id: tank\n    name: {en: Tank, ru: Бак}\n    deck: boosts\n"
             "    text: {en: \"Gain 2 fuel, then {icon:fuel} again.\", ru: \"Получите 2 топлива.\"}\n")


def test_an_icon_spelled_or_named_by_its_words_is_drawn_as_the_icon_on_the_card_and_in_the_rulebook(tmp_path):
    from rulepress.compiler.pipeline import compile_game
    from rulepress.compiler.rulebook import iconize_html
    game = _race_with(tmp_path, ICON_GAME)
    text, _gid, report = compile_game(str(game))
    assert text is not None and not report.errors, [d.text() for d in report.errors]
    import json
    t = json.loads(text)
    assert t["protos"]["tank"]["text"]["en"] == "Gain 2 fuel, then [fuel] again."  # (one spelling in the tables)
    face = next(f for f in card_faces(t, "en", pictures=Pictures(str(game))) if f["id"] == "tank")
    assert str(face["text"]).count('<img class="icon icon-fuel"') == 2 and "fuel," not in str(face["text"])
    ru = next(f for f in card_faces(t, "ru", pictures=Pictures(str(game))) if f["id"] == "tank")
    assert str(ru["text"]).count('class="icon icon-fuel"') == 1 and "топлива" not in str(ru["text"])
    assert str(iconize_html("Fuel runs low.", t, "en")) == '<span class="icon icon-fuel" title="Fuel">F</span> runs low.'


def test_an_icon_spelled_that_the_game_does_not_declare_is_r010(tmp_path):
    from rulepress.compiler.pipeline import compile_game
    game = _race_with(tmp_path, ICON_GAME.replace("{icon:fuel}", "{icon:fule}"))
    _text, _gid, report = compile_game(str(game))
    assert [d.code for d in report.errors] == ["R010"] and "`{icon:fule}`" in report.errors[0].message


def test_a_face_that_promotes_an_attribute_no_card_of_its_deck_has_is_r002(tmp_path):
    from rulepress.compiler.pipeline import compile_game
    game = tmp_path / "ll"
    shutil.copytree(os.path.join(ROOT, "docs/examples/love-letter"), game, ignore=shutil.ignore_patterns("scenarios"))
    manifest = game / "game.yaml"
    manifest.write_text(manifest.read_text(encoding="utf-8").replace("face: {corner: value}", "face: {corner: valeu, stats: [value, nope]}"),
                        encoding="utf-8")
    _text, _gid, report = compile_game(str(game))
    found = sorted((d.code, d.message.split(":")[0]) for d in report.errors)
    assert found == [("R002", "unknown attribute `nope`"), ("R002", "unknown attribute `valeu`")]
    assert "did you mean `value`" in " ".join(d.message for d in report.errors)


# Words that tell the designer where a rule came from or what the edition leaves out: they
# belong in a `note:` or the edition's notes, never on a face or a player aid.
_DESIGNER_NOTE = re.compile(r"(?i)not in (?:the )?seed|нет в источнике|not modell?ed|не моделиру|rule tests|тесты правил")


@pytest.mark.parametrize("folder", [os.path.join("content", g) for g in sorted(os.listdir(os.path.join(ROOT, "content")))
                                    if os.path.isfile(os.path.join(ROOT, "content", g, "game.yaml"))])
def test_no_face_or_player_aid_holds_a_designer_note(folder):
    """What a card, an action (the player aid) or an option (the setup sheet) says to players
    holds no source note: "not in seed" and "not modelled" go to `note:`."""
    t = tables_of(os.path.join(ROOT, folder))
    said = [(f"card {pid}", p) for pid, p in (t.get("protos") or {}).items()]
    said += [(f"action {aid}", a) for aid, a in (t.get("actions") or {}).items()]
    said += [(f"option {oid}", o) for oid, o in ((t.get("game") or {}).get("options") or {}).items()]
    said = [(where, d.get("text")) for where, d in said if isinstance(d, dict)]
    found = [f"{where}: {text!r}" for where, texts in said if isinstance(texts, dict)
             for text in texts.values() if isinstance(text, str) and _DESIGNER_NOTE.search(text)]
    assert not found, "\n".join(found)
