"""The nine learning modes (/lessons/{slug}/{mode}) and the JSON endpoints their pages call.
The review queue and /progress live in app/routes/review.py, included here."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, Field

from app import rendering
from app.lessons.schema import Lesson
from app.modes import cheatsheet, pitfalls
from app.modes.drills import find_drill, lesson_drills
from app.modes.flashcards import find_flashcard, lesson_flashcards
from app.modes.menu import DEFAULT_MODE, MODES, find_mode
from app.modes.quickread import example_step
from app.modes.review import drill_feedback, flashcard_back
from app.modes.scheduler import Grade
from app.progress.store import ProgressStore
from app.routes import api, review
from app.routes.deps import (
    CatalogDep,
    LearnerDep,
    SandboxDep,
    StoreDep,
    current_learner,
    get_store,
)
from app.routes.learning import ValueBody, ValueFeedback, catalog_progress
from app.routes.review import now, queue_for
from app.sandbox.result import RunResult
from app.web.templates import render, templates

_routes = APIRouter(tags=["modes"])


def _lesson(catalog: CatalogDep, slug: str) -> Lesson:
    lesson = catalog.get(slug)
    if lesson is None:
        raise HTTPException(404, f"There is no lesson called “{slug}”.")
    return lesson


# --- template helpers (the switcher on every lesson page, the catalog's due count) -----------
def mode_switcher(request: Request, slug: str) -> dict[str, Any]:
    learner = current_learner(request)
    last = get_store(request).lesson_modes(learner).get(slug) if learner else None
    return {"modes": MODES, "last": last}


templates.env.globals["mode_switcher"] = mode_switcher


# --- what each mode page needs --------------------------------------------------------------
def _code_lab(lesson: Lesson, store: ProgressStore, learner: str) -> dict[str, Any]:
    state = store.lesson_state(learner, lesson.slug)
    cells: list[dict[str, Any]] = []
    for number, step in enumerate(lesson.steps, start=1):
        if step.snippet is None:
            continue
        committed = (state["steps"].get(number) or {}).get("prediction") is not None
        cells.append(
            {
                "id": f"step-{number}",
                "heading": f"Step {number}: {step.title}",
                "about": step.concept,
                "code": step.snippet.code,  # the learner's edits come back in the browser
                "step": number,
                "unpredicted": step.prediction is not None and not committed,
            }
        )
    for number, myth in enumerate(lesson.myths, start=1):
        if myth.demo is None:
            continue
        cells.append(
            {
                "id": f"myth-{number}",
                "heading": f"Myth {number}: the demonstration",
                "about": myth.question,
                "code": myth.demo.code if number in state["myths"] else None,
                "step": "",
            }
        )
    for number, pitfall in enumerate(lesson.pitfalls, start=1):
        for side, snippet in (("wrong", pitfall.wrong), ("fixed", pitfall.correct)):
            cells.append(
                {
                    "id": f"pitfall-{number}-{side}",
                    "heading": f"Pitfall {number} ({side}): {pitfall.title}",
                    "about": None,
                    "code": snippet.code,
                    "step": "",
                }
            )
    return {"cells": cells}


def _mode_context(mode: str, lesson: Lesson, store: ProgressStore, learner: str) -> dict[str, Any]:
    slug = lesson.slug
    if mode == "quick-read":
        return {"example": example_step(lesson)}
    if mode == "code-lab":
        return _code_lab(lesson, store, learner)
    if mode == "myth-busters":
        state = store.lesson_state(learner, slug)["myths"]
        return {"saved_right": sum(1 for entry in state.values() if entry["correct"])}
    if mode == "pitfall-fixer":
        return {"fixes": store.pitfall_state(learner, slug)}
    if mode == "flashcards":
        return {"cards": lesson_flashcards(lesson), "ratings": store.flashcard_state(learner, slug)}
    if mode == "predict-the-gradient":
        drills = lesson_drills(lesson)
        state = store.drill_state(learner, slug)
        groups: list[dict[str, Any]] = []
        for drill in drills:  # drills of one snippet share its code cell
            if not groups or groups[-1]["code"] != drill.code:
                groups.append({"source": drill.source, "code": drill.code, "drills": []})
            groups[-1]["drills"].append(drill)
        for group in groups:
            group["done"] = all(
                state.get(d.id, {}).get("correct") or state.get(d.id, {}).get("revealed")
                for d in group["drills"]
            )
        return {"drills": drills, "drill_state": state, "groups": groups}
    if mode == "cheat-sheet":
        return {
            "api": cheatsheet.api_entries(lesson),
            "fixes": cheatsheet.error_fixes(lesson),
            "step_errors": cheatsheet.step_errors(lesson),
        }
    return {}


@_routes.get("/lessons/{slug}/{mode}", response_class=HTMLResponse, include_in_schema=False)
def mode_page(
    request: Request,
    slug: str,
    mode: str,
    catalog: CatalogDep,
    store: StoreDep,
    learner: LearnerDep,
) -> HTMLResponse:
    lesson = _lesson(catalog, slug)
    found = find_mode(mode)
    if found is None:
        names = ", ".join(m.slug for m in MODES)
        raise HTTPException(404, f"There is no “{mode}” mode. The modes are: {names}.")
    store.set_lesson_mode(learner, slug, mode)
    previous, following = catalog.neighbours(slug)
    context: dict[str, Any] = {
        "lesson": lesson,
        "mode": found.slug,
        "mode_info": found,
        "previous": previous,
        "following": following,
        "titles": {other.slug: other.title for other in catalog.lessons},
        "progress": catalog_progress(catalog, store, learner)[slug],
    }
    if found.slug == DEFAULT_MODE:
        return render(request, "lesson.html", **context)
    context.update(_mode_context(found.slug, lesson, store, learner))
    return render(request, f"modes/{found.slug.replace('-', '_')}.html", **context)


# --- Predict the gradient ------------------------------------------------------------------
DrillBody = ValueBody


class DrillFeedback(ValueFeedback):
    """A value check, and whether a miss went into the review queue."""

    queued: bool = False


@_routes.post("/api/lessons/{slug}/drills/{drill_id}/answer", response_model=DrillFeedback)
def answer_drill(
    request: Request,
    slug: str,
    drill_id: str,
    body: DrillBody,
    catalog: CatalogDep,
    store: StoreDep,
    learner: LearnerDep,
) -> DrillFeedback:
    """Check a typed `.grad` numerically, element by element. A miss enters the review queue;
    the answer comes back only when right or when `reveal` asks for it."""
    lesson = _lesson(catalog, slug)
    drill = find_drill(lesson, drill_id)
    if drill is None:
        raise HTTPException(404, f"Lesson {slug!r} has no drill {drill_id!r}")
    correct, feedback = drill_feedback(drill, body.value, body.reveal)
    if correct is None:
        return DrillFeedback(correct=False, **feedback)
    store.record_drill(learner, slug, drill_id, body.value, correct, body.reveal)
    if not correct:
        queue_for(request).note_miss(learner, slug, "drill", drill_id, now())
    return DrillFeedback(correct=correct, queued=not correct, **feedback)


# --- Flashcards ----------------------------------------------------------------------------
class FlashcardBack(BaseModel):
    back_html: str
    answer_html: str | None


class RatingBody(BaseModel):
    rating: Grade


class RatingResult(BaseModel):
    queued: bool
    due_count: int


@_routes.get("/api/lessons/{slug}/flashcards/{card_id}", response_model=FlashcardBack)
def flashcard_answer(slug: str, card_id: str, catalog: CatalogDep) -> FlashcardBack:
    """The back of a card (asked for when the learner turns it over)."""
    card = find_flashcard(_lesson(catalog, slug), card_id)
    if card is None:
        raise HTTPException(404, f"Lesson {slug!r} has no flashcard {card_id!r}")
    return FlashcardBack.model_validate(flashcard_back(card))


@_routes.post("/api/lessons/{slug}/flashcards/{card_id}/rating", response_model=RatingResult)
def rate_flashcard(
    request: Request,
    slug: str,
    card_id: str,
    body: RatingBody,
    catalog: CatalogDep,
    store: StoreDep,
    learner: LearnerDep,
) -> RatingResult:
    """The learner's own grade of a card; `again` and `hard` put it in the review queue."""
    if find_flashcard(_lesson(catalog, slug), card_id) is None:
        raise HTTPException(404, f"Lesson {slug!r} has no flashcard {card_id!r}")
    store.record_flashcard(learner, slug, card_id, body.rating.value)
    queue = queue_for(request)
    queue.note_flashcard(learner, slug, card_id, body.rating, now())
    view = queue.view(learner, now())
    queued = any(item.card.kind == "flashcard" and item.card.key == card_id for item in view.due)
    return RatingResult(queued=queued, due_count=len(view.due))


