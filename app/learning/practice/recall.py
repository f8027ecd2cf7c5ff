"""Recall: the questions a lesson ends on once its build-up is committed.

A recall question is a step's choice prediction asked on one of its variant instances
(app/lessons/variants.py): the same idea with other numbers, never the instance the lesson page
asked (the step's own code, nor the one its typed value asked). A lesson asks at most
`RECALL_SIZE`, each of a different step, spread over the lesson: its steps are cut into that
many spans (early, middle, late) and one question is drawn from each span that has a step with
variants, preferring steps whose instances compute other numbers (an answer or an output of
their own); a span without one leaves its place to the others. Which steps and which instances
is a hash of the learner and the lesson, so a reload asks the same questions, and nothing is
written to decide it.

Nothing of the recall is sent before every step of the build-up is committed: an instance of a
step not yet committed would answer it (app/lessons/disclosure.py). Reading ahead does not
count as committing.

An answer is graded as review grades the step (the kind's own grading, app/learning/kinds/),
kept (one per question: a second answer is refused as answered already), and feeds the spaced
review: it reviews the step's card, or enters the queue as a miss does (`ReviewQueue.note_recall`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime

from app.errors import AnswerError, NotDue, NotTheFormAsked, PredictionNotCommitted, UnknownStep
from app.learning.kinds import Prompt, QuestionKind, step_answer_of
from app.learning.practice.queue import ReviewQueue
from app.learning.practice.seen import learner_shown, only
from app.learning.practice_schemas import RecallResult
from app.learning.schemas import StepQuestionReveal
from app.lessons.disclosure import Disclosure
from app.lessons.format import Lesson, Step
from app.lessons.variants import Instance, choose, instances
from app.pedagogy.scheduler import describe_wait
from app.progress.records import RecallRecord
from app.progress.store import ProgressStore

# Three questions: one for each of the lesson's beginning, middle and end, so the recall
# samples the whole lesson rather than its last steps; and few enough to answer in a minute or
# two, right after the build-up, when a longer quiz would be skipped. Review does the rest.
RECALL_SIZE = 3

_CLOSED = (
    "The recall opens once every step of the build-up is committed: its questions are other "
    "instances of those steps and would answer them."
)


@dataclass(frozen=True)
class RecallQuestion:
    """One recall question: a step's question as asked on one of its instances."""

    number: int  # the step
    prompt: Prompt  # what to ask, as the review queue's prompt of the step (its `form` set)

    @property
    def form(self) -> int:
        return self.prompt.form if self.prompt.form is not None else -1

    @property
    def other_numbers(self) -> bool:
        step, instance = self.prompt.lesson.steps[self.number - 1], self.prompt.instance
        return instance is not None and _other_numbers(step, instance)


@dataclass(frozen=True)
class RecallItem:
    """A recall question as a page draws it, with the learner's answer if they gave one."""

    question: RecallQuestion
    saved: RecallRecord | None = None
    reveal: StepQuestionReveal | None = None

    @property
    def restore(self) -> dict[str, object] | None:
        """The saved answer as its widget restores one (static/js/widgets/: each reads what
        was sent), in the shape of a step's saved answer (`SavedAnswer`)."""
        side = self.question.prompt.kind.step
        if self.saved is None or self.reveal is None or side is None:
            return None
        return {
            "sent": side.sent(self.saved.choice),
            "confidence": self.saved.confidence,
            "correct": self.saved.correct,
            "reveal": self.reveal.model_dump(),
        }


def asks_recall(lesson: Lesson) -> bool:
    """Does the lesson end on a recall (has a step a choice with variant instances)? Says
    nothing of the questions, so a page may tell it before the build-up is committed."""
    return any(_askable(step) for step in lesson.steps)


def _own(step: Step, instance: Instance) -> bool:
    """Is the instance the step's own code (the one its lesson page asked)?"""
    return step.snippet is not None and instance.code.strip() == step.snippet.code.strip()


