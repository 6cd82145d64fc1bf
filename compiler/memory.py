"""How a whole check or build uses memory."""
from __future__ import annotations

import contextlib
import gc
import os


@contextlib.contextmanager
def no_collection():
    """Loading and building make millions of small objects and no garbage cycles worth
    finding while they run: collecting as they go only costs."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


MAX_TEMPLATE_MEMORY = 1 << 30  # bytes a game's template may take beyond what the process holds


def _address_space() -> int | None:
    """Bytes of address space this process holds now (Linux), or None where that is unknown."""
    try:
        with open("/proc/self/statm", encoding="ascii") as fh:
            pages = int(fh.read().split()[0])
        return pages * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError, AttributeError):
        return None


@contextlib.contextmanager
def capped_memory(extra: int | None = None):
    """A game's template runs with at most `extra` bytes more than the process holds: each
    of its numbers and ranges is bounded, but loops of loops of text can still ask for
    terabytes, and a MemoryError (an error of the template) is better than the machine's
    memory gone. Where the limit cannot be read or set, nothing changes."""
    try:
        import resource
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    except (ImportError, OSError, ValueError, AttributeError):
        yield
        return
    used = _address_space()
    cap = None if used is None else used + (MAX_TEMPLATE_MEMORY if extra is None else extra)
    if cap is None or (soft != resource.RLIM_INFINITY and soft <= cap) or (hard != resource.RLIM_INFINITY and cap > hard):
        yield
        return
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
