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
from datetime import UTC, datetime
from functools import cached_property

from app.errors import InvalidText, NotFound
from app.learning.completion import done_by, step_answer_kind
from app.learning.inventory import ClassGain
from app.learning.kinds import (
    MYTH,
    ORDERING,
    PREDICTION,
    QuestionKind,
    myth_fingerprint,
    prediction_fingerprint,
    read_order,
    step_ordering_fingerprint,
    stored_order,
)
from app.lessons.loader import Catalog
from app.lessons.schema import Lesson
from app.modes.calibration import LEVELS, LevelStats, advice, calibration
from app.modes.item_analysis import Answer, ItemFigures, analyse, misconception_weight
from app.progress.classes_store import ClassInfo, ClassLinks, FirstAttempt, Member, Report
from app.progress.store import ProgressStore
from app.rendering import plain_text

DISPLAY_NAME_MAX = 60
REPORT_MAX = 2000


@dataclass(frozen=True)
class Question:
    """One question of the catalog as item analysis sees it."""

    lesson: Lesson
    kind: QuestionKind  # a step's prediction or ordering, or a myth
    number: int
    fingerprint: str
    text: str
    answer: str
    whys: dict[str, str]  # wrong choice -> the misconception it stands for
    # Every answer a learner could give, in the question's order; empty for an ordering, whose
    # answers are the orders learners sent (any of several may be right).
    choices: tuple[str, ...]

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
class ReportRow:
    """A learner's report of a problem, with the question it is about."""

    report: Report
    lesson_title: str
    question: Question | None  # None: the question is no longer in the lesson
    earlier_version: bool  # made about a version of the question rewritten since

    @property
    def anchor(self) -> str:
        r = self.report
        return f"item-{r.lesson}-{r.kind}-{r.number}"


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
    reports: list[ReportRow] = field(default_factory=list)

    def reports_on(self, question: Question) -> list[ReportRow]:
        """The reports about a question, shown on its card."""
        return [r for r in self.reports if r.question and r.question.key == question.key]

    @property
    def reports_without_card(self) -> list[ReportRow]:
        """Reports about a question no card shows (no first attempt yet, or gone)."""
        carded = {row.question.key for row in self.items}
        return [r for r in self.reports if r.question is None or r.question.key not in carded]

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
            if (ordering := step.ordering) is not None:
                fingerprint = step_ordering_fingerprint(step) or ""
                answer = stored_order(ordering.texts)
                asked = ordering.question
                found.append(Question(lesson, ORDERING, number, fingerprint, asked, answer, {}, ()))
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
                    )
                    for text in question.choices or sent_orders(found.choices)
                ],
            )
        )
    return rows


def shown_answer(question: Question, text: str) -> str:
    """An answer as a teacher reads it: an order as its lines, one after the other."""
    if question.kind is not ORDERING:
        return text
    return " → ".join(f"`{line.strip()}`" for line in read_order(text))


def sent_orders(counts: dict[str, int]) -> list[str]:
    """An ordering's answers as learners sent them, the most sent first."""
    return sorted(counts, key=lambda text: (-counts[text], text))


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
    """Per member: lessons begun (a step done), lessons done (app/learning/completion.py),
    their last answer."""
    begun = store.steps_done_by(member.learner for member in members)
    finished = done_by(catalog.lessons, attempts)
    last: dict[str, datetime] = {}
    for attempt in attempts:
        last[attempt.learner] = max(last.get(attempt.learner, attempt.at), attempt.at)
    return [
        RosterRow(
            member.display_name,
            started=len(begun[member.learner].keys() | finished[member.learner]),
            done=len(finished[member.learner]),
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
        calibration_advice=advice(levels, teacher=True),
        left_out=left_out,
        reports=report_rows(catalog, store.reports(member.learner for member in members)),
    )


def report_rows(catalog: Catalog, reports: list[Report]) -> list[ReportRow]:
    by_key = {question.key: question for question in questions(catalog)}
    titles = {lesson.slug: lesson.title for lesson in catalog.lessons}
    rows = []
    for report in reports:
        question = by_key.get((report.lesson, report.kind, report.number))
        earlier = question is not None and question.fingerprint != report.fingerprint
        rows.append(ReportRow(report, titles.get(report.lesson, report.lesson), question, earlier))
    return rows


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


CSV_COLUMNS = (
    "learner",
    "lesson",
    "kind",
    "number",
    "question",
    "answer",
    "right_answer",
    "correct",
    "confidence",
    "answered_at",
    "left_out_of_statistics",
)
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


def export_csv(catalog: Catalog, store: ProgressStore, info: ClassInfo) -> str:
    """One row per learner and first attempt at each version of each question, for a
    spreadsheet as it is: UTF-8 with a byte order mark, lesson titles, the question and the
    choices as plain text (no Markdown), the right answer, times in ISO 8601 with their zone
    (UTC), and for a row the figures leave out, why."""
    names = {member.learner: member.display_name for member in store.members(info.id)}
    by_key = {question.key: question for question in questions(catalog)}
    titles = {lesson.slug: lesson.title for lesson in catalog.lessons}
    confidences = dict(LEVELS)
    out = io.StringIO()
    out.write("\ufeff")  # the byte order mark: spreadsheets then read the file as UTF-8
    writer = csv.writer(out)
    writer.writerow(CSV_COLUMNS)
    for attempt in first_attempts(store, info.id):
        question = by_key.get((attempt.lesson, attempt.kind, attempt.number))
        writer.writerow(
            [
                _cell(names.get(attempt.learner, "")),
                _cell(titles.get(attempt.lesson, attempt.lesson)),
                attempt.kind,
                attempt.number,
                _cell(plain_text(question.text) if question else ""),
                _cell(plain_text(attempt.choice)),
                _cell(plain_text(question.answer) if question else ""),
                "right" if attempt.correct else "wrong",
                confidences.get(attempt.confidence or "", "").lower(),
                _utc(attempt.at).isoformat(timespec="seconds"),
                left_out_reason(question, attempt),
            ]
        )
    return out.getvalue()


def _utc(at: datetime) -> datetime:
    """A stored time with its zone: the store keeps UTC (SQLite hands it back without one)."""
    return at.replace(tzinfo=UTC) if at.tzinfo is None else at.astimezone(UTC)


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


def _cell(text: str) -> str:
    """Text in a CSV cell: a leading = + - @ would be a formula in a spreadsheet (a number
    such as -1.5 stays a number)."""
    if text[:1] in ("=", "+", "-", "@", "\t", "\r"):
        try:
            float(text)
        except ValueError:
            return "'" + text
    return text
