"""The progress store: record what a learner did, and summarise it. Knows nothing of HTTP."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from app.progress.models import MythAnswer, PredictionAttempt, StepState, ValueAttempt
from app.progress.modes_store import ModesRecords
from app.progress.records import (
    LessonRecords,
    MythRecord,
    PredictionRecord,
    StepRecord,
    StoredCard,
    ValueRecord,
)

__all__ = ["LessonRecords", "LessonTotals", "ProgressStore", "StoredCard"]


@dataclass(frozen=True)
class LessonTotals:
    steps: int
    myths: int


class ProgressStore(ModesRecords):
    """Steps, predictions, typed values and myth answers (here), the learning modes and the
    review queue (ModesRecords), sessions and learners (StoreBase)."""

    # --- recording ---------------------------------------------------------------------------
    def _step_state(self, session: Session, learner: str, lesson: str, step: int) -> StepState:
        state = session.get(StepState, (learner, lesson, step))
        if state is None:
            state = StepState(learner_id=learner, lesson=lesson, step=step, done=False)
            session.add(state)
        return state

    def record_prediction(
        self, learner: str, lesson: str, step: int, answer: PredictionRecord
    ) -> int:
        """Keep the attempt, mark the step done; return the attempt's number (1 = first) at
        this version of the question."""
        with self.writing(learner) as session:
            session.add(
                PredictionAttempt(learner_id=learner, lesson=lesson, step=step, **asdict(answer))
            )
            self._step_state(session, learner, lesson, step).done = True
            session.flush()
            attempts: int = (
                session.scalar(
                    select(func.count())
                    .select_from(PredictionAttempt)
                    .where(
                        PredictionAttempt.learner_id == learner,
                        PredictionAttempt.lesson == lesson,
                        PredictionAttempt.step == step,
                        PredictionAttempt.fingerprint == answer.fingerprint,
                    )
                )
                or 0
            )
        return attempts

    def record_value(self, learner: str, lesson: str, step: int, answer: ValueRecord) -> None:
        row = ValueAttempt(learner_id=learner, lesson=lesson, step=step, **asdict(answer))
        self.add_record(learner, row)

    def record_myth(self, learner: str, lesson: str, myth: int, answer: MythRecord) -> None:
        self.add_record(
            learner, MythAnswer(learner_id=learner, lesson=lesson, myth=myth, **asdict(answer))
        )

    def mark_done(self, learner: str, lesson: str, step: int) -> None:
        with self.writing(learner) as session:
            self._step_state(session, learner, lesson, step).done = True

    def save_code(self, learner: str, lesson: str, step: int, code: str | None) -> None:
        with self.writing(learner) as session:
            self._step_state(session, learner, lesson, step).code = code

    def reset(self, learner: str) -> None:
        """Forget everything this learner did, in every mode (the learner id stays)."""
        with self.writing() as session:
            for model in (StepState, PredictionAttempt, ValueAttempt, MythAnswer):
                session.execute(delete(model).where(model.learner_id == learner))
        self.reset_modes(learner)

    # --- reading -----------------------------------------------------------------------------
    def lesson_state(self, learner: str, lesson: str) -> LessonRecords:
        """The latest of everything the learner did in one lesson, by step and myth number."""
        with self.session() as session:
            states = session.scalars(
                select(StepState).where(StepState.learner_id == learner, StepState.lesson == lesson)
            ).all()
            predictions = session.scalars(
                select(PredictionAttempt).where(
                    PredictionAttempt.id.in_(
                        select(func.max(PredictionAttempt.id))
                        .where(
                            PredictionAttempt.learner_id == learner,
                            PredictionAttempt.lesson == lesson,
                        )
                        .group_by(PredictionAttempt.step)
                    )
                )
            ).all()
            values = session.scalars(
                select(ValueAttempt).where(
                    ValueAttempt.id.in_(
                        select(func.max(ValueAttempt.id))
                        .where(ValueAttempt.learner_id == learner, ValueAttempt.lesson == lesson)
                        .group_by(ValueAttempt.step)
                    )
                )
            ).all()
        records = LessonRecords(myths=self.lesson_myths(learner, lesson))
        for state in states:
            entry = records.steps.setdefault(state.step, StepRecord())
            entry.done, entry.code = state.done, state.code
        for attempt in predictions:  # the latest attempt at each step
            records.steps.setdefault(attempt.step, StepRecord()).prediction = PredictionRecord(
                attempt.choice, attempt.confidence, attempt.correct, attempt.fingerprint
            )
        for value in values:
            records.steps.setdefault(value.step, StepRecord()).value = ValueRecord(
                value.value, value.correct, value.revealed, value.fingerprint
            )
        return records

    def _latest_myth_rows(self, learner: str, lesson: str | None) -> list[MythAnswer]:
        """The latest answer to each myth, chosen in SQL (a learner may answer one often)."""
        where = MythAnswer.learner_id == learner
        if lesson is not None:
            where = where & (MythAnswer.lesson == lesson)
        latest = (
            select(func.max(MythAnswer.id))
            .where(where)
            .group_by(MythAnswer.lesson, MythAnswer.myth)
        )
        with self.session() as session:
            return list(session.scalars(select(MythAnswer).where(MythAnswer.id.in_(latest))).all())

    def lesson_myths(self, learner: str, lesson: str) -> dict[int, MythRecord]:
        """The latest answer to each myth of one lesson, by myth number."""
        return {
            a.myth: MythRecord(a.answer, a.correct, a.fingerprint)
            for a in self._latest_myth_rows(learner, lesson)
        }

    def myth_answers(self, learner: str) -> dict[tuple[str, int], MythRecord]:
        """The latest answer to every myth, by (lesson, myth number)."""
        return {
            (a.lesson, a.myth): MythRecord(a.answer, a.correct, a.fingerprint)
            for a in self._latest_myth_rows(learner, None)
        }

    def steps_done(self, learner: str, lesson: str | None = None) -> dict[str, int]:
        """Per lesson (or for the one given): how many steps are done."""
        where = (StepState.learner_id == learner) & StepState.done.is_(True)
        if lesson is not None:
            where = where & (StepState.lesson == lesson)
        with self.session() as session:
            done = session.execute(
                select(StepState.lesson, func.count()).where(where).group_by(StepState.lesson)
            ).all()
        return {lesson: count for lesson, count in done}
