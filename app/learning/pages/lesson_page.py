"""What a lesson's page shows a learner: each step before and after its answer, the saved
progress that restores the page (reveals included), and a lesson's and the catalog's summary
lines. The answers themselves are app/learning/answers/lesson_answers.py's.

Before an answer the page has the step's title, setup, locked code, question and choices (in
this learner's order); what explains the answer comes only in the reveal. Saved answers to a
question that has since been rewritten are retired, never shown as its answer.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.learning.answers import grader
from app.learning.answers.completion import done_by, lesson_done
from app.learning.answers.questions import asks
from app.learning.kinds import (
    MYTH,
    PREDICTION,
    Answered,
    QuestionKind,
    choice_order,
    myth_fingerprint,
    step_answer_of,
    step_kind,
    value_fingerprint,
)
from app.learning.pages.guided import first_unanswered
from app.learning.schemas import (
    CatalogProgress,
    LessonProgress,
    LessonSummary,
    SavedAnswer,
    SavedMyth,
    SavedStep,
    SavedValue,
    Score,
)
from app.lessons.disclosure import Disclosure, waits
from app.lessons.format import Lesson, Question, Step
from app.lessons.loader import Catalog
from app.lessons.variants import Instance, pick
from app.modes.drills import value_key
from app.progress.classes_store import FirstAttempt
from app.progress.records import LessonRecords, MythRecord, StepRecord
from app.progress.store import ProgressStore


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

    @property
    def kinds(self) -> list[QuestionKind]:
        """The kinds of the step's questions: `step_item` draws each whose widget has a
        `<macro>_step` macro (templates/_widgets.html)."""
        return [kind for field, _ in self.step.questions() if (kind := step_kind(field))]

    def asked(self, kind: QuestionKind) -> Question | None:
        """The step's question of this kind."""
        return dict(self.step.questions()).get(kind.step_field or "")

    @property
    def kinds_above(self) -> list[QuestionKind]:
        """The kinds `step_item` draws above the step's code: those asked first."""
        return [kind for kind in self.kinds if not self._after_code(kind)]

    @property
    def kinds_below(self) -> list[QuestionKind]:
        """The kinds drawn below the step's code: a question that comes after the others (a
        typed value: `Question.after_others`)."""
        return [kind for kind in self.kinds if self._after_code(kind)]

    def waits(self, kind: QuestionKind) -> bool:
        """Does this kind's question wait for the commit of the step's other question (a typed
        value on a step that asks a choice: `disclosure.waits`)? The build-up counts the other."""
        question = self.asked(kind)
        return question is not None and waits(self.step, question)

    def _after_code(self, kind: QuestionKind) -> bool:
        question = self.asked(kind)
        return question is not None and question.after_others

    @property
    def locked(self) -> bool:
        """Does its code wait for the commit (a run would answer a question graded at once)?"""
        return any(kind.step is not None and kind.step.at_once for kind in self.kinds)


def asked_instance(lesson: Lesson, number: int, learner: str | None) -> Instance | None:
    """The variant instance a step's typed value asks this learner, when the step also asks a
    choice (whose reveal shows the step's own answer) and has variants: one whose code ran to
    the end, since an instance that raised has no `.grad` to type."""
    step = lesson.steps[number - 1]
    if learner is None or step.prediction is None or step.value_prediction is None:
        return None
    return pick(step, value_key(learner, lesson.slug, number), ran=True)


def asked_order(lesson: Lesson, number: int, step: Step, learner: str) -> list[str]:
    """The step's choices, its lines to order or its statements, in this learner's order."""
    if step.prediction is not None:
        return choice_order(learner, lesson.slug, number, step.prediction.texts)
    for _, question in step.questions():
        if question.in_learner_order:
            return question.shuffled(f"{learner}\0{lesson.slug}\0{number}")
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
                instance.code if (instance := asked_instance(lesson, number, learner)) else None
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


def myth_score(lesson: Lesson, myths: dict[int, MythRecord]) -> Score:
    """The lesson's myth score from a learner's answers, those to rewritten myths retired."""
    return _score(lesson, _current_myths(lesson, myths))


def _saved_step(step: Step, record: StepRecord, instance: Instance | None) -> SavedStep:
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
        value=saved_value,
        answer=_saved_answer(step, record, instance),
    )


def _saved_answer(step: Step, record: StepRecord, instance: Instance | None) -> SavedAnswer | None:
    """The step's committed answer, for a kind answered through the step route (its
    declaration's step side): what was sent, and the reveal it got (an order's without its
    run), so that its widget restores it."""
    found, saved = step_answer_of(step), record.answer
    side = found[0].step if found is not None else None
    if found is None or saved is None or side is None or saved.fingerprint != found[1]:
        return None
    if side.reveal is None:
        raise ValueError(f"{found[0].name}: a committed answer is revealed")
    return SavedAnswer(
        kind=found[0].name,
        sent=side.sent(saved.choice),
        confidence=saved.confidence,
        correct=saved.correct,
        reveal=side.reveal(step, saved.choice, saved.correct, 0, Answered(opens=instance)),
    )


def lesson_progress(
    lesson: Lesson, records: LessonRecords, learner: str | None = None
) -> LessonProgress:
    """Everything the page needs to restore a learner's state, reveals included."""
    steps = {
        str(number): _saved_step(
            lesson.steps[number - 1], record, asked_instance(lesson, number, learner)
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
    score = myth_score(lesson, myths)
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
    return store.first_attempts(None, step_answer=PREDICTION.name, myth=MYTH.name, learner=learner)


def _resume(lesson: Lesson, done: set[int]) -> int | None:
    """A begun lesson's first unanswered step (see app/learning/pages/guided.py)."""
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
    done = sum(1 for record in records.steps.values() if record.done)
    answers = [
        (PREDICTION.name, number, record.answer.fingerprint)
        for number, record in records.steps.items()
        if record.answer is not None
    ]
    answers += [(MYTH.name, number, myth.fingerprint) for number, myth in records.myths.items()]
    return _summary(lesson, done, records.myths, lesson_done(lesson, answers))
