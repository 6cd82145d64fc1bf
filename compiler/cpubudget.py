"""A budget of CPU time for work that content drives and no count bounds: a game's templates.

Each number, range and repetition a template asks for is bounded (rulebook.py), yet loops
over loops of a list set once (`{% set r = range(3000) %}`, three deep) or one call of
`lipsum(1000000)` still take minutes. So a render runs against a clock: in the main thread a
CPU-time timer (SIGPROF) interrupts it wherever it is; elsewhere (signals reach only the main
thread) a trace function looks at the thread's CPU time every few thousand steps. Either way
the work ends with TimeUp, raised inside the template's own frames, so its line is known.
"""
from __future__ import annotations

import contextlib
import signal
import sys
import threading
import time


class TimeUp(Exception):
    """The work ran past its budget of CPU seconds."""

    def __init__(self, seconds: float):
        super().__init__(f"ran for over {seconds:g} seconds of CPU time")
        self.seconds = seconds


@contextlib.contextmanager
def cpu_budget(seconds: float):
    """Within this, TimeUp is raised once `seconds` of CPU time have gone."""
    if threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer"):
        with _timer(seconds):
            yield
    else:
        with _traced(seconds):
            yield


@contextlib.contextmanager
def _timer(seconds: float):
    def up(_signum, _frame):
        raise TimeUp(seconds)
    before = signal.signal(signal.SIGPROF, up)
    started = time.process_time()
    outer = signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, before)
        if outer[0]:  # (a budget around this one: what is left of it goes on)
            left = outer[0] - (time.process_time() - started)
            signal.setitimer(signal.ITIMER_PROF, max(left, 0.001), outer[1])


@contextlib.contextmanager
def _traced(seconds: float, every: int = 4096):
    end = time.thread_time() + seconds
    steps = 0

    def trace(frame, event, arg):
        nonlocal steps
        steps += 1
        if steps % every == 0 and time.thread_time() > end:
            raise TimeUp(seconds)
        return trace
    before = sys.gettrace()
    sys.settrace(trace)
    try:
        yield
    finally:
        sys.settrace(before)
