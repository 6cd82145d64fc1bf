"""A statement is put into words once per game and language, and reads exactly as it would alone."""
import pytest

from rulepress.compiler.diagnostics import Pos
from rulepress.compiler.dsl import parse
from rulepress.compiler.render import LANGS, Renderer
from rulepress.compiler.said import Said, shape
from tests.test_render import STATEMENTS


def _at(file, line=1):
    return lambda l, c: Pos(file, line + l - 1, c)


def test_the_same_statement_in_two_places_has_one_shape():
    a = parse("gain 2 gold\nif tension > 1:\n  lose 1 vp", _at("a.yaml"))
    b = parse("gain 2 gold\nif tension > 1:\n  lose 1 vp", _at("b.yaml", 40))
    assert a != b
    assert [shape(s) for s in a] == [shape(s) for s in b]


def test_statements_that_read_differently_have_different_shapes():
    texts = ["gain 2 gold", "gain 3 gold", "lose 2 gold", "gain 2 vp", "set player.gold to true",
             "set player.gold to 1", "set player.gold to 1.0", 'log "1"', "log 1"]
    shapes = [shape(parse(t, _at("a.yaml"))[0]) for t in texts]
    assert len(set(shapes)) == len(texts)


def test_lists_dicts_and_nodes_never_share_a_shape():
    values = [["gain", "a.yaml:1:1", 1], ["gain", 1], {"gain": 1}, ("gain", 1), [True], [1], [1.0], [None], ["1"]]
    assert len({shape(v) for v in values}) == len(values)


@pytest.mark.parametrize("lang", LANGS)
def test_an_effect_reads_the_same_with_statements_said_before(tables, lang):
    said = Said()
    effects = [parse(text, _at(f"e{i}.yaml", i)) for i, text in enumerate(STATEMENTS.values())]
    # the same statements again, elsewhere: now every one is known
    effects += [parse(text, _at(f"f{i}.yaml", 3 * i)) for i, text in enumerate(STATEMENTS.values())]
    for this in (None, "cards", "actions"):
        for ir in effects:
            assert Renderer(tables, lang, this, said).lines(ir) == Renderer(tables, lang, this).lines(ir)


@pytest.mark.parametrize("lang", LANGS)
def test_a_name_given_earlier_in_the_effect_is_part_of_what_a_statement_says(tables, lang):
    said = Said()
    after = parse('choose q from players "Who?":\n  gain 1 vp\nlose 1 vp from q', _at("a.yaml"))
    alone = parse("lose 1 vp from q", _at("b.yaml"))
    for ir in (after, alone, after, alone):
        assert Renderer(tables, lang, None, said).lines(ir) == Renderer(tables, lang).lines(ir)
    assert Renderer(tables, lang).lines(after)[-1] != Renderer(tables, lang).lines(alone)[0]


def test_a_statement_with_a_problem_reports_it_at_each_place(tables):
    said = Said()
    bad = [["nonsense", "a.yaml:1:1"]], [["nonsense", "b.yaml:7:3"]]
    problems = []
    for ir in bad:
        r = Renderer(tables, "en", None, said)
        r.lines(ir)
        problems += r.problems
    assert len(problems) == 2
