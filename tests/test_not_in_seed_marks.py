"""A Study in Emerald: the seed names eleven cards and gives none of their texts, so every card's
designer's note says, in both languages, what of it is not in the seed (COVERAGE.md, "Cards:
what is the seed's"); the note is the designer's, never on the face a player holds."""
import os

import yaml

from tests.conftest import ROOT


def test_every_study_in_emerald_card_note_marks_what_is_not_in_seed():
    with open(os.path.join(ROOT, "content", "study-in-emerald", "cards.yaml"), encoding="utf-8") as f:
        cards = yaml.safe_load(f)["cards"]
    assert len(cards) == 40
    unmarked = [c["id"] for c in cards
                if "not in seed" not in c["note"]["en"].lower() or "нет в источнике" not in c["note"]["ru"].lower()]
    assert unmarked == []


def test_no_card_face_of_a_content_game_carries_a_source_note():
    from rulepress.compiler.cards import card_faces
    from tests.test_rulebook import tables_of
    for game in ("android", "arkham-horror", "night-city", "study-in-emerald"):
        t = tables_of(f"content/{game}")
        for lang, marks in (("en", ("not in seed", "seed:")), ("ru", ("нет в источнике", "из источника"))):
            for f in {f["id"]: f for f in card_faces(t, lang)}.values():
                said = " ".join([f["name"], *f["paragraphs"], *(f"{k} {v}" for k, v in f["attrs"])]).lower()
                assert not any(m in said for m in marks), (game, f["id"], said)
