"""The concept inventory's format: a test taken before the path and again after it, in two
parallel forms, whose items are asked in the lesson format's own terms.

The inventory is `inventory.yaml` in a lessons folder (the first folder of
`GRADLAB_LESSONS_DIR` that has one; the bundled one is beside the bundled lessons), loaded with
the lessons (app/lessons/loader.py) and checked by `gradlab check` as a step is
(app/lessons/inventory_check.py): each item's code runs in the sandbox and its answer must be
what the run prints, or the error it raises.

Each concept names the lessons that teach it; each item asks one concept, in form A or B. A
concept has as many items in form A as in form B, so the forms are parallel: a learner takes
one before the path and the other after it (app/learning/inventory/learner.py decides which).
"""

from __future__ import annotations

import hashlib
from functools import cached_property
from typing import Annotated, Literal

from pydantic import Field, model_validator

from app.lessons.format_base import Slug, Snippet, Strict, Text
from app.lessons.format_questions import ChoicePrediction

INVENTORY_FILE = "inventory.yaml"  # its name in a lessons folder; never read as a lesson
FORMS = ("A", "B")
Form = Literal["A", "B"]


class Concept(Strict):
    """One idea the path teaches, and the lessons (slugs) that teach it. `summary` explains
    the idea in a sentence or two (Markdown): what a learner who missed it reads after a test,
    instead of any item's answer, so it states the rule, never an item's key."""

    id: Slug
    name: Text
    summary: Text
    lessons: Annotated[list[Slug], Field(min_length=1)]


class Item(Strict):
    """One question of the inventory: code, and a choice prediction about what it does.

    The answer is what the code prints (white space aside, as torch pads what it prints) or,
    when the snippet declares an `error`, a choice that names that error's type. Every wrong
    choice says in `why` what the belief behind it gets wrong; the prediction's
    `explanation` says why the answer is right. Neither is sent before the post-test is done.
    """

    id: Slug
    form: Form
    concept: Slug
    snippet: Snippet
    prediction: ChoicePrediction

    @cached_property
    def fingerprint(self) -> str:
        """What makes it this question: its code, question, choices and answer."""
        parts = [self.snippet.code, self.prediction.question, self.prediction.answer]
        parts += self.prediction.texts
        return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:32]


class Inventory(Strict):
    format: Literal[1]
    title: Text
    # About how long one form takes, as the offer says.
    minutes: Annotated[int, Field(ge=1, le=60)]
    concepts: Annotated[list[Concept], Field(min_length=1)]
    items: Annotated[list[Item], Field(min_length=2)]

    @model_validator(mode="after")
    def _forms_are_parallel(self) -> Inventory:
        concept_ids = [concept.id for concept in self.concepts]
        if len(set(concept_ids)) != len(concept_ids):
            raise ValueError("concepts: two concepts have the same id")
        item_ids = [item.id for item in self.items]
        duplicates = sorted({i for i in item_ids if item_ids.count(i) > 1})
        if duplicates:
            raise ValueError(f"items: the id {duplicates[0]!r} is used twice")
        for item in self.items:
            if item.concept not in concept_ids:
                raise ValueError(f"items: {item.id}: no concept {item.concept!r}")
        for concept in concept_ids:
            counts = {form: len(self.asking(concept, form)) for form in FORMS}
            if counts["A"] != counts["B"] or not counts["A"]:
                raise ValueError(
                    f"concepts: {concept}: {counts['A']} item(s) in form A and {counts['B']} in "
                    "form B; parallel forms ask each concept as often, at least once"
                )
        return self

    def asking(self, concept: str, form: str) -> list[Item]:
        return [item for item in self.items if item.concept == concept and item.form == form]

    def form(self, form: str) -> list[Item]:
        """The items of one form, in the file's order."""
        return [item for item in self.items if item.form == form]

    def item(self, item_id: str) -> Item | None:
        return next((item for item in self.items if item.id == item_id), None)

    def concept(self, concept_id: str) -> Concept:
        return next(concept for concept in self.concepts if concept.id == concept_id)
