"""A class, as its teacher sees it: who is in it, how far they got, and what they
misunderstand, from their first attempts only.

Answers to a question that has since been rewritten (another fingerprint) are left out of
every figure, and the dashboard says how many were. A learner joins with a display name of
their choosing; nothing else about them is shown.
"""

from __future__ import annotations

import csv
import io
import unicodedata
from collections import defaultdict
from collections.abc import Hashable
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property

from app.errors import InvalidText, NotFound
from app.learning.inventory import ClassGain
from app.learning.kinds import (
    MYTH,
    PREDICTION,
    QuestionKind,
    myth_fingerprint,
    prediction_fingerprint,
)
from app.lessons.loader import Catalog
from app.lessons.schema import Lesson
from app.modes.calibration import LevelStats, advice, calibration
from app.modes.item_analysis import Answer, ItemFigures, analyse, misconception_weight
from app.progress.classes import ClassInfo, ClassLinks, FirstAttempt, Member, Report
from app.progress.store import ProgressStore

DISPLAY_NAME_MAX = 60
REPORT_MAX = 2000


@dataclass(frozen=True)
class Question:
    """One question of the catalog as item analysis sees it."""

    lesson: Lesson
    kind: QuestionKind  # a step's prediction or a myth
    number: int
    fingerprint: str
    text: str
    answer: str
    whys: dict[str, str]  # wrong choice -> the misconception it stands for
    choices: tuple[str, ...]  # every answer a learner could give, in the question's order

    @cached_property
    def key(self) -> tuple[str, str, int]:
        return (self.lesson.slug, self.kind.name, self.number)


@dataclass(frozen=True)
class ChoiceRow:
    text: str
    picked: int
    share: float
    correct: bool
    why: str | None


@dataclass(frozen=True)
class ItemRow:
    question: Question
    figures: ItemFigures
    choices: list[ChoiceRow]


@dataclass(frozen=True)
class Misconception:
    question: Question
    choice: str
    why: str | None
    picked: int
    weight: float


@dataclass(frozen=True)
class RosterRow:
    display_name: str
    started: int
    done: int
    last_active: datetime | None


@dataclass(frozen=True)
class FunnelRow:
    lesson: Lesson
    reached: list[int]  # per step: members who answered or finished it


@dataclass(frozen=True)
class Dashboard:
    info: ClassInfo
    roster: list[RosterRow]
    funnels: list[FunnelRow]
    items: list[ItemRow]
    misconceptions: list[Misconception]
    calibration: list[LevelStats]
    calibration_advice: str
    left_out: int  # first attempts at questions since rewritten
    reports: list[Report] = field(default_factory=list)
    gain: ClassGain | None = None  # the concept inventory's, when the lessons have one


def questions(catalog: Catalog) -> list[Question]:
    """Every prediction and myth of the catalog, in the learning path's order."""
    found: list[Question] = []
    for lesson in catalog.lessons:
        for number, step in enumerate(lesson.steps, start=1):
            if (prediction := step.prediction) is not None:
                whys = {c.text: c.why for c in prediction.choices if c.why}
                found.append(
                    Question(
                        lesson,
                        PREDICTION,
                        number,
                        prediction_fingerprint(prediction),
                        prediction.question,
                        prediction.answer,
                        whys,
                        tuple(prediction.texts),
                    )
                )
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
                )
            )
    return found


def clean_display_name(raw: str) -> str:
    """A display name as kept: trimmed, one line, printable, 1 to 60 characters."""
    name = " ".join(raw.split())
    if any(unicodedata.category(char).startswith("C") for char in name):
        raise InvalidText("A display name cannot hold control characters")
    if not 1 <= len(name) <= DISPLAY_NAME_MAX:
        raise InvalidText(f"A display name has 1 to {DISPLAY_NAME_MAX} characters")
    return name


def first_attempts(store: ProgressStore, class_id: str | None) -> list[FirstAttempt]:
    """The store's first attempts (of a class, or with None of everyone), labelled with the
    names of their kinds."""
    return store.first_attempts(class_id, prediction=PREDICTION.name, myth=MYTH.name)


def current_answers(
    catalog: Catalog, attempts: list[FirstAttempt]
) -> tuple[list[tuple[Question, FirstAttempt]], int]:
    """First attempts at today's version of each question, and how many were left out: those
    at a question rewritten since, and those given after reading the lesson ahead."""
    by_key = {question.key: question for question in questions(catalog)}
    kept: list[tuple[Question, FirstAttempt]] = []
    left_out = 0
    for attempt in attempts:
        question = by_key.get((attempt.lesson, attempt.kind, attempt.number))
        if question is None or question.fingerprint != attempt.fingerprint or attempt.seen:
            left_out += 1
            continue
        kept.append((question, attempt))
    return kept, left_out


def answers_of(answered: list[tuple[Question, FirstAttempt]]) -> list[Answer]:
    return [
        Answer(attempt.learner, question.key, attempt.choice, attempt.correct, attempt.confidence)
        for question, attempt in answered
    ]


