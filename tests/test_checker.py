"""Effect text is checked before anything runs, with positions inside the YAML file."""
import os
import textwrap

from rulepress.compiler.pipeline import check_game


def _game(tmp_path, body: str):
    folder = tmp_path / "g"
    folder.mkdir()
    (folder / "game.yaml").write_text(textwrap.dedent("""\
        game:
          id: g
          name: {en: G, ru: Г}
          version: 1
          players: {min: 1, max: 2}
        counters:
          - {id: sanity, name: {en: Sanity, ru: Рассудок}, of: player, initial: 3}
        flow:
          phases:
            - {id: main, mode: turns}
        scoring:
          score: player.sanity
        """) + textwrap.dedent(body))
    return str(folder)


def _errors(folder):
    cwd = os.getcwd()
    os.chdir(os.path.dirname(folder))
    try:
        _m, rep = check_game(os.path.basename(folder))
    finally:
        os.chdir(cwd)
    return [d.text() for d in rep.sorted() if d.severity == "error"]


def test_unknown_counter_suggests_the_near_one_at_its_line_and_column(tmp_path):
    errs = _errors(_game(tmp_path, """\
        actions:
          - id: scare
            effect: |
              lose 1 sanit
        """))
    assert errs == ["g/game.yaml:16:7: error: D011 unknown counter `sanit`; did you mean `sanity`?"]


def test_missing_colon_after_a_condition_points_into_the_block(tmp_path):
    errs = _errors(_game(tmp_path, """\
        actions:
          - id: scare
            effect: |
              if player.sanity > 1
                lose 1 sanity
        """))
    assert len(errs) == 1 and errs[0].startswith("g/game.yaml:16:27:") and "expected `:`" in errs[0]


def test_all_effect_errors_are_reported_at_once(tmp_path):
    errs = _errors(_game(tmp_path, """\
        actions:
          - id: a
            effect: gain 1 sanitty
          - id: b
            effect: |
              let x = nothing_here
          - id: c
            if: player.sanityy > 0
            effect: frobnicate(1)
        """))
    codes = [e.split(": ")[2].split()[0] for e in errs]
    assert codes == ["D011", "D013", "D014", "D017"], errs


def test_a_procedure_that_calls_itself_is_refused(tmp_path):
    errs = _errors(_game(tmp_path, """\
        procedures:
          - id: forever
            effect: |
              forever()
        actions:
          - id: a
            effect: forever()
        """))
    assert any("D020" in e and "calls itself" in e for e in errs)


def test_wrong_argument_count_is_an_error(tmp_path):
    errs = _errors(_game(tmp_path, """\
        procedures:
          - id: hurt
            params: [who, n]
            effect: |
              lose n sanity from who
        actions:
          - id: a
            effect: hurt(player)
        """))
    assert any("D016" in e and "takes 2 arguments, given 1" in e for e in errs)


def test_values_of_the_wrong_kind_are_caught_before_play(tmp_path):
    errs = _errors(_game(tmp_path, """\
        zones:
          - {id: pile, name: {en: Pile, ru: Куча}}
        actions:
          - id: a
            effect: |
              gain "lots" sanity
              move player to 3
              for each x in round:
                lose 1 sanity
              let y = pile + 1
        """))
    assert [e.split(": ")[2].split()[0] for e in errs] == ["D018"] * 4, errs
    assert "needs an amount" in errs[0] and "needs a place" in errs[1]


def test_a_statement_met_again_is_checked_again_where_other_names_are_in_scope(tmp_path):
    # `lose n sanity` is clean after `let n = 1`; alone, `n` is unknown, on every card that says it
    errs = _errors(_game(tmp_path, """\
        actions:
          - id: calm
            effect: |
              let n = 1
              lose n sanity
          - id: scare
            effect: |
              lose n sanity
          - id: haunt
            effect: |
              lose n sanity
          - id: again
            effect: |
              let n = 2
              lose n sanity
        """))
    assert errs == ["g/game.yaml:20:12: error: D013 unknown name `n`",
                    "g/game.yaml:23:12: error: D013 unknown name `n`"]


def test_the_same_mistake_on_many_cards_is_reported_on_each(tmp_path):
    errs = _errors(_game(tmp_path, """\
        actions:
          - id: a
            effect: |
              lose 1 sanit
          - id: b
            effect: |
              lose 1 sanit
        """))
    assert [e.split(": error")[0] for e in errs] == ["g/game.yaml:16:7", "g/game.yaml:19:7"]
