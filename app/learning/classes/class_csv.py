"""A class's first attempts as a CSV file a spreadsheet opens as it is: one row per learner and
first attempt, and for a row the figures leave out, why.
"""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime

from app.learning.classes.first_attempts import Question, first_attempts, left_out_reason, questions
from app.lessons.loader import Catalog
from app.pedagogy.calibration import LEVELS
from app.progress.classes_store import ClassInfo
from app.progress.store import ProgressStore
from app.rendering import plain_text

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
    "belief_behind_answer",
)


def export_csv(catalog: Catalog, store: ProgressStore, info: ClassInfo) -> str:
    """One row per learner and first attempt at each version of each question, for a
    spreadsheet as it is: UTF-8 with a byte order mark, lesson titles, the question and the
    choices as plain text (no Markdown), the right answer, times in ISO 8601 with their zone
    (UTC), for a row the figures leave out, why, and for a wrong answer the belief behind it."""
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
                _cell(_belief(question, attempt.choice, attempt.correct)),
            ]
        )
    return out.getvalue()


def _belief(question: Question | None, choice: str, correct: bool) -> str:
    """The belief behind a wrong answer, as plain text; empty for a right one or an answer
    that stands for no authored belief."""
    belief = question.beliefs.get(choice) if question and not correct else None
    return plain_text(belief) if belief else ""


def _utc(at: datetime) -> datetime:
    """A stored time with its zone: the store keeps UTC (SQLite hands it back without one)."""
    return at.replace(tzinfo=UTC) if at.tzinfo is None else at.astimezone(UTC)


def _cell(text: str) -> str:
    """Text in a CSV cell: a leading = + - @ would be a formula in a spreadsheet (a number
    such as -1.5 stays a number)."""
    if text[:1] in ("=", "+", "-", "@", "\t", "\r"):
        try:
            float(text)
        except ValueError:
            return "'" + text
    return text
