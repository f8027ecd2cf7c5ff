"""The inventory's arithmetic against independent computations: Hake's gain, the bootstrap
interval, and each item's discrimination against scipy's point-biserial correlation."""

from __future__ import annotations

import random
from datetime import UTC, datetime

import pytest
from scipy.stats import pointbiserialr

from app.config.paths import BUNDLED_LESSONS
from app.learning.inventory.inventory_gain import bootstrap_interval, class_gain, matched_learners
from app.learning.inventory.inventory_item_stats import item_stats
from app.learning.inventory.learner import gain
from app.lessons.inventory import Inventory
from app.lessons.loader import load_catalog
from app.progress.inventory_store import StoredInventoryAnswer

INVENTORY: Inventory = load_catalog(BUNDLED_LESSONS).inventory  # type: ignore[assignment]
NOW = datetime(2026, 1, 1, tzinfo=UTC)


def sitting(learner: str, phase: str, form: str, right: set[str]) -> list[StoredInventoryAnswer]:
    return [
        StoredInventoryAnswer(
            learner,
            phase,
            form,
            item.id,
            item.prediction.answer if item.id in right else "x",
            item.id in right,
            "guess",
            item.fingerprint,
            NOW,
        )
        for item in INVENTORY.form(form)
    ]


def test_hakes_gain() -> None:
    assert gain(40, 70) == pytest.approx(0.5)
    assert gain(50, 25) == pytest.approx(-0.5)
    assert gain(100, 100) is None


def simulated(learners: int, seed: int) -> list[StoredInventoryAnswer]:
    rng = random.Random(seed)  # noqa: S311 - simulated learners, not a secret
    answers = []
    for n in range(learners):
        ability = rng.random()
        for phase, form, boost in (("pre", "A", 0.0), ("post", "B", 0.3)):
            right = {
                item.id
                for item in INVENTORY.form(form)
                if rng.random() < min(1.0, ability * 0.7 + boost)
            }
            answers += sitting(f"l{n}", phase, form, right)
    return answers


def test_the_interval_is_reproducible_and_holds_the_gain() -> None:
    answers = simulated(30, seed=3)
    matched, _, _ = matched_learners(INVENTORY, answers, [f"l{n}" for n in range(30)])
    found = class_gain(INVENTORY, answers, [f"l{n}" for n in range(30)])
    assert found.interval == bootstrap_interval(matched)  # a fixed seed: the same interval
    low, high = found.interval  # type: ignore[misc]
    value = found.gain.stated
    assert value is not None and low < value < high and found.gain.n == 30
    assert high - low < 0.5
    assert bootstrap_interval(matched[::-1]) == found.interval  # the order does not matter
    assert bootstrap_interval(matched[:1]) is None  # one learner: no interval


def test_discrimination_is_scipys_point_biserial_with_the_rest_of_the_test() -> None:
    answers = simulated(40, seed=5)
    rows, forms = item_stats(INVENTORY, answers)
    form_a = INVENTORY.form("A")
    by_learner: dict[str, set[str]] = {}
    for a in answers:
        if a.form == "A" and a.correct:
            by_learner.setdefault(a.learner, set()).add(a.item)
    for row in rows:
        if row.form != "A":
            continue
        others = [i.id for i in form_a if i.id != row.item]
        learners = [f"l{n}" for n in range(40)]
        marks = [float(row.item in by_learner.get(who, set())) for who in learners]
        rests = [
            sum(1 for i in others if i in by_learner.get(who, set())) / len(others)
            for who in learners
        ]
        if len(set(marks)) < 2:
            assert row.discrimination is None
            continue
        expected = pointbiserialr(marks, rests).statistic
        assert row.discrimination == pytest.approx(expected, abs=1e-9), row.item
    assert [f.form for f in forms] == ["A", "B"]
    assert forms[0].pre_difficulty is not None and forms[0].post_difficulty is None
