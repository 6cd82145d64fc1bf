"""The validation cache gives exactly the findings a full check gives, only sooner."""
from __future__ import annotations

import json
import os
import sys

import pytest

from rulepress.compiler import cache
from rulepress.compiler.diagnostics import Pos
from rulepress.compiler.pipeline import check_game

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from gen_synthetic import generate  # noqa: E402

EXTRA = """\
procedures:
  - id: boost_all
    params: [n]
    effect: |
      for each p in players:
        gain n fame to p
      emit boosted with amount = n
  - id: spare
    effect: |
      log "unused"

triggers:
  - id: on_boost
    "on": boosted
    effect: |
      gain amount coins

cards:
  - id: extra_card
    name: {en: Extra, ru: Extra}
    deck: market
    attrs: {cost: 2}
    effect: |
      boost_all(2)
      gain 1 coins
"""


@pytest.fixture
def game(tmp_path, monkeypatch):
    monkeypatch.setenv("RULEPRESS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("RULEPRESS_NO_CACHE", raising=False)
    folder = generate(str(tmp_path / "synthetic"), cards=60, files=4, seed=3)
    with open(os.path.join(folder, "extra.yaml"), "w", encoding="utf-8") as fh:
        fh.write(EXTRA)
    return folder


def full(folder):
    _m, report = check_game(folder)
    return [d.text() for d in report.sorted()]


def cached(folder):
    return [d.text() for d in cache.validate_game(folder).sorted()]


def edit(folder, name, old, new):
    path = os.path.join(folder, name)
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    assert old in text, old
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text.replace(old, new, 1))


def count_full_checks(monkeypatch):
    calls = []
    real = cache._full
    monkeypatch.setattr(cache, "_full", lambda *a: calls.append(1) or real(*a))
    return calls


def test_an_edited_file_is_checked_again(game, monkeypatch):
    before = cached(game)
    assert before == full(game) and len(before) == 1 and "W001 procedure `spare` is never called" in before[0]
    fulls = count_full_checks(monkeypatch)
    edit(game, "extra.yaml", "gain 1 coins", "gain 1 coinz")
    found = [d for d in cached(game) if d not in before]
    assert len(found) == 1 and "D011 unknown counter `coinz`" in found[0] and "extra.yaml:25:" in found[0]
    edit(game, "extra.yaml", "gain 1 coinz", "gain 1 coins")
    assert cached(game) == before
    assert fulls == []  # both edits were checked without checking every file again


def test_an_unchanged_game_comes_from_the_cache(game, monkeypatch):
    first = cached(game)
    fulls = count_full_checks(monkeypatch)
    monkeypatch.setattr(cache, "_incremental", lambda *a: pytest.fail("nothing changed"))
    assert cached(game) == first
    assert fulls == []


