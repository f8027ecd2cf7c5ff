"""A step's ordering (a Parsons problem): put the last lines of the step's code in an order
that prints its output. Each learner is sent the lines in an order of their own; an order is
graded by running it in the sandbox (any order that prints the output without raising is
right), so it is answered through POST /api/lessons/{slug}/steps/{n}/ordering, never by the
review queue's synchronous answer."""

from __future__ import annotations

import json

from app.learning.kinds.kind import QuestionKind
from app.lessons.schema import Ordering, Step


def ordering_fingerprint(ordering: Ordering, output: str) -> str:
    # The lines as a set and what they must print: a reordering by the author is the same
    # question (learners see the lines shuffled anyway).
    return ORDERING.fingerprint(ordering.question, sorted(ordering.texts), output)


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


ORDERING = QuestionKind(
    name="ordering",
    label="Ordering",
    plural="lines to put in order",
    page="step-by-step",
    widget="ordering",
    confidence=True,
    count_in=lambda lesson: sum(step.ordering is not None for step in lesson.steps),
    anchor="step-{key}",
)