def _kind(step: Step) -> QuestionKind | None:
    """The kind of the step's committed question, if it is graded at once (a choice, a
    select-all: recall grades as review does, without a run)."""
    found = step_answer_of(step)
    side = found[0].step if found is not None else None
    return found[0] if found is not None and side is not None and side.at_once else None


def _askable(step: Step) -> bool:
    return _kind(step) is not None and any(not _own(step, i) for i in instances(step))


def build_up_committed(disclosure: Disclosure) -> bool:
    """Has the learner committed every step of the build-up (reading ahead is not)?"""
    return Disclosure(disclosure.lesson, disclosure.answered).reference


def _other_numbers(step: Step, instance: Instance) -> bool:
    prediction, snippet = step.prediction, step.snippet
    own_output = snippet.output if snippet is not None else ""
    own_texts = set(prediction.texts) if prediction is not None else set()
    return (
        instance.output != own_output
        or set(instance.texts) != own_texts
        or any(instance.readings.get(name) != value for name, value in _stated(step).items())
    )


def _stated(step: Step) -> dict[str, object]:
    return {name: value for _, q in step.questions() for name, value in q.stated().items()}


def _key(lesson: Lesson, learner: str) -> str:
    return f"{learner}/recall/{lesson.slug}"


def question_of(
    lesson: Lesson, number: int, learner: str, seen: frozenset[str] = frozenset()
) -> RecallQuestion | None:
    # The learner is named, so the instance is never the one their typed value asked; no
    # previous form, so the question does not move when a review asks the step again; with
    # `seen`, not an instance whose code the learner was shown while another remains.
    kind = _kind(lesson.steps[number - 1])
    key = _key(lesson, learner)
    prompt = kind.prompt(lesson, str(number), key, learner, None, seen) if kind else None
    if prompt is None or prompt.instance is None or _own(lesson.steps[number - 1], prompt.instance):
        return None  # the step asks no choice, or has no instance of it but its own code
    return RecallQuestion(number, prompt)


def _draw(candidates: list[RecallQuestion], key: str) -> RecallQuestion:
    preferred = [question for question in candidates if question.other_numbers] or candidates
    return preferred[choose(len(preferred), key)]


def recall_questions(
    lesson: Lesson, learner: str, asked: Asked | None = None
) -> list[RecallQuestion]:
    """The lesson's recall questions for this learner, in step order (see the module). With
    `asked` (what the learner was shown and answered), each question not answered yet asks an
    instance the learner was not shown while one remains, and one answered keeps the instance
    it was answered on; which steps are asked does not depend on it."""
    chosen = _chosen(lesson, learner)
    if asked is None:
        return chosen
    return [_unseen(lesson, learner, question, asked) for question in chosen]


@dataclass(frozen=True)
class Asked:
    """What the recall reads of a learner: their recall answers and what they were shown."""

    answers: list[RecallRecord]
    seen: frozenset[str]

    @classmethod
    def read(cls, store: ProgressStore, learner: str, lesson: Lesson) -> Asked:
        answers = store.recall_answers(learner, lesson.slug)
        return cls(answers, learner_shown(store, learner, lesson, answers))


def _unseen(lesson: Lesson, learner: str, question: RecallQuestion, asked: Asked) -> RecallQuestion:
    """`question` on the instance answered, if it was, else on one not shown while one remains."""
    number = question.number
    kind = question.prompt.kind.name
    kept = [a.form for a in asked.answers if a.step == number and a.kind == kind]
    seen = only(lesson.steps[number - 1], kept[-1]) if kept else asked.seen
    return question_of(lesson, number, learner, seen) or question


