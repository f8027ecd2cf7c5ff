"""A learner's side of a lesson: what its page shows before and after each answer, the
answers themselves (graded by app/learning/grader.py) and the saved progress.

Before an answer the page has the step's title, setup, locked code, question and choices (in
this learner's order); what explains the answer comes only in the reveal. Saved answers to a
question that has since been rewritten are retired, never shown as its answer.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from app.errors import PredictionNotCommitted, UnknownStep
from app.learning import grader
from app.learning.completion import done_by, lesson_done
from app.learning.guided import first_unanswered
from app.learning.kinds import (
    DRILL,
    MYTH,
    ORDERING,
    PREDICTION,
    choice_order,
    myth_fingerprint,
    prediction_fingerprint,
    read_order,
    step_answer_of,
    step_ordering_fingerprint,
    stored_order,
    value_fingerprint,
)
from app.learning.lti.grades import queue_score
from app.learning.questions import (
    asks,
    disclosure_of,
    find_lesson,
    find_myth,
    find_step,
)
from app.learning.queue import ReviewQueue
from app.learning.schemas import (
    CatalogProgress,
    LessonProgress,
    LessonSummary,
    MythReveal,
    OrderingBody,
    OrderingReveal,
    PredictionBody,
    PredictionReveal,
    SavedMyth,
    SavedOrdering,
    SavedPrediction,
    SavedStep,
    SavedValue,
    Score,
    ValueBody,
    ValueFeedback,
)
from app.lessons.disclosure import Disclosure
from app.lessons.format import Lesson, Snippet, Step, ValuePrediction
from app.lessons.loader import Catalog
from app.lessons.variants import Instance, pick
from app.modes.drills import value_drill_id, value_key
from app.pedagogy.scheduler import describe_wait
from app.progress.classes_store import FirstAttempt
from app.progress.records import (
    LessonRecords,
    MythRecord,
    PredictionRecord,
    StepRecord,
    ValueRecord,
)
from app.progress.store import ProgressStore
from app.sandbox.result import RunResult


@dataclass(frozen=True)
class StepView:
    """One step as the page draws it: before its answer, or whole for a learner who reads
    the lesson ahead."""

    number: int
    step: Step
    asks: bool  # True: concept, explanation and insight wait for the answer
    # The prediction's choices, or the lines an ordering asks to order, in this learner's order.
    choices: list[str]
    # The typed-value question and its form, if the step has one and it may be sent: on a
    # step that also asks a choice, only once that choice is committed (its mere presence
    # would say the code does not raise); the choice's reveal brings it otherwise.
    value_shown: bool = False
    read_ahead: bool = False  # the answer is drawn with the step
    # On a step with variants, the code the typed value asks on: other numbers than the
    # step's own, whose answer the choice's reveal shows.
    value_code: str | None = None


def practice_instance(lesson: Lesson, number: int, learner: str | None) -> Instance | None:
    """The variant instance a step's typed value asks this learner, when the step also asks a
    choice (whose reveal shows the step's own answer) and has variants: one whose code ran to
    the end, since an instance that raised has no `.grad` to type."""
    step = lesson.steps[number - 1]
    if learner is None or step.prediction is None or step.value_prediction is None:
        return None
    return pick(step, value_key(learner, lesson.slug, number), ran=True)


def asked_order(lesson: Lesson, number: int, step: Step, learner: str) -> list[str]:
    """The step's choices, or its lines to order, in this learner's order."""
    if step.prediction is not None:
        return choice_order(learner, lesson.slug, number, step.prediction.texts)
    if step.ordering is not None:
        return step.ordering.shuffled(f"{learner}\0{lesson.slug}\0{number}")
    return []


def step_views(
    lesson: Lesson, learner: str, disclosure: Disclosure | None = None
) -> list[StepView]:
    shown = disclosure or Disclosure(lesson, frozenset())
    return [
        StepView(
            number,
            step,
            asks(step) and not shown.read_ahead,
            asked_order(lesson, number, step, learner),
            value_shown=shown.value_open(number),
            read_ahead=shown.read_ahead and asks(step),
            value_code=(
                practice.code if (practice := practice_instance(lesson, number, learner)) else None
            ),
        )
        for number, step in enumerate(lesson.steps, start=1)
    ]


# --- saved progress, with stale answers retired -----------------------------------------------
def _current_myths(lesson: Lesson, myths: dict[int, MythRecord]) -> dict[int, MythRecord]:
    return {
        number: record
        for number, record in myths.items()
        if 1 <= number <= len(lesson.myths)
        and record.fingerprint == myth_fingerprint(lesson.myths[number - 1])
    }


def _score(lesson: Lesson, myths: dict[int, MythRecord]) -> Score:
    # An answer given after reading the lesson ahead is kept, not scored.
    scored = [record for record in myths.values() if not record.seen_answers]
    return Score(
        answered=len(scored),
        correct=sum(1 for record in scored if record.correct),
        total=len(lesson.myths),
    )


def _saved_step(step: Step, record: StepRecord, practice: Instance | None) -> SavedStep:
    prediction = record.prediction
    saved_prediction = None
    if (
        prediction is not None
        and step.prediction is not None
        and step.ordering is None
        and prediction.fingerprint == prediction_fingerprint(step.prediction)
    ):
        reveal = grader.prediction_reveal(step, prediction.choice, prediction.correct, 0, practice)
        saved_prediction = SavedPrediction(
            choice=prediction.choice,
            confidence=prediction.confidence,
            correct=prediction.correct,
            reveal=reveal,
        )
    value = record.value
    saved_value = None
    guess = step.value_prediction
    if value is not None and guess is not None and value.fingerprint == value_fingerprint(guess):
        shown = (value.correct or value.revealed) and step.prediction is None
        saved_value = SavedValue(
            value=value.value,
            correct=value.correct,
            revealed=value.revealed,
            step=grader.step_reveal(step) if shown else None,
        )
    return SavedStep(
        done=record.done,
        code=record.code,
        prediction=saved_prediction,
        value=saved_value,
        ordering=_saved_ordering(step, record),
    )


def _saved_ordering(step: Step, record: StepRecord) -> SavedOrdering | None:
    """An ordering's committed answer (kept as the step's committed answer, its own kind told
    by its fingerprint), with its reveal without the run of the learner's order."""
    saved = record.prediction
    if saved is None or saved.fingerprint != step_ordering_fingerprint(step):
        return None
    return SavedOrdering(
        order=read_order(saved.choice),
        confidence=saved.confidence,
        correct=saved.correct,
        reveal=grader.ordering_reveal(step, saved.correct, 0),
    )


