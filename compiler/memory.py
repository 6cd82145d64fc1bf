"""How a whole check or build uses memory."""
from __future__ import annotations

import contextlib
import gc


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
