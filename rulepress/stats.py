"""The statistics the balance report rests on, small and exact enough to check by hand.

- `wilson`: a 95% interval for a rate (a win rate) that stays inside 0..1 and is honest
  for small samples and rates near 0 or 1, where the textbook p ± 1.96·sqrt(p(1-p)/n) is not.
- `two_proportions`: whether two rates differ (the pooled two-proportion z test).
- `mann_whitney`: whether two samples of numbers (scores, game lengths) differ in where
  they lie, without assuming a bell curve (the U test, normal approximation with the
  correction for ties and for continuity).

Every p value is two-sided; a difference is "significant" below ALPHA.
"""
from __future__ import annotations

import math
from typing import NamedTuple

Z95 = 1.959963984540054  # the standard normal's 97.5% point: 95% of it lies within ±Z95
ALPHA = 0.05


class Interval(NamedTuple):
    rate: float
    low: float
    high: float


class Test(NamedTuple):
    statistic: float  # z for two proportions, U for Mann-Whitney
    p: float

    @property
    def significant(self) -> bool:
        return self.p < ALPHA


def normal_two_sided(z: float) -> float:
    """P(|Z| >= |z|) for a standard normal Z."""
    return math.erfc(abs(z) / math.sqrt(2))


def wilson(successes: int, n: int, z: float = Z95) -> Interval:
    """The Wilson score interval of successes/n; (0, 0, 1) when there is nothing to go on."""
    if n <= 0:
        return Interval(0.0, 0.0, 1.0)
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return Interval(p, max(0.0, centre - half), min(1.0, centre + half))


def two_proportions(x1: int, n1: int, x2: int, n2: int) -> Test:
    """Pooled z test of x1/n1 against x2/n2; p = 1 where the rates cannot differ (no games,
    or every game the same in both)."""
    if n1 <= 0 or n2 <= 0:
        return Test(0.0, 1.0)
    pooled = (x1 + x2) / (n1 + n2)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    if se == 0:
        return Test(0.0, 1.0)
    z = (x1 / n1 - x2 / n2) / se
    return Test(z, normal_two_sided(z))


def ranks(values) -> list[float]:
    """Ranks from 1, ties given the mean of the ranks they share."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def mann_whitney(a, b) -> Test:
    """U of sample a against b and its two-sided p (normal approximation, tie and
    continuity corrected: good from about ten values a side). p = 1 where all values tie."""
    n1, n2 = len(a), len(b)
    if not n1 or not n2:
        return Test(0.0, 1.0)
    r = ranks(list(a) + list(b))
    u = sum(r[:n1]) - n1 * (n1 + 1) / 2
    n = n1 + n2
    counts: dict = {}
    for v in list(a) + list(b):
        counts[v] = counts.get(v, 0) + 1
    ties = sum(t ** 3 - t for t in counts.values())
    var = n1 * n2 / 12 * ((n + 1) - ties / (n * (n - 1))) if n > 1 else 0.0
    if var <= 0:
        return Test(u, 1.0)
    diff = u - n1 * n2 / 2
    z = (abs(diff) - 0.5) / math.sqrt(var) if abs(diff) >= 0.5 else 0.0
    return Test(u, min(1.0, normal_two_sided(z)))
