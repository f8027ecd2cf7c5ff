"""Exercises (code to write) for one learner: what a page shows of each, the check of the lines
they wrote (run in the sandbox, graded by app/modes/exercises.py) and the diagnosis of a bug.

An exercise opens after the step it follows (app/lessons/disclosure.py). One that asks a
diagnosis shows its code with the bug in place and sends where its blanks are only once the
diagnosis is committed: the blanks would point at the bug.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from datetime import UTC, datetime

from app import rendering
from app.errors import AnswerError, NotAChoice, PredictionNotCommitted, UnknownExercise
from app.learning.answers import grader
from app.learning.answers.questions import disclosure_of, find_lesson
from app.learning.exercise_schemas import (
    CodePart,
    DiagnosisBody,
    DiagnosisReveal,
    ExerciseBody,
    ExerciseHintOut,
    ExerciseVerdict,
    LessonLink,
)
from app.learning.kinds import EXERCISE, choice_order
from app.learning.practice.queue import ReviewQueue
from app.learning.running.runs import Runs, Who
from app.lessons.behaviour import GoalGrad
from app.lessons.disclosure import Disclosure
from app.lessons.exercises import goal, graded_programs, parts, program, without_probe
from app.lessons.format import Exercise, HintCase, Lesson
from app.lessons.loader import Catalog
from app.modes.exercises import grade_diagnosis, hint_after, judge_exercise, miss_case
from app.pedagogy.scheduler import describe_wait
from app.progress.exercises_store import CODE, DIAGNOSIS
from app.progress.records import ExerciseRecord
from app.progress.store import ProgressStore

_CLOSED = (
    "This exercise opens once you have committed the step it follows (or read ahead): its "
    "goal would answer that step's question."
)
_DIAGNOSE_FIRST = "Name the bug first: where the blank is would tell you."


def code_parts(exercise: Exercise) -> list[CodePart]:
    return [CodePart(kind=p.kind, text=p.text, indent=p.indent) for p in parts(exercise)]


@dataclass(frozen=True)
class ExerciseView:
    """One open exercise as a page shows it to one learner."""

    number: int
    exercise: Exercise
    record: ExerciseRecord
    goal_output: str
    goal_grads: list[GoalGrad]
    buggy_code: str | None  # the code with its bug, for a diagnosis
    parts: list[CodePart] | None  # None until a diagnosis is committed
    source: str | None  # the slug of the lesson the bug comes from, once diagnosed
    choices: list[str]  # the diagnoses, in this learner's order

    @property
    def parts_json(self) -> str:
        return json.dumps([part.model_dump() for part in self.parts or []])


def _source(catalog: Catalog, exercise: Exercise) -> LessonLink:
    slug = exercise.source or ""
    found = catalog.get(slug)
    return LessonLink(slug=slug, title=found.title if found else slug, url=f"/lessons/{slug}")


def exercise_views(
    disclosure: Disclosure, state: dict[int, ExerciseRecord], learner: str
) -> list[ExerciseView]:
    """Every open exercise of the lesson, as this learner has left it."""
    slug = disclosure.lesson.slug
    views = []
    for number, exercise in disclosure.exercises():
        record = state.get(number, ExerciseRecord())
        asks_diagnosis = exercise.diagnosis is not None
        diagnosed = record.diagnosis is not None
        views.append(
            ExerciseView(
                number=number,
                exercise=exercise,
                record=record,
                goal_output=goal(exercise).output,
                goal_grads=goal(exercise).wanted(),
                buggy_code=program(exercise, exercise.buggy or []) if asks_diagnosis else None,
                parts=code_parts(exercise) if diagnosed or not asks_diagnosis else None,
                source=exercise.source if diagnosed else None,
                # In a per-learner order, as a step's choices are (keyed by the exercise).
                choices=choice_order(learner, f"{slug}/exercises", number, exercise.diagnosis.texts)
                if exercise.diagnosis is not None
                else [],
            )
        )
    return views


class ExercisePractice:
    """The exercises of one learner."""

    def __init__(self, catalog: Catalog, store: ProgressStore, runs: Runs, learner: str) -> None:
        self.catalog, self.store, self.runs, self.learner = catalog, store, runs, learner

    def _open(self, slug: str, number: int) -> tuple[Lesson, Exercise]:
        lesson = find_lesson(self.catalog, slug)
        if not 1 <= number <= len(lesson.exercises):
            raise UnknownExercise(f"Lesson {slug!r} has no exercise {number}")
        exercise = lesson.exercises[number - 1]
        shown = disclosure_of(lesson, self.store.lesson_state(self.learner, slug))
        if not shown.exercise_open(exercise):
            raise PredictionNotCommitted(_CLOSED)
        return lesson, exercise

    def _state(self, slug: str, number: int) -> ExerciseRecord:
        return self.store.exercise_state(self.learner, slug).get(number, ExerciseRecord())

    def _ready(self, slug: str, number: int) -> tuple[Exercise, ExerciseRecord]:
        """The exercise, open and (if it asks one) diagnosed, and the learner's record of it."""
        _, exercise = self._open(slug, number)
        record = self._state(slug, number)
        if exercise.diagnosis is not None and record.diagnosis is None:
            raise PredictionNotCommitted(_DIAGNOSE_FIRST)
        return exercise, record

    async def check(
        self, slug: str, number: int, body: ExerciseBody, address: str
    ) -> ExerciseVerdict:
        """Run the filled code in the sandbox (in this learner's line at the client `address`)
        and grade what it does; a miss brings a hint."""
        # Reads of the store: in a thread, off the event loop (see Learning.answer_step).
        exercise, record = await asyncio.to_thread(self._ready, slug, number)
        if len(body.lines) != exercise.blanks:
            raise AnswerError(
                f"This exercise has {exercise.blanks} blank(s) to fill; {len(body.lines)} sent"
            )
        results = [
            await self.runs.run(code, Who(address, self.learner))
            for code in graded_programs(exercise, body.lines)
        ]
        verdict = judge_exercise(exercise, results)
        answer = json.dumps(body.lines)
        case = None if verdict.passed else miss_case(exercise, results[0])
        reviewed = await self.store.writer(self._record_check, slug, number, answer, case)
        hint = hint_after(exercise, record.misses_by.get(case, 0) + 1, case) if case else None
        result = without_probe(results[0])
        return ExerciseVerdict(
            passed=verdict.passed,
            reasons_html=[str(rendering.markdown(reason)) for reason in verdict.reasons],
            hint=ExerciseHintOut(
                level=hint.level, title=hint.title, text_html=str(rendering.markdown(hint.text))
            )
            if hint
            else None,
            result=result,
            comes_back=describe_wait(reviewed[0], reviewed[1]) if reviewed else None,
            due_count=reviewed[2] if reviewed else None,
        )

    def _record_check(
        self, slug: str, number: int, answer: str, miss: HintCase | None
    ) -> tuple[datetime, datetime, int] | None:
        """Keep the check and what a miss was about (None: it passed); a miss (it brings a
        hint) enters the review queue, and a check of a due review item answers it. Returns
        (when it comes back, now, items due) for that."""
        passed = miss is None
        moment = datetime.now(UTC)
        queue = ReviewQueue(self.store, self.catalog, self.learner)
        with self.store.together():  # the check and its review card: one transaction
            self.store.record_exercise(self.learner, slug, number, CODE, answer, passed, miss=miss)
            memory = queue.note_check(slug, EXERCISE, str(number), passed, moment)
        return (memory.due, moment, queue.due_count(moment)) if memory else None

    def diagnose(self, slug: str, number: int, body: DiagnosisBody) -> DiagnosisReveal:
        """Grade the diagnosis by its text, keep it, and reveal it with the code to fix."""
        _, exercise = self._open(slug, number)
        diagnosis = exercise.diagnosis
        if diagnosis is None:
            raise UnknownExercise(f"Exercise {number} of {slug!r} asks no diagnosis")
        confidence = grader.require_confidence(body.confidence)
        correct = grade_diagnosis(exercise, body.choice)
        if correct is None:
            raise NotAChoice("That is not one of the diagnoses")
        self.store.record_exercise(
            self.learner, slug, number, DIAGNOSIS, body.choice, correct, confidence
        )
        picked = diagnosis.choice(body.choice)
        why = picked.why if picked is not None and not correct else None
        return DiagnosisReveal(
            correct=correct,
            answer=diagnosis.answer,
            why_html=str(rendering.markdown_inline(why)) if why else None,
            explanation_html=str(rendering.markdown(diagnosis.explanation)),
            source=_source(self.catalog, exercise),
            parts=code_parts(exercise),
        )
