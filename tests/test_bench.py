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
