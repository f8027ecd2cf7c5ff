"""The learner's side of a lesson: grading predictions, values and myths; saving progress."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter, HTTPException, Request, Response
from fastapi.concurrency import run_in_threadpool
from pydantic import BaseModel, Field, JsonValue

from app import rendering
from app.lessons.grading import TypedValueError, grade_value
from app.lessons.loader import Catalog
from app.lessons.numeric import shape_of
from app.lessons.schema import ChoicePrediction, Lesson, Myth, Snippet, Step, ValuePrediction
from app.progress.store import ProgressStore
from app.routes.deps import CatalogDep, LearnerDep, StoreDep, current_learner, get_sandbox
from app.sandbox.service import SandboxBusy, SandboxUnavailable

router = APIRouter(tags=["learning"])
Confidence = Literal["guess", "fairly_sure", "certain"]


def _lesson(catalog: CatalogDep, slug: str) -> Lesson:
    lesson = catalog.get(slug)
    if lesson is None:
        raise HTTPException(404, f"No lesson called {slug!r}")
    return lesson


def _step(lesson: Lesson, number: int) -> Step:
    if not 1 <= number <= len(lesson.steps):
        raise HTTPException(404, f"Lesson {lesson.slug!r} has no step {number}")
    return lesson.steps[number - 1]


def _myth(lesson: Lesson, number: int) -> Myth:
    if not 1 <= number <= len(lesson.myths):
        raise HTTPException(404, f"Lesson {lesson.slug!r} has no myth {number}")
    return lesson.myths[number - 1]


class Score(BaseModel):
    answered: int
    correct: int
    total: int


class PredictionBody(BaseModel):
    choice: str = Field(max_length=2000)
    confidence: Confidence = "fairly_sure"


class PredictionReveal(BaseModel):
    correct: bool
    answer: str
    explanation_html: str
    output: str | None
    error: dict[str, str] | None
    attempt: int


class ValueBody(BaseModel):
    value: str = Field(max_length=2000)
    reveal: bool = False


class ValueFeedback(BaseModel):
    correct: bool
    parsed: bool
    problem: str | None
    shape_ok: bool
    expected_shape: list[int] | None
    your_shape: list[int] | None
    elements: list[bool]
    expected: JsonValue = None
    explanation_html: str | None = None


class MythBody(BaseModel):
    answer: Literal["yes", "no"]


class MythReveal(BaseModel):
    correct: bool
    answer: Literal["yes", "no"]
    reality_html: str
    why_it_matters_html: str
    demo: dict[str, str] | None
    score: Score


class CodeBody(BaseModel):
    code: str = Field(max_length=20_000)


def _prediction_reveal(
    prediction: ChoicePrediction, snippet: Snippet | None, correct: bool, attempt: int
) -> PredictionReveal:
    error = None
    if snippet is not None and snippet.error is not None:
        error = {"type": snippet.error.type, "message_contains": snippet.error.message_contains}
    return PredictionReveal(
        correct=correct,
        answer=prediction.answer,
        explanation_html=str(rendering.markdown(prediction.explanation)),
        output=snippet.output if snippet is not None else None,
        error=error,
        attempt=attempt,
    )


def _myth_reveal(myth: Myth, correct: bool, score: Score) -> MythReveal:
    demo = {"code": myth.demo.code, "output": myth.demo.output} if myth.demo else None
    return MythReveal(
        correct=correct,
        answer=myth.answer,
        reality_html=str(rendering.markdown(myth.reality)),
        why_it_matters_html=str(rendering.markdown(myth.why_it_matters)),
        demo=demo,
        score=score,
    )


def _myth_score(lesson: Lesson, state: dict[str, Any]) -> Score:
    answers = state["myths"].values()
    return Score(
        answered=len(answers),
        correct=sum(1 for a in answers if a["correct"]),
        total=len(lesson.myths),
    )


@router.post("/api/lessons/{slug}/steps/{number}/prediction", response_model=PredictionReveal)
def commit_prediction(
    slug: str,
    number: int,
    body: PredictionBody,
    catalog: CatalogDep,
    store: StoreDep,
    learner: LearnerDep,
) -> PredictionReveal:
    """Commit to a prediction; the answer, its explanation and the step's output come back."""
    lesson = _lesson(catalog, slug)
    step = _step(lesson, number)
    if step.prediction is None:
        raise HTTPException(404, f"Step {number} of {slug!r} asks for no prediction")
    if body.choice not in step.prediction.texts:
        raise HTTPException(422, "That is not one of the choices")
    correct = body.choice == step.prediction.answer
    attempt = store.record_prediction(learner, slug, number, body.choice, body.confidence, correct)
    return _prediction_reveal(step.prediction, step.snippet, correct, attempt)


async def _real_grad(
    request: Request, key: tuple[str, int], snippet: Snippet, guess: ValuePrediction
) -> Any:
    """The `.grad` the step's own snippet really produces, run once in the sandbox and cached.
    Falls back to the lesson's value (verified by `gradlab check`) when no sandbox runs."""
    cache: dict[tuple[str, int], Any] = request.app.state.real_grads
    if key not in cache:
        try:
            result = await get_sandbox(request).run(snippet.code)
        except (HTTPException, SandboxBusy, SandboxUnavailable):
            return guess.expected
        tensors = {tensor.name: tensor for tensor in result.tensors}
        found = tensors.get(guess.tensor)
        if found is None:
            return guess.expected
        cache[key] = found.grad
    return cache[key]


