"""What a question kind declares, and what the review queue asks and answers with it.

A kind (a choice prediction, a typed value, a myth, a drill, a flashcard, a pitfall fix) is one
`QuestionKind`: its stored name, its label for learners, the mode page that asks it, the widget
a learner answers it with, whether it asks how sure the learner is, and, for a kind the review
queue brings back, how its prompt is built and how it is graded there. The grader, the review
queue, the templates (and through `data-kind` / `data-widget` the scripts) all read it.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, Field, ValidationError

from app.errors import AnswerError
from app.learning.answers import grader
from app.learning.answers.grader import Graded
from app.learning.schemas import Confidence, StepQuestionReveal, ValueFeedback
from app.lessons.behaviour import GoalGrad
from app.lessons.exercises import goal, parts
from app.lessons.format import Exercise, Lesson, Step
from app.lessons.memo import per_object
from app.lessons.variants import Instance
from app.modes.drills import Drill
from app.modes.flashcards import Flashcard
from app.progress.records import ExerciseRecord, StepRecord, ValueRecord
from app.sandbox.result import RunResult

# How a learner answers ("choice", "yes-no", "value", "card", "code", "ordering"): a widget is
# its macro in templates/_widgets.html and its script in static/js/widgets/, dispatched on the
# `data-widget` attribute; tests/test_architecture.py holds every kind's widget to both.
Widget = str


@dataclass(frozen=True)
class ReviewExercise:
    """Code to write as a review item draws it (the exercise box of templates/_exercise.html):
    the code to fix at once, its goal, and no record (it is written again from scratch)."""

    number: int
    exercise: Exercise
    goal_output: str
    goal_grads: list[GoalGrad]
    parts: list[dict[str, str]]
    record: ExerciseRecord = field(default_factory=ExerciseRecord)
    buggy_code: None = None  # a diagnosis is asked on the exercise's page only
    source: None = None
    choices: tuple[()] = ()

    @classmethod
    def of(cls, exercise: Exercise, number: int) -> ReviewExercise:
        wanted = goal(exercise)
        drawn = [{"kind": p.kind, "text": p.text, "indent": p.indent} for p in parts(exercise)]
        return cls(number, exercise, wanted.output, wanted.wanted(), drawn)

    @property
    def parts_json(self) -> str:
        return json.dumps(self.parts)


@dataclass(frozen=True)
class ReviewOrdering:
    """An ordering as a review item draws it (templates/_widgets.html, the `ordering` macro): the
    code given first, the lines in this return's order, and the output they must print."""

    head: str
    lines: list[str]
    output: str


@dataclass(frozen=True)
class StepItem:
    """A step's question as item analysis (the class dashboard's first attempts) sees it."""

    text: str
    answer: str  # as the step's committed answer keeps it
    whys: dict[str, str]  # wrong choice -> what the lesson tells a learner who picks it
    # Every answer a learner could give, in the question's order; empty where the answers are
    # whatever learners sent (an ordering's: any of several orders may be right).
    choices: tuple[str, ...]
    # wrong answer -> the belief behind it, in a teacher's words (the choice's `misconception`;
    # for a select-all, worked out from the set sent: the beliefs of the statements it got wrong)
    beliefs: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Prompt:
    """What the review queue shows for one item. It never carries the answer, nor what
    explains it: grading returns them with the verdict."""

    lesson: Lesson
    kind: QuestionKind
    key: str  # names the item within its lesson and kind: "3", "step-2.x", "takeaway-1"
    source: str  # where it comes from, e.g. "Step 2: backward() writes the slope into .grad"
    question: str  # Markdown
    fingerprint: str
    code: str | None = None
    choices: list[str] = field(default_factory=list)
    tensor: str | None = None
    flashcard: Flashcard | None = None
    instance: Instance | None = None  # a prediction or an ordering asked on a variant instance
    drill: Drill | None = None  # a drill as asked (on this return's instance, if any)
    exercise: ReviewExercise | None = None  # code to write, as review draws it
    # Which of the item's other forms is asked (a step's variant instance, a myth's form);
    # None: the item as its lesson page asks it. The review queue keeps it with the card, so
    # that the next return asks another.
    form: int | None = None
    ordering: ReviewOrdering | None = None  # lines to put in order

    @property
    def link(self) -> str:
        """The page the item comes from."""
        return self.kind.link(self.lesson.slug, self.key)