# --- Pitfall fixer -------------------------------------------------------------------------
class HintOut(BaseModel):
    level: int
    title: str
    text_html: str
    line: int | None
    code: str | None


class FixOut(BaseModel):
    code: str
    root_cause_html: str


class FixBody(BaseModel):
    code: str = Field(max_length=20_000)


class FixVerdict(BaseModel):
    passed: bool
    reasons_html: list[str]
    result: RunResult


def _pitfall(lesson: Lesson, number: int) -> Any:
    if not 1 <= number <= len(lesson.pitfalls):
        raise HTTPException(404, f"Lesson {lesson.slug!r} has no pitfall {number}")
    return lesson.pitfalls[number - 1]


@_routes.get("/api/lessons/{slug}/pitfalls/{number}/hints/{level}", response_model=HintOut)
def pitfall_hint(slug: str, number: int, level: int, catalog: CatalogDep) -> HintOut:
    """The hint ladder: 1 the root cause, 2 the line that goes wrong, 3 the corrected line."""
    pitfall = _pitfall(_lesson(catalog, slug), number)
    if not 1 <= level <= pitfalls.HINT_LEVELS:
        raise HTTPException(404, f"Hints go from 1 to {pitfalls.HINT_LEVELS}")
    found = pitfalls.hint(pitfall, level)
    return HintOut(
        level=found.level,
        title=found.title,
        text_html=str(rendering.markdown(found.text)),
        line=found.line,
        code=found.code,
    )


