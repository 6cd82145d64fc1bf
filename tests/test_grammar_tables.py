"""The LALR tables shipped beside dsl.lark: made from this grammar, parse as the grammar does,
and are passed over (the tables made again) when they do not fit."""
import glob
import json
import os

import lark
import yaml

from rulepress.compiler import grammar

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_kept_tables_are_made_from_this_grammar():
    with open(os.path.join(os.path.dirname(grammar.__file__), grammar.TABLES), encoding="utf-8") as fh:
        kept = json.load(fh)
    # after an edit of dsl.lark: python -m rulepress.compiler.grammar
    assert kept["grammar"] == grammar._stamp(grammar._grammar_text())["grammar"], \
        "dsl.tables.json is stale: run `python -m rulepress.compiler.grammar`"


def _effect_texts():
    """Every effect text of the content games: the strings that parse as statements."""
    texts = set()

    def walk(v):
        if isinstance(v, dict):
            for k, x in v.items():
                if k in ("effect", "do", "then", "when", "if", "check") and isinstance(x, str):
                    texts.add(x if x.endswith("\n") else x + "\n")
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
    for path in sorted(glob.glob(os.path.join(ROOT, "content", "*", "**", "*.yaml"), recursive=True)):
        with open(path, encoding="utf-8") as fh:
            walk(yaml.safe_load(fh))
    return sorted(texts)


def test_kept_tables_parse_as_the_grammar_does():
    kept = grammar.parser()
    made = grammar._made(grammar._grammar_text())
    texts = _effect_texts()
    assert len(texts) > 100
    for text in texts:
        try:
            a = kept.parse(text)
        except lark.exceptions.LarkError as exc:
            a = type(exc).__name__
        try:
            b = made.parse(text)
        except lark.exceptions.LarkError as exc:
            b = type(exc).__name__
        assert a == b, text


def test_tables_of_another_grammar_or_lark_are_not_used(monkeypatch):
    text = grammar._grammar_text()
    assert grammar._kept_tables(text) is not None
    assert grammar._kept_tables(text + "\n// edited\n") is None
    monkeypatch.setattr(lark, "__version__", "0.0.1")
    assert grammar._kept_tables(text) is None


def test_unreadable_or_malformed_tables_are_made_again(tmp_path, monkeypatch):
    (tmp_path / "dsl.lark").write_text(grammar._grammar_text(), encoding="utf-8")
    monkeypatch.setattr(grammar, "_HERE", str(tmp_path))
    for bad in ("", "[1, 2]", "{not json", json.dumps({"grammar": 1})):
        (tmp_path / grammar.TABLES).write_text(bad, encoding="utf-8")
        assert grammar._kept_tables(grammar._grammar_text()) is None
