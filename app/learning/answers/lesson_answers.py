"""The answers a learner gives on a lesson's page, each graded by app/learning/answers/grader.py,
recorded, and queued for review as it is recorded; what the page shows is
app/learning/pages/lesson_page.py's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from app.errors import AnswerError, PredictionNotCommitted, UnknownStep
from app.learning.answers import grader
from app.learning.answers.questions import disclosure_of, find_lesson, find_myth, find_step
from app.learning.kinds import (
    MYTH,
    Answered,
    QuestionKind,
    ReviewAnswer,
    StepSide,
    Tried,
    answered_at,
    myth_fingerprint,
    step_answer_of,
)
from app.learning.lti.grades import queue_lesson_score
from app.learning.pages.lesson_page import asked_instance, myth_score
from app.learning.practice.queue import ReviewQueue
from app.learning.schemas import (
    MythReveal,
    StepQuestionReveal,
    ValueFeedback,
)
from app.lessons.disclosure import waits
from app.lessons.format import Lesson, Question, Step
from app.lessons.loader import Catalog
from app.lessons.variants import Instance
from app.pedagogy.scheduler import describe_wait
from app.progress.records import MythRecord, StepAnswerRecord
from app.progress.store import ProgressStore
from app.sandbox.result import RunResult


@dataclass(frozen=True)
class Reviewed:
    """The due review item a committed answer answered: when it comes back, and how many
    items are due now."""

    due: datetime
    due_count: int


@dataclass(frozen=True)
class Answering:
    """An answer to a step's question, read once from its body and checked: where it goes, as
    its kind reads it, how sure the learner was, and the code it makes when its kind is graded
    by a run (None: graded at once)."""

    lesson: Lesson
    number: int
    step: Step
    kind: QuestionKind
    side: StepSide[Any]
    question: Question
    answer: ReviewAnswer
    confidence: str | None  # None: a kind that does not ask it (a typed value)
    program: str | None
    answered: Answered  # what it is asked on: a review item's instance, the value's instance


class LessonAnswers:
    """The answers one learner gives on a lesson page; each is recorded, and a miss (or a right
    guess) is queued as it is recorded (reading the queue later never writes)."""

    def __init__(self, catalog: Catalog, store: ProgressStore, learner: str) -> None:
        self.catalog, self.store, self.learner = catalog, store, learner

    def _queue(self) -> ReviewQueue:
        return ReviewQueue(self.store, self.catalog, self.learner)

    def read_ahead(self, slug: str) -> None:
        """The learner chooses to see the whole lesson, every answer included; what they
        answer in it from now on is kept as given after seeing the answers."""
        find_lesson(self.catalog, slug)
        self.store.record_read_ahead(self.learner, slug)

    def _seen_answers(self, slug: str) -> bool:
        return self.store.read_ahead(self.learner, slug)

    def answering(
        self, slug: str, number: int, path: str, body: Mapping[str, object], form: int | None
    ) -> Answering:
        """The body read once as an answer to the step's question of the kind answered at
        `path`, with the code it makes when its kind is graded by a run (to be run before
        `commit_step`). Refused before any run and before anything is kept: a step that asks no
        such question (404), a body that does not fit the kind or has no confidence where the
        kind asks it (422), an answer not among the step's, and with `form`, a kind graded at
        once or never reviewed (422) or no due review item that asks that form (409, 422).
        Without `form` it reads nothing from the store (it runs on the event loop)."""
        lesson = find_lesson(self.catalog, slug)
        step = find_step(lesson, number)
        kind = answered_at(path)
        questions = dict(step.questions())
        if kind is None or kind.step is None or kind.step_field not in questions:
            raise UnknownStep(f"Step {number} of {slug!r} asks no {path} question")
        side = kind.step
        answer = kind.read_step(body)
        confidence = grader.require_confidence(answer.confidence) if kind.confidence else None
        if form is not None and (side.at_once or kind.review is None):
            raise AnswerError(f"A {kind.label.lower()} is answered in review on the review page")
        asked_on = self._review_instance(slug, kind, number, form)
        answered = Answered(form=asked_on, opens=asked_instance(lesson, number, self.learner))
        program = side.program(step, answer, answered) if side.program is not None else None
        question = questions[kind.step_field]
        return Answering(
            lesson, number, step, kind, side, question, answer, confidence, program, answered
        )

    def _require_open(self, asked: Answering) -> None:
        """A question that waits for the step's other one (a typed value, for the choice) is
        answered only once that is committed, or the lesson is read ahead: its answer, its
        explanation and even a hint would answer the other (409, nothing kept). Checked as it
        is committed, off the event loop: the run it waited for is the step's own code, which
        the server answers from what it knows."""
        lesson, number, question = asked.lesson, asked.number, asked.question
        if not waits(asked.step, question):
            return
        records = self.store.lesson_state(self.learner, lesson.slug)
        if not disclosure_of(lesson, records).question_open(number, question):
            raise PredictionNotCommitted(
                f"Commit your prediction for step {number} first: checking the value now "
                "would give its answer away. (Or read the lesson ahead.)"
            )

    def _review_instance(
        self, slug: str, kind: QuestionKind, number: int, form: int | None
    ) -> Instance | None:
        """The variant instance a due review item of the step's question asks as `form`."""
        if form is None:
            return None
        _, prompt = self._queue().asked(slug, kind, str(number), form, datetime.now(UTC))
        return prompt.instance

    def commit_step(
        self, asked: Answering, result: RunResult | None = None, form: int | None = None
    ) -> StepQuestionReveal | ValueFeedback:
        """Commit an answer (`answering`'s) to the step's question, graded by its kind's
        declaration: at once (a choice, a select-all), or by `result`, the run of the code it
        made (an order; a typed value, the step's own code, None when no sandbox ran it).
        What explains it comes back: a committed answer's reveal, or a try's reply (a typed
        value's, tried until right or revealed: an unreadable try keeps nothing). With `form`
        (a kind graded by a run), the answer is to the variant instance a due review item
        asks: it answers that item and leaves the step's committed answer alone (it is another
        question)."""
        if form is not None:
            return self._review_step(asked, result, form)
        self._require_open(asked)
        side = asked.side
        answered = replace(asked.answered, result=result)
        if side.tried is not None:  # graded once, with its reply
            tried, reply = side.tried.check(asked.step, asked.answer, answered)
            if tried is not None:
                self._keep_try(asked, side.tried, tried)
            return reply
        correct = side.grade(asked.step, asked.answer, answered)
        if side.reveal is None or correct is None:
            raise ValueError(f"{asked.kind.name}: a committed answer is read and revealed")
        kept = side.keep(asked.answer)
        at = datetime.now(UTC)
        attempt, reviewed = self._keep(asked, kept, correct, at)
        reveal = side.reveal(asked.step, kept, correct, attempt, answered)
        if reviewed is None:
            return reveal
        return reveal.model_copy(
            update={"comes_back": describe_wait(reviewed.due, at), "due_count": reviewed.due_count}
        )

    def _keep_try(self, asked: Answering, tried: Tried[Any], correct: bool) -> None:
        """Keep a try as the step's latest (a typed value's); a wrong one queues the review
        item its kind names (the step's drill). One transaction with its review card. (The
        lesson's score counts committed answers and myths: a try leaves it as it was.)"""
        slug, number = asked.lesson.slug, asked.number
        with self.store.together():
            seen = self._seen_answers(slug)
            record = tried.record(asked.step, asked.answer, correct, seen)
            self.store.record_value(self.learner, slug, number, record)
            missed = tried.missed(asked.lesson, number) if not correct else None
            if missed is not None:
                self._queue().note_miss(slug, missed[0], missed[1], datetime.now(UTC))

    def _keep(
        self, asked: Answering, kept: str, correct: bool, at: datetime
    ) -> tuple[int, Reviewed | None]:
        """Keep a step's committed answer and queue it (a miss; a right guess, the first
        time); the attempt it was and, for a kind graded by a run (answered in review through
        the step route), the due review item it answered. One transaction with its review card
        and score."""
        lesson, kind, confidence = asked.lesson, asked.kind, asked.confidence
        slug, number = lesson.slug, asked.number
        fingerprint = kind.step_answer(asked.step) if kind.step_answer is not None else None
        by_run = not asked.side.at_once
        reviewed = None
        with self.store.together():
            seen = self._seen_answers(slug)
            if confidence is None:
                raise ValueError(f"{kind.name}: a committed answer says how sure")
            answer = StepAnswerRecord(kept, confidence, correct, fingerprint, seen)
            attempt = self.store.record_step_answer(self.learner, slug, number, answer)
            queue, key = self._queue(), str(number)
            if by_run and (card := queue.note_check(slug, kind, key, correct, at, confidence)):
                reviewed = Reviewed(card.due, queue.due_count(at))  # a due item, answered
            elif not correct and not by_run:  # note_check queued a miss graded by a run
                queue.note_miss(slug, kind, key, at, urgent=confidence == "certain")
            elif correct and confidence == "guess" and attempt == 1:  # later: after the reveal
                queue.note_guess(slug, kind, key, at)
            queue_lesson_score(self.store, self.learner, lesson)
        return attempt, reviewed

    def _review_step(
        self, asked: Answering, result: RunResult | None, form: int
    ) -> StepQuestionReveal:
        slug, kind, side, key = asked.lesson.slug, asked.kind, asked.side, str(asked.number)
        at, queue = datetime.now(UTC), self._queue()
        with self.store.together():
            _, prompt = queue.asked(slug, kind, key, form, at)
            answered = Answered(result=result, form=prompt.instance)
            correct = side.grade(asked.step, asked.answer, answered)
            if side.reveal is None or correct is None:  # (`answering` refuses a form on one)
                raise ValueError(f"{kind.name}: answered in review only with a reveal")
            card = queue.note_check(slug, kind, key, correct, at, asked.confidence, form=form)
            due = queue.due_count(at)
        reveal = side.reveal(asked.step, side.keep(asked.answer), correct, 0, answered)
        comes_back = describe_wait(card.due, at) if card else None
        return reveal.model_copy(update={"comes_back": comes_back, "due_count": due})

    def answer_myth(
        self, slug: str, number: int, answer: str, form: int | None = None
    ) -> MythReveal:
        """`form`: the myth was asked as that other form of it (a fresh round of myth busters),
        graded and revealed as that form; kept as the myth's answer."""
        lesson = find_lesson(self.catalog, slug)
        myth = find_myth(lesson, number)
        if form is not None and form >= len(myth.forms):
            raise AnswerError(f"Myth {number} has no form {form}")
        asked = myth.forms[form] if form is not None else None
        correct = grader.grade_myth(myth, answer) if asked is None else answer == asked.answer
        with self.store.together():
            kept = MythRecord(answer, correct, myth_fingerprint(myth), self._seen_answers(slug))
            self.store.record_myth(self.learner, slug, number, kept)
            if not correct:
                self._queue().note_miss(slug, MYTH, str(number), datetime.now(UTC))
            queue_lesson_score(self.store, self.learner, lesson)
            myths = self.store.lesson_myths(self.learner, slug)
        return grader.myth_reveal(myth, correct, myth_score(lesson, myths), form=asked)

    def save_code(self, slug: str, number: int, code: str | None) -> None:
        """Keep (or, with None, forget) the learner's edited version of a step's code."""
        step = find_step(find_lesson(self.catalog, slug), number)
        if code is not None and step.snippet is None:
            raise UnknownStep(f"Step {number} of {slug!r} has no code")
        self.store.save_code(self.learner, slug, number, code)

    def completed_by_running(self, slug: str | None, number: int | None) -> bool:
        """Does running this step's code complete it? Only a step that keeps no committed
        answer (no prediction nor ordering: a typed value alone is its own business); decided
        from the lesson alone, without the store."""
        lesson = self.catalog.get(slug) if slug else None
        if lesson is None or number is None or not 1 <= number <= len(lesson.steps):
            return False
        step = lesson.steps[number - 1]
        return step_answer_of(step) is None

    def mark_run(self, slug: str | None, number: int | None) -> None:
        """Running a step's code completes a step that asks for no prediction."""
        if slug and number and self.completed_by_running(slug, number):
            self.store.mark_done(self.learner, slug, number)
