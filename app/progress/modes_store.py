"""What the learning modes and the review queue remember of a learner."""

from __future__ import annotations

from dataclasses import asdict, fields
from datetime import datetime
from typing import Any, cast

from sqlalchemy import (
    BindParameter,
    Table,
    bindparam,
    case,
    delete,
    func,
    or_,
    select,
    update,
)

from app.progress.base import StoreBase
from app.progress.models.declarative import stored_utc
from app.progress.models.learners import StepAnswer
from app.progress.models.modes import (
    DrillAttempt,
    ExerciseAttempt,
    FlashcardRating,
    LessonMode,
    PitfallCheck,
    RecallAnswer,
    ReviewAnswer,
    ReviewCard,
)
from app.progress.records import (
    LEFT_REVIEW,
    CardMemory,
    DrillRecord,
    FirstStepAnswer,
    FormAnswered,
    LessonCounts,
    PitfallRecord,
    RecallRecord,
    StoredCard,
)

_LEARNER: BindParameter[str] = bindparam("learner")
_MEMORY = [field.name for field in fields(CardMemory)]

# Statements built once (app/progress/base.py says why).
_CARDS = select(
    ReviewCard.id,
    ReviewCard.lesson,
    ReviewCard.kind,
    ReviewCard.key,
    ReviewCard.fingerprint,
    ReviewCard.asked,
    *(getattr(ReviewCard, name) for name in _MEMORY),
)
_LEARNER_CARDS = _CARDS.where(ReviewCard.learner_id == _LEARNER).order_by(ReviewCard.id)
# Which items are due: what each names, not its memory (the "due" counts of every answer);
# a card that left review (records.LEFT_REVIEW, `StoredCard.left`) is not.
_DUE_ITEMS = select(
    ReviewCard.lesson, ReviewCard.kind, ReviewCard.key, ReviewCard.fingerprint
).where(
    ReviewCard.learner_id == _LEARNER,
    ReviewCard.due <= bindparam("now"),
    or_(
        ReviewCard.asked.is_(None),
        ReviewCard.asked != LEFT_REVIEW,
        ReviewCard.last_review.is_(None),
        ReviewCard.last_miss_at >= ReviewCard.last_review,
    ),
)
_CARD_OF_ITEM = _CARDS.where(
    ReviewCard.learner_id == _LEARNER,
    ReviewCard.lesson == bindparam("lesson"),
    ReviewCard.kind == bindparam("kind"),
    ReviewCard.key == bindparam("key"),
)
_CARD = _CARDS.add_columns(ReviewCard.learner_id).where(ReviewCard.id == bindparam("card"))
# The columns to set come with each call's parameters (a miss sets last_miss_at, a rewritten
# question its fingerprint): one statement, compiled once per set of columns.
_CARDS_TABLE = cast(Table, ReviewCard.__table__)
_UPDATE_CARD = update(_CARDS_TABLE).where(_CARDS_TABLE.c.id == bindparam("card_id"))
_LESSON_MODES = select(LessonMode.lesson, LessonMode.mode).where(LessonMode.learner_id == _LEARNER)
_FIRST_STEP_ANSWERS = (
    select(
        StepAnswer.lesson,
        StepAnswer.step,
        StepAnswer.fingerprint,
        StepAnswer.confidence,
        StepAnswer.correct,
        StepAnswer.seen_answers,
    )
    .where(StepAnswer.learner_id == _LEARNER)
    .order_by(StepAnswer.id)
)


def _stored(card: Any) -> StoredCard:
    memory = CardMemory(**{name: getattr(card, name) for name in _MEMORY})
    return StoredCard(
        card.id, card.lesson, card.kind, card.key, card.fingerprint, memory, card.asked
    )


