"""A myth: a common belief, answered yes or no; its belief and reality travel only in the
reveal. A myth with other forms (`forms`, app/lessons/format.py) is asked in review as one of
them, never as the lesson page's question: picked by the return's own key, and not the form
the previous return asked while another remains; graded against that form's answer."""

from __future__ import annotations

from app.learning import grader
from app.learning.grader import Graded
from app.learning.kinds.kind import Prompt, QuestionKind, Review, ReviewAnswer, item_number
from app.learning.schemas import YesNo
from app.lessons.format import Lesson, Myth
from app.lessons.memo import per_object
from app.lessons.variants import choose


@per_object  # a hash of its text: once per loaded question (app/lessons/memo.py)
def myth_fingerprint(myth: Myth) -> str:
    return MYTH.fingerprint(myth.question, myth.answer)


def myth_round_form(lesson: Lesson, number: int, learner: str) -> int:
    """The form a fresh round of myth busters asks myth `number` as: one of its other forms,
    the same for a learner on every visit (so that the page and its answer agree)."""
    return choose(
        len(lesson.myths[number - 1].forms), f"{learner}/myth-busters/{lesson.slug}/{number}"
    )


def _prompt(
    lesson: Lesson,
    key: str,
    order: str,
    learner: str | None,
    asked: int | None,
    seen: frozenset[str] = frozenset(),
) -> Prompt | None:
    number = item_number(key, len(lesson.myths))
    if number is None:
        return None
    myth = lesson.myths[number - 1]
    # The card names the myth (its fingerprint is the lesson's question): a form is how this
    # return asks it.
    # Not the form the previous return asked, nor (while another remains) the one a fresh
    # round of myth busters asks this learner.
    shown = myth_round_form(lesson, number, learner) if learner and myth.forms else None
    form = choose(len(myth.forms), order, previous=asked, seen=shown) if myth.forms else None
    question = myth.forms[form].question if form is not None else myth.question
    source = f"Myth {number}"
    return Prompt(lesson, MYTH, key, source, question, myth_fingerprint(myth), form=form)


class YesNoAnswer(ReviewAnswer):
    """A myth answered in review: yes or no."""

    answer: YesNo


def _grade(prompt: Prompt, answer: YesNoAnswer) -> Graded:
    myth = prompt.lesson.myths[int(prompt.key) - 1]
    if prompt.form is not None:
        return grader.graded_myth_form(myth, myth.forms[prompt.form], answer.answer)
    return grader.graded_myth(myth, answer.answer)


MYTH = QuestionKind(
    name="myth",
    label="Myth",
    plural="myths",
    page="myth-busters",
    widget="yes-no",
    confidence=True,
    count_in=lambda lesson: len(lesson.myths),
    review=Review(_prompt, YesNoAnswer, _grade),
)
