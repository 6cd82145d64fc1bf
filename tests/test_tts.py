"""Tabletop Simulator export (issue #38): each deck as TTS custom-deck grids (at most 10×7 faces
an image) with a back, and a saved object whose shape TTS loads."""
import json
import os
import shutil

import pytest
from click.testing import CliRunner

from rulepress.cli import main
from rulepress.compiler.cards import CardSize, card_faces
from rulepress.compiler.render import Names
from rulepress.compiler.tts import COLS, ROWS, card_pixels, grids, saved_object
from tests.conftest import ROOT
from tests.test_rulebook import tables_of

pytestmark = pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="no pdftoppm")


def _png_size(path):
    with open(path, "rb") as fh:
        head = fh.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    return int.from_bytes(head[16:20], "big"), int.from_bytes(head[20:24], "big")


CUSTOM_DECK = {"FaceURL": str, "BackURL": str, "NumWidth": int, "NumHeight": int, "BackIsHidden": bool,
               "UniqueBack": bool, "Type": int}
TRANSFORM = {"posX", "posY", "posZ", "rotX", "rotY", "rotZ", "scaleX", "scaleY", "scaleZ"}


def _check_shape(doc):
    """The saved-object shape TTS reads: ObjectStates of DeckCustom (DeckIDs, CustomDeck,
    ContainedObjects) or lone Card objects, each card's id its deck number × 100 + grid place."""
    assert isinstance(doc["ObjectStates"], list) and doc["ObjectStates"]
    for key in ("SaveName", "Date", "Note", "LuaScript", "XmlUI"):
        assert isinstance(doc[key], str)
    for obj in doc["ObjectStates"]:
        assert obj["Name"] in ("DeckCustom", "Card") and set(obj["Transform"]) == TRANSFORM
        cards = obj["ContainedObjects"] if obj["Name"] == "DeckCustom" else [obj]
        if obj["Name"] == "DeckCustom":
            assert obj["DeckIDs"] == [c["CardID"] for c in cards] and len(cards) >= 2
        for number, deck in obj["CustomDeck"].items():
            assert number.isdigit() and int(number) >= 1
            assert {k: type(v) for k, v in deck.items()} == CUSTOM_DECK
            assert 1 <= deck["NumWidth"] <= COLS and 1 <= deck["NumHeight"] <= ROWS
        for c in cards:
            assert c["Name"] == "Card" and isinstance(c["Nickname"], str) and c["Nickname"]
            number, place = divmod(c["CardID"], 100)
            deck = c["CustomDeck"][str(number)]
            assert place < deck["NumWidth"] * deck["NumHeight"]


# Two decks, a pile of cards of no deck and a card alone (a lone Card object, not a deck):
# the tutorial's race with a second deck and two cards more. (Night City was the game of
# several piles: its 28 faces took three times as long and it has no card alone.)
PILES = """decks:
  - id: hazards
    name: {en: Hazards, ru: Помехи}
cards:
  - id: pothole
    name: {en: Pothole, ru: Выбоина}
    deck: hazards
    count: 2
    attrs: {speed: 0}
  - id: fog
    name: {en: Fog, ru: Туман}
    deck: hazards
    attrs: {speed: 0}
  - id: trophy
    name: {en: Trophy, ru: Кубок}
    attrs: {speed: 0}
"""


def _game(game, tmp_path) -> str:
    if game != "several-piles":
        return os.path.join(ROOT, game)
    folder = tmp_path / "race"
    shutil.copytree(os.path.join(ROOT, "docs", "tutorial", "race"), folder, ignore=shutil.ignore_patterns("scenarios"))
    (folder / "piles.yaml").write_text(PILES, encoding="utf-8")
    return str(folder)


@pytest.mark.parametrize("game", ["docs/examples/love-letter", "several-piles"])
def test_print_tts_writes_a_grid_per_deck_a_back_and_a_saved_object_tts_loads(game, tmp_path):
    out = tmp_path / "out"
    folder = _game(game, tmp_path)
    result = CliRunner().invoke(main, ["print", folder, "--tts", "-o", str(out), "--no-rulebook",
                                       "--tts-url", "https://example.org/decks"])  # (the rulebook is test_print's)
    assert result.exit_code == 0, result.output
    t = tables_of(folder)
    gid = t["game"]["id"]
    doc = json.loads((out / f"{gid}.tts.en.json").read_text(encoding="utf-8"))
    _check_shape(doc)
    if game == "several-piles":
        assert [(o["Name"], o["Nickname"]) for o in doc["ObjectStates"]] == \
            [("DeckCustom", "Boosts"), ("DeckCustom", "Hazards"), ("Card", "Trophy")]
    protos = {k: p for k, p in t["protos"].items() if p.get("section") == "cards"}
    # every copy of every card is in the saved object, under its name
    names = sorted(c["Nickname"] for obj in doc["ObjectStates"]
                   for c in (obj["ContainedObjects"] if obj["Name"] == "DeckCustom" else [obj]))
    assert len(names) == sum(p.get("count", 1) for p in protos.values())
    cw, ch = card_pixels(CardSize(63, 88))
    images = set(os.listdir(out / f"{gid}.tts.en"))
    seen = set()
    for obj in doc["ObjectStates"]:
        for deck in obj["CustomDeck"].values():
            for key in ("FaceURL", "BackURL"):
                assert deck[key].startswith("https://example.org/decks/")
                seen.add(deck[key].rsplit("/", 1)[1])
            grid = out / f"{gid}.tts.en" / deck["FaceURL"].rsplit("/", 1)[1]
            assert _png_size(grid) == (deck["NumWidth"] * cw, deck["NumHeight"] * ch)
            assert _png_size(out / f"{gid}.tts.en" / deck["BackURL"].rsplit("/", 1)[1]) == (cw, ch)
    assert seen == images  # (no image the saved object does not use)


