"""The learner's side of a lesson over JSON: predictions, values, myths, code and progress.
Each route parses, calls the learning core once, and returns what it gives."""

from __future__ import annotations

from fastapi import APIRouter, Response

from app.learning.schemas import (
    CatalogProgress,
    CodeBody,
    LessonProgress,
    MythBody,
    MythReveal,
    PredictionBody,
    PredictionReveal,
    ValueBody,
    ValueFeedback,
)
from app.routes.deps import LearnerDep, LearningDep, MaybeLearnerDep

router = APIRouter(tags=["learning"])


@router.post("/api/lessons/{slug}/steps/{number}/prediction", response_model=PredictionReveal)
def commit_prediction(
    slug: str, number: int, body: PredictionBody, learning: LearningDep, learner: LearnerDep
) -> PredictionReveal:
    """Commit to a prediction; the answer, what explains it and the step's output come back."""
    return learning.answers(learner).commit_prediction(slug, number, body)


@router.post("/api/lessons/{slug}/steps/{number}/value", response_model=ValueFeedback)
async def check_value(
    slug: str, number: int, body: ValueBody, learning: LearningDep, learner: LearnerDep
) -> ValueFeedback:
    """Check a typed `.grad` value numerically against the real run, element by element."""
    return await learning.check_value(learner, slug, number, body)


@router.post("/api/lessons/{slug}/myths/{number}/answer", response_model=MythReveal)
def answer_myth(
    slug: str, number: int, body: MythBody, learning: LearningDep, learner: LearnerDep
) -> MythReveal:
    """Answer a myth buster yes or no; the verdict, the belief and the reasons come back."""
    return learning.answers(learner).answer_myth(slug, number, body.answer)


@router.put("/api/lessons/{slug}/steps/{number}/code", status_code=204)
def save_code(
    slug: str, number: int, body: CodeBody, learning: LearningDep, learner: LearnerDep
) -> Response:
    """Keep the learner's edited version of a step's code."""
    learning.answers(learner).save_code(slug, number, body.code)
    return Response(status_code=204)


@router.delete("/api/lessons/{slug}/steps/{number}/code", status_code=204)
def reset_code(slug: str, number: int, learning: LearningDep, learner: LearnerDep) -> Response:
    """Forget the edited code: the step shows the lesson's code again."""
    learning.answers(learner).save_code(slug, number, None)
    return Response(status_code=204)


@router.get("/api/lessons/{slug}/progress", response_model=LessonProgress)
def get_lesson_progress(
    slug: str, learning: LearningDep, learner: MaybeLearnerDep
) -> LessonProgress:
    """The learner's state in one lesson (empty for a new learner), reveals included."""
    return learning.lesson_progress(slug, learner)


@router.get("/api/progress", response_model=CatalogProgress)
def get_progress(learning: LearningDep, learner: MaybeLearnerDep) -> CatalogProgress:
    """The learner's progress on every lesson."""
    return learning.catalog_progress(learner)


@router.post("/api/progress/reset", status_code=204)
def reset_progress(learning: LearningDep, learner: MaybeLearnerDep) -> Response:
    """Forget everything this learner did."""
    learning.reset(learner)
    return Response(status_code=204)