# Each edit is applied on top of the ones before; after each, the cached answer must be
# the full check's answer.
EDITS = [
    ("cards_001.yaml", "gain 1", "gain 2"),                       # a number in an effect
    ("cards_001.yaml", "gain 2", "gain 2 fame\n      gain 2"),    # a line more: positions move
    ("extra.yaml", "gain amount coins", "gain amount coin"),      # an error in a trigger
    ("extra.yaml", "gain amount coin", "gain amount coins"),
    ("extra.yaml", "emit boosted with amount = n", "emit boosted with total = n"),  # another file's trigger breaks
    ("extra.yaml", "emit boosted with total = n", "emit boosted with amount = n"),
    ("extra.yaml", 'log "unused"', "boost_all(1)\n      spare()"),   # procedures that call themselves
    ("extra.yaml", "boost_all(1)\n      spare()", 'log "unused"'),
    ("cards_002.yaml", "deck: market", "deck: markt"),           # a dangling reference
    ("extra.yaml", "id: extra_card", "id: card_00000"),          # an id used in another file
    ("extra.yaml", "id: card_00000", "id: extra_card"),
    ("cards_002.yaml", "deck: markt", "deck: market"),
    ("game.yaml", "- id: fame", "- id: glory"),                   # a counter every file uses
    ("game.yaml", "- id: glory", "- id: fame"),
    ("cards_003.yaml", "cards:", "cards:\n  - id: bad card"),      # schema errors
    ("cards_003.yaml", "cards:\n  - id: bad card", "cards:"),
    ("cards_001.yaml", "gain 2 fame", "gain extra_card.cost fame"),  # an attribute named like a field
    ("extra.yaml", "attrs: {cost: 2}", "attrs: {cots: 2}"),
    ("extra.yaml", "attrs: {cots: 2}", "attrs: {cost: 2}"),
    # what the checks read of other files' cards that are rows (all but a file's first), in
    # edits checked without checking every file again
    ("extra.yaml", "gain amount coins", "for each c in every card:\n        gain c.suit coins"),  # text, no amount
    ("extra.yaml", "gain c.suit coins", "gain c.pwr coins"),                # an attribute only rows have
    ("extra.yaml", "gain c.pwr coins", "gain c.power coins"),
    ("cards_000.yaml", "id: card_00003\n", "id: card_00003\n    kind: relic\n"),
    ("extra.yaml", "in every card:", "in every relik:"),                     # a kind only a row has
    ("extra.yaml", "in every relik:", "in every relic:"),
    ("cards_000.yaml", "id: card_00003\n    kind: relic\n", "id: card_00003\n"),
    ("extra.yaml", "id: extra_card", "id: card_00007"),                     # an id a row has...
    ("extra.yaml", "gain 1 coins", "gain 2 coins"),                          # ...and an edit beside it
    ("extra.yaml", "id: card_00007", "id: extra_card"),
    # what the checks read of another file's procedures, kept as what they name, call and emit
    ("cards_001.yaml", "cards:", 'triggers:\n  - id: on_boost_too\n    "on": boosted\n    effect: |\n'
                                 "      gain amount fame\n\nprocedures:\n  - id: again\n    effect: |\n"
                                 "      log 1\n\ncards:"),
    ("cards_001.yaml", "gain amount fame", "gain amont fame"),     # names given by another file's emit
    ("cards_001.yaml", "gain amont fame", "gain amount fame"),
    ("extra.yaml", 'log "unused"', "again()"),
    ("cards_001.yaml", "      log 1\n", "      spare()\n      log 1\n"),  # calls that go round two files
    ("cards_001.yaml", "log 1", "log 2"),
    ("cards_001.yaml", "      spare()\n      log 2\n", "      log 2\n"),
    ("cards_001.yaml", "log 2", "log 3"),
    ("extra.yaml", "again()", 'log "unused"'),
]


def test_the_cached_answer_is_the_full_answer_after_every_edit(game):
    assert cached(game) == full(game)
    for name, old, new in EDITS:
        edit(game, name, old, new)
        assert cached(game) == full(game), (name, old, new)


def test_a_corrupt_cache_is_ignored(game, tmp_path):
    expected = full(game)
    assert cached(game) == expected
    root = tmp_path / "cache"
    written = [os.path.join(d, f) for d, _s, fs in os.walk(root) for f in fs if f != cache.KEY_NAME]
    assert any(p.endswith("index.json") for p in written)
    for path in written:  # the cache holds nothing but sealed JSON (a document a line in .jsonl)
        with open(path, encoding="utf-8") as fh:
            body = cache._unsealed(fh.read())
        assert body is not None, path
        if path.endswith(".jsonl"):
            assert all(json.loads(line) is not None for line in body.split("\n"))
        else:
            json.loads(body)
    for i, path in enumerate(sorted(written)):
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(['{"version": 3', "[]", '{"stamp": 1, "stubs": []}', "\x00garbage"][i % 4])
    edit(game, "cards_000.yaml", "gain 1", "gain 3")
    assert cached(game) == full(game)
    assert cached(game) == full(game)


def _reseal(path, change):
    """A cache file changed by `change(body)` and sealed again, as by someone who knows the format."""
    with open(path, encoding="utf-8") as fh:
        body = cache._unsealed(fh.read())
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(cache._sealed(change(body)))


def _index_with(key, value):
    def change(body):
        rec = json.loads(body)
        files = rec["files"]
        rec[key] = value(files) if callable(value) else value
        return json.dumps(rec)
    return change