@router.post("/api/lessons/{slug}/steps/{number}/value", response_model=ValueFeedback)
async def check_value(
    slug: str,
    number: int,
    body: ValueBody,
    request: Request,
    catalog: CatalogDep,
    store: StoreDep,
    learner: LearnerDep,
) -> ValueFeedback:
    """Check a typed `.grad` value numerically against the real run, element by element."""
    lesson = _lesson(catalog, slug)
    step = _step(lesson, number)
    guess = step.value_prediction
    if guess is None or step.snippet is None:
        raise HTTPException(404, f"Step {number} of {slug!r} asks for no value")
    actual = await _real_grad(request, (slug, number), step.snippet, guess)

    try:
        comparison, parsed = grade_value(actual, body.value)
    except TypedValueError as exc:
        if not body.reveal:
            return ValueFeedback(
                correct=False,
                parsed=False,
                problem=str(exc),
                shape_ok=False,
                expected_shape=None,
                your_shape=None,
                elements=[],
            )
        comparison, parsed = None, None
    correct = comparison is not None and comparison.matches
    await run_in_threadpool(
        store.record_value, learner, slug, number, body.value, correct, body.reveal
    )
    show = correct or body.reveal
    return ValueFeedback(
        correct=correct,
        parsed=comparison is not None,
        problem=comparison.problem if comparison else None,
        shape_ok=comparison.shape_ok if comparison else False,
        expected_shape=shape_of(actual) if actual is not None else None,
        your_shape=shape_of(parsed) if comparison is not None and parsed is not None else None,
        elements=comparison.elements if comparison else [],
        expected=actual if show else None,
        explanation_html=str(rendering.markdown(guess.explanation)) if show else None,
    )


@router.post("/api/lessons/{slug}/myths/{number}/answer", response_model=MythReveal)
def answer_myth(
    slug: str,
    number: int,
    body: MythBody,
    catalog: CatalogDep,
    store: StoreDep,
    learner: LearnerDep,
) -> MythReveal:
    """Answer a myth buster yes or no; the verdict and its reasons come back."""
    lesson = _lesson(catalog, slug)
    myth = _myth(lesson, number)
    correct = body.answer == myth.answer
    store.record_myth(learner, slug, number, body.answer, correct)
    score = _myth_score(lesson, store.lesson_state(learner, slug))
    return _myth_reveal(myth, correct, score)


@router.put("/api/lessons/{slug}/steps/{number}/code", status_code=204)
def save_code(
    slug: str,
    number: int,
    body: CodeBody,
    catalog: CatalogDep,
    store: StoreDep,
    learner: LearnerDep,
) -> Response:
    """Keep the learner's edited version of a step's code."""
    step = _step(_lesson(catalog, slug), number)
    if step.snippet is None:
        raise HTTPException(404, f"Step {number} of {slug!r} has no code")
    store.save_code(learner, slug, number, body.code)
    return Response(status_code=204)


@router.delete("/api/lessons/{slug}/steps/{number}/code", status_code=204)
def reset_code(
    slug: str, number: int, catalog: CatalogDep, store: StoreDep, learner: LearnerDep
) -> Response:
    """Forget the edited code: the step shows the lesson's code again."""
    _step(_lesson(catalog, slug), number)
    store.save_code(learner, slug, number, None)
    return Response(status_code=204)


def lesson_progress(lesson: Lesson, store: ProgressStore, learner: str | None) -> dict[str, Any]:
    """Everything the page needs to restore a learner's state, reveals included."""
    state = store.lesson_state(learner, lesson.slug) if learner else {"steps": {}, "myths": {}}
    steps = {}
    for number, entry in state["steps"].items():
        if not 1 <= number <= len(lesson.steps):
            continue  # the lesson changed since; keep the rest
        step = lesson.steps[number - 1]
        prediction = entry["prediction"]
        if prediction is not None and step.prediction is not None:
            prediction = {
                **prediction,
                "reveal": _prediction_reveal(
                    step.prediction, step.snippet, prediction["correct"], 0
                ).model_dump(),
            }
        steps[str(number)] = {**entry, "prediction": prediction}
    score = _myth_score(lesson, state)
    myths = {
        str(number): {
            **entry,
            "reveal": _myth_reveal(lesson.myths[number - 1], entry["correct"], score).model_dump(),
        }
        for number, entry in state["myths"].items()
        if 1 <= number <= len(lesson.myths)
    }
    done = sum(1 for entry in steps.values() if entry["done"])
    return {
        "steps": steps,
        "myths": myths,
        "score": score.model_dump(),
        "steps_done": done,
        "steps_total": len(lesson.steps),
    }


@router.get("/api/lessons/{slug}/progress")
def get_lesson_progress(
    slug: str, request: Request, catalog: CatalogDep, store: StoreDep
) -> dict[str, Any]:
    """The learner's state in one lesson (empty for a new learner)."""
    return lesson_progress(_lesson(catalog, slug), store, current_learner(request))


def catalog_progress(
    catalog: Catalog, store: ProgressStore, learner: str | None
) -> dict[str, dict[str, int]]:
    summary = store.summary(learner) if learner else {}
    result = {}
    for lesson in catalog.lessons:
        entry = summary.get(lesson.slug, {"steps_done": 0, "myths_answered": 0, "myths_correct": 0})
        result[lesson.slug] = {
            **entry,
            "steps_total": len(lesson.steps),
            "myths_total": len(lesson.myths),
        }
    return result


@router.get("/api/progress")
def get_progress(request: Request, catalog: CatalogDep, store: StoreDep) -> dict[str, Any]:
    """The learner's progress on every lesson."""
    return {"lessons": catalog_progress(catalog, store, current_learner(request))}


@router.post("/api/progress/reset", status_code=204)
def reset_progress(request: Request, store: StoreDep) -> Response:
    """Forget everything this learner did."""
    learner = current_learner(request)
    if learner is not None:
        store.reset(learner)
    return Response(status_code=204)