class ReviewAnswer(BaseModel):
    """The body of a review answer (POST /api/review/{id}/answer). Each reviewed kind declares
    its own (`Review.answer`, a subclass with the field its widget sends), and the body is read
    as the model of the item's kind: a body that does not fit it is refused, naming what fits."""

    confidence: Confidence | None = Field(
        default=None,
        description="How sure the learner is: required by every kind that asks it (422 without)",
    )


def item_number(key: str, count: int) -> int | None:
    """A key that numbers one of `count` items (a step, a myth) from 1, or None."""
    return int(key) if key.isdigit() and 1 <= int(key) <= count else None


# (lesson, key, order, learner, asked) -> the prompt, or None when the lesson no longer has the
# item; `order` keys the order of its choices (see `choice_order`) and, on an item with other
# forms (a step's variants, a myth's forms), the form asked; `learner` (when known) is who is
# asked, whose lesson-page form a review never repeats; `asked` is the form asked the time
# before, which the next return does not ask again while another remains; `seen` is what the
# learner was shown (code fingerprints, app/learning/practice/seen.py), which a return does not ask
# while another form remains.
PromptBuilder = Callable[[Lesson, str, str, str | None, int | None, frozenset[str]], Prompt | None]
A = TypeVar("A", bound=ReviewAnswer)


@dataclass(frozen=True)
class Review(Generic[A]):
    """How the review queue asks a kind again: its prompt, the answer it reads (the body's
    model), and its grading there (the same grader the kind's own page calls)."""

    prompt: PromptBuilder
    answer: type[A]
    grade: Callable[[Prompt, A], Graded]


@dataclass(frozen=True)
class Answered:
    """What a step's answer is graded and revealed with, besides the step and the answer."""

    # The run of the code the answer makes, for a kind graded by a run (`StepSide.program`).
    result: RunResult | None = None
    # The variant instance a due review item asked it as (its `form`); None: the step's own.
    form: Instance | None = None
    # The variant instance the step's typed value asks this learner, which a reveal may open.
    opens: Instance | None = None


@dataclass(frozen=True)
class Tried(Generic[A]):
    """A step question tried until it is right or its answer is shown (a typed value), rather
    than committed once: each try the grader can read is kept as the step's latest try
    (`record`: the try as kept, from the answer, whether it was right and whether it was given
    after reading ahead), never as an attempt at the step's committed answer. `missed`: the
    review item a wrong try queues (its kind and key: a typed value's drill), if any. `check`:
    a try graded once, as `StepSide.grade` grades it, with what it gets back."""

    record: Callable[[Step, A, bool, bool], ValueRecord]
    missed: Callable[[Lesson, int], tuple[QuestionKind, str] | None]
    check: Callable[[Step, A, Answered], tuple[bool | None, ValueFeedback]]


