"""The concept inventory as a learner and a teacher meet it: the pre-test offered on a first
visit, the post-test once the path is finished (or when asked for), each graded on the server
with no feedback until the end; a learner's gain on /progress, a class's on its dashboard.

"The path is finished" is the project's notion of a lesson done, for every lesson: each of its
steps done (the catalog's "steps done of total"). The catalog's offer (the pre-test, then
the post-test once the path is finished) costs no query for a learner whose cookie says what
they took or that they said "not now"; for another learner, one query of their phases.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from app import rendering
from app.errors import (
    InventoryOutOfOrder,
    InventoryTaken,
    NoInventory,
    NotAChoice,
    NotInThisForm,
)
from app.learning.inventory import (
    PHASES,
    TestScore,
    choice_order,
    forms_for,
    gain,
    learner_scores,
    lessons_to_skip,
)
from app.learning.inventory_gain import ClassGain, class_gain
from app.learning.inventory_schemas import (
    BandOut,
    ClassGainOut,
    ConceptGainOut,
    ConceptResultOut,
    HeldOut,
    InventoryBody,
    InventoryItemOut,
    InventoryResultOut,
    InventoryTestOut,
    ItemRevealOut,
    MyInventoryOut,
    TestScoreOut,
)
from app.lessons.inventory import FORMS, Inventory
from app.lessons.loader import Catalog
from app.progress.classes_store import ClassInfo
from app.progress.inventory_store import POST, PRE, InventoryRecord, StoredInventoryAnswer
from app.progress.store import ProgressStore

# What the signed cookie keeps of the learner's decision (the routes' INVENTORY_KEY): the phase
# last taken, or "not now" on a date.
SKIPPED = "skipped:"  # + the date; the offer comes back SKIP_DAYS later
SKIP_DAYS = 3


def skipped_lately(flag: object, today: date) -> bool:
    """Did the learner say "not now" to the pre-test less than SKIP_DAYS ago?"""
    if not isinstance(flag, str) or not flag.startswith(SKIPPED):
        return False
    try:
        skipped = date.fromisoformat(flag.removeprefix(SKIPPED))
    except ValueError:
        return False
    return today - skipped < timedelta(days=SKIP_DAYS)


@dataclass(frozen=True)
class Offer:
    """What the catalog offers of the inventory: the pre-test, or the post-test once the path
    is finished."""

    phase: str
    minutes: int
    items: int


class InventoryTests:
    def __init__(self, catalog: Catalog, store: ProgressStore) -> None:
        self.catalog = catalog
        self.store = store

    @property
    def inventory(self) -> Inventory:
        if self.catalog.inventory is None:
            raise NoInventory("This gradlab's lessons come without a concept inventory.")
        return self.catalog.inventory

    # --- a learner ---------------------------------------------------------------------------
    def path_finished(self, learner: str) -> bool:
        return finished(self.catalog, self.store.steps_done(learner))

    def offer(
        self, learner: str | None, flag: object, done: Mapping[str, int], today: date
    ) -> Offer | None:
        """The catalog's offer: the pre-test to a learner who has not taken it (nor said "not
        now" lately), the post-test to one who took the pre-test and has finished the path.
        `flag` is what the cookie says (the phase last taken, or "not now"), `done` the steps
        done per lesson the catalog read anyway: a learner whose cookie tells costs no query."""
        inventory = self.catalog.inventory
        if inventory is None or flag == POST or skipped_lately(flag, today):
            return None
        if flag == PRE:
            taken = {PRE}
        elif learner is None:
            taken = set()
        else:
            taken = self.store.inventory_phases(learner)
        items = len(inventory.form(FORMS[0]))
        if PRE not in taken:
            return Offer(PRE, inventory.minutes, items)
        if POST not in taken and finished(self.catalog, done):
            return Offer(POST, inventory.minutes, items)
        return None

    def test(self, learner: str, phase: str) -> InventoryTestOut:
        """This learner's form of the test, without answers or whys."""
        inventory = self.inventory
        taken = self.store.inventory_phases(learner)
        if phase == POST and PRE not in taken:
            raise InventoryOutOfOrder("The post-test comes after the pre-test: take that first.")
        form = forms_for(learner)[phase]
        return InventoryTestOut(
            phase=phase,  # type: ignore[arg-type]
            form=form,  # type: ignore[arg-type]
            title=inventory.title,
            minutes=inventory.minutes,
            taken=phase in taken,
            items=[
                InventoryItemOut(
                    id=item.id,
                    concept=item.concept,
                    concept_name=inventory.concept(item.concept).name,
                    code=item.snippet.code,
                    question=item.prediction.question,
                    choices=choice_order(learner, item.id, item.prediction.texts),
                )
                for item in inventory.form(form)
            ],
        )

    def submit(self, learner: str, phase: str, body: InventoryBody) -> InventoryResultOut:
        """Grade and keep one test, once; its result by concept (and after the post-test,
        each item's answer and why)."""
        inventory = self.inventory
        taken = self.store.inventory_phases(learner)
        if phase == POST and PRE not in taken:
            raise InventoryOutOfOrder("The post-test comes after the pre-test: take that first.")
        if phase in taken:
            raise InventoryTaken(f"You have taken the {phase}-test already.")
        form = forms_for(learner)[phase]
        records = self._graded(inventory, form, body)
        if not self.store.record_inventory(learner, phase, form, records):
            raise InventoryTaken(f"You have taken the {phase}-test already.")
        return self.result(learner, phase)

    @staticmethod
    def _graded(inventory: Inventory, form: str, body: InventoryBody) -> list[InventoryRecord]:
        asked = {item.id: item for item in inventory.form(form)}
        records: dict[str, InventoryRecord] = {}
        for answer in body.answers:
            item = asked.get(answer.item)
            if item is None or answer.item in records:
                raise NotInThisForm(
                    f"Your test (form {form}) does not ask {answer.item!r}"
                    + (" twice" if answer.item in records else "")
                    + "."
                )
            if item.prediction.choice(answer.choice) is None:
                raise NotAChoice(f"{answer.choice!r} is not one of the choices of {answer.item!r}.")
            records[answer.item] = InventoryRecord(
                answer.item,
                answer.choice,
                answer.choice == item.prediction.answer,
                answer.confidence,
                item.fingerprint,
            )
        return list(records.values())

    def result(self, learner: str, phase: str) -> InventoryResultOut:
        inventory = self.inventory
        answers = self.store.inventory_answers(learner)
        tests = learner_scores(inventory, answers)
        test = tests[phase]
        return InventoryResultOut(
            phase=phase,  # type: ignore[arg-type]
            score=self._score_out(test),
            skip=lessons_to_skip(inventory, test) if phase == PRE else [],
            items=self._reveals(test, answers) if phase == POST else None,
        )

    def _reveals(
        self, test: TestScore, answers: Sequence[StoredInventoryAnswer]
    ) -> list[ItemRevealOut]:
        given = {a.item: a for a in answers if a.phase == test.phase}
        reveals = []
        for item in self.inventory.form(test.form):
            mine = given.get(item.id)
            picked = item.prediction.choice(mine.choice) if mine else None
            reveals.append(
                ItemRevealOut(
                    item=item.id,
                    concept=item.concept,
                    question=item.prediction.question,
                    code=item.snippet.code,
                    choice=mine.choice if mine else None,
                    confidence=mine.confidence if mine else None,  # type: ignore[arg-type]
                    correct=bool(mine and mine.correct),
                    answer=item.prediction.answer,
                    explanation_html=str(rendering.markdown(item.prediction.explanation)),
                    why_html=(
                        str(rendering.markdown_inline(picked.why))
                        if picked is not None and picked.why and not mine.correct  # type: ignore[union-attr]
                        else None
                    ),
                )
            )
        return reveals

    def _score_out(self, test: TestScore) -> TestScoreOut:
        inventory = self.inventory
        return TestScoreOut(
            form=test.form,  # type: ignore[arg-type]
            right=test.right,
            asked=test.asked,
            percent=round(test.percent, 2),
            concepts=[
                ConceptResultOut(
                    concept=c.concept,
                    name=inventory.concept(c.concept).name,
                    right=c.right,
                    asked=c.asked,
                    percent=round(c.percent, 2),
                    lessons=list(inventory.concept(c.concept).lessons),
                )
                for c in test.concepts
            ],
        )

    def mine(self, learner: str | None) -> MyInventoryOut:
        """This learner's pre, post and gain (by concept where both were taken)."""
        inventory = self.inventory
        tests = learner_scores(inventory, self.store.inventory_answers(learner)) if learner else {}
        pre, post = tests.get(PRE), tests.get(POST)
        concepts = []
        if pre is not None and post is not None:
            for concept in inventory.concepts:
                before = pre.concept(concept.id).percent
                after = post.concept(concept.id).percent
                concepts.append(
                    ConceptGainOut(
                        concept=concept.id,
                        name=concept.name,
                        pre=round(before, 2),
                        post=round(after, 2),
                        gain=_rounded(gain(before, after)),
                    )
                )
        return MyInventoryOut(
            pre=self._score_out(pre) if pre else None,
            post=self._score_out(post) if post else None,
            gain=_rounded(gain(pre.percent, post.percent)) if pre and post else None,
            concepts=concepts,
            next="pre" if pre is None else "post" if post is None else "done",
            path_finished=self.path_finished(learner) if learner else False,
        )

    def page(self, learner: str, phase: str) -> dict[str, object]:
        """The test page's context: the test, or (taken already) its result."""
        test = self.test(learner, phase)
        return {
            "test": test,
            "result": self.result(learner, phase) if test.taken else None,
            "phases": PHASES,
            "finished": phase == PRE or self.path_finished(learner),
        }

    # --- a class -----------------------------------------------------------------------------
    def class_gain(self, info: ClassInfo) -> ClassGain:
        learners = [member.learner for member in self.store.members(info.id)]
        answers = self.store.inventory_answers_of(learners)
        return class_gain(self.inventory, answers, learners)

    def class_gain_out(self, info: ClassInfo) -> ClassGainOut:
        found = self.class_gain(info)
        return ClassGainOut(
            id=info.id,
            name=info.name,
            learners=found.learners,
            matched=found.count,
            pre_only=found.pre_only,
            post_only=found.post_only,
            pre=_rounded(found.pre),
            post=_rounded(found.post),
            gain=_rounded(found.gain),
            interval=[round(x, 4) for x in found.interval] if found.interval else None,
            concepts=[
                ConceptGainOut(
                    concept=c.concept,
                    name=c.name,
                    pre=round(c.pre, 2),
                    post=round(c.post, 2),
                    gain=_rounded(c.gain),
                )
                for c in found.concepts
            ],
            bands=[BandOut(label=b.label, learners=b.learners) for b in found.bands],
            no_gain=found.no_gain,
            held=[HeldOut(**vars(h)) for h in found.held],
        )

    def gain_csv(self, info: ClassInfo) -> str:
        """The class's gain as a spreadsheet: the class (learners with both tests), each
        concept, each band of individual gains, then how many members took which test."""
        found = self.class_gain(info)
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(["scope", "name", "learners", "pre", "post", "gain", "low", "high"])
        low, high = found.interval or (None, None)
        writer.writerow(
            [
                *("class", "", found.count),
                *(_cell(found.pre), _cell(found.post), _cell(found.gain), _cell(low), _cell(high)),
            ]
        )
        for c in found.concepts:
            row = [c.concept, found.count, _cell(c.pre), _cell(c.post), _cell(c.gain), "", ""]
            writer.writerow(["concept", *row])
        for band in found.bands:
            writer.writerow(["band", band.label, band.learners, "", "", "", "", ""])
        for label, count in (
            ("members", found.learners),
            ("pre-test only", found.pre_only),
            ("post-test only", found.post_only),
        ):
            writer.writerow(["count", label, count, "", "", "", "", ""])
        return out.getvalue()


def finished(catalog: Catalog, done: Mapping[str, int]) -> bool:
    """Has the learner finished the path: every step of every lesson done?"""
    return all(done.get(lesson.slug, 0) >= len(lesson.steps) for lesson in catalog.lessons)


def _rounded(value: float | None) -> float | None:
    return round(value, 4) if value is not None else None


def _cell(value: float | None) -> str:
    return f"{value:.4f}" if value is not None else ""