def lesson_progress(
    lesson: Lesson, records: LessonRecords, learner: str | None = None
) -> LessonProgress:
    """Everything the page needs to restore a learner's state, reveals included."""
    steps = {
        str(number): _saved_step(
            lesson.steps[number - 1], record, practice_instance(lesson, number, learner)
        )
        for number, record in records.steps.items()
        if 1 <= number <= len(lesson.steps)  # the lesson changed since; keep the rest
    }
    current = _current_myths(lesson, records.myths)
    score = _score(lesson, current)
    myths = {
        str(number): SavedMyth(
            answer=record.answer,
            correct=record.correct,
            reveal=grader.myth_reveal(lesson.myths[number - 1], record.correct, score),
        )
        for number, record in current.items()
    }
    return LessonProgress(
        steps=steps,
        myths=myths,
        score=score,
        steps_done=sum(1 for entry in steps.values() if entry.done),
        steps_total=len(lesson.steps),
    )


def _summary(
    lesson: Lesson,
    steps_done: int,
    myths: dict[int, MythRecord],
    done: bool,
    resume: int | None = None,
) -> LessonSummary:
    score = _score(lesson, _current_myths(lesson, myths))
    return LessonSummary(
        done=done,
        steps_done=steps_done,
        steps_total=len(lesson.steps),
        myths_answered=score.answered,
        myths_correct=score.correct,
        myths_total=len(lesson.myths),
        resume_step=resume,
    )


def _first_attempts(store: ProgressStore, learner: str) -> list[FirstAttempt]:
    return store.first_attempts(None, prediction=PREDICTION.name, myth=MYTH.name, learner=learner)


def _resume(lesson: Lesson, done: set[int]) -> int | None:
    """A begun lesson's first unanswered step (see app/learning/guided.py)."""
    return first_unanswered(len(lesson.steps), done) if done else None


def catalog_progress(
    catalog: Catalog, store: ProgressStore, learner: str | None
) -> CatalogProgress:
    done = store.done_steps(learner) if learner else {}
    by_lesson: dict[str, dict[int, MythRecord]] = {}
    for (slug, number), answer in (store.myth_answers(learner) if learner else {}).items():
        by_lesson.setdefault(slug, {})[number] = answer
    finished = done_by(catalog.lessons, _first_attempts(store, learner)) if learner else {}
    return CatalogProgress(
        lessons={
            lesson.slug: _summary(
                lesson,
                len(steps := done.get(lesson.slug, set())),
                by_lesson.get(lesson.slug, {}),
                lesson.slug in finished.get(learner or "", set()),
                _resume(lesson, steps),
            )
            for lesson in catalog.lessons
        }
    )