@dataclass(frozen=True)
class StepSide(Generic[A]):
    """How a step asks a kind through the one step route (app/routes/learning.py) and commit
    path (`LessonAnswers.commit_step`); its answer is read as `answer` (default: the kind's
    `Review.answer`), with the learner's confidence where the kind asks it.

    `keep`: the answer as the step keeps it; `sent`: the body a kept answer was sent as (a
    saved answer is restored from it); `grade` (None: the answer could not be read, and
    nothing is kept) and `reveal` (from the kept answer, so a restored answer shows the
    same). A kind graded at once grades the answer itself. A kind graded by a run declares
    `program`, the code an answer makes (on a review item's variant instance, or the step's
    own; None: nothing to run, as for a typed value asked on a variant instance, whose
    answer is stored): the path runs it in the sandbox and grades the run (`Answered.result`);
    such a committed kind is answered in review through the same route, with the item's
    `form`, since a review answer is graded without waiting for a run. `without_sandbox`: the
    kind is graded without its run when no sandbox can run it (a typed value: against the
    lesson's value, which `gradlab check` proves). `tried`: a question tried until right
    rather than committed once (`Tried`), which replies to each try instead of revealing: a
    kind declares one of `reveal` and `tried`."""

    keep: Callable[[A], str]
    sent: Callable[[str], dict[str, Any]]
    grade: Callable[[Step, A, Answered], bool | None]
    reveal: Callable[[Step, str, bool, int, Answered], StepQuestionReveal] | None = None
    program: Callable[[Step, A, Answered], str | None] | None = None
    answer: type[A] | None = None
    without_sandbox: bool = False
    tried: Tried[A] | None = None

    def __post_init__(self) -> None:
        if (self.reveal is None) == (self.tried is None):
            raise ValueError("a step side reveals a committed answer or replies to a try: one")

    @property
    def at_once(self) -> bool:
        """Graded without a run: a review or recall answer can be graded as it is sent."""
        return self.program is None

    @property
    def saved(self) -> str:
        """The field of a step's saved progress (`SavedStep`) that restores its widget: the
        committed answer, or a tried question's latest try (the typed value)."""
        return "value" if self.tried is not None else "answer"


def _problems(error: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(part) for part in problem['loc']) or 'the body'}: {problem['msg']}"
        for problem in error.errors()
    )


