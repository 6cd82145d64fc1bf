"""The benchmarks' own checks: a figure is only worth printing if what it times is right."""
import os
import sys

from conftest import ROOT


def test_the_ceiling_benchmark_says_the_same_rule_as_the_content():
    """bench/ceiling.py times a condition against the same rule in Python: the two must still
    agree, or its figures say nothing."""
    import sys
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    import ceiling
    game = ceiling.fresh_game()
    sample = ceiling.states(game, 120)
    from rulepress.runtime.interpreter import Interp
    got = [bool(Interp(game, st).ev(game.actions[ceiling.ACTION]["if"], {"player": p, "this": ceiling.ACTION}))
           for st, p in sample]
    assert got == [ceiling.can_claim_somewhere(game, st, p) for st, p in sample]
    assert any(got) and not all(got)  # states of both kinds


def test_the_plain_python_love_letter_plays_the_example_games_rules():
    """bench/versus_plain.py prices a decision against bench/plain_love_letter.py: the two
    must play the same game. Different generators, so their distributions are compared: hands,
    turns and decisions per game and each seat's wins, within 4.5 standard errors (the seeds
    are fixed, so the figures are too; the long run is bench/same_rules.py)."""
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    import plain_love_letter
    import same_rules
    game = same_rules.content_game()
    for players in (2, 4):
        figs = same_rules.compare(players, same_rules.rulepress_games(game, players, 250),
                                  plain_love_letter.play_many(players, 20000))
        report = same_rules.report(players, figs, 250, 20000)
        assert all(abs(f.sigmas) < 4.5 for f in figs), report
        assert {f.name for f in figs} >= {"rounds", "decisions", "p1 wins"}


def test_a_plain_python_love_letter_with_another_rule_is_told_apart():
    """The comparison above can fail: a game to four tokens instead of three is many standard
    errors away."""
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    import plain_love_letter
    import same_rules
    game = same_rules.content_game()
    ours = same_rules.rulepress_games(game, 2, 250)
    old = plain_love_letter.TOKENS_TO_WIN
    plain_love_letter.TOKENS_TO_WIN = 4
    try:
        theirs = plain_love_letter.play_many(2, 20000)
    finally:
        plain_love_letter.TOKENS_TO_WIN = old
    assert max(abs(f.sigmas) for f in same_rules.compare(2, ours, theirs)) > 10


def test_the_plain_python_love_letter_given_the_runtimes_deals_and_choices_ends_every_game_alike():
    """Stronger than distributions: the runtime's games played again by the plain game, with the
    decks the runtime dealt and the choices its bots made, take the same hands, turns and
    decisions and have the same winners, game by game."""
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    import same_rules
    game = same_rules.content_game()
    for players in (2, 3, 4):
        for i in range(40):
            ours, theirs = same_rules.replayed(game, players, f"replay:{i}")
            assert ours == theirs, (players, i)


def test_a_plain_love_letter_whose_baron_compares_no_hands_is_caught_by_the_replay(monkeypatch):
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    import plain_love_letter
    import same_rules
    game = same_rules.content_game()
    monkeypatch.setattr(plain_love_letter, "BARON", 5)  # no card has it: a Baron played does nothing
    differ = 0
    for i in range(40):
        try:
            ours, theirs = same_rules.replayed(game, 3, f"replay:{i}")
        except (AssertionError, StopIteration):
            differ += 1
            continue
        differ += ours != theirs
    assert differ > 10


def test_the_differential_benchmark_gives_every_game_the_same_digest_when_played_again():
    """bench/differential.py compares two checkouts game by game: its digests must follow the
    game alone (same seed, same game, same digest), and tell games apart."""
    sys.path.insert(0, os.path.join(ROOT, "bench"))
    import differential
    first = differential.digests(ROOT, 2)
    assert set(first) == set(differential.GAMES)
    assert differential.digests(ROOT, 2) == first
    assert all(len(set(rows)) == 2 for rows in first.values())
