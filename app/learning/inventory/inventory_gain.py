"""A class's learning gain on the concept inventory: its learners who took both tests, the
gain by concept and in Hake's bands, and the misconceptions still held with confidence after.

The normalized gain of a class is Hake's (1998) class-average gain over the learners who took
both tests:
    <g> = (<post> - <pre>) / (100 - <pre>),
from the class's average pre and post scores (not the average of individual gains, which
the distribution shows). Its 95 % confidence interval is a percentile bootstrap over those
learners (BOOTSTRAP_RESAMPLES resamples with a fixed seed, so the same answers always give the
same interval). A gain is undefined (None) when the average pre score is already 100 %.

Each gain carries its n (the learners with both tests) and is "too few to say" below the
minimum of app/pedagogy/sample_size.py: the class's gain and its interval below
MIN_LEARNERS_FOR_A_CLASS_GAIN, a concept's below MIN_LEARNERS_FOR_A_CONCEPT_GAIN. The
dashboard, its JSON and CSV and `gradlab inventory stats` all read these figures.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from app.learning.inventory.learner import TestScore, gain, layout_of, learner_scores
from app.lessons.inventory import Inventory
from app.pedagogy.sample_size import (
    MIN_LEARNERS_FOR_A_CLASS_GAIN,
    MIN_LEARNERS_FOR_A_CONCEPT_GAIN,
    Figure,
)
from app.progress.inventory_store import POST, PRE, StoredInventoryAnswer

BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 20260101
# Hake's bands of normalized gain: low below 0.3, medium up to 0.7, high from 0.7.
GAIN_BANDS: tuple[tuple[str, float, float], ...] = (
    ("below 0", -math.inf, 0.0),
    ("low (0 to 0.3)", 0.0, 0.3),
    ("medium (0.3 to 0.7)", 0.3, 0.7),
    ("high (0.7 and up)", 0.7, math.inf),
)
SURE = ("certain", "fairly_sure")


@dataclass(frozen=True)
class Matched:
    """A learner who took both tests."""

    learner: str
    pre: TestScore
    post: TestScore

    @property
    def gain(self) -> float | None:
        return gain(self.pre.percent, self.post.percent)


@dataclass(frozen=True)
class ConceptGain:
    concept: str
    name: str
    pre: float
    post: float
    gain: Figure  # n: the learners with both tests


@dataclass(frozen=True)
class Band:
    label: str
    learners: int


@dataclass(frozen=True)
class HeldMisconception:
    """A wrong choice still picked on the post-test with confidence."""

    item: str
    concept: str
    concept_name: str
    question: str
    choice: str
    why: str | None  # what the item tells a learner who picked it (never sent to one)
    learners: int
    belief: str | None = None  # the belief behind the choice, in a teacher's words


@dataclass(frozen=True)
class ConceptBefore:
    """What a class knew of a concept before the path: of its members who took the pre-test
    (n), the share who answered both of the concept's questions right (None below the
    minimum, as a concept's gain)."""

    concept: str
    name: str
    known: Figure


@dataclass(frozen=True)
class ClassGain:
    learners: int  # members
    pre_only: int
    post_only: int
    matched: list[Matched]
    pre: float | None
    post: float | None
    gain: Figure  # n: the learners with both tests
    interval: tuple[float, float] | None  # None below the class gain's minimum n
    concepts: list[ConceptGain]
    bands: list[Band]
    no_gain: int  # matched learners at 100 % before: their own gain is undefined
    held: list[HeldMisconception] = field(default_factory=list)
    before: list[ConceptBefore] = field(default_factory=list)  # every member's pre-test

    @property
    def count(self) -> int:
        return len(self.matched)


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def class_average_gain(matched: Sequence[Matched]) -> float | None:
    if not matched:
        return None
    return gain(_mean([m.pre.percent for m in matched]), _mean([m.post.percent for m in matched]))


def bootstrap_interval(
    matched: Sequence[Matched], resamples: int = BOOTSTRAP_RESAMPLES, seed: int = BOOTSTRAP_SEED
) -> tuple[float, float] | None:
    """A 95 % percentile bootstrap interval of the class-average gain, resampling learners
    (with a fixed seed, over their scores in sorted order: reproducible)."""
    if len(matched) < 2:
        return None
    rng = random.Random(seed)  # noqa: S311 - a statistic, not a secret: reproducible on purpose
    # In a fixed order: the same learners' scores give the same interval, however listed.
    pairs = sorted((m.pre.percent, m.post.percent) for m in matched)
    pre = [p for p, _ in pairs]
    post = [q for _, q in pairs]
    places = range(len(matched))
    draws = []
    for _ in range(resamples):
        picked = rng.choices(places, k=len(places))
        found = gain(
            sum(map(pre.__getitem__, picked)) / len(picked),
            sum(map(post.__getitem__, picked)) / len(picked),
        )
        if found is not None:
            draws.append(found)
    if not draws:
        return None
    draws.sort()
    low = draws[int(0.025 * (len(draws) - 1))]
    high = draws[math.ceil(0.975 * (len(draws) - 1))]
    return low, high


