"""The concept inventory as a learner and a teacher meet it: the pre-test offered on a first
visit, the post-test once it opens, each graded on the server and taken once for good (a reset
of one's progress keeps both); a learner's gain on /progress, a class's on its dashboard.

No response carries an item's answer, its explanation or a wrong choice's why, before or after
either test: a result is by concept (right of asked), with the concepts to revisit explained
in the inventory's own words and the lessons that teach them. So a form's key is not one
throwaway cookie away.

The post-test opens when the path is finished, or when a teacher of one of the learner's
classes opened it for the class (`gradlab class open-post-test`, the dashboard's button).
"The path is finished" is the project's notion of a lesson done, for every lesson: each of its
steps done (the catalog's "steps done of total"). The catalog's part (the offer, and after
the pre-test its marks and suggested start, app/learning/inventory/inventory_guide.py) costs no
query
for a learner whose cookie says they said "not now"; for another learner, one query of their
answers, and between the tests one more (has a teacher opened the post-test?) unless the path
is finished.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, timedelta

from app import rendering
from app.errors import (
    InventoryOutOfOrder,
    InventoryTaken,
    NoInventory,
    NotAChoice,
    NotInThisForm,
    PostTestClosed,
)
from app.learning.inventory.inventory_gain import ClassGain, class_gain
from app.learning.inventory.inventory_guide import Guide, guide
from app.learning.inventory.inventory_report import class_gain_out, gain_csv
from app.learning.inventory.learner import (
    PHASES,
    TestScore,
    choice_order,
    forms_for,
    learner_gain,
    learner_scores,
)
from app.learning.inventory_schemas import (
    ClassGainOut,
    ConceptGainOut,
    ConceptResultOut,
    GainOut,
    InventoryBody,
    InventoryItemOut,
    InventoryResultOut,
    InventoryTestOut,
    LessonLinkOut,
    MyInventoryOut,
    RevisitOut,
    TestScoreOut,
)
from app.lessons.inventory import FORMS, Inventory
from app.lessons.loader import Catalog
from app.progress.classes_store import ClassInfo
from app.progress.inventory_store import POST, PRE, InventoryRecord, StoredInventoryAnswer
from app.progress.store import ProgressStore

CLOSED = (
    "The post-test opens when you have finished every lesson of the path, or when your "
    "teacher opens it for your class."
)

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


@dataclass(frozen=True)
class CatalogInventory:
    """The catalog's part of the inventory: the offer, and the pre-test's guide once taken."""

    offer: Offer | None
    guide: Guide | None


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

    def catalog_view(
        self, learner: str | None, flag: object, done: Mapping[str, int], today: date
    ) -> CatalogInventory:
        """What the catalog shows of the inventory: the offer (the pre-test to a learner who
        has not taken it nor said "not now" lately, the post-test to one who took the pre-test
        and for whom it is open) and, once the pre-test is taken, its guide (the lessons
        shown known, where to start). `flag` is what the cookie says (the phase last taken,
        or "not now"), `done` the steps done per lesson the catalog read anyway. A learner who
        said "not now" costs no query; one the cookie knows nothing of, or who took a test,
        one query of their answers (and, between the tests, whether a teacher opened the
        post-test)."""
        inventory = self.catalog.inventory
        if inventory is None or skipped_lately(flag, today):
            return CatalogInventory(None, None)
        if learner is None:  # no row: nothing taken, unless a cookie says otherwise
            answers, taken = [], {PRE} if flag in PHASES else set()
        else:
            answers = self.store.inventory_answers(learner)
            taken = {a.phase for a in answers}
        pre = self._pre_guide(answers, done)
        items = len(inventory.form(FORMS[0]))
        if PRE not in taken:
            return CatalogInventory(Offer(PRE, inventory.minutes, items), pre)
        if POST not in taken and learner is not None and self._open(learner, done):
            return CatalogInventory(Offer(POST, inventory.minutes, items), pre)
        return CatalogInventory(None, pre)

    def _pre_guide(
        self, answers: list[StoredInventoryAnswer], done: Mapping[str, int]
    ) -> Guide | None:
        if not any(a.phase == PRE for a in answers):
            return None
        test = learner_scores(self.inventory, answers)[PRE]
        return guide(
            self.inventory, self.catalog.lessons, test, finished_lessons(self.catalog, done)
        )

    def _open(self, learner: str, done: Mapping[str, int] | None = None) -> bool:
        """Is the post-test open for this learner: the path finished (`done`, when the caller
        read it already), or a teacher of theirs opened it for the class?"""
        if finished(self.catalog, self.store.steps_done(learner) if done is None else done):
            return True
        return self.store.post_test_opened_for(learner)

    def _may_take(self, learner: str, phase: str, taken: set[str]) -> None:
        """Refuse the post-test before the pre-test, and before it opens (unless taken)."""
        if phase != POST or POST in taken:
            return
        if PRE not in taken:
            raise InventoryOutOfOrder("The post-test comes after the pre-test: take that first.")
        if not self._open(learner):
            raise PostTestClosed(CLOSED)

    def test(self, learner: str, phase: str) -> InventoryTestOut:
        """This learner's form of the test, without answers or whys."""
        inventory = self.inventory
        taken = self.store.inventory_phases(learner)
        self._may_take(learner, phase, taken)
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
        """Grade and keep one test, once for good; its result by concept."""
        inventory = self.inventory
        taken = self.store.inventory_phases(learner)
        self._may_take(learner, phase, taken)
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
        test = learner_scores(inventory, answers)[phase]
        pre = self._pre_guide(answers, self.store.steps_done(learner)) if phase == PRE else None
        return InventoryResultOut(
            phase=phase,  # type: ignore[arg-type]
            score=self._score_out(test),
            skip=[self._link(slug) for slug in pre.known] if pre else [],
            start=self._link(pre.start.slug) if pre and pre.start else None,
            revisit=self._revisit(test),
        )

    def _link(self, slug: str) -> LessonLinkOut:
        """A lesson as the inventory's pages name it: by title (its slug only in the link)."""
        lesson = self.catalog.get(slug)
        return LessonLinkOut(slug=slug, title=lesson.title if lesson else slug)

    def _revisit(self, test: TestScore) -> list[RevisitOut]:
        """The concepts not all right: the idea in the inventory's words, and its lessons."""
        revisit = []
        for score in test.concepts:
            if score.right == score.asked:
                continue
            concept = self.inventory.concept(score.concept)
            revisit.append(
                RevisitOut(
                    concept=concept.id,
                    name=concept.name,
                    right=score.right,
                    asked=score.asked,
                    explanation_html=str(rendering.markdown_inline(concept.summary)),
                    lessons=[self._link(slug) for slug in concept.lessons],
                )
            )
        return revisit

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
                    lessons=[self._link(slug) for slug in inventory.concept(c.concept).lessons],
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
                before, after = pre.concept(concept.id), post.concept(concept.id)
                concepts.append(
                    ConceptGainOut(
                        concept=concept.id,
                        name=concept.name,
                        pre=round(before.percent, 2),
                        post=round(after.percent, 2),
                        gain=GainOut.of(learner_gain(before, after)),
                    )
                )
        return MyInventoryOut(
            pre=self._score_out(pre) if pre else None,
            post=self._score_out(post) if post else None,
            gain=GainOut.of(learner_gain(pre, post)) if pre and post else None,
            concepts=concepts,
            revisit=self._revisit(post or pre) if pre else [],
            next="pre" if pre is None else "post" if post is None else "done",
            path_finished=self.path_finished(learner) if learner else False,
            post_open=self._open(learner) if learner and pre and not post else False,
        )

    def page(self, learner: str, phase: str) -> dict[str, object]:
        """The test page's context: the test, or (taken already) its result."""
        test = self.test(learner, phase)
        return {
            "test": test,
            "result": self.result(learner, phase) if test.taken else None,
            "phases": PHASES,
        }

    # --- a class -----------------------------------------------------------------------------
    def class_gain(self, info: ClassInfo) -> ClassGain:
        learners = [member.learner for member in self.store.members(info.id)]
        answers = self.store.inventory_answers_of(learners)
        return class_gain(self.inventory, answers, learners)

    def class_gain_out(self, info: ClassInfo) -> ClassGainOut:
        return class_gain_out(self.class_gain(info), info.id, info.name)

    def gain_csv(self, info: ClassInfo) -> str:
        return gain_csv(self.class_gain(info))


def finished_lessons(catalog: Catalog, done: Mapping[str, int]) -> set[str]:
    """The lessons every step of which the learner has done (`done`: steps done per lesson)."""
    return {
        lesson.slug for lesson in catalog.lessons if done.get(lesson.slug, 0) >= len(lesson.steps)
    }


def finished(catalog: Catalog, done: Mapping[str, int]) -> bool:
    """Has the learner finished the path: every step of every lesson done?"""
    return len(finished_lessons(catalog, done)) == len(catalog.lessons)
