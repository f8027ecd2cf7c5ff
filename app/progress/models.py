"""What gradlab remembers of a learner: one row per fact, every attempt kept."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import (
    Boolean,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


def _now() -> datetime:
    return datetime.now(UTC)


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
        DateTime(timezone=True), default=_now, sort_order=2
    )


class Fingerprinted:
    """Which version of the question a row answers (see app/learning/questions.py): a record
    whose fingerprint no longer matches its lesson's question is retired, never shown."""

    fingerprint: Mapped[str | None] = mapped_column(String(32), nullable=True, sort_order=1)


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


class PredictionAttempt(LearnerRecord, Fingerprinted, Base):
    __tablename__ = "prediction_attempts"
    __table_args__ = (Index("ix_prediction_learner_lesson", "learner_id", "lesson"),)

    step: Mapped[int] = mapped_column(Integer)
    choice: Mapped[str] = mapped_column(Text)
    confidence: Mapped[str] = mapped_column(String(16))
    correct: Mapped[bool] = mapped_column(Boolean)


class ValueAttempt(LearnerRecord, Fingerprinted, Base):
    __tablename__ = "value_attempts"
    __table_args__ = (Index("ix_value_learner_lesson", "learner_id", "lesson"),)

    step: Mapped[int] = mapped_column(Integer)
    value: Mapped[str] = mapped_column(Text)
    correct: Mapped[bool] = mapped_column(Boolean)
    revealed: Mapped[bool] = mapped_column(Boolean, default=False)


class MythAnswer(LearnerRecord, Fingerprinted, Base):
    __tablename__ = "myth_answers"
    __table_args__ = (Index("ix_myth_learner_lesson", "learner_id", "lesson"),)

    myth: Mapped[int] = mapped_column(Integer)
    answer: Mapped[str] = mapped_column(String(3))
    correct: Mapped[bool] = mapped_column(Boolean)


class AppSecret(Base):
    """Secrets the server makes for itself (the cookie-signing key) when none is configured."""

    __tablename__ = "app_secrets"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(Text)


# --- learning modes and the review queue (issue 7) -------------------------------------------


class LessonMode(Base):
    """The mode a learner last used for a lesson (deep-dive, flashcards, ...)."""

    __tablename__ = "lesson_modes"

    learner_id: Mapped[str] = mapped_column(
        ForeignKey("learners.id", ondelete="CASCADE"), primary_key=True
    )
    lesson: Mapped[str] = mapped_column(String(64), primary_key=True)
    mode: Mapped[str] = mapped_column(String(32))
    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=_now, onupdate=_now
    )


class DrillAttempt(LearnerRecord, Base):
    """A typed `.grad` value in Predict the gradient."""

    __tablename__ = "drill_attempts"
    __table_args__ = (Index("ix_drill_learner_lesson", "learner_id", "lesson"),)

    drill: Mapped[str] = mapped_column(String(160))
    value: Mapped[str] = mapped_column(Text)
    correct: Mapped[bool] = mapped_column(Boolean)
    revealed: Mapped[bool] = mapped_column(Boolean, default=False)


class FlashcardRating(LearnerRecord, Base):
    """A learner's own grade of a flashcard (again, hard, good, easy)."""

    __tablename__ = "flashcard_ratings"
    __table_args__ = (Index("ix_flashcard_learner_lesson", "learner_id", "lesson"),)

    card: Mapped[str] = mapped_column(String(64))
    rating: Mapped[str] = mapped_column(String(8))


class PitfallCheck(LearnerRecord, Base):
    """One "Check my fix" in the pitfall fixer, passed or not."""

    __tablename__ = "pitfall_checks"
    __table_args__ = (Index("ix_pitfall_learner_lesson", "learner_id", "lesson"),)

    pitfall: Mapped[int] = mapped_column(Integer)
    passed: Mapped[bool] = mapped_column(Boolean)


class ReviewCard(LearnerRecord, Fingerprinted, Base):
    """One item of a learner's review queue and its spaced-repetition memory (FSRS)."""

    __tablename__ = "review_cards"
    __table_args__ = (
        UniqueConstraint("learner_id", "lesson", "kind", "key", name="uq_review_card_item"),
        Index("ix_review_learner_due", "learner_id", "due"),
    )

    kind: Mapped[str] = mapped_column(String(16))  # prediction | myth | drill | flashcard
    key: Mapped[str] = mapped_column(String(160))  # step or myth number, drill or card id
    state: Mapped[int] = mapped_column(Integer)
    step: Mapped[int | None] = mapped_column(Integer, nullable=True)
    stability: Mapped[float | None] = mapped_column(Float, nullable=True)
    difficulty: Mapped[float | None] = mapped_column(Float, nullable=True)
    due: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    last_review: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    # The newest miss already taken into account, so that each miss counts once.
    last_miss_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    # A right answer given as a guess, or a miss given as certain: it comes back first.
    urgent: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())


class ReviewAnswer(Base):
    """One review of a queue item: its grade and when."""

    __tablename__ = "review_answers"
    __table_args__ = (Index("ix_review_answer_learner", "learner_id", "created_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    learner_id: Mapped[str] = mapped_column(ForeignKey("learners.id", ondelete="CASCADE"))
    card_id: Mapped[int] = mapped_column(ForeignKey("review_cards.id", ondelete="CASCADE"))
    grade: Mapped[str] = mapped_column(String(8))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=_now)
