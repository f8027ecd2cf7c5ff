"""Levels climb: within a lesson a step's level never goes down and stretches at most one level
above the lesson's, and along the learning path a lesson's level never goes down and its
prerequisites come before it."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

from app.lessons.format import Lesson, Level, StepLevel

# Lesson levels and step levels on one scale: a path and a lesson both climb it.
_RANK = {"beginner": 0, "foundation": 0, "intermediate": 1, "advanced": 2, "expert": 3}
# A step may stretch one level above its lesson, no further: a beginner lesson's last step is
# "intermediate", never "advanced".
STEP_STRETCH = 1


def rank(level: Level | StepLevel) -> int:
    return _RANK[level.value]


def step_level_problems(lesson: Lesson) -> Iterator[tuple[int, str]]:
    """(step number, problem): step levels climb within a lesson and stretch at most one level
    above the lesson's."""
    previous = StepLevel.foundation
    for number, step in enumerate(lesson.steps, start=1):
        if rank(step.level) < rank(previous):
            yield (
                number,
                f"level {step.level.value} comes after a {previous.value} step: "
                "levels must not go down within a lesson",
            )
        if rank(step.level) > rank(lesson.level) + STEP_STRETCH:
            yield (
                number,
                f"level {step.level.value} in a {lesson.level.value} lesson: a step may be "
                f"at most {STEP_STRETCH} level above its lesson",
            )
        previous = max(previous, step.level, key=rank)


def path_problems(lessons: list[Lesson]) -> Iterator[tuple[str, str, str]]:
    """(lesson, where, problem): levels rise along the path, and a prerequisite comes before
    the lesson that needs it."""
    by_slug = {lesson.slug: lesson for lesson in lessons}
    ordered = sorted(lessons, key=lambda lesson: lesson.order)
    for before, after in itertools.pairwise(ordered):
        if rank(after.level) < rank(before.level):
            yield (
                after.slug,
                "level",
                f"{after.level.value} comes after {before.slug} ({before.level.value}) "
                "in the path: levels must rise",
            )
    for lesson in lessons:
        for slug in lesson.prerequisites:
            required = by_slug.get(slug)
            if required is not None and required.order >= lesson.order:
                yield (
                    lesson.slug,
                    "prerequisites",
                    f"{slug} comes later in the path (order {required.order} ≥ {lesson.order})",
                )