class ModesRecords(StoreBase):
    # --- learning modes --------------------------------------------------------------------
    def set_lesson_mode(self, learner: str, lesson: str, mode: str) -> None:
        with self.writing(learner) as connection:
            connection.execute(
                self.upsert(LessonMode, "mode"),
                {"learner_id": learner, "lesson": lesson, "mode": mode},
            )

    def lesson_modes(self, learner: str) -> dict[str, str]:
        """The last mode used, by lesson slug."""
        with self.reading() as connection:
            rows = connection.execute(_LESSON_MODES, {"learner": learner}).all()
        return {lesson: mode for lesson, mode in rows}

    def record_drill(
        self,
        learner: str,
        lesson: str,
        drill: str,
        value: str,
        correct: bool,
        revealed: bool,
        form: int | None = None,
    ) -> None:
        """`form`: the variant instance of the drill's step asked, if it has any."""
        self.add_row(
            learner,
            DrillAttempt,
            lesson=lesson,
            drill=drill,
            value=value,
            correct=correct,
            revealed=revealed,
            form=form,
        )

    def drill_state(self, learner: str, lesson: str) -> dict[str, DrillRecord]:
        """Per drill: answered right at least once, revealed, attempts, the latest value and
        the instances answered (oldest first)."""
        state: dict[str, DrillRecord] = {}
        for attempt in self.lesson_rows(DrillAttempt, learner, lesson):
            seen = state.get(attempt.drill, DrillRecord(False, False, 0, ""))
            forms = seen.forms if attempt.form is None else (*seen.forms, attempt.form)
            state[attempt.drill] = DrillRecord(
                seen.correct or attempt.correct,
                seen.revealed or attempt.revealed,
                seen.attempts + 1,
                attempt.value,
                forms,
            )
        return state

    def record_recall(self, learner: str, lesson: str, answer: RecallRecord) -> bool:
        """Keep an answer to a recall question; False (nothing kept) when that question was
        answered already."""
        # RETURNING, not rowcount: psycopg reports no count for an INSERT ... ON CONFLICT.
        with self.writing(learner) as connection:
            keep = self.insert_ignoring(RecallAnswer).returning(RecallAnswer.id)
            kept = connection.execute(
                keep, {"learner_id": learner, "lesson": lesson, **asdict(answer)}
            ).first()
        return kept is not None

    def recall_answers(self, learner: str, lesson: str) -> list[RecallRecord]:
        """Every answer to a recall question of one lesson, oldest first (answers to older
        versions or other forms included: the caller keeps those of the questions it asks)."""
        return [
            RecallRecord(
                row.step,
                row.kind,
                row.form,
                row.choice,
                row.confidence,
                row.correct,
                row.fingerprint,
            )
            for row in self.lesson_rows(RecallAnswer, learner, lesson)
        ]

    def record_flashcard(self, learner: str, lesson: str, card: str, rating: str) -> None:
        self.add_row(learner, FlashcardRating, lesson=lesson, card=card, rating=rating)

    def flashcard_state(self, learner: str, lesson: str) -> dict[str, str]:
        """The latest rating of each card."""
        ratings = self.lesson_rows(FlashcardRating, learner, lesson)
        return {rating.card: rating.rating for rating in ratings}

    def record_pitfall_check(self, learner: str, lesson: str, pitfall: int, passed: bool) -> None:
        self.add_row(learner, PitfallCheck, lesson=lesson, pitfall=pitfall, passed=passed)

    def pitfall_state(self, learner: str, lesson: str) -> dict[int, PitfallRecord]:
        """Per pitfall: fixed (a check passed) and how many checks were made."""
        state: dict[int, PitfallRecord] = {}
        for check in self.lesson_rows(PitfallCheck, learner, lesson):
            seen = state.get(check.pitfall, PitfallRecord(False, 0))
            state[check.pitfall] = PitfallRecord(seen.fixed or check.passed, seen.checks + 1)
        return state

    def mode_summary(self, learner: str) -> dict[str, LessonCounts]:
        """Per lesson: drills answered right, pitfalls fixed, and exercises attempted (their
        code checked at least once) and solved (a check passed)."""
        with self.reading() as connection:
            drills = connection.execute(
                select(DrillAttempt.lesson, func.count(func.distinct(DrillAttempt.drill)))
                .where(DrillAttempt.learner_id == learner, DrillAttempt.correct.is_(True))
                .group_by(DrillAttempt.lesson)
            ).all()
            fixed = connection.execute(
                select(PitfallCheck.lesson, func.count(func.distinct(PitfallCheck.pitfall)))
                .where(PitfallCheck.learner_id == learner, PitfallCheck.passed.is_(True))
                .group_by(PitfallCheck.lesson)
            ).all()
            exercises = connection.execute(
                select(
                    ExerciseAttempt.lesson,
                    ExerciseAttempt.exercise,
                    func.max(case((ExerciseAttempt.passed.is_(True), 1), else_=0)),
                )
                .where(ExerciseAttempt.learner_id == learner, ExerciseAttempt.part == "code")
                .group_by(ExerciseAttempt.lesson, ExerciseAttempt.exercise)
            ).all()
        right = {lesson: count for lesson, count in drills}
        done = {lesson: count for lesson, count in fixed}
        tried: dict[str, int] = {}
        solved: dict[str, int] = {}
        for lesson, _, passed in exercises:
            tried[lesson] = tried.get(lesson, 0) + 1
            solved[lesson] = solved.get(lesson, 0) + bool(passed)
        return {
            lesson: LessonCounts(
                drills_right=right.get(lesson, 0),
                pitfalls_fixed=done.get(lesson, 0),
                exercises_attempted=tried.get(lesson, 0),
                exercises_solved=solved.get(lesson, 0),
            )
            for lesson in right.keys() | done.keys() | tried.keys()
        }

    def first_step_answers(self, learner: str) -> list[FirstStepAnswer]:
        """The first attempt at each version of each step's question: later attempts come
        after the answer was shown, so they say nothing about calibration."""
        with self.reading() as connection:
            attempts = connection.execute(_FIRST_STEP_ANSWERS, {"learner": learner}).all()
        first: dict[tuple[str, int, str | None], FirstStepAnswer] = {}
        for a in attempts:
            first.setdefault(
                (a.lesson, a.step, a.fingerprint),
                FirstStepAnswer(
                    a.lesson, a.step, a.fingerprint, a.confidence, a.correct, a.seen_answers
                ),
            )
        return list(first.values())

    # --- the review queue ----------------------------------------------------------------------
    def review_cards(self, learner: str) -> list[StoredCard]:
        with self.reading() as connection:
            return [
                _stored(card) for card in connection.execute(_LEARNER_CARDS, {"learner": learner})
            ]

    def due_review_items(
        self, learner: str, now: datetime
    ) -> list[tuple[str, str, str, str | None]]:
        """(lesson, kind, key, fingerprint) of each of the learner's cards due at `now`."""
        with self.reading() as connection:
            rows = connection.execute(_DUE_ITEMS, {"learner": learner, "now": now})
            return [(row.lesson, row.kind, row.key, row.fingerprint) for row in rows]

    def review_card_of(self, learner: str, lesson: str, kind: str, key: str) -> StoredCard | None:
        """The learner's card for one item, if it is in the queue (an item has one card)."""
        item = {"learner": learner, "lesson": lesson, "kind": kind, "key": key}
        with self.reading() as connection:
            card = connection.execute(_CARD_OF_ITEM, item).first()
        return _stored(card) if card is not None else None

    def review_card(self, learner: str, card_id: int) -> StoredCard | None:
        with self.reading() as connection:
            card = connection.execute(_CARD, {"card": card_id}).first()
        if card is None or card.learner_id != learner:
            return None
        return _stored(card)

    def add_review_card(
        self,
        learner: str,
        lesson: str,
        kind: str,
        key: str,
        fingerprint: str,
        memory: CardMemory,
        *,
        asked: int | None = None,
    ) -> None:
        """Put an item in the queue; an item already there (another request was first) stays.
        `asked`: the other form of its question the learner was just asked (a recall's)."""
        card: dict[str, object] = {
            "lesson": lesson,
            "kind": kind,
            "key": key,
            "fingerprint": fingerprint,
        }
        if asked is not None:
            card["asked"] = asked
        with self.writing(learner) as connection:
            connection.execute(
                self.insert_ignoring(ReviewCard),
                {"learner_id": learner, **card, **asdict(memory)},
            )

    def update_review_card(
        self,
        card_id: int,
        memory: CardMemory,
        fingerprint: str | None = None,
        *,
        asked: int | None = None,
    ) -> None:
        """New memory for a card; a new fingerprint when a miss of a rewritten question
        takes over the card of the old one; with `asked`, the other form of the question that
        this review asked."""
        changed: dict[str, object] = {
            field.name: value
            for field in fields(memory)
            if (value := getattr(memory, field.name)) is not None or field.name != "last_miss_at"
        }
        if fingerprint is not None:
            changed["fingerprint"] = fingerprint
        if asked is not None:
            changed["asked"] = asked
        with self.writing() as connection:
            connection.execute(_UPDATE_CARD, {**changed, "card_id": card_id})

    def record_review_answer(
        self, learner: str, card_id: int, grade: str, at: datetime, form: int | None = None
    ) -> None:
        """A review of a card at `at` (the queue's time, which its schedule counts in).
        `form`: the other form of the card's question this review asked, if any."""
        row = {"learner_id": learner, "card_id": card_id, "grade": grade, "form": form}
        with self.writing() as connection:
            connection.execute(self.insert(ReviewAnswer), {**row, "created_at": at})

    def review_forms(self, learner: str) -> dict[int, tuple[FormAnswered, ...]]:
        """Every other form of its question each of the learner's cards was asked in review,
        and when, by card, oldest first."""
        found: dict[int, list[FormAnswered]] = {}
        asked = (
            select(ReviewAnswer.card_id, ReviewAnswer.form, ReviewAnswer.created_at)
            .where(ReviewAnswer.learner_id == learner, ReviewAnswer.form.is_not(None))
            .order_by(ReviewAnswer.id)
        )
        with self.reading() as connection:
            for card_id, form, at in connection.execute(asked):
                if form is not None:  # (the query keeps none)
                    found.setdefault(card_id, []).append(FormAnswered(form, stored_utc(at)))
        return {card_id: tuple(forms) for card_id, forms in found.items()}

    def review_answers_since(self, learner: str, since: datetime) -> int:
        with self.reading() as connection:
            count: int = (
                connection.scalar(
                    select(func.count())
                    .select_from(ReviewAnswer)
                    .where(ReviewAnswer.learner_id == learner, ReviewAnswer.created_at >= since)
                )
                or 0
            )
        return count

    def reset_modes(self, learner: str) -> None:
        """Forget what the learning modes and the review queue kept of this learner."""
        with self.writing() as connection:
            for model in (
                ReviewAnswer,
                ReviewCard,
                RecallAnswer,
                LessonMode,
                DrillAttempt,
                FlashcardRating,
                PitfallCheck,
                ExerciseAttempt,
            ):
                connection.execute(delete(model).where(model.learner_id == learner))
