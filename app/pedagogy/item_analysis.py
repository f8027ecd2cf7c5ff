"""Item analysis of first attempts: how hard each question was, how well it told stronger
learners from weaker ones, and which wrong answers were given with confidence.

Pure functions over plain answers; the class dashboard and `gradlab stats` call them.

- **Difficulty** is the share of first attempts that were right (a "p-value" in the testing
  literature: high means easy).
- **Discrimination** is the point-biserial correlation between being right on this item (0 or 1)
  and the learner's total: the share of all their first attempts, across every item, that were
  right. It is Pearson's r of those two columns over the learners who answered the item, as
  `scipy.stats.pointbiserialr` computes it. Near zero: the item does not separate learners;
  negative: the stronger learners got it wrong more often than the weaker, which usually means
  the question or its key is misleading.
- **Held with confidence**: the share of first attempts that picked the item's most-picked
  wrong choice while "fairly sure" or "certain": a belief the class holds, not a slip.

Flags need MIN_ANSWERS_FOR_FLAGS first attempts (app/pedagogy/sample_size.py); a held
misconception ranks above every other flag (app/learning/classes/question_figures.py `by_concern`).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

from app.pedagogy.sample_size import MIN_ANSWERS_FOR_FLAGS, enough_for_flags

SURE = frozenset({"fairly_sure", "certain"})
# How much a wrong answer given at each confidence says about a held misconception.
CONFIDENCE_WEIGHT = {"guess": 1.0, "fairly_sure": 2.0, "certain": 3.0}
EASY = 0.95  # nearly everyone right
HARD = 0.10  # nearly no one right
HELD = 0.5  # one wrong choice picked while sure by half the answers or more: a held belief
HELD_FLAG = "misconception held with confidence"


class Answer(NamedTuple):
    """One first attempt, as item analysis needs it (a tuple: a large class has many)."""

    learner: str
    item: Hashable
    choice: str
    correct: bool
    confidence: str | None = None


@dataclass(frozen=True)
class ItemFigures:
    item: Hashable
    answered: int
    right: int
    choices: dict[str, int]  # choice text -> how many picked it first
    sure_wrong: int  # wrong while "fairly sure" or "certain"
    discrimination: float | None  # None: too few learners, or no spread
    flags: tuple[str, ...] = field(default=())
    held: int = 0  # picked its most confidently picked wrong choice while sure

    flags_need: int = MIN_ANSWERS_FOR_FLAGS  # answers a flag needs (below: too few to say)

    @property
    def too_few_for_flags(self) -> bool:
        return not enough_for_flags(self.answered)

    @property
    def held_share(self) -> float | None:
        return self.held / self.answered if self.answered else None

    @property
    def difficulty(self) -> float | None:
        return self.right / self.answered if self.answered else None

    @property
    def sure_wrong_share(self) -> float | None:
        return self.sure_wrong / self.answered if self.answered else None


def learner_totals(answers: Iterable[Answer]) -> dict[str, float]:
    """Each learner's share of right first attempts, over every item they answered."""
    right: Counter[str] = Counter()
    seen: Counter[str] = Counter()
    for answer in answers:
        seen[answer.learner] += 1
        right[answer.learner] += answer.correct
    return {learner: right[learner] / seen[learner] for learner in seen}


def point_biserial(flags: list[bool], totals: list[float]) -> float | None:
    """Pearson's r between a 0/1 column and a continuous one; None without spread in either."""
    n = len(flags)
    if n < 2 or n != len(totals):
        return None
    xs = [1.0 if flag else 0.0 for flag in flags]
    mean_x, mean_y = sum(xs) / n, sum(totals) / n
    sxy = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, totals, strict=True))
    sxx = sum((x - mean_x) ** 2 for x in xs)
    syy = sum((y - mean_y) ** 2 for y in totals)
    if sxx == 0 or syy == 0:
        return None
    return sxy / math.sqrt(sxx * syy)


def flags_for(
    answered: int, right: int, discrimination: float | None, held: int = 0
) -> tuple[str, ...]:
    """What a teacher or an author should look at: a misconception held with confidence, too
    easy, too hard, or backwards; nothing below the minimum number of answers."""
    if not enough_for_flags(answered):
        return ()
    found = []
    if held / answered >= HELD:
        found.append(HELD_FLAG)
    if right / answered >= EASY:
        found.append("nearly everyone right")
    if right / answered <= HARD:
        found.append("nearly no one right")
    if discrimination is not None and discrimination < 0:
        found.append("negative discrimination")
    return tuple(found)


def analyse(answers: list[Answer]) -> dict[Hashable, ItemFigures]:
    """Figures for every item that has at least one first attempt."""
    totals = learner_totals(answers)
    by_item: dict[Hashable, list[Answer]] = defaultdict(list)
    for answer in answers:
        by_item[answer.item].append(answer)
    figures: dict[Hashable, ItemFigures] = {}
    for item, given in by_item.items():
        right = sum(answer.correct for answer in given)
        discrimination = point_biserial(
            [answer.correct for answer in given], [totals[answer.learner] for answer in given]
        )
        sure_wrong = Counter(a.choice for a in given if not a.correct and a.confidence in SURE)
        held = max(sure_wrong.values(), default=0)
        figures[item] = ItemFigures(
            item=item,
            answered=len(given),
            right=right,
            choices=dict(Counter(answer.choice for answer in given)),
            sure_wrong=sum(sure_wrong.values()),
            discrimination=discrimination,
            flags=flags_for(len(given), right, discrimination, held),
            held=held,
        )
    return figures


def misconception_weight(answers: Iterable[Answer]) -> dict[tuple[Hashable, str], float]:
    """(item, wrong choice) -> the weight of the wrong first attempts that picked it: each
    counts by its confidence (a certain wrong answer says more than a guess)."""
    weights: dict[tuple[Hashable, str], float] = defaultdict(float)
    for answer in answers:
        if not answer.correct:
            weights[(answer.item, answer.choice)] += CONFIDENCE_WEIGHT.get(
                answer.confidence or "", 1.0
            )
    return dict(weights)
