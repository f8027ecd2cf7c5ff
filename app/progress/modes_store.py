"""What the learning modes and the review queue remember of a learner."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError

from app.progress.base import StoreBase
from app.progress.models import (
    DrillAttempt,
    FlashcardRating,
    LessonMode,
    MythAnswer,
    PitfallCheck,
    PredictionAttempt,
    ReviewAnswer,
    ReviewCard,
    ValueAttempt,
)


@dataclass(frozen=True)
class StoredCard:
    """A review-queue item as stored: what it points at and its scheduling memory."""

    id: int
    lesson: str
    kind: str
    key: str
    state: int
    step: int | None
    stability: float | None
    difficulty: float | None
    due: datetime
    last_review: datetime | None
    last_miss_at: datetime | None


@dataclass(frozen=True)
class Miss:
    """The newest wrong answer to one item (a prediction, a myth, a typed value)."""

    lesson: str
    kind: str  # "prediction" | "myth" | "value" (keyed by step or myth number)
    key: str
    at: datetime


def _stored(card: ReviewCard) -> StoredCard:
    return StoredCard(
        card.id,
        card.lesson,
        card.kind,
        card.key,
        card.state,
        card.step,
        card.stability,
        card.difficulty,
        card.due,
        card.last_review,
        card.last_miss_at,
    )


class ModesRecords(StoreBase):
    # --- learning modes (issue 7) ------------------------------------------------------------
    def set_lesson_mode(self, learner: str, lesson: str, mode: str) -> None:
        self.ensure_learner(learner)
        with self.session() as session:
            found = session.get(LessonMode, (learner, lesson))
            if found is None:
                session.add(LessonMode(learner_id=learner, lesson=lesson, mode=mode))
            else:
                found.mode = mode

    def lesson_modes(self, learner: str) -> dict[str, str]:
        """The last mode used, by lesson slug."""
        with self.session() as session:
            rows = session.execute(
                select(LessonMode.lesson, LessonMode.mode).where(LessonMode.learner_id == learner)
            ).all()
        return {lesson: mode for lesson, mode in rows}

    def record_drill(
        self, learner: str, lesson: str, drill: str, value: str, correct: bool, revealed: bool
    ) -> None:
        self.ensure_learner(learner)
        with self.session() as session:
            session.add(
                DrillAttempt(
                    learner_id=learner,
                    lesson=lesson,
                    drill=drill,
                    value=value,
                    correct=correct,
                    revealed=revealed,
                )
            )

    def drill_state(self, learner: str, lesson: str) -> dict[str, dict[str, Any]]:
        """Per drill: answered right at least once, revealed, attempts, the latest value."""
        with self.session() as session:
            attempts = session.scalars(
                select(DrillAttempt)
                .where(DrillAttempt.learner_id == learner, DrillAttempt.lesson == lesson)
                .order_by(DrillAttempt.id)
            ).all()
        state: dict[str, dict[str, Any]] = {}
        for attempt in attempts:
            entry = state.setdefault(
                attempt.drill, {"correct": False, "revealed": False, "attempts": 0, "value": ""}
            )
            entry["correct"] = entry["correct"] or attempt.correct
            entry["revealed"] = entry["revealed"] or attempt.revealed
            entry["attempts"] += 1
            entry["value"] = attempt.value
        return state

    def record_flashcard(self, learner: str, lesson: str, card: str, rating: str) -> None:
        self.ensure_learner(learner)
        with self.session() as session:
            session.add(
                FlashcardRating(learner_id=learner, lesson=lesson, card=card, rating=rating)
            )

    def flashcard_state(self, learner: str, lesson: str) -> dict[str, str]:
        """The latest rating of each card."""
        with self.session() as session:
            ratings = session.scalars(
                select(FlashcardRating)
                .where(FlashcardRating.learner_id == learner, FlashcardRating.lesson == lesson)
                .order_by(FlashcardRating.id)
            ).all()
        return {rating.card: rating.rating for rating in ratings}

    def record_pitfall_check(self, learner: str, lesson: str, pitfall: int, passed: bool) -> None:
        self.ensure_learner(learner)
        with self.session() as session:
            session.add(
                PitfallCheck(learner_id=learner, lesson=lesson, pitfall=pitfall, passed=passed)
            )

    def pitfall_state(self, learner: str, lesson: str) -> dict[int, dict[str, Any]]:
        """Per pitfall: fixed (a check passed) and how many checks were made."""
        with self.session() as session:
            checks = session.scalars(
                select(PitfallCheck).where(
                    PitfallCheck.learner_id == learner, PitfallCheck.lesson == lesson
                )
            ).all()
        state: dict[int, dict[str, Any]] = {}
        for check in checks:
            entry = state.setdefault(check.pitfall, {"fixed": False, "checks": 0})
            entry["fixed"] = entry["fixed"] or check.passed
            entry["checks"] += 1
        return state

    def mode_summary(self, learner: str) -> dict[str, dict[str, int]]:
        """Per lesson: drills answered right and pitfalls fixed."""
        with self.session() as session:
            drills = session.execute(
                select(DrillAttempt.lesson, func.count(func.distinct(DrillAttempt.drill)))
                .where(DrillAttempt.learner_id == learner, DrillAttempt.correct.is_(True))
                .group_by(DrillAttempt.lesson)
            ).all()
            fixed = session.execute(
                select(PitfallCheck.lesson, func.count(func.distinct(PitfallCheck.pitfall)))
                .where(PitfallCheck.learner_id == learner, PitfallCheck.passed.is_(True))
                .group_by(PitfallCheck.lesson)
            ).all()
        summary: dict[str, dict[str, int]] = {}
        for lesson, count in drills:
            summary.setdefault(lesson, {"drills_right": 0, "pitfalls_fixed": 0})["drills_right"] = (
                count
            )
        for lesson, count in fixed:
            summary.setdefault(lesson, {"drills_right": 0, "pitfalls_fixed": 0})[
                "pitfalls_fixed"
            ] = count
        return summary

    def first_predictions(self, learner: str) -> list[tuple[str, bool]]:
        """(confidence, correct) of each step's first prediction: later attempts come after the
        answer was shown, so they say nothing about calibration."""
        with self.session() as session:
            attempts = session.scalars(
                select(PredictionAttempt)
                .where(PredictionAttempt.learner_id == learner)
                .order_by(PredictionAttempt.id)
            ).all()
        first: dict[tuple[str, int], tuple[str, bool]] = {}
        for attempt in attempts:
            first.setdefault((attempt.lesson, attempt.step), (attempt.confidence, attempt.correct))
        return list(first.values())

    # --- the review queue ----------------------------------------------------------------------
    def misses(self, learner: str) -> list[Miss]:
        """The newest wrong answer of each prediction, myth and typed value."""
        sources: list[tuple[str, Any, Any]] = [
            ("prediction", PredictionAttempt, PredictionAttempt.step),
            ("myth", MythAnswer, MythAnswer.myth),
            ("value", ValueAttempt, ValueAttempt.step),
        ]
        found: list[Miss] = []
        with self.session() as session:
            for kind, model, number in sources:
                rows = session.execute(
                    select(model.lesson, number, func.max(model.created_at))
                    .where(model.learner_id == learner, model.correct.is_(False))
                    .group_by(model.lesson, number)
                ).all()
                found.extend(Miss(lesson, kind, str(key), at) for lesson, key, at in rows)
        return found

    def review_cards(self, learner: str) -> list[StoredCard]:
        with self.session() as session:
            cards = session.scalars(
                select(ReviewCard).where(ReviewCard.learner_id == learner).order_by(ReviewCard.id)
            ).all()
            return [_stored(card) for card in cards]

    def review_card(self, learner: str, card_id: int) -> StoredCard | None:
        with self.session() as session:
            card = session.get(ReviewCard, card_id)
            if card is None or card.learner_id != learner:
                return None
            return _stored(card)

    def add_review_card(
        self, learner: str, lesson: str, kind: str, key: str, memory: dict[str, Any]
    ) -> None:
        """Put an item in the queue; an item already there (another request was first) stays."""
        self.ensure_learner(learner)
        try:
            with self.session() as session:
                session.add(
                    ReviewCard(learner_id=learner, lesson=lesson, kind=kind, key=key, **memory)
                )
        except IntegrityError:
            pass

    def update_review_card(self, card_id: int, memory: dict[str, Any]) -> None:
        with self.session() as session:
            card = session.get(ReviewCard, card_id)
            if card is not None:
                for field, value in memory.items():
                    setattr(card, field, value)

    def record_review_answer(self, learner: str, card_id: int, grade: str) -> None:
        with self.session() as session:
            session.add(ReviewAnswer(learner_id=learner, card_id=card_id, grade=grade))

    def review_answers_since(self, learner: str, since: datetime) -> int:
        with self.session() as session:
            count: int = (
                session.scalar(
                    select(func.count())
                    .select_from(ReviewAnswer)
                    .where(ReviewAnswer.learner_id == learner, ReviewAnswer.created_at >= since)
                )
                or 0
            )
        return count

    def reset_modes(self, learner: str) -> None:
        """Forget what the learning modes and the review queue kept of this learner."""
        with self.session() as session:
            for model in (
                ReviewAnswer,
                ReviewCard,
                LessonMode,
                DrillAttempt,
                FlashcardRating,
                PitfallCheck,
            ):
                session.execute(delete(model).where(model.learner_id == learner))
