"""The quick read: which one runnable example stands for the whole lesson."""

from __future__ import annotations

from app.lessons.schema import Lesson, Step


def example_step(lesson: Lesson) -> tuple[int, Step] | None:
    """The first step whose code runs cleanly and leaves a gradient to look at (the inspector
    then has something to show); else the first step with code; None when no step has code."""
    with_code = [
        (number, step)
        for number, step in enumerate(lesson.steps, start=1)
        if step.snippet is not None
    ]
    for number, step in with_code:
        snippet = step.snippet
        if (
            snippet is not None
            and snippet.error is None
            and any(value is not None for value in snippet.grads.values())
        ):
            return number, step
    return with_code[0] if with_code else None
