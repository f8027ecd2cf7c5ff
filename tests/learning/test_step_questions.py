"""A step's questions are read through their declaration (`Step.questions`, what each
`Question` declares), never field by field: a question kind planted here, with its own field
on a `Step` subclass, is counted by the minutes lint, read by the leak lints, withheld by the
disclosure and the public lesson, and analysed with the class dashboard's first attempts; and
the two edits the hand-written lists had lost (an ordering's minutes, an ordering's
explanation) stay made."""

from __future__ import annotations

import json
from typing import ClassVar

import pytest

from app.learning import kinds
from app.learning.classes.first_attempts import questions
from app.learning.kinds import QuestionKind
from app.learning.kinds.kind import StepItem
from app.lessons.disclosure import Disclosure, asks
from app.lessons.format import Lesson, Ordering, Question, Snippet, Step, StepLevel, Text
from app.lessons.lint_minutes import answering_minutes, interactive_items
from app.lessons.lint_visible import visible_before
from app.lessons.loader import Catalog
from app.lessons.public import public_lesson
from tests.catalogs import BUNDLED, FIXTURES

ASKED = "Is the planted statement about leaf tensors true?"
EXPLAINED = "Only leaves keep a planted explanation of their gradient."
ANSWER = "planted-answer-false"


class TrueOrFalse(Question):
    """A kind no lesson has: a statement the learner calls true or false."""

    hidden: ClassVar[frozenset[str]] = frozenset({"answer", "explanation"})
    withholds_code: ClassVar[bool] = True
    called: ClassVar[str] = "true-or-false question"
    minutes: ClassVar[float] = 2.0

    question: Text
    answer: Text
    explanation: Text

    def outcome(self) -> tuple[str, str] | None:
        return ("its verdict", self.answer)


class PlantedStep(Step):
    truth: TrueOrFalse | None = None

    QUESTIONS: ClassVar[tuple[str, ...]] = (*Step.QUESTIONS, "truth")


def _truth_item(step: Step) -> StepItem | None:
    truth = getattr(step, "truth", None)  # the planted field, as a kind's module reads its own
    if not isinstance(truth, TrueOrFalse):
        return None
    return StepItem(truth.question, truth.answer, {}, ("planted-answer-true", ANSWER))


TRUTH = QuestionKind(
    name="true-or-false",
    label="True or false",
    plural="statements",
    page="step-by-step",
    widget="yes-no",
    confidence=True,
    count_in=lambda lesson: 0,
    anchor="step-{key}",
    step_field="truth",
    step_answer=lambda step: "planted-fingerprint" if _truth_item(step) else None,
    step_item=_truth_item,
)


def _step(truth: TrueOrFalse | None) -> PlantedStep:
    return PlantedStep(
        title="A planted step",
        level=StepLevel.foundation,
        concept="A planted concept.",
        explanation="A planted step explanation.",
        insight="A planted insight.",
        snippet=Snippet(code="x = 1\nprint(x)\n", output="1\n"),
        no_variants="A planted step has none.",
        truth=truth,
    )


def _lesson(truth: TrueOrFalse | None) -> Lesson:
    lesson = FIXTURES.get("first-steps")
    assert lesson is not None
    return lesson.model_copy(update={"steps": [_step(truth), *lesson.steps]})


PLANTED = _lesson(TrueOrFalse(question=ASKED, answer=ANSWER, explanation=EXPLAINED))
PLAIN = _lesson(None)


def test_the_planted_step_asks_its_question() -> None:
    assert [field for field, _ in PLANTED.steps[0].questions()] == ["truth"]
    assert asks(PLANTED.steps[0]) and not asks(PLAIN.steps[0])


def test_the_minutes_lint_counts_it_as_it_declares() -> None:
    assert interactive_items(PLANTED) == interactive_items(PLAIN) + 1
    assert answering_minutes(PLANTED) == answering_minutes(PLAIN) + TrueOrFalse.minutes


def test_the_leak_lints_read_its_text_before_and_its_reveal_after() -> None:
    before_its_commit = {seen.text for seen in visible_before(PLANTED, 1)}
    assert not any(EXPLAINED in text or ANSWER in text for text in before_its_commit)
    after = visible_before(PLANTED, 2)
    assert ("step 1's true-or-false question", ASKED) in [(s.where, s.text) for s in after]
    assert any(EXPLAINED in seen.text for seen in after if seen.where == "step 1's reveal")
    verdict = [seen for seen in after if seen.where == "step 1's reveal (its verdict)"]
    assert [(seen.text, seen.outcome_of) for seen in verdict] == [(ANSWER, 1)]


def test_the_disclosure_withholds_its_step_until_it_is_committed() -> None:
    assert not Disclosure(PLANTED, frozenset()).step_open(1)
    assert Disclosure(PLANTED, frozenset({1})).step_open(1)
    assert Disclosure(PLAIN, frozenset()).step_open(1)
    ((_, only),) = PLANTED.steps[0].questions()
    assert Disclosure(PLANTED, frozenset()).question_open(1, only)  # nothing else to wait for


def test_the_public_lesson_withholds_its_answer_and_what_explains_it() -> None:
    sent = public_lesson(PLANTED).model_dump(mode="json", exclude_unset=True)
    text = json.dumps(sent)
    assert ANSWER not in text and EXPLAINED not in text
    step = sent["steps"][0]
    assert "concept" not in step and "explanation" not in step and "insight" not in step
    assert "snippet" not in step  # it declares that the code is its answer
    plain = public_lesson(PLAIN).steps[0]  # a step that asks nothing is sent whole
    assert plain.explanation == "A planted step explanation." and plain.snippet is not None


def test_first_attempts_analyse_it_as_its_kind_declares(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(kinds._BY_FIELD, "truth", TRUTH)
    found = [q for q in questions(Catalog((PLANTED,))) if q.kind is TRUTH]
    assert [(q.number, q.text, q.answer, q.fingerprint) for q in found] == [
        (1, ASKED, ANSWER, "planted-fingerprint")
    ]
    assert found[0].choices == ("planted-answer-true", ANSWER)
    assert [q.key for q in questions(Catalog((PLAIN,))) if q.kind is TRUTH] == []


def _ordering_steps() -> list[tuple[Lesson, int, Step]]:
    return [
        (lesson, number, step)
        for lesson in BUNDLED.lessons
        for number, step in enumerate(lesson.steps, start=1)
        if step.ordering is not None
    ]


def test_an_ordering_is_counted_in_the_minutes_and_its_explanation_is_read() -> None:
    found = _ordering_steps()
    assert found, "the curriculum has an ordering"
    for lesson, number, step in found:
        assert step.ordering is not None
        unasked = step.model_copy(update={"ordering": None})
        steps = [unasked if s is step else s for s in lesson.steps]
        without = lesson.model_copy(update={"steps": steps})
        assert interactive_items(lesson) == interactive_items(without) + 1
        assert answering_minutes(lesson) == answering_minutes(without) + Ordering.minutes
        # What the step after it is checked against (an ordering often ends its build-up).
        then = lesson.model_copy(update={"steps": [*lesson.steps[:number], unasked]})
        after = " ".join(seen.text for seen in visible_before(then, number + 1))
        assert step.ordering.explanation in after, (lesson.slug, number)
        assert step.ordering.question in after, (lesson.slug, number)
        before = " ".join(seen.text for seen in visible_before(lesson, number))
        assert step.ordering.explanation not in before, (lesson.slug, number)
