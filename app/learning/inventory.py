"""The concept inventory's arithmetic: which form a learner takes when, a test's score by
concept, the learning gain of a learner and of a class, and the items' statistics.

Scores are percentages. A learner's score on a test is the share of its form's items they
answered right (an item left unanswered counts as not right). The normalized gain of a class
is Hake's (1998) class-average gain over the learners who took both tests:
    <g> = (<post> - <pre>) / (100 - <pre>),
from the class's average pre and post scores (not the average of individual gains, which
the distribution shows). Its 95 % confidence interval is a percentile bootstrap over those
learners (BOOTSTRAP_RESAMPLES resamples with a fixed seed, so the same answers always give the
same interval). A gain is undefined (None) when the average pre score is already 100 %.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from app.lessons.inventory import FORMS, Inventory
from app.progress.inventory_store import POST, PRE, StoredInventoryAnswer

PHASES = (PRE, POST)
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


def lessons_to_skip(inventory: Inventory, test: TestScore) -> list[str]:
    """Lessons every concept of which the learner answered all right (none they missed)."""
    known = {c.concept for c in test.concepts if c.asked and c.right == c.asked}
    needed = {
        slug
        for concept in inventory.concepts
        if concept.id not in known
        for slug in concept.lessons
    }
    return [
        slug
        for concept in inventory.concepts
        if concept.id in known
        for slug in concept.lessons
        if slug not in needed
    ]


# --- a class ---------------------------------------------------------------------------------
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
    gain: float | None


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
    why: str | None
    learners: int


@dataclass(frozen=True)
class ClassGain:
    learners: int  # members
    pre_only: int
    post_only: int
    matched: list[Matched]
    pre: float | None
    post: float | None
    gain: float | None
    interval: tuple[float, float] | None
    concepts: list[ConceptGain]
    bands: list[Band]
    no_gain: int  # matched learners at 100 % before: their own gain is undefined
    held: list[HeldMisconception] = field(default_factory=list)

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
        concepts.append(ConceptGain(concept.id, concept.name, pre, post, gain(pre, post)))
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
        gain=class_average_gain(matched),
        interval=bootstrap_interval(matched),
        concepts=concepts,
        bands=bands,
        no_gain=len(matched) - len(gains),
        held=held_misconceptions(inventory, answers, {m.learner for m in matched}),
    )


# --- the items, for authors ------------------------------------------------------------------
@dataclass(frozen=True)
class ItemStat:
    item: str
    form: str
    concept: str
    pre_answered: int
    pre_right: float | None  # share right on the pre-test
    post_answered: int
    post_right: float | None
    discrimination: float | None  # point-biserial with the rest of the test


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
                _point_biserial(pairs),
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