def test_a_deck_of_more_than_70_different_cards_takes_several_grids():
    t = tables_of("docs/tutorial/race")
    one = next(p for p in t["protos"].values() if p.get("section") == "cards")
    protos = dict(t["protos"], **{f"card_{i:03}": dict(one, name={"en": f"Card {i}"}, count=1 + i % 2) for i in range(75)})
    t = dict(t, protos=protos)
    faces = card_faces(t, "en")
    gs = [g for g in grids(faces) if g.deck == one["deck"]]
    distinct = len({f["id"] for f in faces if f["deck_id"] == one["deck"]})
    assert distinct > 70 and [(g.cols, g.rows, len(g.faces)) for g in gs] == [(10, 7, 70), (distinct - 70, 1, distinct - 70)]
    doc = saved_object(t, "en", faces, grids(faces), lambda name: "https://example.org/" + name)
    _check_shape(doc)
    deck = next(o for o in doc["ObjectStates"] if o["Name"] == "DeckCustom" and len(o["CustomDeck"]) == 2)
    assert len(deck["DeckIDs"]) == sum(p.get("count", 1) for p in protos.values() if p.get("deck") == one["deck"])


def test_a_tts_url_that_is_no_web_address_is_a_usage_error(tmp_path):
    race = os.path.join(ROOT, "docs", "tutorial", "race")
    result = CliRunner().invoke(main, ["print", race, "--tts", "--tts-url", "javascript:alert(1)", "-o", str(tmp_path / "o")])
    assert result.exit_code == 2 and "--tts-url" in result.output and "Traceback" not in result.output


def test_each_grid_place_shows_the_card_its_id_names_cut_from_the_card_images(tmp_path):
    """With --png the grids are the per-card images, trimmed of their bleed, at the place the
    saved object's CardID gives each card: a card there looks like its own image and no other."""
    from PIL import Image, ImageChops, ImageStat
    game = "docs/examples/love-letter"
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["print", os.path.join(ROOT, game), "--png", "--tts", "-o", str(out)])
    assert result.exit_code == 0, result.output
    gid = tables_of(game)["game"]["id"]
    doc = json.loads((out / f"{gid}.tts.en.json").read_text(encoding="utf-8"))
    cw, ch = card_pixels(CardSize(63, 88))
    thumb = (cw // 8, ch // 8)
    own = {}
    for name in os.listdir(out / f"{gid}.cards.en"):
        with Image.open(out / f"{gid}.cards.en" / name) as im:
            bleed = im.width * 3 / 69  # (the card images keep their 3 mm bleed on a 63 mm card)
            own[name[:-4]] = im.convert("RGB").resize(thumb, box=(bleed, bleed, im.width - bleed, im.height - bleed))
    names = Names(tables_of(game))
    placed = 0
    for obj in doc["ObjectStates"]:
        for c in (obj["ContainedObjects"] if obj["Name"] == "DeckCustom" else [obj]):
            number, place = divmod(c["CardID"], 100)
            deck = c["CustomDeck"][str(number)]
            with Image.open(deck["FaceURL"].removeprefix("file://")) as grid:
                x, y = place % deck["NumWidth"] * cw, place // deck["NumWidth"] * ch
                cell = grid.convert("RGB").crop((x, y, x + cw, y + ch)).resize(thumb)
            diff = {cid: sum(ImageStat.Stat(ImageChops.difference(cell, im)).mean) for cid, im in own.items()}
            best = min(diff, key=diff.get)
            assert names.name(best, "en") == c["Nickname"] and diff[best] < 6, (c["Nickname"], best, diff[best])
            placed += 1
    assert placed == sum(p.get("count", 1) for p in tables_of(game)["protos"].values() if p.get("section") == "cards")