@dataclass(frozen=True)
class QuestionKind:
    name: str  # stored in review cards and in fingerprints: renaming it retires every record
    label: str  # for learners, e.g. the heading of a review item
    plural: str  # for learners, in a sentence: "predictions", "typed values"
    page: str  # the slug of the mode page a review item links back to
    widget: Widget
    confidence: bool  # asks how sure the learner is (counted in calibration and scheduling)
    count_in: Callable[[Lesson], int]  # how many questions of this kind a lesson has
    review: Review[Any] | None = None  # None: never enters the review queue
    anchor: str | None = None  # the fragment of `page` that shows one item, e.g. "step-{key}"
    # A kind a step asks: the `Step` field that holds its question (one of `Step.QUESTIONS`),
    # and whether a learner's records commit the step by it (app/learning/answers/questions.py).
    step_field: str | None = None
    committed: Callable[[Step, StepRecord], bool] | None = None
    # A kind whose answer is kept as its step's committed answer (the store's step answers: a
    # choice, an order): the fingerprint that answer carries for the step as it is today, None
    # when the step does not ask it. Completion and calibration count these answers.
    step_answer: Callable[[Step], str | None] | None = None
    # A kind whose other forms are a step's variant instances: the step (numbered from 1) whose
    # instance an item `key` asks, so that the code a form showed can be named (seen.py).
    form_step: Callable[[Lesson, str], int | None] | None = None
    # A kind whose other forms are texts of its own (a myth's): the question form `form` of
    # item `key` asks, None when there is no such form (seen.py names it as it names code).
    form_text: Callable[[Lesson, str, int], str | None] | None = None
    # Such a kind's question as item analysis sees it (app/learning/classes/first_attempts.py), None
    # when the step does not ask it.
    step_item: Callable[[Step], StepItem | None] | None = None
    # A step answer as a teacher reads it (the dashboard's answers; default: as kept).
    shown: Callable[[str], str] = str
    # A kind a step asks through the one step route (app/routes/learning.py) and commit path
    # (app/learning/answers/lesson_answers.py, `commit_step`): graded at once, or by a run.
    step: StepSide[Any] | None = None

    @property
    def reported(self) -> bool:
        """Can a learner report a step question of this kind: one the class dashboard analyses
        (a step's committed answer, with its item)?"""
        return self.step_item is not None and self.step_answer is not None

    @property
    def path(self) -> str:
        """The last segment of the step route that answers it: `select-all`."""
        return self.name.replace("_", "-")

    def link(self, lesson: str, key: str) -> str:
        page = f"/lessons/{lesson}/{self.page}"
        return f"{page}#{self.anchor.format(key=key)}" if self.anchor else page

    @property
    def macro(self) -> str:
        """The name of the template macro that draws this kind's widget."""
        return self.widget.replace("-", "_")

    @property
    def review_macro(self) -> str:
        """The template macro that draws this kind's widget for a review item."""
        return f"{self.macro}_item"

    def fingerprint(self, *parts: object) -> str:
        """Names one version of a question of this kind: a hash of the kind's name and what
        makes the question that question (its text, choices, answer)."""
        text = json.dumps((self.name, *parts), sort_keys=True, ensure_ascii=False, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:32]

    def asked_fingerprint(self, lesson: Lesson, key: str) -> str | None:
        """The fingerprint of the question `lesson` asks as item `key` of this kind, None when
        it asks none: whether a stored card still names the question asked today, without
        drawing its prompt. It depends on the lesson's text only, so it is worked out once per
        loaded lesson (a lesson reloaded in development is another object)."""
        return _asked_fingerprints(lesson).get(self, lesson, key)

    def prompt(
        self,
        lesson: Lesson,
        key: str,
        order: str,
        learner: str | None = None,
        asked: int | None = None,
        seen: frozenset[str] = frozenset(),
    ) -> Prompt | None:
        """What the review queue shows for this item; None when the lesson no longer has it
        or the kind is never reviewed."""
        if self.review is None:
            return None
        return self.review.prompt(lesson, key, order, learner, asked, seen)

    def read(self, body: Mapping[str, object]) -> ReviewAnswer:
        """A review answer's body read as this kind's answer; refused (AnswerError, a 422)
        when it does not fit, naming the fields that do."""
        if self.review is None:
            raise AnswerError(f"{self.label}: never answered in review")
        found: ReviewAnswer = _read(self.review.answer, body, self.label, self.confidence)
        return found

    def read_step(self, body: Mapping[str, object]) -> ReviewAnswer:
        """A body sent to the step route read as this kind's step answer (`StepSide.answer`,
        or its review answer); refused (AnswerError, a 422) when it does not fit."""
        model = self.step.answer if self.step is not None else None
        if model is None:
            return self.read(body)
        found: ReviewAnswer = _read(model, body, self.label, self.confidence)
        return found

    def grade(self, prompt: Prompt, answer: ReviewAnswer) -> Graded:
        """Grade a review answer (read by `read`) as the kind's own page does. Right counts as
        `good`, wrong as `again`; a kind that asks how sure the learner is refuses an answer
        without it."""
        if self.confidence:
            grader.require_confidence(answer.confidence)
        if self.review is None:
            raise ValueError(f"{self.name} is never reviewed")
        if not isinstance(answer, self.review.answer):
            raise AnswerError(f"This item is a {self.label.lower()}: not answered that way")
        return self.review.grade(prompt, answer)


M = TypeVar("M", bound=BaseModel)


def _read(model: type[M], body: Mapping[str, object], label: str, sure: bool = True) -> M:
    try:
        return model.model_validate(body)
    except ValidationError as error:
        own = [name for name in model.model_fields if name != "confidence"]
        asked = own + (["confidence"] if sure else [])
        fields = " and ".join(f"`{name}`" for name in asked) or "nothing here"
        raise AnswerError(
            f"This item is a {label.lower()}, answered with {fields}: {_problems(error)}"
        ) from None


class _AskedFingerprints:
    """One loaded lesson's question fingerprints by (kind, key), each worked out the first time
    it is asked for. Holds no reference to the lesson, so that it goes with it."""

    def __init__(self) -> None:
        self._known: dict[tuple[str, str], str | None] = {}
        self._lock = threading.Lock()

    def get(self, kind: QuestionKind, lesson: Lesson, key: str) -> str | None:
        with self._lock:
            if (kind.name, key) not in self._known:
                prompt = kind.prompt(lesson, key, "")
                self._known[kind.name, key] = prompt.fingerprint if prompt is not None else None
            return self._known[kind.name, key]


@per_object
def _asked_fingerprints(lesson: Lesson) -> _AskedFingerprints:
    return _AskedFingerprints()
