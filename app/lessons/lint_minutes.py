"""A lesson's `minutes` against its reading time: its words at a reading pace, and time for
each question a learner answers."""

from __future__ import annotations

from collections.abc import Iterator

from pydantic import BaseModel

from app.lessons.format import Lesson

WORDS_PER_MINUTE = 200
MINUTES_PER_ITEM = 0.5  # a prediction, value prediction, myth or pitfall
# `minutes` below this share of the estimate is "far below" the reading time.
MINUTES_TOLERANCE = 0.6


def _texts(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, BaseModel):
        for name, item in value.__dict__.items():
            if name != "claims":  # for the author: a learner never reads them
                yield from _texts(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _texts(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _texts(item)


def interactive_items(lesson: Lesson) -> int:
    steps = sum(
        (step.prediction is not None) + (step.value_prediction is not None) for step in lesson.steps
    )
    return steps + len(lesson.myths) + len(lesson.pitfalls)


def estimated_minutes(lesson: Lesson) -> float:
    words = sum(len(text.split()) for text in _texts(lesson))
    return words / WORDS_PER_MINUTE + MINUTES_PER_ITEM * interactive_items(lesson)


def minutes_problem(lesson: Lesson) -> str | None:
    """What is wrong with the lesson's `minutes`, if it is far below the reading time."""
    estimate = estimated_minutes(lesson)
    if lesson.minutes >= MINUTES_TOLERANCE * estimate:
        return None
    return (
        f"{lesson.minutes} minutes is far below the reading time, about "
        f"{round(estimate)} minutes ({WORDS_PER_MINUTE} words a minute and "
        f"{MINUTES_PER_ITEM:g} a minute for each of {interactive_items(lesson)} "
        "interactive items)"
    )
