"""The concept inventory's items, for their authors (`gradlab inventory stats`): per item the
share right before and after and its discrimination, per form the mean share right.

An item's discrimination is stated from MIN_ANSWERS_FOR_FLAGS answers on (its n: the tests
that asked it, before and after); below, it is "too few to say" (app/pedagogy/sample_size.py).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from app.lessons.inventory import FORMS, Inventory
from app.pedagogy.sample_size import enough_for_flags
from app.progress.inventory_store import POST, PRE, StoredInventoryAnswer


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


@dataclass(frozen=True)
class ItemStat:
    item: str
    form: str
    concept: str
    pre_answered: int
    pre_right: float | None  # share right on the pre-test
    post_answered: int
    post_right: float | None
    discrimination: float | None  # point-biserial with the rest of the test; None: too few

    @property
    def n(self) -> int:
        return self.pre_answered + self.post_answered

    @property
    def too_few(self) -> bool:
        return not enough_for_flags(self.n)


@dataclass(frozen=True)
class FormStat:
    form: str
    items: int
    pre_difficulty: float | None  # mean share right over the form's items, before
    post_difficulty: float | None


def _point_biserial(pairs: Sequence[tuple[bool, float]]) -> float | None:
    """The correlation between getting the item right and the rest of the test's score."""
    if len(pairs) < 2:
        return None
    right = [rest for ok, rest in pairs if ok]
    wrong = [rest for ok, rest in pairs if not ok]
    rests = [rest for _, rest in pairs]
    spread = math.sqrt(sum((r - _mean(rests)) ** 2 for r in rests) / len(rests))
    if not right or not wrong or spread == 0:
        return None
    share = len(right) / len(pairs)
    return (_mean(right) - _mean(wrong)) / spread * math.sqrt(share * (1 - share))


def item_stats(
    inventory: Inventory, answers: Sequence[StoredInventoryAnswer]
) -> tuple[list[ItemStat], list[FormStat]]:
    """Per item: the share right before and after, and its discrimination: the point-biserial
    correlation between the item and the rest of the same test (the test's score without the
    item), over every test that asked it, before and after. Answers to an item rewritten since
    (another fingerprint) are left out. Per form: the mean share right of its items."""
    tests: dict[tuple[str, str], dict[str, bool]] = defaultdict(dict)
    for a in answers:
        item = inventory.item(a.item)
        if item is not None and item.fingerprint == a.fingerprint:
            tests[(a.learner, a.phase)][a.item] = a.correct
    forms = {(a.learner, a.phase): a.form for a in answers}
    rows = []
    for item in inventory.items:
        shares: dict[str, list[bool]] = {PRE: [], POST: []}
        pairs: list[tuple[bool, float]] = []
        for (learner, phase), marks in tests.items():
            if forms[(learner, phase)] != item.form:
                continue
            ok = marks.get(item.id, False)
            shares[phase].append(ok)
            others = [i.id for i in inventory.form(item.form) if i.id != item.id]
            rest = sum(1 for i in others if marks.get(i)) / len(others) if others else 0.0
            pairs.append((ok, rest))
        rows.append(
            ItemStat(
                item.id,
                item.form,
                item.concept,
                len(shares[PRE]),
                _mean([float(x) for x in shares[PRE]]) if shares[PRE] else None,
                len(shares[POST]),
                _mean([float(x) for x in shares[POST]]) if shares[POST] else None,
                _point_biserial(pairs) if enough_for_flags(len(pairs)) else None,
            )
        )
    per_form = []
    for form in FORMS:
        of_form = [row for row in rows if row.form == form]
        pre = [r.pre_right for r in of_form if r.pre_right is not None]
        post = [r.post_right for r in of_form if r.post_right is not None]
        per_form.append(
            FormStat(form, len(of_form), _mean(pre) if pre else None, _mean(post) if post else None)
        )
    return rows, per_form
