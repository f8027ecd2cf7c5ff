"""When a lesson is done: the one definition the class dashboard, the progress and catalog
pages and the LTI grade all use.

A lesson is done when every one of its questions as it is today (each step's prediction or
ordering and each myth, by fingerprint) has an answer from the learner. An answer given after
reading the lesson ahead counts as answered (it is left out of statistics, not out of
progress); an answer to a question rewritten since does not count. Steps without a question and
the practice modes (drills, flashcards, pitfalls) do not enter into it.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import TypeAlias

from app.learning.kinds import MYTH, PREDICTION, myth_fingerprint, step_answer_of
from app.lessons.format import Lesson
from app.progress.classes_store import FirstAttempt

# (kind name, number) -> the fingerprint of the question as it is today
Questions: TypeAlias = dict[tuple[str, int], str]


def lesson_questions(lesson: Lesson) -> Questions:
    """Every question a lesson asks today, by (kind name, number), with its fingerprint."""
    found: Questions = {}
    for n, step in enumerate(lesson.steps, start=1):
        if (asked := step_answer_of(step)) is not None:  # a choice or an order, by its kind
            kind, fingerprint = asked
            found[(kind.name, n)] = fingerprint
    found.update(
        {(MYTH.name, n): myth_fingerprint(myth) for n, myth in enumerate(lesson.myths, start=1)}
    )
    return found


def step_answer_kind(lesson: Lesson, kind: str, number: int) -> str:
    """The kind of a step's committed answer as the store labels it (`prediction`: the store
    keeps a choice and an order alike, told apart by fingerprint): the kind its step asks."""
    if kind != PREDICTION.name or not 1 <= number <= len(lesson.steps):
        return kind
    asked = step_answer_of(lesson.steps[number - 1])
    return asked[0].name if asked is not None else kind


def answered_today(
    questions: Questions, answers: Iterable[tuple[str, int, str | None]]
) -> set[tuple[str, int]]:
    """Which of today's questions the (kind name, number, fingerprint) answers answer."""
    return {
        (kind, number)
        for kind, number, fingerprint in answers
        if questions.get((kind, number)) == fingerprint
    }


def is_done(answered: int, total: int) -> bool:
    """Done: every question of the lesson answered (a lesson without questions is done)."""
    return answered >= total


def lesson_done(lesson: Lesson, answers: Iterable[tuple[str, int, str | None]]) -> bool:
    """Whether the learner whose (kind name, number, fingerprint) answers these are is done
    with the lesson."""
    questions = lesson_questions(lesson)
    labelled = [(step_answer_kind(lesson, k, n), n, fp) for k, n, fp in answers]
    return is_done(len(answered_today(questions, labelled)), len(questions))


def done_by(lessons: Iterable[Lesson], attempts: Iterable[FirstAttempt]) -> dict[str, set[str]]:
    """learner -> the slugs of the lessons they are done with, from the store's first attempts
    (`ProgressStore.first_attempts`, any number of learners)."""
    answers: dict[tuple[str, str], list[tuple[str, int, str | None]]] = defaultdict(list)
    for attempt in attempts:
        answers[(attempt.learner, attempt.lesson)].append(
            (attempt.kind, attempt.number, attempt.fingerprint)
        )
    by_slug = {lesson.slug: lesson for lesson in lessons}
    done: dict[str, set[str]] = defaultdict(set)
    for (learner, slug), given in answers.items():
        if (lesson := by_slug.get(slug)) is not None and lesson_done(lesson, given):
            done[learner].add(slug)
    return done
