"""Results that depend on one object alone, computed once for that object.

A lesson's parts are frozen models and a catalog is built whole: nothing in them changes once
loaded, and a reload (`gradlab serve --reload`, app/lessons/reload.py) builds new objects
instead of changing the old ones. So what is computed from one of them alone (a step's variant
instances, where a catalog teaches each term) may be kept beside that object, by its identity:
the new objects of a reload start without it, and it goes when its object goes. Nothing
learner-specific belongs here; the result is shared by every request, so it must not be
changed by its callers (return tuples and frozen records).
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable
from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")


def per_object(function: Callable[[K], V]) -> Callable[[K], V]:
    """`function(obj)` computed once per live object (by identity, never by equality)."""
    kept: dict[int, tuple[weakref.ref[K], V]] = {}

    def forget(gone: weakref.ref[K], at: int) -> None:
        entry = kept.get(at)
        if entry is not None and entry[0] is gone:
            del kept[at]

    @functools.wraps(function)
    def cached(key: K) -> V:
        at = id(key)
        entry = kept.get(at)
        if entry is not None and entry[0]() is key:
            return entry[1]
        value = function(key)
        kept[at] = (weakref.ref(key, lambda gone: forget(gone, at)), value)
        return value

    return cached
