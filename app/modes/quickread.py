"""The quick read: which one runnable example stands for the whole lesson."""

from __future__ import annotations

from collections.abc import Callable

from app.lessons.format import Lesson, Step


def example_step(lesson: Lesson, may_run: Callable[[int], bool]) -> tuple[int, Step] | None:
    """Among the steps whose code `may_run` (running a step that asks a question the learner
    has not answered would answer it), the first whose code runs cleanly and leaves a gradient
    to look at (the inspector then has something to show); else the first with code; None
    when there is none."""
    with_code = [
        (number, step)
        for number, step in enumerate(lesson.steps, start=1)
        if step.snippet is not None and may_run(number)
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
