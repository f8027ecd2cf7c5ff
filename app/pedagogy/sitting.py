"""A review sitting: which due items to ask, and in what order.

Mixed practice beats blocked practice: a learner who meets a prediction from one lesson, then a
myth from another, has to work out which idea applies each time. So a sitting is never in the
order the items were stored, nor blocked by lesson: lessons take turns, and within a lesson the
kinds of item (prediction, myth, drill, flashcard) take turns. Items marked urgent (a right
guess, a confident miss) come first. The order is a keyed hash, so it is the same on every
reload of one sitting and different for the next.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class Slot:
    """What a sitting needs to know of a due item."""

    lesson: str
    kind: str
    urgent: bool
    due: datetime
    token: str  # names this return of the item (changes each time it is rescheduled)


def _rank(seed: str, *parts: str) -> bytes:
    return hashlib.blake2b("\0".join((seed, *parts)).encode(), digest_size=8).digest()


def _take_turns(groups: list[list[T]]) -> list[T]:
    """One from each group in turn, until all are empty."""
    out: list[T] = []
    depth = max((len(group) for group in groups), default=0)
    for index in range(depth):
        out.extend(group[index] for group in groups if index < len(group))
    return out


def _interleave(items: list[T], slot: Callable[[T], Slot], seed: str) -> list[T]:
    by_lesson: dict[str, dict[str, list[T]]] = {}
    for item in sorted(items, key=lambda i: (slot(i).due, _rank(seed, slot(i).token))):
        found = slot(item)
        by_lesson.setdefault(found.lesson, {}).setdefault(found.kind, []).append(item)
    lessons = sorted(by_lesson, key=lambda lesson: _rank(seed, lesson))
    per_lesson = [
        _take_turns([kinds[kind] for kind in sorted(kinds, key=lambda k: _rank(seed, lesson, k))])
        for lesson, kinds in ((lesson, by_lesson[lesson]) for lesson in lessons)
    ]
    return _take_turns(per_lesson)


def plan(items: Sequence[T], slot: Callable[[T], Slot], size: int) -> list[T]:
    """The sitting: at most `size` of `items`, the urgent first, lessons and kinds taking turns."""
    seed = "\0".join(sorted(slot(item).token for item in items))
    urgent = [item for item in items if slot(item).urgent]
    rest = [item for item in items if not slot(item).urgent]
    return (_interleave(urgent, slot, seed) + _interleave(rest, slot, seed))[:size]
