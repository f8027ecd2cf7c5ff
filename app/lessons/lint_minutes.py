"""A lesson's `minutes` against its reading time: its words at a reading pace, and time for
each question a learner answers."""

from __future__ import annotations

from collections.abc import Iterator

from pydantic import BaseModel

from app.lessons.format import Lesson

WORDS_PER_MINUTE = 200
MINUTES_PER_ITEM = 0.5  # a myth or a pitfall; a step's question declares its own (`minutes`)
# `minutes` below this share of the estimate is "far below" the reading time.
MINUTES_TOLERANCE = 0.6


def _texts(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, BaseModel):
        for name, item in value.__dict__.items():
            # For the author and the teacher's dashboard: a learner never reads them.
            if name not in ("claims", "misconception"):
                yield from _texts(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _texts(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _texts(item)


def interactive_items(lesson: Lesson) -> int:
    """Every question a learner answers: each step's (`Step.questions`), myths and pitfalls."""
    asked = sum(len(step.questions()) for step in lesson.steps)
    return asked + len(lesson.myths) + len(lesson.pitfalls)


def answering_minutes(lesson: Lesson) -> float:
    """The time a learner takes to answer the lesson's questions: what each step question
    declares, and `MINUTES_PER_ITEM` for each myth and pitfall."""
    asked = sum(q.minutes for step in lesson.steps for _, q in step.questions())
    return asked + MINUTES_PER_ITEM * (len(lesson.myths) + len(lesson.pitfalls))


def estimated_minutes(lesson: Lesson) -> float:
    words = sum(len(text.split()) for text in _texts(lesson))
    return words / WORDS_PER_MINUTE + answering_minutes(lesson)


def minutes_problem(lesson: Lesson) -> str | None:
    """What is wrong with the lesson's `minutes`, if it is far below the reading time."""
    estimate = estimated_minutes(lesson)
    if lesson.minutes >= MINUTES_TOLERANCE * estimate:
        return None
    return (
        f"{lesson.minutes} minutes is far below the reading time, about "
        f"{round(estimate)} minutes ({WORDS_PER_MINUTE} words a minute and "
        f"{answering_minutes(lesson):g} to answer its {interactive_items(lesson)} "
        "interactive items)"
    )
