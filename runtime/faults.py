"""How running an effect ends other than by coming to its end, and the limits it runs within."""
from __future__ import annotations

STEP_BUDGET = 200_000   # statements one task may execute
PLAYOUT_STEPS = 20_000  # what one task of a search's playout may: a bot's guess, not the game (runtime/search.py)
DEPTH_LIMIT = 60        # nested procedure calls and triggers

# Python errors that working an expression out may raise on odd values: each becomes a
# GameFault at the expression's position.
EVALUATION_ERRORS = (TypeError, ValueError, KeyError, ZeroDivisionError, AttributeError, IndexError, OverflowError)


class Suspend(Exception):
    """A decision met where the effect cannot pause (a plain function, see pysource): the task
    runs again from its start once that is answered."""

    def __init__(self, decision):
        self.decision = decision


class Fail(Exception):
    """The effect cannot be carried out (a cost cannot be paid): nothing happens."""


class GameFault(Exception):
    """Content did something impossible at run time; names where in the content."""

    def __init__(self, pos, message):
        # ("?": no position known; then the cause alone, never "at ?")
        super().__init__(message if pos == "?" else f"{pos}: {message}")
        self.pos, self.message = pos, message


class GameOver(Exception):
    """`end game`: unwinds every running effect; what they did so far stands."""


class LoopStop(Exception):
    """`stop`: leaves the innermost loop."""
