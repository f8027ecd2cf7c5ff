"""What gradlab remembers of a learner: one row per fact, every attempt kept."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import Boolean, DateTime, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


def _now() -> datetime:
    return datetime.now(UTC)


class Base(DeclarativeBase):
    pass


class Learner(Base):
    __tablename__ = "learners"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


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
        DateTime(timezone=True), default=_now, onupdate=_now
    )


class PredictionAttempt(Base):
    __tablename__ = "prediction_attempts"
    __table_args__ = (Index("ix_prediction_learner_lesson", "learner_id", "lesson"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    learner_id: Mapped[str] = mapped_column(ForeignKey("learners.id", ondelete="CASCADE"))
    lesson: Mapped[str] = mapped_column(String(64))
    step: Mapped[int] = mapped_column(Integer)
    choice: Mapped[str] = mapped_column(Text)
    confidence: Mapped[str] = mapped_column(String(16))
    correct: Mapped[bool] = mapped_column(Boolean)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class ValueAttempt(Base):
    __tablename__ = "value_attempts"
    __table_args__ = (Index("ix_value_learner_lesson", "learner_id", "lesson"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    learner_id: Mapped[str] = mapped_column(ForeignKey("learners.id", ondelete="CASCADE"))
    lesson: Mapped[str] = mapped_column(String(64))
    step: Mapped[int] = mapped_column(Integer)
    value: Mapped[str] = mapped_column(Text)
    correct: Mapped[bool] = mapped_column(Boolean)
    revealed: Mapped[bool] = mapped_column(Boolean, default=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class MythAnswer(Base):
    __tablename__ = "myth_answers"
    __table_args__ = (Index("ix_myth_learner_lesson", "learner_id", "lesson"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    learner_id: Mapped[str] = mapped_column(ForeignKey("learners.id", ondelete="CASCADE"))
    lesson: Mapped[str] = mapped_column(String(64))
    myth: Mapped[int] = mapped_column(Integer)
    answer: Mapped[str] = mapped_column(String(3))
    correct: Mapped[bool] = mapped_column(Boolean)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)


class AppSecret(Base):
    """Secrets the server makes for itself (the cookie-signing key) when none is configured."""

    __tablename__ = "app_secrets"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text)
