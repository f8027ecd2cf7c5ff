"""How many observations a figure needs before gradlab states it: below its minimum, a gain or
a flag says "too few to say" instead of a number. One set of rules, read by the class
dashboard, its JSON and CSV, a learner's progress page and `gradlab inventory stats` /
`gradlab stats` (docs/teaching.md states them).

- A **learner's gain** is over the items of each test: 20 for the whole inventory, 2 for one
  concept. Two guessed answers can move a concept from 0 to 100 %, so a learner's concept gain
  is never stated; their gain over the whole test is.
- A **class's gain** is over its learners who took both tests; a **concept's gain** in a class
  over the same learners, two items each.
- An **item's flags** (nearly everyone right, nearly no one right, negative discrimination,
  sure but wrong) need MIN_ANSWERS_FOR_FLAGS answers: a correlation over five answers is
  noise.
"""

from __future__ import annotations

from dataclasses import dataclass

TOO_FEW = "too few to say"
MIN_ITEMS_FOR_A_LEARNERS_GAIN = 10  # items on each test
MIN_LEARNERS_FOR_A_CLASS_GAIN = 5  # learners with both tests
MIN_LEARNERS_FOR_A_CONCEPT_GAIN = 10  # learners with both tests (2 items each, each test)
MIN_ANSWERS_FOR_FLAGS = 20  # answers to the item


@dataclass(frozen=True)
class Figure:
    """A statistic with its n. `value` is None when there are too few observations (then
    `too_few` is True) or when the statistic is undefined (a gain from 100 % before)."""

    value: float | None
    n: int
    minimum: int

    @property
    def too_few(self) -> bool:
        return self.n < self.minimum

    @property
    def stated(self) -> float | None:
        """The value, when there are enough observations to state it."""
        return None if self.too_few else self.value

    def shown(self, digits: int = 2) -> str:
        """As a page or a table prints it: the number, "too few to say", or "—" (undefined)."""
        if self.too_few:
            return TOO_FEW
        return "—" if self.value is None else f"{self.value:.{digits}f}"


def enough_for_flags(answered: int) -> bool:
    return answered >= MIN_ANSWERS_FOR_FLAGS
