"""A learner and what they did in lessons: each step's state, every committed answer to a
step's question (a choice or an order: `StepAnswer`), typed value and myth (every attempt kept,
one row per fact), and the lessons they read ahead.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, DateTime, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.progress.models.declarative import Base, Fingerprinted, LearnerRecord, SeenAnswers, utc_now


class Learner(Base):
    __tablename__ = "learners"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)


class StepState(Base):
    """A step's current state for a learner: done, and the learner's own version of its code."""

    __tablename__ = "step_states"

    learner_id: Mapped[str] = mapped_column(
        ForeignKey("learners.id", ondelete="CASCADE"), primary_key=True
    )
    lesson: Mapped[str] = mapped_column(String(64), primary_key=True)
    step: Mapped[int] = mapped_column(Integer, primary_key=True)
    done: Mapped[bool] = mapped_column(Boolean, default=False)
    code: Mapped[str | None] = mapped_column(Text, nullable=True)
    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=utc_now, onupdate=utc_now
    )


class StepAnswer(LearnerRecord, Fingerprinted, SeenAnswers, Base):
    """A committed answer to a step's question: `choice` holds the choice picked, or an
    ordering's lines as JSON; the fingerprint tells which question it answers."""

    __tablename__ = "step_answers"
    __table_args__ = (Index("ix_step_answer_learner_lesson", "learner_id", "lesson"),)

    step: Mapped[int] = mapped_column(Integer)
    choice: Mapped[str] = mapped_column(Text)
    confidence: Mapped[str] = mapped_column(String(16))
    correct: Mapped[bool] = mapped_column(Boolean)


class ValueAttempt(LearnerRecord, Fingerprinted, SeenAnswers, Base):
    __tablename__ = "value_attempts"
    __table_args__ = (Index("ix_value_learner_lesson", "learner_id", "lesson"),)

    step: Mapped[int] = mapped_column(Integer)
    value: Mapped[str] = mapped_column(Text)
    correct: Mapped[bool] = mapped_column(Boolean)
    revealed: Mapped[bool] = mapped_column(Boolean, default=False)


class MythAnswer(LearnerRecord, Fingerprinted, SeenAnswers, Base):
    __tablename__ = "myth_answers"
    __table_args__ = (Index("ix_myth_learner_lesson", "learner_id", "lesson"),)

    myth: Mapped[int] = mapped_column(Integer)
    answer: Mapped[str] = mapped_column(String(3))
    correct: Mapped[bool] = mapped_column(Boolean)


class ReadAhead(Base):
    """A learner chose to see a whole lesson at once, answers included (one row per lesson)."""

    __tablename__ = "read_aheads"

    learner_id: Mapped[str] = mapped_column(
        ForeignKey("learners.id", ondelete="CASCADE"), primary_key=True
    )
    lesson: Mapped[str] = mapped_column(String(64), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)