def lesson_summary(lesson: Lesson, records: LessonRecords) -> LessonSummary:
    """One lesson's line of catalog_progress, from the learner's records of that lesson (which
    the page has read anyway): every step state marked done counts, as the catalog counts, and
    the lesson is done by the one rule (`completion.py`), read from the latest answers (an
    answer to today's question is the latest one, since an older version cannot be answered
    after it)."""
    done = sum(1 for step in records.steps.values() if step.done)
    answers = [
        (PREDICTION.name, number, step.prediction.fingerprint)
        for number, step in records.steps.items()
        if step.prediction is not None
    ]
    answers += [(MYTH.name, number, myth.fingerprint) for number, myth in records.myths.items()]
    return _summary(lesson, done, records.myths, lesson_done(lesson, answers))


# --- answering --------------------------------------------------------------------------------
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

    def commit_prediction(self, slug: str, number: int, body: PredictionBody) -> PredictionReveal:
        step = find_step(find_lesson(self.catalog, slug), number)
        if step.prediction is None:
            raise UnknownStep(f"Step {number} of {slug!r} asks for no prediction")
        confidence = grader.require_confidence(body.confidence)
        correct = grader.grade_choice(step, body.choice)
        fingerprint = prediction_fingerprint(step.prediction)
        with self.store.together():  # the answer and its review card: one transaction
            seen = self._seen_answers(slug)
            answer = PredictionRecord(body.choice, confidence, correct, fingerprint, seen)
            attempt = self.store.record_prediction(self.learner, slug, number, answer)
            at = datetime.now(UTC)
            if not correct:
                urgent = confidence == "certain"
                self._queue().note_miss(slug, PREDICTION, str(number), at, urgent=urgent)
            elif confidence == "guess" and attempt == 1:  # later attempts follow the reveal
                self._queue().note_guess(slug, PREDICTION, str(number), at)
            queue_score(self.store, self.learner, find_lesson(self.catalog, slug))
        practice = practice_instance(find_lesson(self.catalog, slug), number, self.learner)
        return grader.prediction_reveal(step, body.choice, correct, attempt, practice)

    def ordering_program(
        self, slug: str, number: int, body: OrderingBody, form: int | None = None
    ) -> str:
        """The code the learner's order makes, to be run; refused before any run when the step
        asks no ordering, the order is not one of its lines, or no confidence is given; with
        `form`, when no due review item of the step asks that variant instance."""
        step = find_step(find_lesson(self.catalog, slug), number)
        if step.ordering is None:
            raise UnknownStep(f"Step {number} of {slug!r} asks for no ordering")
        grader.require_confidence(body.confidence)
        instance = self._review_instance(slug, number, form)
        return grader.ordering_program(step, body.order, instance)

    def _review_instance(self, slug: str, number: int, form: int | None) -> Instance | None:
        """The variant instance a due review item of the step's ordering asks as `form`."""
        if form is None:
            return None
        at = datetime.now(UTC)
        _, prompt = self._queue().asked(slug, ORDERING, str(number), form, at)
        return prompt.instance

    def commit_ordering(
        self,
        slug: str,
        number: int,
        body: OrderingBody,
        result: RunResult,
        form: int | None = None,
    ) -> OrderingReveal:
        """Keep an order graded by its run (`result`), as the step's committed answer; with
        `form`, an order of the variant instance a due review item asks, which answers that
        item and leaves the step's committed answer alone (it is another question)."""
        lesson = find_lesson(self.catalog, slug)
        step = find_step(lesson, number)
        confidence = grader.require_confidence(body.confidence)
        if form is not None:
            return self._review_ordering(slug, step, number, result, confidence, form)
        fingerprint = step_ordering_fingerprint(step)
        correct = grader.order_passes(step, result)
        with self.store.together():
            seen = self._seen_answers(slug)
            order = stored_order(body.order)
            kept = PredictionRecord(order, confidence, correct, fingerprint, seen)
            attempt = self.store.record_prediction(self.learner, slug, number, kept)
            at = datetime.now(UTC)
            queue = self._queue()
            # A due review item of it is answered by this order; a miss enters the queue.
            reviewed = queue.note_check(slug, ORDERING, str(number), correct, at, confidence)
            if reviewed is None and correct and confidence == "guess" and attempt == 1:
                queue.note_guess(slug, ORDERING, str(number), at)
            due = queue.due_count(at) if reviewed else None
            queue_score(self.store, self.learner, lesson)
        reveal = grader.ordering_reveal(step, correct, attempt, result)
        if reviewed is None:
            return reveal
        return reveal.model_copy(
            update={"comes_back": describe_wait(reviewed.due, at), "due_count": due}
        )

    def _review_ordering(
        self, slug: str, step: Step, number: int, result: RunResult, confidence: str, form: int
    ) -> OrderingReveal:
        at = datetime.now(UTC)
        queue = self._queue()
        with self.store.together():
            _, prompt = queue.asked(slug, ORDERING, str(number), form, at)
            instance = prompt.instance
            correct = grader.order_passes(step, result, instance)
            reviewed = queue.note_check(
                slug, ORDERING, str(number), correct, at, confidence, form=form
            )
            due = queue.due_count(at)
        reveal = grader.ordering_reveal(step, correct, 0, result, instance)
        return reveal.model_copy(
            update={"comes_back": describe_wait(reviewed.due, at) if reviewed else None}
            | {"due_count": due}
        )

    def require_choice(self, lesson: Lesson, number: int) -> None:
        """A step's typed value is checked only once its choice is committed (or the lesson
        is read ahead): its answer, explanation and even a hint would answer the choice."""
        step = find_step(lesson, number)
        if step.prediction is None:
            return  # the typed value is the step's own question
        records = self.store.lesson_state(self.learner, lesson.slug)
        if not disclosure_of(lesson, records).step_open(number):
            raise PredictionNotCommitted(
                f"Commit your prediction for step {number} first: checking the value now "
                "would give its answer away. (Or read the lesson ahead.)"
            )

    def asks_on_instance(self, slug: str, number: int) -> bool:
        """Is this step's typed value asked on a stored variant instance (no run needed)?"""
        lesson = find_lesson(self.catalog, slug)
        return practice_instance(lesson, number, self.learner) is not None

    def value_step(self, slug: str, number: int) -> tuple[Step, Snippet, ValuePrediction]:
        """The step, its code and its value question, if it asks for a typed value."""
        step = find_step(find_lesson(self.catalog, slug), number)
        if step.value_prediction is None or step.snippet is None:
            raise UnknownStep(f"Step {number} of {slug!r} asks for no value")
        return step, step.snippet, step.value_prediction

    def check_value(self, slug: str, number: int, body: ValueBody, actual: object) -> ValueFeedback:
        """Check a typed `.grad` against `actual`, the value the step's code really produces."""
        lesson = find_lesson(self.catalog, slug)
        step, _, guess = self.value_step(slug, number)
        self.require_choice(lesson, number)
        unlocks = step if step.prediction is None else None  # a choice's reveal explains it
        practice = practice_instance(lesson, number, self.learner)
        check = (
            grader.instance_check(step, practice)
            if practice is not None
            else grader.ValueCheck(actual, guess.explanation, unlocks, guess.misconceptions)
        )
        correct, feedback = grader.grade_typed(check, body.value, body.reveal)
        if correct is None:
            return grader.value_feedback(feedback)
        drill = value_drill_id(lesson, number)
        with self.store.together():
            seen = self._seen_answers(slug)
            answer = ValueRecord(body.value, correct, body.reveal, value_fingerprint(guess), seen)
            self.store.record_value(self.learner, slug, number, answer)
            if not correct and drill is not None:
                self._queue().note_miss(slug, DRILL, drill, datetime.now(UTC))
        return grader.value_feedback(feedback)

    def answer_myth(self, slug: str, number: int, answer: str) -> MythReveal:
        lesson = find_lesson(self.catalog, slug)
        myth = find_myth(lesson, number)
        correct = grader.grade_myth(myth, answer)
        with self.store.together():
            kept = MythRecord(answer, correct, myth_fingerprint(myth), self._seen_answers(slug))
            self.store.record_myth(self.learner, slug, number, kept)
            if not correct:
                self._queue().note_miss(slug, MYTH, str(number), datetime.now(UTC))
            queue_score(self.store, self.learner, lesson)
            myths = self.store.lesson_myths(self.learner, slug)
        return grader.myth_reveal(myth, correct, _score(lesson, _current_myths(lesson, myths)))

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
