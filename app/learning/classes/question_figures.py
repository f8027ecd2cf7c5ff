"""Each question's figures over first attempts: difficulty, discrimination and flags, every
answer's count, and the wrong answers picked most (weighted by confidence), each with the
belief behind it; for a class's dashboard and for every learner of the instance
(`gradlab stats`, /stats).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Hashable
from dataclasses import dataclass

from app.learning.classes.first_attempts import (
    Question,
    answers_of,
    current_answers,
    first_attempts,
    questions,
)
from app.lessons.loader import Catalog
from app.pedagogy.item_analysis import (
    HELD_FLAG,
    Answer,
    ItemFigures,
    analyse,
    misconception_weight,
)
from app.progress.store import ProgressStore


@dataclass(frozen=True)
class ChoiceRow:
    text: str
    picked: int
    share: float
    correct: bool
    why: str | None  # what the lesson tells a learner who picks it
    belief: str | None = None  # the belief behind a wrong choice, in a teacher's words


@dataclass(frozen=True)
class ItemRow:
    question: Question
    figures: ItemFigures
    choices: list[ChoiceRow]


@dataclass(frozen=True)
class Misconception:
    question: Question
    choice: str
    why: str | None  # what the lesson tells a learner who picked it
    picked: int
    weight: float
    belief: str | None = None  # the belief behind the choice, in a teacher's words


def item_rows(catalog: Catalog, answers: list[Answer]) -> list[ItemRow]:
    """Per question: its figures and every choice's count (for an ordering, every order sent,
    right when it ran right); the catalog's order."""
    figures = analyse(answers)
    passed = {(a.item, a.choice) for a in answers if a.correct}
    rows = []
    for question in questions(catalog):
        if (found := figures.get(question.key)) is None:
            continue
        rows.append(
            ItemRow(
                question,
                found,
                [
                    ChoiceRow(
                        shown_answer(question, text),
                        found.choices.get(text, 0),
                        found.choices.get(text, 0) / found.answered,
                        text == question.answer or (question.key, text) in passed,
                        question.whys.get(text),
                        question.beliefs.get(text),
                    )
                    for text in question.choices or sent_orders(found.choices)
                ],
            )
        )
    return rows


def shown_answer(question: Question, text: str) -> str:
    """An answer as a teacher reads it (the kind's `shown`: an order as its lines, one after
    the other; a select-all's ticked statements)."""
    return question.kind.shown(text)


def sent_orders(counts: dict[str, int]) -> list[str]:
    """An ordering's answers as learners sent them, the most sent first."""
    return sorted(counts, key=lambda text: (-counts[text], text))


def by_concern(rows: list[ItemRow]) -> list[ItemRow]:
    """Misconceptions held with confidence first, the most held at the top; then the other
    flagged questions, the most backwards (lowest discrimination) first; then the rest
    (among them every question with too few answers for a flag), hardest first."""

    def concern(row: ItemRow) -> tuple[int, float, float]:
        f = row.figures
        if HELD_FLAG in f.flags:
            return (0, -(f.held_share or 0.0), f.difficulty or 0.0)
        if f.flags:
            disc = f.discrimination if f.discrimination is not None else 1.0
            return (1, disc, f.difficulty or 0.0)
        return (2, 0.0, f.difficulty or 0.0)

    return sorted(rows, key=concern)


def misconceptions(catalog: Catalog, answers: list[Answer]) -> list[Misconception]:
    """The wrong choices picked most, weighted by the confidence they were picked with."""
    by_key = {question.key: question for question in questions(catalog)}
    picked: dict[tuple[Hashable, str], int] = defaultdict(int)
    for answer in answers:
        if not answer.correct:
            picked[(answer.item, answer.choice)] += 1
    found = [
        Misconception(
            by_key[item],
            choice,
            by_key[item].whys.get(choice),
            picked[(item, choice)],
            weight,
            by_key[item].beliefs.get(choice),
        )
        for (item, choice), weight in misconception_weight(answers).items()
        if isinstance(item, tuple)
    ]
    return sorted(found, key=lambda m: (-m.weight, -m.picked, m.question.text))


@dataclass(frozen=True)
class InstanceStats:
    """The item analysis over every learner of the instance (`gradlab stats`, /stats)."""

    items: list[ItemRow]
    misconceptions: list[Misconception]
    left_out: int


def instance_stats(catalog: Catalog, store: ProgressStore) -> InstanceStats:
    answered, left_out = current_answers(catalog, first_attempts(store, None))
    answers = answers_of(answered)
    return InstanceStats(
        by_concern(item_rows(catalog, answers)), misconceptions(catalog, answers), left_out
    )
