"""Exercises (code to write): the check of the lines a learner wrote, and the diagnosis of a
buggy snippet."""

from __future__ import annotations

from fastapi import APIRouter

from app.errors import (
    RUNS,
    STORE,
    AnswerError,
    NotAChoice,
    PredictionNotCommitted,
    UnknownExercise,
    UnknownLesson,
)
from app.learning.exercise_schemas import (
    DiagnosisBody,
    DiagnosisReveal,
    ExerciseBody,
    ExerciseVerdict,
)
from app.routes.deps import AddressDep, ExercisesDep, WriterDep
from app.web.problems import responses

router = APIRouter(tags=["exercises"])


@router.post(
    "/api/lessons/{slug}/exercises/{number}",
    responses=responses(
        UnknownLesson, UnknownExercise, AnswerError, PredictionNotCommitted, *RUNS, *STORE
    ),
)
async def check_exercise(
    slug: str, number: int, body: ExerciseBody, exercises: ExercisesDep, address: AddressDep
) -> ExerciseVerdict:
    """Fill the exercise's blanks with `lines`, run it in the sandbox and grade what it does
    (error, stdout, the `.grad` values of the goal, gradcheck for a custom backward); a miss
    says what differs and brings the next hint. Text is never compared."""
    return await exercises.check(slug, number, body, address)


@router.post(
    "/api/lessons/{slug}/exercises/{number}/diagnosis",
    responses=responses(UnknownLesson, UnknownExercise, NotAChoice, PredictionNotCommitted, *STORE),
)
async def diagnose_exercise(
    slug: str, number: int, body: DiagnosisBody, exercises: ExercisesDep, write: WriterDep
) -> DiagnosisReveal:
    """Name the bug: graded by the choice's text, then revealed with the lesson it comes from
    and the code to fix."""
    return await write(exercises.diagnose, slug, number, body)
