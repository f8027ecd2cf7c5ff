"""A myth: a common belief, answered yes or no; its belief and reality travel only in the
reveal. A myth with other forms (`forms`, app/lessons/format.py) is asked in review as one of
them, never as the lesson page's question: picked by the return's own key, not the form the
previous return asked while another remains, then (while another remains) not one the learner
was shown (by a review or a fresh round of myth busters, app/learning/practice/seen.py), then
not the one the next fresh round will ask; graded against that form's answer.

Fresh rounds of myth busters go through a myth's other forms in an order of the learner's own,
one form a round: the round is counted from the learner's answers to the myth, so that each
round asks another form than the rounds before while one remains."""

from __future__ import annotations

from app.learning.answers import grader
from app.learning.answers.grader import Graded
from app.learning.kinds.kind import Prompt, QuestionKind, Review, ReviewAnswer, item_number
from app.learning.schemas import YesNo
from app.lessons.format import Lesson, Myth
from app.lessons.memo import per_object
from app.lessons.variants import choose, code_print


@per_object  # a hash of its text: once per loaded question (app/lessons/memo.py)
def myth_fingerprint(myth: Myth) -> str:
    return MYTH.fingerprint(myth.question, myth.answer)


def myth_round_form(lesson: Lesson, number: int, learner: str, answered: int) -> int:
    """The form a fresh round of myth busters asks myth `number` as, once the learner has
    answered it `answered` times: the first round (after the lesson page's answer) starts at a
    form of the learner's own, and each round after it asks the next form, so that no form
    comes back before every other one was asked. Reads nothing: the same on every visit
    until the learner answers it again."""
    count = len(lesson.myths[number - 1].forms)
    start = choose(count, f"{learner}/myth-busters/{lesson.slug}/{number}")
    return (start + max(answered - 1, 0)) % count


def form_print(question: str) -> str:
    """Names a myth's form as `seen` holds it (its question's text, as code is held)."""
    return code_print(question)


def next_round_print(question: str) -> str:
    """Names the form the next fresh round of myth busters will ask, in `seen`."""
    return code_print(f"the next round of myth busters asks: {question}")


def rounds_seen(lesson: Lesson, number: int, learner: str, answered: int) -> list[str]:
    """What fresh rounds showed of myth `number` once answered `answered` times (the forms
    of the rounds played, each answer after the first being one) and the form the next round
    will ask, as `seen` names them."""
    myth = lesson.myths[number - 1]
    if not myth.forms:
        return []
    played = [
        form_print(myth.forms[myth_round_form(lesson, number, learner, answers)].question)
        for answers in range(1, answered)
    ]
    upcoming = myth.forms[myth_round_form(lesson, number, learner, answered)].question
    return [*played, next_round_print(upcoming)]


def _form(myth: Myth, order: str, asked: int | None, seen: frozenset[str]) -> int:
    """The form a return asks (see the module)."""
    forms = list(range(len(myth.forms)))
    fresh = [form for form in forms if form != asked] or forms
    unseen = [form for form in fresh if form_print(myth.forms[form].question) not in seen]
    later = [
        form for form in unseen or fresh if next_round_print(myth.forms[form].question) not in seen
    ]
    chosen = later or unseen or fresh
    return chosen[choose(len(chosen), order)]


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
    form = _form(myth, order, asked, seen) if myth.forms else None
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


def _form_text(lesson: Lesson, key: str, form: int) -> str | None:
    number = item_number(key, len(lesson.myths))
    forms = lesson.myths[number - 1].forms if number is not None else []
    return forms[form].question if 0 <= form < len(forms) else None


MYTH = QuestionKind(
    name="myth",
    label="Myth",
    plural="myths",
    page="myth-busters",
    widget="yes-no",
    confidence=True,
    count_in=lambda lesson: len(lesson.myths),
    review=Review(_prompt, YesNoAnswer, _grade),
    form_text=_form_text,
)