def item_rows(catalog: Catalog, answers: list[Answer]) -> list[ItemRow]:
    """Per question: its figures and every choice's count; the catalog's order."""
    figures = analyse(answers)
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
                        text,
                        found.choices.get(text, 0),
                        found.choices.get(text, 0) / found.answered,
                        text == question.answer,
                        question.whys.get(text),
                    )
                    for text in question.choices
                ],
            )
        )
    return rows


def by_concern(rows: list[ItemRow]) -> list[ItemRow]:
    """Flagged questions first, the most backwards (lowest discrimination) at the top; then
    the rest, hardest first."""

    def concern(row: ItemRow) -> tuple[bool, float, float]:
        f = row.figures
        disc = f.discrimination if f.discrimination is not None else 1.0
        return (not f.flags, disc if f.flags else 0.0, f.difficulty or 0.0)

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
            by_key[item], choice, by_key[item].whys.get(choice), picked[(item, choice)], weight
        )
        for (item, choice), weight in misconception_weight(answers).items()
        if isinstance(item, tuple)
    ]
    return sorted(found, key=lambda m: (-m.weight, -m.picked, m.question.text))


def roster(
    store: ProgressStore, members: list[Member], attempts: list[FirstAttempt], catalog: Catalog
) -> list[RosterRow]:
    done = store.steps_done_by(member.learner for member in members)
    last: dict[str, datetime] = {}
    for attempt in attempts:
        last[attempt.learner] = max(last.get(attempt.learner, attempt.at), attempt.at)
    sizes = {lesson.slug: len(lesson.steps) for lesson in catalog.lessons}
    return [
        RosterRow(
            member.display_name,
            started=len(done[member.learner]),
            done=sum(1 for slug, n in done[member.learner].items() if n >= sizes.get(slug, n + 1)),
            last_active=last.get(member.learner),
        )
        for member in members
    ]


def funnels(catalog: Catalog, answered: list[tuple[Question, FirstAttempt]]) -> list[FunnelRow]:
    """Per lesson that anyone began: how many members answered each of its predictions."""
    reached: dict[tuple[str, int], set[str]] = defaultdict(set)
    for question, attempt in answered:
        if question.kind is PREDICTION:
            reached[(question.lesson.slug, question.number)].add(attempt.learner)
    rows = []
    for lesson in catalog.lessons:
        counts = [len(reached[(lesson.slug, n)]) for n in range(1, len(lesson.steps) + 1)]
        if any(counts):
            rows.append(FunnelRow(lesson, counts))
    return rows


def dashboard(catalog: Catalog, store: ProgressStore, info: ClassInfo) -> Dashboard:
    members = store.members(info.id)
    attempts = first_attempts(store, info.id)
    answered, left_out = current_answers(catalog, attempts)
    confidences = [
        (attempt.confidence, attempt.correct)
        for _, attempt in answered
        if attempt.confidence is not None
    ]
    levels = calibration(confidences)
    answers = answers_of(answered)
    return Dashboard(
        info=info,
        roster=roster(store, members, attempts, catalog),
        funnels=funnels(catalog, answered),
        items=by_concern(item_rows(catalog, answers)),
        misconceptions=misconceptions(catalog, answers),
        calibration=levels,
        calibration_advice=advice(levels),
        left_out=left_out,
        reports=store.reports(member.learner for member in members),
    )


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


def export_csv(catalog: Catalog, store: ProgressStore, info: ClassInfo) -> str:
    """One row per learner and question: their first attempt at today's version."""
    names = {member.learner: member.display_name for member in store.members(info.id)}
    answered, _ = current_answers(catalog, first_attempts(store, info.id))
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(
        [
            "learner",
            "lesson",
            "kind",
            "number",
            "question",
            "choice",
            "correct",
            "confidence",
            "answered_at",
        ]
    )
    for question, attempt in answered:
        writer.writerow(
            [
                _spreadsheet_safe(names.get(attempt.learner, "")),
                question.lesson.slug,
                question.kind.name,
                question.number,
                question.text,
                attempt.choice,
                "right" if attempt.correct else "wrong",
                attempt.confidence or "",
                attempt.at.isoformat(),
            ]
        )
    return out.getvalue()


def find_question(catalog: Catalog, slug: str, kind: str, number: int) -> Question:
    for question in questions(catalog):
        if question.key == (slug, kind, number):
            return question
    raise NotFound(f"Lesson {slug!r} has no {kind} {number}")


def clean_report(raw: str) -> str:
    text = raw.strip()
    if not 1 <= len(text) <= REPORT_MAX:
        raise InvalidText(f"A report has 1 to {REPORT_MAX} characters")
    return text


def links_text(links: ClassLinks, base_url: str) -> str:
    base = base_url.rstrip("/")
    return (
        f"join: {base}/join/{links.join_token}\ninstructor: {base}/teach/{links.instructor_token}"
    )


def _spreadsheet_safe(text: str) -> str:
    """A learner's text in a CSV cell: a leading = + - @ would be a formula in a spreadsheet."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text
