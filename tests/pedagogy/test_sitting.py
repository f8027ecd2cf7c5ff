"""A review sitting: capped, the urgent first, lessons and kinds taking turns."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

from app.pedagogy.sitting import Slot, plan

START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def _slots(spec: list[tuple[str, str, bool]]) -> list[Slot]:
    return [
        Slot(lesson, kind, urgent, START + timedelta(minutes=n), f"{n}@0")
        for n, (lesson, kind, urgent) in enumerate(spec)
    ]


def _identity(slot: Slot) -> Slot:
    return slot


def test_lessons_take_turns_and_the_sitting_is_capped() -> None:
    # Stored lesson by lesson, as a learner misses them.
    items = _slots(
        [("a", "prediction", False)] * 4 + [("b", "myth", False)] * 4 + [("c", "drill", False)] * 4
    )
    sitting = plan(items, _identity, 6)
    assert len(sitting) == 6
    lessons = [slot.lesson for slot in sitting]
    assert set(lessons[:3]) == {"a", "b", "c"} and set(lessons[3:]) == {"a", "b", "c"}
    assert plan(items, _identity, 6) == sitting  # the same on a reload


def test_kinds_take_turns_within_a_lesson() -> None:
    items = _slots([("a", "prediction", False)] * 3 + [("a", "myth", False)] * 3)
    kinds = [slot.kind for slot in plan(items, _identity, 6)]
    assert all(x != y for x, y in itertools.pairwise(kinds))


def test_the_urgent_come_first() -> None:
    items = _slots([("a", "myth", False), ("b", "myth", False), ("c", "prediction", True)])
    assert plan(items, _identity, 3)[0].lesson == "c"
    assert [slot.lesson for slot in plan(items, _identity, 1)] == ["c"]
