"""The same question asked twice in the curriculum: two myths whose questions ask the same
thing, or the same step question on the same code. One home for each, linked from the others."""

from __future__ import annotations

import re
from collections.abc import Iterator

from app.lessons.format import Lesson
from app.lessons.lint_text import plain

# Two myth questions whose word sets overlap this much ask the same thing.
SAME_QUESTION = 0.85


def _key(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", plain(text).lower()).split())


def _similar(first: str, second: str) -> bool:
    a, b = set(first.split()), set(second.split())
    return first == second or (bool(a | b) and len(a & b) / len(a | b) >= SAME_QUESTION)


def duplicates(lessons: list[Lesson]) -> Iterator[tuple[str, str, str]]:
    """(lesson, where, problem) for each question that asks what an earlier one asks."""
    myths = [
        (lesson.slug, f"myth {number}", _key(myth.question))
        for lesson in lessons
        for number, myth in enumerate(lesson.myths, start=1)
    ]
    for index, (slug, where, question) in enumerate(myths):
        for other_slug, other_where, other in myths[:index]:
            if _similar(question, other):
                yield (
                    slug,
                    where,
                    f"asks the same as {other_slug} {other_where}: one home for each myth, "
                    "link to it from the others",
                )
    seen: dict[tuple[str, str], str] = {}
    for lesson in lessons:
        for number, step in enumerate(lesson.steps, start=1):
            if step.prediction is None:
                continue
            code = " ".join(step.snippet.code.split()) if step.snippet else ""
            key = (_key(step.prediction.question), code)
            label = f"step {number} ({step.title})"
            if key in seen:
                yield lesson.slug, label, f"the same question on the same code as {seen[key]}"
            else:
                seen[key] = f"{lesson.slug} {label}"
