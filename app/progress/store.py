"""The progress store: record what a learner did, and summarise it. Knows nothing of HTTP."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from app.progress.models import MythAnswer, PredictionAttempt, StepState, ValueAttempt
from app.progress.modes_store import Miss, ModesRecords, StoredCard

__all__ = ["LessonTotals", "Miss", "ProgressStore", "StoredCard"]


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
        self, learner: str, lesson: str, step: int, choice: str, confidence: str, correct: bool
    ) -> int:
        """Keep the attempt, mark the step done; return the attempt's number (1 = first)."""
        self.ensure_learner(learner)
        with self.session() as session:
            session.add(
                PredictionAttempt(
                    learner_id=learner,
                    lesson=lesson,
                    step=step,
                    choice=choice,
                    confidence=confidence,
                    correct=correct,
                )
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
                    )
                )
                or 0
            )
        return attempts

    def record_value(
        self, learner: str, lesson: str, step: int, value: str, correct: bool, revealed: bool
    ) -> None:
        self.ensure_learner(learner)
        with self.session() as session:
            session.add(
                ValueAttempt(
                    learner_id=learner,
                    lesson=lesson,
                    step=step,
                    value=value,
                    correct=correct,
                    revealed=revealed,
                )
            )

    def record_myth(self, learner: str, lesson: str, myth: int, answer: str, correct: bool) -> None:
        self.ensure_learner(learner)
        with self.session() as session:
            session.add(
                MythAnswer(
                    learner_id=learner, lesson=lesson, myth=myth, answer=answer, correct=correct
                )
            )

    def mark_done(self, learner: str, lesson: str, step: int) -> None:
        self.ensure_learner(learner)
        with self.session() as session:
            self._step_state(session, learner, lesson, step).done = True

    def save_code(self, learner: str, lesson: str, step: int, code: str | None) -> None:
        self.ensure_learner(learner)
        with self.session() as session:
            self._step_state(session, learner, lesson, step).code = code

    def reset(self, learner: str) -> None:
        """Forget everything this learner did, in every mode (the learner id stays)."""
        with self.session() as session:
            for model in (StepState, PredictionAttempt, ValueAttempt, MythAnswer):
                session.execute(delete(model).where(model.learner_id == learner))
        self.reset_modes(learner)

    # --- reading -----------------------------------------------------------------------------
    def lesson_state(self, learner: str, lesson: str) -> dict[str, Any]:
        """The latest of everything the learner did in one lesson, by step and myth number."""
        with self.session() as session:
            states = session.scalars(
                select(StepState).where(StepState.learner_id == learner, StepState.lesson == lesson)
            ).all()
            predictions = session.scalars(
                select(PredictionAttempt)
                .where(PredictionAttempt.learner_id == learner, PredictionAttempt.lesson == lesson)
                .order_by(PredictionAttempt.id)
            ).all()
            values = session.scalars(
                select(ValueAttempt)
                .where(ValueAttempt.learner_id == learner, ValueAttempt.lesson == lesson)
                .order_by(ValueAttempt.id)
            ).all()
            myths = session.scalars(
                select(MythAnswer)
                .where(MythAnswer.learner_id == learner, MythAnswer.lesson == lesson)
                .order_by(MythAnswer.id)
            ).all()
        steps: dict[int, dict[str, Any]] = {}

        def step_entry(number: int) -> dict[str, Any]:
            return steps.setdefault(
                number, {"done": False, "prediction": None, "value": None, "code": None}
            )

        for state in states:
            entry = step_entry(state.step)
            entry["done"], entry["code"] = state.done, state.code
        for attempt in predictions:  # later attempts overwrite earlier ones
            step_entry(attempt.step)["prediction"] = {
                "choice": attempt.choice,
                "confidence": attempt.confidence,
                "correct": attempt.correct,
            }
        for value in values:
            step_entry(value.step)["value"] = {
                "correct": value.correct,
                "value": value.value,
                "revealed": value.revealed,
            }
        latest_myths = {answer.myth: answer for answer in myths}
        return {
            "steps": steps,
            "myths": {
                number: {"answer": a.answer, "correct": a.correct}
                for number, a in latest_myths.items()
            },
        }

    def summary(self, learner: str) -> dict[str, dict[str, int]]:
        """Per lesson: steps done, myths answered and answered correctly (latest answers)."""
        with self.session() as session:
            done = session.execute(
                select(StepState.lesson, func.count())
                .where(StepState.learner_id == learner, StepState.done.is_(True))
                .group_by(StepState.lesson)
            ).all()
            answers = session.scalars(
                select(MythAnswer).where(MythAnswer.learner_id == learner).order_by(MythAnswer.id)
            ).all()
        result: dict[str, dict[str, int]] = {}
        for lesson, count in done:
            result.setdefault(lesson, {"steps_done": 0, "myths_answered": 0, "myths_correct": 0})[
                "steps_done"
            ] = count
        latest = {(a.lesson, a.myth): a.correct for a in answers}
        for (lesson, _), correct in latest.items():
            entry = result.setdefault(
                lesson, {"steps_done": 0, "myths_answered": 0, "myths_correct": 0}
            )
            entry["myths_answered"] += 1
            entry["myths_correct"] += int(correct)
        return result
