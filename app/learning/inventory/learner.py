"""The concept inventory, one learner at a time: which form they take when, the order they see
its choices in, a test's score by concept, and their learning gain (the lessons the pre-test
lets them skip are in `inventory_guide`).

Scores are percentages. A learner's score on a test is the share of its form's items they
answered right (an item left unanswered counts as not right). A gain is Hake's normalized gain,
(post - pre) / (100 - pre), undefined (None) when the pre score is already 100 %. A gain comes
with its n (here: the items of each test) and is "too few to say" below the minimum of
app/pedagogy/sample_size.py: a learner's gain over a whole test is stated, over one concept's
two items never. A class's gain is in `inventory_gain`, the items' statistics in
`inventory_item_stats`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from app.lessons.inventory import FORMS, Inventory
from app.pedagogy.sample_size import MIN_ITEMS_FOR_A_LEARNERS_GAIN, Figure
from app.progress.inventory_store import POST, PRE, StoredInventoryAnswer

PHASES = (PRE, POST)


def forms_for(learner: str) -> dict[str, str]:
    """The form of each phase for this learner: half the learners (by a hash of their id)
    take A before and B after, the other half B before and A after (counterbalanced)."""
    first = FORMS[hashlib.sha256(learner.encode()).digest()[0] % 2]
    second = FORMS[1] if first == FORMS[0] else FORMS[0]
    return {PRE: first, POST: second}


def choice_order(learner: str, item: str, texts: list[str]) -> list[str]:
    """An item's choices in this learner's order (a keyed hash), never the file's."""
    key = learner.encode()[:64]
    return sorted(
        texts,
        key=lambda text: hashlib.blake2b(f"{item}\0{text}".encode(), key=key).digest(),
    )


def gain(pre: float, post: float) -> float | None:
    """Hake's normalized gain from two percentages; None when nothing was left to gain."""
    if pre >= 100:
        return None
    return (post - pre) / (100 - pre)


def learner_gain(pre: ConceptScore | TestScore, post: ConceptScore | TestScore) -> Figure:
    """One learner's gain over a test or one concept of it, with its n: the items asked on
    each test (the fewer of the two)."""
    return Figure(
        gain(pre.percent, post.percent), min(pre.asked, post.asked), MIN_ITEMS_FOR_A_LEARNERS_GAIN
    )


@dataclass(frozen=True)
class ConceptScore:
    concept: str
    right: int
    asked: int

    @property
    def percent(self) -> float:
        return 100 * self.right / self.asked if self.asked else 0.0


@dataclass(frozen=True)
class TestScore:
    """One learner's test: the form, and per concept how many of its items they got right."""

    phase: str
    form: str
    concepts: list[ConceptScore]

    @property
    def right(self) -> int:
        return sum(c.right for c in self.concepts)

    @property
    def asked(self) -> int:
        return sum(c.asked for c in self.concepts)

    @property
    def percent(self) -> float:
        return 100 * self.right / self.asked if self.asked else 0.0

    def concept(self, concept: str) -> ConceptScore:
        return next(c for c in self.concepts if c.concept == concept)


Layout = dict[str, list[tuple[str, list[str]]]]  # form -> [(concept, its items' ids)]


def layout_of(inventory: Inventory) -> Layout:
    """Each form's concepts and their items, read once for many learners' scores."""
    return {
        form: [
            (concept.id, [item.id for item in inventory.asking(concept.id, form)])
            for concept in inventory.concepts
        ]
        for form in FORMS
    }


def score(
    inventory: Inventory,
    phase: str,
    form: str,
    answers: Iterable[StoredInventoryAnswer],
    layout: Layout | None = None,
) -> TestScore:
    """A test's score by concept, over the form's items as the inventory has them now."""
    right = {a.item for a in answers if a.correct and a.phase == phase}
    concepts = (layout or layout_of(inventory))[form]
    return TestScore(
        phase,
        form,
        [
            ConceptScore(concept, sum(1 for i in items if i in right), len(items))
            for concept, items in concepts
        ],
    )


def learner_scores(
    inventory: Inventory,
    answers: Sequence[StoredInventoryAnswer],
    layout: Layout | None = None,
) -> dict[str, TestScore]:
    """The tests one learner took, by phase."""
    forms = {a.phase: a.form for a in answers}
    layout = layout or layout_of(inventory)
    return {
        phase: score(inventory, phase, forms[phase], answers, layout)
        for phase in PHASES
        if phase in forms
    }
