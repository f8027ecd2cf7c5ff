"""What the store keeps of exercises (code to write): every check of a learner's lines and
every diagnosis, passed or not."""

from __future__ import annotations

from dataclasses import replace

from app.progress.base import StoreBase
from app.progress.models.modes import ExerciseAttempt
from app.progress.records import ExerciseRecord

CODE, DIAGNOSIS = "code", "diagnosis"


class ExerciseRecords(StoreBase):
    def record_exercise(
        self,
        learner: str,
        lesson: str,
        exercise: int,
        part: str,
        answer: str,
        passed: bool,
        confidence: str | None = None,
        miss: str | None = None,
    ) -> None:
        self.add_row(
            learner,
            ExerciseAttempt,
            lesson=lesson,
            exercise=exercise,
            part=part,
            answer=answer,
            passed=passed,
            confidence=confidence,
            miss=miss,
        )

    def exercise_state(self, learner: str, lesson: str) -> dict[int, ExerciseRecord]:
        """Per exercise: solved, checks and misses, and the first diagnosis (the one that
        counts: later ones come after the answer was shown)."""
        state: dict[int, ExerciseRecord] = {}
        for row in self.lesson_rows(ExerciseAttempt, learner, lesson):
            seen = state.get(row.exercise, ExerciseRecord())
            if row.part == DIAGNOSIS:
                if seen.diagnosis is None:
                    seen = replace(
                        seen,
                        diagnosis=row.answer,
                        diagnosed_right=row.passed,
                        diagnosis_confidence=row.confidence,
                    )
            else:
                seen = replace(
                    seen,
                    solved=seen.solved or row.passed,
                    checks=seen.checks + 1,
                    misses=seen.misses + (not row.passed),
                    misses_by={
                        **seen.misses_by,
                        **({row.miss: seen.misses_by.get(row.miss, 0) + 1} if row.miss else {}),
                    },
                )
            state[row.exercise] = seen
        return state
