"""What each learning mode's page shows, for one learner. Pure reads: a page never writes.

Every mode shows only what the learner's disclosure allows (app/lessons/disclosure.py): the
steps they have answered, the reference once the build-up is answered or read ahead.

Each builder takes a `ModeRequest` and returns the template's context;
app/learning/pages/registry.py declares which builder, template and script each mode uses.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

from app.learning.answers.questions import disclosure_of
from app.learning.kinds.myth import myth_round_form
from app.learning.practice.exercises import exercise_views
from app.learning.practice.recall import Asked, asks_recall, build_up_committed, recall_items
from app.learning.practice.seen import learner_shown, page_drill
from app.lessons.disclosure import Disclosure, asks
from app.lessons.format import Lesson
from app.lessons.variants import finished
from app.modes import cheatsheet
from app.modes.drills import Drill, drill_open, lesson_drills
from app.modes.flashcards import card_open, lesson_flashcards
from app.modes.pitfalls import goal_grads
from app.modes.quickread import example_step
from app.progress.records import DrillRecord, LessonRecords
from app.progress.store import ProgressStore


@dataclass(frozen=True)
class ModeRequest:
    """What a mode's page is built for: one lesson and one learner, whose records the store
    reads only when the page shows them, and once per page."""

    lesson: Lesson
    store: ProgressStore
    learner: str

    @cached_property
    def records(self) -> LessonRecords:
        return self.store.lesson_state(self.learner, self.lesson.slug)

    @cached_property
    def modes(self) -> dict[str, str]:
        """The last mode the learner used, by lesson slug."""
        return self.store.lesson_modes(self.learner)

    @cached_property
    def disclosure(self) -> Disclosure:
        return disclosure_of(self.lesson, self.records)


@dataclass(frozen=True)
class Cell:
    """One editable, runnable cell of the code lab."""

    id: str
    heading: str
    about: str | None
    code: str | None  # None: a myth's demo, hidden until the myth is answered
    step: int | str
    unpredicted: bool = False


@dataclass
class DrillGroup:
    """Drills on one snippet share its code cell."""

    source: str
    code: str
    drills: list[Drill] = field(default_factory=list)
    done: bool = False


def no_context(_: ModeRequest) -> dict[str, object]:
    return {}


def _about(request: ModeRequest, number: int) -> str | None:
    # The concept explains a question's answer: shown only once answered, else the setup.
    step = request.lesson.steps[number - 1]
    return step.concept if request.disclosure.step_open(number) else step.setup


def quick_read(request: ModeRequest) -> dict[str, object]:
    lesson, disclosure = request.lesson, request.disclosure
    example = example_step(
        lesson, lambda n: not asks(lesson.steps[n - 1]) or disclosure.step_open(n)
    )
    about = _about(request, example[0]) if example is not None else None
    return {"example": example, "example_about": about}


def _step_cells(request: ModeRequest) -> list[Cell]:
    cells = []
    for number, step in enumerate(request.lesson.steps, start=1):
        if step.snippet is None:
            continue
        waiting = asks(step) and not request.disclosure.step_open(number)
        # A question whose answer is the code itself (an ordering's lines) keeps the code
        # back until it is answered; any other question locks the cell's Run.
        withheld = waiting and any(question.withholds_code for _, question in step.questions())
        cells.append(
            Cell(
                f"step-{number}",
                f"Step {number}: {step.title}",
                _about(request, number),
                None if withheld else step.snippet.code,  # edits come back in the browser
                number,
                unpredicted=waiting,
            )
        )
    return cells


def code_lab(request: ModeRequest) -> dict[str, object]:
    records = request.records
    lesson = request.lesson
    cells = _step_cells(request)
    for number, myth in enumerate(lesson.myths, start=1):
        if myth.demo is not None:
            code = myth.demo.code if number in records.myths else None
            cells.append(
                Cell(f"myth-{number}", f"Myth {number}: the demonstration", myth.question, code, "")
            )
    for number, pitfall in request.disclosure.pitfalls():
        for side, snippet in (("wrong", pitfall.wrong), ("fixed", pitfall.correct)):
            heading = f"Pitfall {number} ({side}): {pitfall.title}"
            cells.append(Cell(f"pitfall-{number}-{side}", heading, None, snippet.code, ""))
    return {"cells": cells}


def myth_busters(request: ModeRequest) -> dict[str, object]:
    """Once the learner has played a round, a fresh one asks each myth with other forms as
    one of them (`myth_round_form`), never the questions they answered, and each fresh round
    another form than the round before."""
    myths = request.records.myths
    scored = [record for record in myths.values() if not record.seen_answers]
    answered = (
        request.store.myth_answer_counts(request.learner, request.lesson.slug) if myths else {}
    )
    forms = {
        number: myth_round_form(request.lesson, number, request.learner, answered.get(number, 0))
        for number, myth in enumerate(request.lesson.myths, start=1)
        if myths and myth.forms
    }
    return {"saved_right": sum(1 for record in scored if record.correct), "forms": forms}


def _exercises(request: ModeRequest) -> dict[str, object]:
    if not request.disclosure.exercises():  # none open yet: nothing of theirs to read
        return {"exercises": []}
    state = request.store.exercise_state(request.learner, request.lesson.slug)
    return {"exercises": exercise_views(request.disclosure, state, request.learner)}


def deep_dive(request: ModeRequest) -> dict[str, object]:
    """The whole lesson: its exercises follow the steps they concern; after a step whose
    exercise is still closed, a note says it opens once the step is committed. The build-up
    ends on its recall questions once every step is committed (app/learning/practice/recall.py)."""
    shown, lesson = request.disclosure, request.lesson
    waiting = {
        exercise.after_step
        for exercise in request.lesson.exercises
        if exercise.after_step is not None and not shown.exercise_open(exercise)
    }
    # The recall ends the build-up: read (one statement) only once every step is committed.
    recall = recall_items(
        shown, request.learner, lambda: Asked.read(request.store, request.learner, lesson)
    )
    return {
        **_exercises(request),
        "exercises_waiting": waiting,
        "recall": recall,
        "recall_open": build_up_committed(shown),
        "recall_asked": asks_recall(lesson),
    }


def pitfall_fixer(request: ModeRequest) -> dict[str, object]:
    return {
        **_exercises(request),
        "pitfalls": request.disclosure.pitfalls(),
        "fixes": request.store.pitfall_state(request.learner, request.lesson.slug),
        "goals": {
            number: goal_grads(pitfall)
            for number, pitfall in enumerate(request.lesson.pitfalls, start=1)
        },
    }


def flashcards(request: ModeRequest) -> dict[str, object]:
    ratings = request.store.flashcard_state(request.learner, request.lesson.slug)
    shown = request.disclosure
    cards = [card for card in lesson_flashcards(request.lesson) if card_open(card, shown)]
    return {"cards": cards, "ratings": ratings}


def _drill_groups(drills: list[Drill], state: dict[str, DrillRecord]) -> list[DrillGroup]:
    groups: list[DrillGroup] = []
    for drill in drills:
        if not groups or groups[-1].code != drill.code:
            groups.append(DrillGroup(drill.source, drill.code))
        groups[-1].drills.append(drill)
    for group in groups:
        group.done = all(
            (saved := state.get(d.id)) is not None and (saved.correct or saved.revealed)
            for d in group.drills
        )
    return groups


def predict_the_gradient(request: ModeRequest) -> dict[str, object]:
    lesson, learner = request.lesson, request.learner
    opened = [d for d in lesson_drills(lesson) if drill_open(d, request.disclosure)]
    state = request.store.drill_state(request.learner, request.lesson.slug) if opened else {}
    # On steps with variants, instances the learner was not shown (seen.py) while one remains.
    varied = any(drill.step and finished(lesson.steps[drill.step - 1]) for drill in opened)
    seen = learner_shown(request.store, learner, lesson) if varied else frozenset()
    drills = [page_drill(lesson, d, learner, state, seen) for d in opened]
    return {"drills": drills, "drill_state": state, "groups": _drill_groups(drills, state)}


def cheat_sheet(request: ModeRequest) -> dict[str, object]:
    shown = request.disclosure
    return {
        "rules": cheatsheet.rules(shown),
        "api": cheatsheet.api_entries(shown),
        "fixes": cheatsheet.error_fixes(shown),
        "step_errors": cheatsheet.step_errors(shown),
    }
