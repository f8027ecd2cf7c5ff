"""The answers a teacher's figures count: every question of the catalog as item analysis sees
it (a step's prediction or ordering, a myth), and each learner's first attempt at it.

Answers to a question that has since been rewritten (another fingerprint), or given after
reading the lesson ahead, are left out of every figure, and the figures say how many were.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

from app.errors import NotFound
from app.learning.answers.completion import step_answer_kind
from app.learning.kinds import MYTH, PREDICTION, QuestionKind, myth_fingerprint, step_kind
from app.lessons.format import Lesson, Step
from app.lessons.loader import Catalog
from app.pedagogy.item_analysis import Answer
from app.progress.classes_store import FirstAttempt
from app.progress.store import ProgressStore


@dataclass(frozen=True)
class Question:
    """One question of the catalog as item analysis sees it."""

    lesson: Lesson
    kind: QuestionKind  # a step's prediction or ordering, or a myth
    number: int
    fingerprint: str
    text: str
    answer: str
    whys: dict[str, str]  # wrong choice -> what the lesson tells a learner who picks it
    # Every answer a learner could give, in the question's order; empty for an ordering, whose
    # answers are the orders learners sent (any of several may be right).
    choices: tuple[str, ...]
    # wrong answer -> the belief behind it, in a teacher's words: a step choice's
    # `misconception` (never sent to a learner), a myth's `belief`, a select-all's wrong
    # statements' beliefs.
    beliefs: Mapping[str, str]

    @cached_property
    def key(self) -> tuple[str, str, int]:
        return (self.lesson.slug, self.kind.name, self.number)


def questions(catalog: Catalog) -> list[Question]:
    """Every step question whose kind declares its item (`QuestionKind.step_item`: a
    prediction, an ordering) and every myth of the catalog, in the learning path's order."""
    found: list[Question] = []
    for lesson in catalog.lessons:
        for number, step in enumerate(lesson.steps, start=1):
            found += _step_questions(lesson, number, step)
        for number, myth in enumerate(lesson.myths, start=1):
            wrong = "no" if myth.answer == "yes" else "yes"
            found.append(
                Question(
                    lesson,
                    MYTH,
                    number,
                    myth_fingerprint(myth),
                    myth.question,
                    myth.answer,
                    {wrong: myth.belief},
                    ("yes", "no"),
                    {wrong: myth.belief},
                )
            )
    return found


def _step_questions(lesson: Lesson, number: int, step: Step) -> list[Question]:
    """The step's questions as item analysis sees them, each as its kind declares it."""
    found: list[Question] = []
    for field, _ in step.questions():
        kind = step_kind(field)
        if kind is None or kind.step_item is None or kind.step_answer is None:
            continue
        if (item := kind.step_item(step)) is not None:
            fingerprint = kind.step_answer(step) or ""
            found.append(
                Question(
                    lesson,
                    kind,
                    number,
                    fingerprint,
                    item.text,
                    item.answer,
                    item.whys,
                    item.choices,
                    item.beliefs,
                )
            )
    return found


def first_attempts(store: ProgressStore, class_id: str | None) -> list[FirstAttempt]:
    """The store's first attempts (of a class, or with None of everyone), labelled with the
    names of their kinds."""
    return store.first_attempts(class_id, step_answer=PREDICTION.name, myth=MYTH.name)


def current_answers(
    catalog: Catalog, attempts: list[FirstAttempt]
) -> tuple[list[tuple[Question, FirstAttempt]], int]:
    """First attempts at today's version of each question, and how many were left out: those
    at a question rewritten since, and those given after reading the lesson ahead."""
    by_key = {question.key: question for question in questions(catalog)}
    kept: list[tuple[Question, FirstAttempt]] = []
    left_out = 0
    for attempt in attempts:
        lesson = catalog.get(attempt.lesson)
        kind = step_answer_kind(lesson, attempt.kind, attempt.number) if lesson else attempt.kind
        if kind != attempt.kind:
            attempt = attempt._replace(kind=kind)  # labelled by its step
        question = by_key.get((attempt.lesson, attempt.kind, attempt.number))
        if question is None or left_out_reason(question, attempt):
            left_out += 1
            continue
        kept.append((question, attempt))
    return kept, left_out


def answers_of(answered: list[tuple[Question, FirstAttempt]]) -> list[Answer]:
    return [
        Answer(attempt.learner, question.key, attempt.choice, attempt.correct, attempt.confidence)
        for question, attempt in answered
    ]


LEFT_OUT_READ_AHEAD = "read the lesson ahead (saw the answers first)"
LEFT_OUT_REWRITTEN = "question rewritten since"
LEFT_OUT_REMOVED = "question no longer in the lesson"


def left_out_reason(question: Question | None, attempt: FirstAttempt) -> str:
    """Why a first attempt is left out of every figure ("" when it counts); the same test as
    `current_answers`."""
    if question is None:
        return LEFT_OUT_REMOVED
    if question.fingerprint != attempt.fingerprint:
        return LEFT_OUT_REWRITTEN
    return LEFT_OUT_READ_AHEAD if attempt.seen else ""


def find_question(catalog: Catalog, slug: str, kind: str, number: int) -> Question:
    for question in questions(catalog):
        if question.key == (slug, kind, number):
            return question
    raise NotFound(f"Lesson {slug!r} has no {kind} {number}")
