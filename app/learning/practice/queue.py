"""The review queue: what a learner got wrong, scheduled by FSRS.

Items enter the queue when a wrong answer is recorded, anywhere: a prediction, a myth or a typed
value on a lesson page, a drill, a lesson's recall question, or a flashcard rated again or hard;
and when a prediction is right but was given as a guess. A recall answer is a retrieval: it
reviews the step's card as a review answer does (`note_recall`). A new item is due after the
scheduler's first learning step, never at once. A new miss of an item that was scheduled for
later counts as a lapse (an `again` review at the time of the miss). Reviewing happens on
/review, in sittings (app/pedagogy/sitting.py): a right answer pushes the item days ahead, a wrong
one brings it back after a short step; a right guess and a confident miss come back first.

A card keeps its kind's name; the kind's declaration (app/learning/kinds/) builds what to ask
and grades the answer. Reading the queue never writes. A card whose question was rewritten
since (its fingerprint no longer matches) is retired; a miss of the new question takes it over.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from datetime import datetime

from app.errors import NotDue, NotTheFormAsked
from app.learning.answers.grader import Graded
from app.learning.kinds import FLASHCARD, Prompt, QuestionKind, find_kind
from app.learning.practice.drawing import draw
from app.learning.practice.seen import learner_shown
from app.lessons.loader import Catalog
from app.pedagogy import sitting
from app.pedagogy.scheduler import Grade, Memory, new_memory, review, utc, with_confidence
from app.progress.records import LEFT_REVIEW, CardMemory
from app.progress.store import ProgressStore, StoredCard


@dataclass(frozen=True)
class QueueView:
    """What is due now and what waits; empty for a visitor without a learner id (each empty
    view has its own list, so none is shared)."""

    due: list[QueueItem] = field(default_factory=list)  # this sitting, in the order to ask
    scheduled: int = 0  # items waiting for a later date
    next_due: datetime | None = None  # the soonest of those
    due_total: int = 0  # every item due now, also those beyond this sitting


@dataclass(frozen=True)
class QueueItem:
    """A due card and what to ask for it."""

    card: StoredCard
    prompt: Prompt


def _memory(card: StoredCard) -> Memory:
    kept = card.memory
    last_review = utc(kept.last_review) if kept.last_review else None
    return Memory(
        kept.state, kept.step, kept.stability, kept.difficulty, utc(kept.due), last_review
    )


def _stored(
    memory: Memory, last_miss_at: datetime | None = None, *, urgent: bool = False
) -> CardMemory:
    return CardMemory(**asdict(memory), last_miss_at=last_miss_at, urgent=urgent)


def _slot(item: QueueItem) -> sitting.Slot:
    card = item.card
    return sitting.Slot(
        card.lesson, card.kind, card.memory.urgent, utc(card.memory.due), _token(card)
    )


def _asked_after(form: int | None, grade: Grade) -> int | None:
    """What a card keeps as asked after a review answer: the form asked; on a question with a
    single version (no form), answered right, `LEFT_REVIEW`: it leaves the queue rather than
    come back word for word, until it is missed again."""
    if form is None and grade is Grade.good:
        return LEFT_REVIEW
    return form


def _token(card: StoredCard) -> str:
    """Names this return of the card: it changes whenever the card is rescheduled."""
    return f"{card.id}@{int(utc(card.memory.due).timestamp())}"


class ReviewQueue:
    def __init__(
        self, store: ProgressStore, catalog: Catalog, learner: str, sitting_size: int = 20
    ) -> None:
        self.store = store
        self.catalog = catalog
        self.learner = learner
        self.sitting_size = sitting_size

    # --- entering the queue (on writes only) --------------------------------------------------
    def note_miss(
        self, lesson: str, kind: QuestionKind, key: str, at: datetime, *, urgent: bool = False
    ) -> None:
        """A wrong answer to one item at `at`: queue it, or count a lapse if it was scheduled.
        `urgent`: the learner was certain, so it comes back first."""
        at = utc(at)
        prompt = self._prompt_of(lesson, kind, key)
        if prompt is None:
            return
        card = self._card(lesson, kind, key)
        if card is None:
            memory = _stored(new_memory(at), at, urgent=urgent)
            self.store.add_review_card(
                self.learner, lesson, kind.name, key, prompt.fingerprint, memory
            )
            return
        if card.fingerprint != prompt.fingerprint:  # a rewritten question starts afresh
            memory = _stored(new_memory(at), at, urgent=urgent)
            self.store.update_review_card(card.id, memory, prompt.fingerprint)
            return
        if card.memory.last_miss_at is not None and at <= utc(card.memory.last_miss_at):
            return  # counted already
        scheduled = _memory(card)
        if scheduled.due > at and (scheduled.last_review is None or at >= scheduled.last_review):
            scheduled = review(scheduled, Grade.again, at)
        self.store.update_review_card(
            card.id, _stored(scheduled, at, urgent=urgent or card.memory.urgent)
        )

    def note_guess(self, lesson: str, kind: QuestionKind, key: str, at: datetime) -> None:
        """A right answer given as a guess: it was luck until a later answer shows otherwise,
        so it enters the queue (first in its sitting) unless it is there already."""
        at = utc(at)
        prompt = self._prompt_of(lesson, kind, key)
        card = self._card(lesson, kind, key)
        if prompt is None or (card is not None and card.fingerprint == prompt.fingerprint):
            return
        memory = _stored(new_memory(at), urgent=True)
        if card is None:
            self.store.add_review_card(
                self.learner, lesson, kind.name, key, prompt.fingerprint, memory
            )
        else:
            self.store.update_review_card(card.id, memory, prompt.fingerprint)

    def note_check(
        self,
        lesson: str,
        kind: QuestionKind,
        key: str,
        passed: bool,
        at: datetime,
        confidence: str | None = None,
        form: int | None = None,
    ) -> Memory | None:
        """A check graded by a run on its own page (written code, an order): a due card of it
        is reviewed (passed: `good`, else `again`, weighed by `confidence` as a review answer
        is) and its new schedule returned; otherwise a miss enters the queue as any miss does
        (first, when the learner was certain), and a pass changes nothing. `form`: the check
        answered the other form of the item a review return asks (`asked`, which refuses
        another), kept with the card so that the next return asks another."""
        at = utc(at)
        if form is not None:
            due, _ = self.asked(lesson, kind, key, form, at)
            return self._review_check(due, passed, at, confidence, form)
        prompt = self._prompt_of(lesson, kind, key)
        card = self._card(lesson, kind, key)
        if (
            prompt is not None
            and card is not None
            and card.fingerprint == prompt.fingerprint
            and utc(card.memory.due) <= at
        ):
            asked = card.asked if prompt.form is not None else None
            return self._review_check(card, passed, at, confidence, asked)
        if not passed:
            self.note_miss(lesson, kind, key, at, urgent=confidence == "certain")
        return None

    def _review_check(
        self, card: StoredCard, passed: bool, at: datetime, confidence: str | None, form: int | None
    ) -> Memory:
        grade, urgent = with_confidence(Grade.good if passed else Grade.again, confidence)
        memory = review(_memory(card), grade, at)
        missed = card.memory.last_miss_at if passed else at
        stored = _stored(memory, missed, urgent=urgent)
        self.store.update_review_card(card.id, stored, asked=_asked_after(form, grade))
        self.store.record_review_answer(self.learner, card.id, grade.value, at, form)
        return memory

    def asked(
        self, lesson: str, kind: QuestionKind, key: str, form: int, at: datetime
    ) -> tuple[StoredCard, Prompt]:
        """The due card of an item and what its return asks, which must be `form` (another
        form of its question, as a variant instance): a check graded by a run answers it on
        its own route. NotDue without a due card of it (answered already), NotTheFormAsked
        when the return asks another form; reads only."""
        card = self._card(lesson, kind, key)
        due = card is not None and utc(card.memory.due) <= utc(at)
        prompt = self._asked_now(card, at) if card is not None and due else None
        if card is None or prompt is None or not due:
            raise NotDue(f"No review item of {lesson!r} {key} is due: answered already?")
        if prompt.form != form:
            raise NotTheFormAsked(
                f"Review item {card.id} is not asked as form {form} now: reload the review "
                "and answer the question it shows"
            )
        return card, prompt

    def note_recall(
        self,
        lesson: str,
        kind: QuestionKind,
        key: str,
        form: int | None,
        graded: Grade,
        confidence: str | None,
        at: datetime,
    ) -> Memory | None:
        """An answer to a lesson's recall question (app/learning/practice/recall.py), asked as
        `form`
        (a variant instance). It is a retrieval: the item's card is reviewed as a review answer
        reviews it, due or not (FSRS takes an early review as one), and keeps `form` as the
        form asked, so that its next return asks another. Without a card, a miss or a right
        guess enters the queue as one on the lesson page does, `form` kept; a right answer
        given as fairly sure or certain changes nothing. The card's new schedule, or None."""
        at = utc(at)
        prompt = self._prompt_of(lesson, kind, key)
        if prompt is None:
            return None
        counted, urgent = with_confidence(graded, confidence)
        card = self._card(lesson, kind, key)
        if card is not None and card.fingerprint == prompt.fingerprint:
            memory = review(_memory(card), counted, at)
            missed = at if counted is Grade.again else None  # None: the last miss stays
            stored = _stored(memory, missed, urgent=urgent)
            self.store.update_review_card(card.id, stored, asked=form)
            self.store.record_review_answer(self.learner, card.id, counted.value, at, form)
            return memory
        if counted is Grade.good:
            return None
        memory = new_memory(at)
        missed = at if counted is Grade.again else None
        stored = _stored(memory, missed, urgent=urgent or counted is Grade.hard)
        if card is None:
            self.store.add_review_card(
                self.learner, lesson, kind.name, key, prompt.fingerprint, stored, asked=form
            )
        else:  # a card of a question since rewritten: this answer starts it afresh
            self.store.update_review_card(card.id, stored, prompt.fingerprint, asked=form)
        return memory

    def note_flashcard(self, lesson: str, card_id: str, grade_given: Grade, now: datetime) -> None:
        """A self-graded flashcard: `again` and `hard` queue it; a queued card is reviewed."""
        prompt = self._prompt_of(lesson, FLASHCARD, card_id)
        card = self._card(lesson, FLASHCARD, card_id)
        if prompt is None:
            return
        if card is None or card.fingerprint != prompt.fingerprint:
            if grade_given in (Grade.again, Grade.hard):
                memory = _stored(new_memory(now))
                if card is None:
                    self.store.add_review_card(
                        self.learner, lesson, FLASHCARD.name, card_id, prompt.fingerprint, memory
                    )
                else:
                    self.store.update_review_card(card.id, memory, prompt.fingerprint)
            return
        with self.store.together():
            self.store.update_review_card(card.id, _stored(review(_memory(card), grade_given, now)))
            self.store.record_review_answer(self.learner, card.id, grade_given.value, utc(now))

    # --- reading and answering ---------------------------------------------------------------
    def view(self, now: datetime) -> QueueView:
        """This sitting and what waits; reads only."""
        now = utc(now)
        cards = self.store.review_cards(self.learner)
        due, later = self._due(cards, now)
        planned = sitting.plan(due, _slot, self.sitting_size)
        drawn = self._draw(due, cards, {item.card.lesson for item in planned})
        asked = [QueueItem(item.card, drawn[item.card.id]) for item in planned]
        return QueueView(asked, len(later), min(later) if later else None, len(due))

    def _due(
        self, cards: list[StoredCard], now: datetime
    ) -> tuple[list[QueueItem], list[datetime]]:
        """The items of `cards` due at `now`, as their lessons ask them, and when the others
        fall due."""
        due: list[QueueItem] = []
        later: list[datetime] = []
        for card in cards:
            if not self._current(card.lesson, card.kind, card.key, card.fingerprint):
                continue  # the lesson no longer has this item, or asks it differently now
            if card.left:
                continue  # answered right on its only version: asked again word for word
            when = utc(card.memory.due)
            prompt = self._prompt(card) if when <= now else None
            if prompt is not None:
                due.append(QueueItem(card, prompt))
            elif when > now:
                later.append(when)
        return due, later

    def _draw(
        self, due: list[QueueItem], cards: list[StoredCard], lessons: set[str]
    ) -> dict[int, Prompt]:
        """What each due item of `lessons` asks, by card (drawing.py)."""
        asked = [(item.card, item.prompt) for item in due]
        return draw(self.store, self.learner, asked, cards, lessons, self._prompt)

    def _asked_now(self, card: StoredCard, now: datetime) -> Prompt | None:
        """What this return of a card asks: a due one as `view` draws it, in or out of the
        sitting; one not due, as a return now would."""
        now = utc(now)
        if utc(card.memory.due) <= now:
            cards = self.store.review_cards(self.learner)
            due, _ = self._due(cards, now)
            if drawn := self._draw(due, cards, {card.lesson}).get(card.id):
                return drawn
        found = self.catalog.get(card.lesson)
        return self._prompt(card, learner_shown(self.store, self.learner, found)) if found else None

    def due_count(self, now: datetime) -> int:
        """`view(now).due_total` without drawing the items that are not due, nor planning the
        sitting: what the catalog and an answer's "due" count need; reads only."""
        items = self.store.due_review_items(self.learner, utc(now))
        return sum(1 for item in items if self._current(*item))

    def answer(
        self, card_id: int, body: Mapping[str, object], now: datetime, form: int | None = None
    ) -> tuple[Graded, Memory] | None:
        """Grade an answer to a due item and reschedule it; None when there is no such item.
        `form`: the form of the question the page showed (its `form`); an answer to another
        one is refused, never graded against a question the learner was not asked."""
        card = self.store.review_card(self.learner, card_id)
        prompt = self._prompt(card) if card is not None else None
        if card is None or prompt is None:
            return None
        given = prompt.kind.read(body)  # as the item's kind answers: refused if it does not fit
        memory = _memory(card)
        if memory.due > utc(now):
            raise NotDue
        prompt = self._asked_now(card, now) or prompt
        if form is not None and form != prompt.form:
            raise NotTheFormAsked(
                f"Review item {card_id} is not asked as form {form} now: reload the review "
                "and answer the question it shows"
            )
        outcome = prompt.kind.grade(prompt, given)
        if outcome.grade is not None:
            counted, urgent = with_confidence(outcome.grade, given.confidence)
            memory = review(memory, counted, now)
            stored = _stored(memory, urgent=urgent)
            with self.store.together():
                # A flashcard is a card to see again: it stays, spaced by FSRS.
                asked = prompt.form if prompt.flashcard else _asked_after(prompt.form, counted)
                self.store.update_review_card(card.id, stored, asked=asked)
                self.store.record_review_answer(
                    self.learner, card.id, counted.value, utc(now), prompt.form
                )
        return outcome, memory

    def left(self, card_id: int) -> bool:
        """Has this item left review (answered right on its only version, `StoredCard.left`)?"""
        card = self.store.review_card(self.learner, card_id)
        return card is not None and card.left

    def _prompt_of(self, lesson: str, kind: QuestionKind, key: str) -> Prompt | None:
        found = self.catalog.get(lesson)
        return kind.prompt(found, key, self.learner, self.learner) if found is not None else None

    def _current(self, lesson: str, kind_name: str, key: str, fingerprint: str | None) -> bool:
        """Is a card's question the one its lesson asks today (the lesson and the kind still
        exist, and the question was not rewritten)? What `_prompt` checks, without drawing it."""
        found = self.catalog.get(lesson)
        kind = find_kind(kind_name)
        if found is None or kind is None:
            return False
        return kind.asked_fingerprint(found, key) == fingerprint

    def _prompt(self, card: StoredCard, seen: frozenset[str] | None = None) -> Prompt | None:
        """The card's question, its choices in an order of this return's own (a per-learner
        order would ask a returning item exactly as it was asked before), and on an item with
        other forms (a step's variants, a myth's forms) a form of this return's own: never the
        lesson page's, nor the one the card's latest review asked while another remains. The
        return's token keys it, so every read of one return (the page, its answer) asks the
        same. With `seen` (what the learner was shown, seen.py), not a form whose code is in
        it while another remains."""
        found = self.catalog.get(card.lesson)
        kind = find_kind(card.kind)
        if found is None or kind is None:
            return None  # the lesson, or the kind of question, is gone
        order = f"{self.learner}/{_token(card)}"
        prompt = kind.prompt(found, card.key, order, self.learner, card.asked, seen or frozenset())
        return prompt if prompt is not None and prompt.fingerprint == card.fingerprint else None

    def _card(self, lesson: str, kind: QuestionKind, key: str) -> StoredCard | None:
        return self.store.review_card_of(self.learner, lesson, kind.name, key)
