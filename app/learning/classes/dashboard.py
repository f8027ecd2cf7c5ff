"""A class, as its teacher sees it: who is in it and how far they got (the roster, each
lesson's funnel), the problems its learners reported, and what they misunderstand, from their
first attempts only (`first_attempts`, `question_figures`).

A learner joins with a display name of their choosing; nothing else about them is shown.
"""

from __future__ import annotations

import unicodedata
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime

from app.errors import InvalidText
from app.learning.answers.completion import done_by
from app.learning.classes.first_attempts import (
    Question,
    answers_of,
    current_answers,
    first_attempts,
    questions,
)
from app.learning.classes.question_figures import (
    ItemRow,
    Misconception,
    by_concern,
    item_rows,
    misconceptions,
)
from app.learning.inventory.inventory_gain import ClassGain
from app.learning.kinds import PREDICTION
from app.lessons.format import Lesson
from app.lessons.loader import Catalog
from app.pedagogy.calibration import LevelStats, advice, calibration
from app.progress.classes_store import ClassInfo, ClassLinks, FirstAttempt, Member, Report
from app.progress.store import ProgressStore

DISPLAY_NAME_MAX = 60
REPORT_MAX = 2000


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
        """The reports about a question, shown on its item row."""
        return [r for r in self.reports if r.question and r.question.key == question.key]

    @property
    def reports_without_item(self) -> list[ReportRow]:
        """Reports about a question no item row shows (no first attempt yet, or gone)."""
        shown = {row.question.key for row in self.items}
        return [r for r in self.reports if r.question is None or r.question.key not in shown]

    gain: ClassGain | None = None  # the concept inventory's, when the lessons have one
    # concept id -> the lessons that teach it (the inventory's), linked beside its figures
    teaches: dict[str, list[Lesson]] = field(default_factory=dict)


def clean_display_name(raw: str) -> str:
    """A display name as kept: trimmed, one line, printable, 1 to 60 characters."""
    name = " ".join(raw.split())
    if any(unicodedata.category(char).startswith("C") for char in name):
        raise InvalidText("A display name cannot hold control characters")
    if not 1 <= len(name) <= DISPLAY_NAME_MAX:
        raise InvalidText(f"A display name has 1 to {DISPLAY_NAME_MAX} characters")
    return name


def roster(
    store: ProgressStore, members: list[Member], attempts: list[FirstAttempt], catalog: Catalog
) -> list[RosterRow]:
    """Per member: lessons begun (a step done), lessons done (app/learning/answers/completion.py),
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
