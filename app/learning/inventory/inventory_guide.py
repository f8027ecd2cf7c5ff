"""What the pre-test tells a learner about the path: the lessons whose ideas they showed they
know, and where to start.

A lesson's ideas are the inventory's concepts that name it: each concept of
`lessons/inventory.yaml` lists the lessons that teach it, and a lesson's concepts are those
whose list has its slug (one concept may name several lessons, one lesson may be named by
several concepts; a lesson no concept names has none, and the pre-test says nothing of it).

A lesson is **known** when it has at least one concept and the learner answered every
pre-test item of each of them right: both items, as each concept has two on a form. Two
questions are a hint, not proof (a guess is right half the time or more), so the pages say
what the mark rests on. The **start** is the first lesson on the path that is not known and
not done yet: a lesson no concept names is never known, so it can be the start.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from app.learning.inventory.learner import TestScore
from app.lessons.format import Lesson
from app.lessons.inventory import Inventory


@dataclass(frozen=True)
class KnownLesson:
    """A lesson whose every concept the pre-test found known: on how many items and ideas."""

    slug: str
    questions: int
    ideas: int


@dataclass(frozen=True)
class Guide:
    """The pre-test's marks on the path (by slug, in path order) and the suggested start."""

    known: dict[str, KnownLesson]
    start: Lesson | None


def concepts_by_lesson(inventory: Inventory) -> dict[str, list[str]]:
    """Each lesson some concept names, and the concepts that name it (in the file's order)."""
    found: dict[str, list[str]] = {}
    for concept in inventory.concepts:
        for slug in concept.lessons:
            found.setdefault(slug, []).append(concept.id)
    return found


def known_lessons(
    inventory: Inventory, lessons: Sequence[Lesson], pre: TestScore
) -> dict[str, KnownLesson]:
    """The lessons, in path order, whose concepts the pre-test found all right."""
    right = {c.concept: c for c in pre.concepts if c.asked and c.right == c.asked}
    concepts = concepts_by_lesson(inventory)
    known: dict[str, KnownLesson] = {}
    for lesson in lessons:
        ideas = concepts.get(lesson.slug, [])
        if ideas and all(concept in right for concept in ideas):
            questions = sum(right[concept].asked for concept in ideas)
            known[lesson.slug] = KnownLesson(lesson.slug, questions, len(ideas))
    return known


def guide(
    inventory: Inventory, lessons: Sequence[Lesson], pre: TestScore, done: Collection[str]
) -> Guide:
    """The marks and the start, `done` being the lessons the learner has finished."""
    known = known_lessons(inventory, lessons, pre)
    start = next((x for x in lessons if x.slug not in known and x.slug not in done), None)
    return Guide(known, start)
