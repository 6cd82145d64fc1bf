"""The budgets of one address (docs/table.md, "Limits") are the same behind several server
processes as behind one: `rulepress serve --processes N` counts them in memory the processes
share (limits.SharedBudgets), not each in its own."""
from __future__ import annotations

import os
import urllib.error
import urllib.request

import pytest

from rulepress.table import limits


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


@pytest.fixture(params=["one process", "shared"])
def budget(request):
    """A budget of 3 at once, then 6 a minute, as each kind of table keeps it."""
    clock = Clock()
    if request.param == "shared":
        b = limits.SharedBudgets({"test": (3, 6)}, clock=clock)["test"]
    else:
        b = limits.Budget((3, 6), clock=clock)
    return b, clock


def test_a_budget_allows_its_burst_then_gives_back_tokens_with_time(budget):
    b, clock = budget
    assert [b.take("1.2.3.4") for _ in range(4)] == [True, True, True, False]
    assert not b.allows("1.2.3.4")
    assert b.take("5.6.7.8")  # another address has its own
    clock.now += 10  # 6 a minute: one token back
    assert b.allows("1.2.3.4") and b.take("1.2.3.4") and not b.take("1.2.3.4")
    assert b.take(None) and b.allows(None)  # no address, no limit


def test_a_shared_budget_is_spent_by_every_process_forked_after_it():
    budgets = limits.SharedBudgets({"miss": (5, 1)})
    pid = os.fork()
    if pid == 0:  # a server process: spends the address's whole budget
        ok = all(budgets["miss"].take("9.9.9.9") for _ in range(5))
        os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert not budgets["miss"].take("9.9.9.9")  # nothing left for it here either
    assert budgets["miss"].take("8.8.8.8")


def test_a_full_shared_table_drops_the_fullest_bucket_not_the_spent_ones():
    table = limits.SharedBudgets({"join": (2, 1)}, clock=Clock())
    table.SLOTS = table.PROBE = 4  # (a table of four slots, all probed)
    b = table["join"]
    for a in ("a", "b", "c", "d"):
        assert b.take(a) and b.take(a)  # four addresses, each spent
    assert b.take("e")  # a fifth: one of the spent ones is dropped for it, never refused
    assert sum(not b.allows(a) for a in "abcd") >= 3
