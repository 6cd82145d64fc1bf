"""A Study in Emerald: the seed names eleven cards and gives none of their texts, so every card's
text says, in both languages, what of it is not in the seed (COVERAGE.md, "Cards: what is the
seed's")."""
import os

import yaml

from tests.conftest import ROOT


def test_every_study_in_emerald_card_text_marks_what_is_not_in_seed():
    with open(os.path.join(ROOT, "content", "study-in-emerald", "cards.yaml"), encoding="utf-8") as f:
        cards = yaml.safe_load(f)["cards"]
    assert len(cards) == 40
    unmarked = [c["id"] for c in cards
                if "not in seed" not in c["text"]["en"].lower() or "нет в источнике" not in c["text"]["ru"].lower()]
    assert unmarked == []
