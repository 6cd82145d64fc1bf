"""The numbers a game holds: whole or not, never beyond LIMIT either way.

Content may not write a number beyond it (the compiler checks with this same constant),
and arithmetic at run time may not make one: `repeat 40 times: set x to x * x` stops with
a fault naming the expression instead of growing until memory runs out. The test
`-LIMIT <= x <= LIMIT` is also false for infinities and NaN, so none reaches the state.
"""
from __future__ import annotations

LIMIT = 10**15
LIST_LIMIT = 1_000_000  # items in a list joined at run time (`l + l`, doubled 40 times, would not fit)


def beyond(x) -> str:
    """Why x cannot be a game's number (for a fault's message)."""
    if x != x or x in (float("inf"), float("-inf")):
        return f"the result is not a number ({x})"
    return f"the result {x} is beyond ±10^15, the largest number a game holds"
