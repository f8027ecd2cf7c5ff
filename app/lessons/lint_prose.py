"""A lesson's prose (code is not prose): a reference to a lesson by number that should be a
link, a link to no lesson, and words that mean opposite things to different readers."""

from __future__ import annotations

import re
from collections.abc import Iterator

from pydantic import BaseModel

from app.lessons.format import Lesson

_BARE_REFERENCE = re.compile(r"\blessons? \d+\b", re.IGNORECASE)
_LESSON_LINK = re.compile(r"\]\(/lessons/([a-z0-9-]+)[^)]*\)")
_CONFUSING_WORDS = re.compile(r"\b(upstream|downstream)\b", re.IGNORECASE)


def _prose(lesson: Lesson) -> Iterator[tuple[str, str]]:
    """Every piece of prose with where it stands (code is not prose)."""
    code_fields = {"code", "output", "because", "diagram", "claims"}

    def walk(value: object, where: str) -> Iterator[tuple[str, str]]:
        if isinstance(value, str):
            yield where, value
        elif isinstance(value, BaseModel):
            for name, item in value.__dict__.items():
                if name not in code_fields:
                    yield from walk(item, f"{where}.{name}" if where else name)
        elif isinstance(value, list):
            for index, item in enumerate(value, start=1):
                yield from walk(item, f"{where}[{index}]")

    yield from walk(lesson, "")


def prose_problems(lesson: Lesson, slugs: set[str]) -> Iterator[tuple[str, str]]:
    """(where, problem) over the lesson's prose; `slugs` are the lessons a link may point at."""
    for where, text in _prose(lesson):
        for match in _BARE_REFERENCE.finditer(text):
            yield (
                where,
                f"{match.group(0)!r} is not a link: write [the lesson's title](/lessons/<slug>)",
            )
        for target in _LESSON_LINK.findall(text):
            if target not in slugs:
                yield where, f"links to /lessons/{target}: no such lesson"
        for match in _CONFUSING_WORDS.finditer(text):
            yield (
                where,
                f"{match.group(0)!r} means opposite things to different readers: "
                "say 'toward the loss' or 'toward the leaves'",
            )
