"""What the learning modes and the review queue remember of a learner."""

from __future__ import annotations

from dataclasses import asdict, fields
from datetime import datetime

from sqlalchemy import delete, func, select
from sqlalchemy.exc import IntegrityError

from app.progress.base import StoreBase
from app.progress.models import (
    DrillAttempt,
    FlashcardRating,
    LessonMode,
    PitfallCheck,
    PredictionAttempt,
    ReviewAnswer,
    ReviewCard,
)
from app.progress.records import (
    CardMemory,
    DrillRecord,
    FirstPrediction,
    LessonCounts,
    PitfallRecord,
    StoredCard,
)


def _stored(card: ReviewCard) -> StoredCard:
    memory = CardMemory(**{field.name: getattr(card, field.name) for field in fields(CardMemory)})
    return StoredCard(card.id, card.lesson, card.kind, card.key, card.fingerprint, memory)


class ModesRecords(StoreBase):
    # --- learning modes (issue 7) ------------------------------------------------------------
    def set_lesson_mode(self, learner: str, lesson: str, mode: str) -> None:
        with self.writing(learner) as session:
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
        self.add_record(
            learner,
            DrillAttempt(
                learner_id=learner,
                lesson=lesson,
                drill=drill,
                value=value,
                correct=correct,
                revealed=revealed,
            ),
        )

    def drill_state(self, learner: str, lesson: str) -> dict[str, DrillRecord]:
        """Per drill: answered right at least once, revealed, attempts, the latest value."""
        state: dict[str, DrillRecord] = {}
        for attempt in self.lesson_rows(DrillAttempt, learner, lesson):
            seen = state.get(attempt.drill, DrillRecord(False, False, 0, ""))
            state[attempt.drill] = DrillRecord(
                seen.correct or attempt.correct,
                seen.revealed or attempt.revealed,
                seen.attempts + 1,
                attempt.value,
            )
        return state

    def record_flashcard(self, learner: str, lesson: str, card: str, rating: str) -> None:
        self.add_record(
            learner, FlashcardRating(learner_id=learner, lesson=lesson, card=card, rating=rating)
        )

    def flashcard_state(self, learner: str, lesson: str) -> dict[str, str]:
        """The latest rating of each card."""
        ratings = self.lesson_rows(FlashcardRating, learner, lesson)
        return {rating.card: rating.rating for rating in ratings}

    def record_pitfall_check(self, learner: str, lesson: str, pitfall: int, passed: bool) -> None:
        self.add_record(
            learner, PitfallCheck(learner_id=learner, lesson=lesson, pitfall=pitfall, passed=passed)
        )

    def pitfall_state(self, learner: str, lesson: str) -> dict[int, PitfallRecord]:
        """Per pitfall: fixed (a check passed) and how many checks were made."""
        state: dict[int, PitfallRecord] = {}
        for check in self.lesson_rows(PitfallCheck, learner, lesson):
            seen = state.get(check.pitfall, PitfallRecord(False, 0))
            state[check.pitfall] = PitfallRecord(seen.fixed or check.passed, seen.checks + 1)
        return state

    def mode_summary(self, learner: str) -> dict[str, LessonCounts]:
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
        right = {lesson: count for lesson, count in drills}
        done = {lesson: count for lesson, count in fixed}
        return {
            lesson: LessonCounts(
                drills_right=right.get(lesson, 0), pitfalls_fixed=done.get(lesson, 0)
            )
            for lesson in right.keys() | done.keys()
        }

    def first_predictions(self, learner: str) -> list[FirstPrediction]:
        """The first attempt at each version of each step's question: later attempts come
        after the answer was shown, so they say nothing about calibration."""
        with self.session() as session:
            attempts = session.scalars(
                select(PredictionAttempt)
                .where(PredictionAttempt.learner_id == learner)
                .order_by(PredictionAttempt.id)
            ).all()
        first: dict[tuple[str, int, str | None], FirstPrediction] = {}
        for a in attempts:
            first.setdefault(
                (a.lesson, a.step, a.fingerprint),
                FirstPrediction(a.lesson, a.step, a.fingerprint, a.confidence, a.correct),
            )
        return list(first.values())

    # --- the review queue ----------------------------------------------------------------------
    def review_cards(self, learner: str) -> list[StoredCard]:
        with self.session() as session:
            cards = session.scalars(
                select(ReviewCard).where(ReviewCard.learner_id == learner).order_by(ReviewCard.id)
            ).all()
            return [_stored(card) for card in cards]

    def review_card_of(self, learner: str, lesson: str, kind: str, key: str) -> StoredCard | None:
        """The learner's card for one item, if it is in the queue (an item has one card)."""
        with self.session() as session:
            card = session.scalars(
                select(ReviewCard).where(
                    ReviewCard.learner_id == learner,
                    ReviewCard.lesson == lesson,
                    ReviewCard.kind == kind,
                    ReviewCard.key == key,
                )
            ).first()
            return _stored(card) if card is not None else None

    def review_card(self, learner: str, card_id: int) -> StoredCard | None:
        with self.session() as session:
            card = session.get(ReviewCard, card_id)
            if card is None or card.learner_id != learner:
                return None
            return _stored(card)

    def add_review_card(
        self, learner: str, lesson: str, kind: str, key: str, fingerprint: str, memory: CardMemory
    ) -> None:
        """Put an item in the queue; an item already there (another request was first) stays."""
        try:
            with self.writing(learner) as session:
                session.add(
                    ReviewCard(
                        learner_id=learner,
                        lesson=lesson,
                        kind=kind,
                        key=key,
                        fingerprint=fingerprint,
                        **asdict(memory),
                    )
                )
        except IntegrityError:
            pass

    def update_review_card(
        self, card_id: int, memory: CardMemory, fingerprint: str | None = None
    ) -> None:
        """New memory for a card; a new fingerprint when a miss of a rewritten question
        takes over the card of the old one."""
        with self.writing() as session:
            card = session.get(ReviewCard, card_id)
            if card is None:
                return
            for name, value in asdict(memory).items():
                if name != "last_miss_at" or value is not None:
                    setattr(card, name, value)
            if fingerprint is not None:
                card.fingerprint = fingerprint

    def record_review_answer(self, learner: str, card_id: int, grade: str) -> None:
        with self.writing() as session:
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
        with self.writing() as session:
            for model in (
                ReviewAnswer,
                ReviewCard,
                LessonMode,
                DrillAttempt,
                FlashcardRating,
                PitfallCheck,
            ):
                session.execute(delete(model).where(model.learner_id == learner))