# an index that is sealed but not of our shape: a full check, never a traceback nor a report from it
@pytest.mark.parametrize("change", [
    _index_with("diags", lambda files: {f: [["a.yaml", 1, 1, "error", "X1"]] for f in files}),  # one field short
    _index_with("diags", lambda files: {f: [["a.yaml", 1, 1, "fatal", "X1", "m"]] for f in files}),
    _index_with("diags", lambda files: {f: [[1, 2, 3, 4, 5, 6, 7]] for f in files}),
    _index_with("diags", lambda files: {f: "none" for f in files}),
    _index_with("diags", {}),
    _index_with("other", [["a"]]),
    _index_with("files", [1, 2]),
    _index_with("hash", {"x": 1}),
    _index_with("iface", []),
    _index_with("stamp", None),
    lambda body: "[" * 100_000 + "]" * 100_000,   # deeper than the JSON reader goes
    lambda body: "not json",
    lambda body: "[]",
])
def test_an_index_of_the_wrong_shape_means_a_full_check(game, tmp_path, change):
    expected = full(game)
    assert cached(game) == expected
    [path] = [os.path.join(d, f) for d, _s, fs in os.walk(tmp_path / "cache") for f in fs if f == "index.json"]
    _reseal(path, change)
    assert cached(game) == expected
    edit(game, "cards_000.yaml", "gain 1", "gain 3")
    _reseal(path, change)
    assert cached(game) == full(game)


@pytest.mark.parametrize("part", [0, 1])  # a file's stub, or what its effects use
@pytest.mark.parametrize("stub", ['{"x": 1}', "[1, 2]", '{"l": 5}', '{"m": [1]}', '{"n": 1, "e": 2}', "not json", ""])
def test_a_summary_of_the_wrong_shape_means_a_full_check(game, tmp_path, stub, part):
    expected = full(game)
    assert cached(game) == expected
    [path] = [os.path.join(d, f) for d, _s, fs in os.walk(tmp_path / "cache") for f in fs if f.endswith(".jsonl")]

    def change(body):
        lines = body.split("\n")
        lines[1:] = [stub if i % 2 == part else line for i, line in enumerate(lines[1:])]
        return "\n".join(lines)
    _reseal(path, change)
    edit(game, "cards_000.yaml", "gain 1", "gain 3")
    assert cached(game) == full(game)


def test_no_cache_means_no_cache(game, tmp_path, monkeypatch):
    monkeypatch.setenv("RULEPRESS_NO_CACHE", "1")
    assert cached(game) == full(game)
    assert not os.path.exists(tmp_path / "cache")


def test_a_changed_checker_forgets_the_cache(game, monkeypatch):
    cached(game)
    fulls = count_full_checks(monkeypatch)
    monkeypatch.setattr(cache, "checker_version", lambda: "another")
    assert cached(game) == full(game)
    assert fulls == [1]


def test_build_reuses_parsed_statements_and_gives_the_same_bytes(game, monkeypatch):
    from rulepress.compiler import dsl
    from rulepress.compiler.pipeline import compile_game
    monkeypatch.setenv("RULEPRESS_NO_CACHE", "1")
    plain = compile_game(game)[0]
    monkeypatch.delenv("RULEPRESS_NO_CACHE")
    cached(game)  # validate parses every statement once
    monkeypatch.setattr(dsl, "_PIECES", {})  # as in a new process
    parses = []
    real = dsl._whole
    monkeypatch.setattr(dsl, "_whole", lambda *a: parses.append(a[0]) or real(*a))
    assert compile_game(game)[0] == plain
    assert parses == []


def test_statements_read_back_that_are_not_ir_are_left_out():
    from rulepress.compiler import dsl
    found = {"gain 1 x\n": ["not", "\x00zz"], "lose 1 x\n": 3, 7: [], "stop\n": [["stop", "\x001:1"]]}
    known = dict(dsl._PIECES)
    try:
        dsl._PIECES.pop("stop\n", None)
        dsl._PIECES.pop("gain 1 x\n", None)
        assert dsl.add_pieces(found) == 1 and "gain 1 x\n" not in dsl._PIECES
        assert dsl.parse("stop", lambda l, c: Pos("f", 9 + l, c)) == [["stop", "f:10:1"]]
    finally:
        dsl._PIECES.clear()
        dsl._PIECES.update(known)


def test_a_changed_checker_parses_every_effect_again(game, monkeypatch):
    from rulepress.compiler import dsl
    cached(game)
    parses = []
    real = dsl._parse
    monkeypatch.setattr(dsl, "_parse", lambda *a: parses.append(1) or real(*a))
    monkeypatch.setattr(cache, "checker_version", lambda: "another")
    result = cached(game)
    assert len(parses) > 60  # every card's effect, not the IR of the old parser
    assert result == full(game)
