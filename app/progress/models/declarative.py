"""The declarative base every table of the progress store derives from, and the columns many of
them share: a learner's record of a lesson, the version of the question it answers, and
whether the answer was given after reading the lesson ahead.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import Boolean, DateTime, ForeignKey, Integer, String, false
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


def utc_now() -> datetime:
    return datetime.now(UTC)


def stored_utc(moment: datetime) -> datetime:
    """A time read back from a column: SQLite hands back the UTC times it was given without
    their zone."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


class Base(DeclarativeBase):
    pass


class LearnerRecord:
    """Columns of every row that keeps one thing a learner did in a lesson. `sort_order` puts
    them where the migrations did: the row number, the learner and the lesson first, then the
    table's own columns, its fingerprint if it has one, and the time last."""

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True, sort_order=-3)
    learner_id: Mapped[str] = mapped_column(
        ForeignKey("learners.id", ondelete="CASCADE"), sort_order=-2
    )
    lesson: Mapped[str] = mapped_column(String(64), sort_order=-1)
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=utc_now, sort_order=2
    )


class Fingerprinted:
    """Which version of the question a row answers (see app/learning/answers/questions.py): a record
    whose fingerprint no longer matches its lesson's question is retired, never shown."""

    fingerprint: Mapped[str | None] = mapped_column(String(32), nullable=True, sort_order=1)


class SeenAnswers:
    """Was the answer given after the learner chose to read the lesson ahead (every answer
    shown)? Set when the row is written, from the learner's read-ahead of that lesson: such
    an answer is kept and shown, never counted as what the learner understood."""

    seen_answers: Mapped[bool] = mapped_column(
        Boolean, default=False, server_default=false(), sort_order=1
    )
