"""Cyclic garbage collection held off while a plan is computed.

Analysing a deep draft and replaying its step make thousands of small tuples and arrays, none of
them in a reference cycle. Each 700 of them would start a collection that walks the young objects
(and now and then everything the application holds), which costs more than the computation
itself. While ``gc_paused()`` is entered, collection waits; on leaving it is switched back on
(if it was on) and the next allocation collects as usual, so nothing is skipped, only batched.
Reentrant and safe across threads: it only ever re-enables what it found enabled.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def gc_paused() -> Iterator[None]:
    was_on = gc.isenabled()
    if was_on:
        gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()