@_routes.get("/api/lessons/{slug}/pitfalls/{number}/fix", response_model=FixOut)
def pitfall_fix(slug: str, number: int, catalog: CatalogDep) -> FixOut:
    """ "Show the fix": the corrected code and why."""
    pitfall = _pitfall(_lesson(catalog, slug), number)
    return FixOut(
        code=pitfall.correct.code, root_cause_html=str(rendering.markdown(pitfall.root_cause))
    )


@_routes.post("/api/lessons/{slug}/pitfalls/{number}/check", response_model=FixVerdict)
async def check_fix(
    request: Request,
    slug: str,
    number: int,
    body: FixBody,
    catalog: CatalogDep,
    store: StoreDep,
    learner: LearnerDep,
    sandbox: SandboxDep,
) -> FixVerdict:
    """Run the learner's fix in the sandbox and compare what it does (error, stdout, `.grad`)
    with what the corrected code is declared to do. Text is never compared."""
    pitfall = _pitfall(_lesson(catalog, slug), number)
    result = await api.run_snippet(api.RunRequest(code=body.code), request, sandbox)
    verdict = pitfalls.judge_fix(pitfall, result)
    await run_in_threadpool(store.record_pitfall_check, learner, slug, number, verdict.passed)
    return FixVerdict(
        passed=verdict.passed,
        reasons_html=[str(rendering.markdown(reason)) for reason in verdict.reasons],
        result=result,
    )


# What app/main.py includes: the mode pages and their API, the review queue and /progress.
router = APIRouter()
router.include_router(_routes)
router.include_router(review.router)
