"""A step's ordering (a Parsons problem): put the last lines of the step's code in an order
that prints its output. Each learner is sent the lines in an order of their own; an order is
graded by running it in the sandbox (any order that prints the output without raising is
right), so it is answered through the step route (POST /api/lessons/{slug}/steps/{n}/ordering),
a kind graded by a run, never by the review queue's synchronous answer: in review, that route
answers a due item (as code to write does), and each return shuffles the lines anew. On a
step with variants a return asks one of its instances (the `form` the route is sent), whose
numbers change which order is right."""

from __future__ import annotations

import json
from typing import Annotated

from pydantic import Field

from app.errors import AnswerError
from app.learning.answers import grader
from app.learning.answers.grader import Graded
from app.learning.kinds.kind import (
    Answered,
    Prompt,
    QuestionKind,
    Review,
    ReviewAnswer,
    ReviewOrdering,
    StepItem,
    StepSide,
    item_number,
)
from app.learning.schemas import OrderingReveal
from app.lessons.format import Lesson, Ordering, Step
from app.lessons.format_questions import shuffled
from app.lessons.memo import per_object
from app.lessons.variants import pick
from app.progress.records import StepRecord


def ordering_fingerprint(ordering: Ordering, output: str) -> str:
    # The lines as a set and what they must print: a reordering by the author is the same
    # question (learners see the lines shuffled anyway).
    return ORDERING.fingerprint(ordering.question, sorted(ordering.texts), output)


@per_object  # a hash of its text: once per loaded question (app/lessons/memo.py)
def step_ordering_fingerprint(step: Step) -> str | None:
    if step.ordering is None or step.snippet is None:
        return None
    return ordering_fingerprint(step.ordering, step.snippet.output)


def stored_order(order: list[str]) -> str:
    """An order as its record keeps it (the `choice` of a step's committed answer)."""
    return json.dumps(order, ensure_ascii=False)


def read_order(stored: str) -> list[str]:
    try:
        found = json.loads(stored)
    except ValueError:
        return []
    return [str(line) for line in found] if isinstance(found, list) else []


def _prompt(
    lesson: Lesson,
    key: str,
    order: str,
    learner: str | None,
    asked: int | None,
    seen: frozenset[str] = frozenset(),
) -> Prompt | None:
    number = item_number(key, len(lesson.steps))
    step = lesson.steps[number - 1] if number else None
    fingerprint = step_ordering_fingerprint(step) if step is not None else None
    if step is None or step.ordering is None or step.snippet is None or fingerprint is None:
        return None
    # On a step with variants, each return asks an instance whose numbers change the right
    # order: never the lesson page's code, nor the instance the previous return asked.
    instance = pick(step, order, previous=asked, seen=seen)
    if instance is not None:
        head, lines, output = instance.head, list(instance.lines), instance.output
    else:
        head, lines, output = step.ordering_head, step.ordering.texts, step.snippet.output
    drawn = ReviewOrdering(head, shuffled(lines, f"{order}\0{key}"), output)
    return Prompt(
        lesson,
        ORDERING,
        key,
        f"Step {number}: {step.title}",
        step.ordering.question,
        fingerprint,
        instance=instance,
        form=instance.index if instance is not None else None,
        ordering=drawn,
    )


class OrderingAnswer(ReviewAnswer):
    """An order of the step's lines (on the step's page, or of a review item's instance)."""

    order: list[Annotated[str, Field(max_length=2000)]] = Field(
        max_length=8, description="The step's lines, each once, in the learner's order"
    )


def _grade(prompt: Prompt, answer: ReviewAnswer) -> Graded:
    raise AnswerError(
        "An ordering is graded by running it: send the order to "
        f"/api/lessons/{prompt.lesson.slug}/steps/{prompt.key}/ordering"
    )


def _passes(step: Step, answer: OrderingAnswer, answered: Answered) -> bool:
    if answered.result is None:
        raise ValueError("An ordering is graded by its run: run its program first")
    return grader.order_passes(step, answered.result, answered.form)


def _reveal(
    step: Step, kept: str, correct: bool, attempt: int, answered: Answered
) -> OrderingReveal:
    # A restored order was not run again: its verdict only (the run is None).
    return grader.ordering_reveal(step, correct, attempt, answered.result, answered.form)


def _committed(step: Step, record: StepRecord) -> bool:
    # An order commits its step once given, kept as the step's committed answer (told apart
    # from a choice by its fingerprint).
    saved = record.answer
    return saved is not None and saved.fingerprint == step_ordering_fingerprint(step)


def _item(step: Step) -> StepItem | None:
    # Its answers are the orders learners sent (any of several may be right): no choices.
    if (ordering := step.ordering) is None:
        return None
    return StepItem(ordering.question, stored_order(ordering.texts), {}, ())


ORDERING = QuestionKind(
    name="ordering",
    label="Ordering",
    plural="lines to put in order",
    page="step-by-step",
    widget="ordering",
    confidence=True,
    count_in=lambda lesson: sum(step.ordering is not None for step in lesson.steps),
    review=Review(_prompt, OrderingAnswer, _grade),
    anchor="step-{key}",
    step_field="ordering",
    committed=_committed,
    step_answer=step_ordering_fingerprint,
    form_step=lambda lesson, key: item_number(key, len(lesson.steps)),
    step_item=_item,
    shown=lambda text: " → ".join(f"`{line.strip()}`" for line in read_order(text)),
    step=StepSide(
        keep=lambda answer: stored_order(answer.order),
        sent=lambda text: {"order": read_order(text)},
        grade=_passes,
        reveal=_reveal,
        program=lambda step, answer, asked: grader.ordering_program(step, answer.order, asked.form),
    ),
)