def known_before(
    inventory: Inventory, answers: Iterable[StoredInventoryAnswer], learners: Iterable[str]
) -> list[ConceptBefore]:
    """Per concept, the share of the members who took the pre-test (matched or not) who
    answered both its questions right: what the class knew before the path."""
    by_learner: dict[str, list[StoredInventoryAnswer]] = defaultdict(list)
    for answer in answers:
        by_learner[answer.learner].append(answer)
    layout = layout_of(inventory)
    pre = [
        tests[PRE]
        for learner in learners
        if PRE in (tests := learner_scores(inventory, by_learner.get(learner, []), layout))
    ]
    found = []
    for concept in inventory.concepts:
        knew = sum(1 for test in pre if (c := test.concept(concept.id)).right == c.asked)
        share = knew / len(pre) if pre else None
        figure = Figure(share, len(pre), MIN_LEARNERS_FOR_A_CONCEPT_GAIN)
        found.append(ConceptBefore(concept.id, concept.name, figure))
    return found


def matched_learners(
    inventory: Inventory, answers: Iterable[StoredInventoryAnswer], learners: Iterable[str]
) -> tuple[list[Matched], int, int]:
    """Learners with both tests, and how many took only the pre-test and only the post-test."""
    by_learner: dict[str, list[StoredInventoryAnswer]] = defaultdict(list)
    for answer in answers:
        by_learner[answer.learner].append(answer)
    matched, pre_only, post_only = [], 0, 0
    layout = layout_of(inventory)
    for learner in learners:
        tests = learner_scores(inventory, by_learner.get(learner, []), layout)
        if PRE in tests and POST in tests:
            matched.append(Matched(learner, tests[PRE], tests[POST]))
        elif PRE in tests:
            pre_only += 1
        elif POST in tests:
            post_only += 1
    return matched, pre_only, post_only


def held_misconceptions(
    inventory: Inventory, answers: Iterable[StoredInventoryAnswer], learners: set[str]
) -> list[HeldMisconception]:
    """Post-test wrong choices picked as "certain" or "fairly sure", most held first."""
    counts: dict[tuple[str, str], set[str]] = defaultdict(set)
    for a in answers:
        if a.phase == POST and not a.correct and a.confidence in SURE and a.learner in learners:
            counts[(a.item, a.choice)].add(a.learner)
    held = []
    for (item_id, choice), who in counts.items():
        item = inventory.item(item_id)
        if item is None:
            continue
        picked = item.prediction.choice(choice)
        held.append(
            HeldMisconception(
                item_id,
                item.concept,
                inventory.concept(item.concept).name,
                item.prediction.question,
                choice,
                picked.why if picked else None,
                len(who),
                picked.misconception if picked else None,
            )
        )
    return sorted(held, key=lambda h: (-h.learners, h.item, h.choice))


def class_gain(
    inventory: Inventory, answers: Sequence[StoredInventoryAnswer], learners: Sequence[str]
) -> ClassGain:
    matched, pre_only, post_only = matched_learners(inventory, answers, learners)
    concepts = []
    for concept in inventory.concepts:
        if not matched:
            break
        pre = _mean([m.pre.concept(concept.id).percent for m in matched])
        post = _mean([m.post.concept(concept.id).percent for m in matched])
        found = Figure(gain(pre, post), len(matched), MIN_LEARNERS_FOR_A_CONCEPT_GAIN)
        concepts.append(ConceptGain(concept.id, concept.name, pre, post, found))
    gains = [g for m in matched if (g := m.gain) is not None]
    bands = [
        Band(label, sum(1 for g in gains if low <= g < high)) for label, low, high in GAIN_BANDS
    ]
    return ClassGain(
        learners=len(learners),
        pre_only=pre_only,
        post_only=post_only,
        matched=matched,
        pre=_mean([m.pre.percent for m in matched]) if matched else None,
        post=_mean([m.post.percent for m in matched]) if matched else None,
        gain=Figure(class_average_gain(matched), len(matched), MIN_LEARNERS_FOR_A_CLASS_GAIN),
        interval=(
            bootstrap_interval(matched) if len(matched) >= MIN_LEARNERS_FOR_A_CLASS_GAIN else None
        ),
        concepts=concepts,
        bands=bands,
        no_gain=len(matched) - len(gains),
        held=held_misconceptions(inventory, answers, {m.learner for m in matched}),
        before=known_before(inventory, answers, learners),
    )
