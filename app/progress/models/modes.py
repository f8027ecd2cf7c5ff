"""What the learning modes keep: a lesson's last mode, drills, flashcard ratings, pitfall fix
checks, exercise answers, the review queue's cards and reviews, and recall answers.
"""

from __future__ import annotations

from datetime import datetime

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
from sqlalchemy.orm import Mapped, mapped_column

from app.progress.models.declarative import Base, Fingerprinted, LearnerRecord, utc_now


class LessonMode(Base):
    """The mode a learner last used for a lesson (deep-dive, flashcards, ...)."""

    __tablename__ = "lesson_modes"

    learner_id: Mapped[str] = mapped_column(
        ForeignKey("learners.id", ondelete="CASCADE"), primary_key=True
    )
    lesson: Mapped[str] = mapped_column(String(64), primary_key=True)
    mode: Mapped[str] = mapped_column(String(32))
    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=utc_now, onupdate=utc_now
    )


class DrillAttempt(LearnerRecord, Base):
    """A typed `.grad` value in Predict the gradient."""

    __tablename__ = "drill_attempts"
    __table_args__ = (Index("ix_drill_learner_lesson", "learner_id", "lesson"),)

    drill: Mapped[str] = mapped_column(String(160))
    value: Mapped[str] = mapped_column(Text)
    correct: Mapped[bool] = mapped_column(Boolean)
    revealed: Mapped[bool] = mapped_column(Boolean, default=False)
    # The variant instance of the drill's step the drills page asked (None: the step has none).
    form: Mapped[int | None] = mapped_column(Integer, nullable=True)


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


class ExerciseAttempt(LearnerRecord, Base):
    """One answer to an exercise (code to write): a check of the learner's lines (`code`) or,
    for an exercise that asks it, the diagnosis of its bug (`diagnosis`)."""

    __tablename__ = "exercise_attempts"
    __table_args__ = (Index("ix_exercise_learner_lesson", "learner_id", "lesson"),)

    exercise: Mapped[int] = mapped_column(Integer)
    part: Mapped[str] = mapped_column(String(16))  # code | diagnosis
    answer: Mapped[str] = mapped_column(Text)  # the lines (JSON) or the diagnosis chosen
    passed: Mapped[bool] = mapped_column(Boolean)
    # How sure the learner was of a diagnosis (guess | fairly_sure | certain); None for code.
    confidence: Mapped[str | None] = mapped_column(String(16), nullable=True)
    # What a missed check was about (error | output | grads): it picks the hint; None otherwise.
    miss: Mapped[str | None] = mapped_column(String(16), nullable=True)


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
    # Which other form of the question (a step's variant instance, a myth's form) the latest
    # review asked; None: none yet, or the item has no other form. The next return asks another.
    asked: Mapped[int | None] = mapped_column(Integer, nullable=True)


class RecallAnswer(LearnerRecord, Fingerprinted, Base):
    """An answer to one of a lesson's recall questions (app/learning/practice/recall.py): a step's
    question asked on one of its variant instances (`form`) once the build-up is committed.
    One per question and form is kept; the answer feeds the step's review card."""

    __tablename__ = "recall_answers"
    __table_args__ = (
        # One answer per question: a second one (another tab, a request sent twice) is refused.
        UniqueConstraint(
            "learner_id", "lesson", "step", "kind", "form", "fingerprint", name="uq_recall_answer"
        ),
        Index("ix_recall_learner_lesson", "learner_id", "lesson"),
    )

    step: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(16))  # the question kind asked (its stored name)
    form: Mapped[int] = mapped_column(Integer)  # the variant instance asked
    choice: Mapped[str] = mapped_column(Text)
    confidence: Mapped[str] = mapped_column(String(16))
    correct: Mapped[bool] = mapped_column(Boolean)


class ReviewAnswer(Base):
    """One review of a queue item: its grade and when."""

    __tablename__ = "review_answers"
    __table_args__ = (Index("ix_review_answer_learner", "learner_id", "created_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    learner_id: Mapped[str] = mapped_column(ForeignKey("learners.id", ondelete="CASCADE"))
    card_id: Mapped[int] = mapped_column(ForeignKey("review_cards.id", ondelete="CASCADE"))
    grade: Mapped[str] = mapped_column(String(8))
    # The other form of the card's question this review asked (None: its only version).
    form: Mapped[int | None] = mapped_column(Integer, nullable=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utc_now)