def _chosen(lesson: Lesson, learner: str) -> list[RecallQuestion]:
    found = [
        question
        for number in range(1, len(lesson.steps) + 1)
        if (question := question_of(lesson, number, learner)) is not None
    ]
    if len(found) <= RECALL_SIZE:
        return found
    key, total = _key(lesson, learner), len(lesson.steps)
    chosen: list[RecallQuestion] = []
    for span in range(RECALL_SIZE):
        inside = [q for q in found if (q.number - 1) * RECALL_SIZE // total == span]
        if inside:
            chosen.append(_draw(inside, f"{key}/{span}"))
    while len(chosen) < RECALL_SIZE:  # a span without a question: the others fill its place
        left = [question for question in found if question not in chosen]
        chosen.append(_draw(left, f"{key}/more-{len(chosen)}"))
    return sorted(chosen, key=lambda question: question.number)


def _answers(question: RecallQuestion, saved: RecallRecord) -> bool:
    prompt = question.prompt
    return (
        saved.step == question.number
        and saved.kind == prompt.kind.name
        and saved.form == question.form
        and saved.fingerprint == prompt.fingerprint
    )


def _item(question: RecallQuestion, answers: list[RecallRecord]) -> RecallItem:
    saved = next((answer for answer in answers if _answers(question, answer)), None)
    if saved is None:
        return RecallItem(question)
    try:
        kind = question.prompt.kind
        sent = kind.step.sent(saved.choice) if kind.step is not None else {}
        answer = kind.read(sent | {"confidence": saved.confidence})
        graded = kind.grade(question.prompt, answer)
    except AnswerError:  # the instance's choices were rewritten since: ask it again
        return RecallItem(question)
    reveal = graded.reveal if isinstance(graded.reveal, StepQuestionReveal) else None
    return RecallItem(question, saved, reveal)


def recall_items(
    disclosure: Disclosure, learner: str, read: Callable[[], Asked]
) -> list[RecallItem]:
    """What a page draws of the recall: nothing (and nothing read) before the build-up is
    committed; else the questions, with what the recall reads of the learner read once
    (`read`)."""
    if not build_up_committed(disclosure) or not asks_recall(disclosure.lesson):
        return []
    asked = read()
    questions = recall_questions(disclosure.lesson, learner, asked)
    return [_item(question, asked.answers) for question in questions]


def answer_recall(
    disclosure: Disclosure,
    store: ProgressStore,
    queue: ReviewQueue,
    number: int,
    body: Mapping[str, object],
    form: int | None,
    at: datetime,
) -> RecallResult:
    """Grade, keep and schedule an answer to the recall question on step `number`, asked as
    `form`. Refused, and nothing kept: before the build-up is committed; for a step the
    learner's recall does not ask, or another form than it asks; when answered already."""
    if not build_up_committed(disclosure):
        raise PredictionNotCommitted(_CLOSED)
    lesson, learner = disclosure.lesson, queue.learner
    asked = Asked.read(store, learner, lesson)  # as the page that asked it read it
    found = recall_questions(lesson, learner, asked)
    question = next((q for q in found if q.number == number), None)
    if question is None:
        raise UnknownStep(f"Lesson {lesson.slug!r} asks you no recall question on step {number}")
    if form != question.form:
        raise NotTheFormAsked(
            f"The recall question on step {number} is not asked as form {form}: reload the "
            "lesson and answer the question it shows"
        )
    prompt, side = question.prompt, question.prompt.kind.step
    answer = prompt.kind.read(body)
    graded = prompt.kind.grade(prompt, answer)
    reveal = graded.reveal
    if graded.grade is None or side is None or not isinstance(reveal, StepQuestionReveal):
        raise AnswerError("Answer the question as it asks")
    confidence = answer.confidence or ""
    record = RecallRecord(
        number,
        prompt.kind.name,
        question.form,
        side.keep(answer),
        confidence,
        graded.correct,
        prompt.fingerprint,
    )
    with store.together():  # the answer and the card it feeds: one transaction
        if not store.record_recall(learner, lesson.slug, record):  # the database decides
            raise NotDue("You answered this recall question already")
        memory = queue.note_recall(
            lesson.slug, prompt.kind, prompt.key, question.form, graded.grade, confidence, at
        )
    return RecallResult(
        correct=graded.correct,
        reveal=reveal,
        comes_back=describe_wait(memory.due, at) if memory is not None else None,
    )
