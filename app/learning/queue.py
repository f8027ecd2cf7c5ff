"""The review queue: what a learner got wrong, scheduled by FSRS.

Items enter the queue when a wrong answer is recorded, anywhere: a prediction, a myth or a typed
value on a lesson page, a drill, or a flashcard rated again or hard. A new item is due at once.
A new miss of an item that was scheduled for later counts as a lapse (an `again` review at the
time of the miss). Reviewing happens on /review: a right answer pushes the item days ahead, a
wrong one brings it back after a short step.

Reading the queue never writes. A card whose question was rewritten since (its fingerprint no
longer matches) is retired: not shown, not answerable; a miss of the new question takes it over.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime

from app.errors import NotDue
from app.learning.grader import Graded
from app.learning.review_items import Answer, Prompt, grade, prompt_for
from app.lessons.loader import Catalog
from app.modes.scheduler import Grade, Memory, new_memory, review, utc
from app.progress.records import CardMemory
from app.progress.store import ProgressStore, StoredCard


@dataclass(frozen=True)
class QueueView:
    """What is due now and what waits; empty for a visitor without a learner id (each empty
    view has its own list, so none is shared)."""

    due: list[QueueItem] = field(default_factory=list)
    scheduled: int = 0  # items waiting for a later date
    next_due: datetime | None = None  # the soonest of those


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


def _stored(memory: Memory, last_miss_at: datetime | None = None) -> CardMemory:
    return CardMemory(**asdict(memory), last_miss_at=last_miss_at)


class ReviewQueue:
    def __init__(self, store: ProgressStore, catalog: Catalog, learner: str) -> None:
        self.store = store
        self.catalog = catalog
        self.learner = learner

    # --- entering the queue (on writes only) --------------------------------------------------
    def note_miss(self, lesson: str, kind: str, key: str, at: datetime) -> None:
        """A wrong answer to one item at `at`: queue it, or count a lapse if it was scheduled."""
        at = utc(at)
        prompt = self._prompt_of(lesson, kind, key)
        if prompt is None:
            return
        card = self._card(lesson, kind, key)
        if card is None:
            memory = _stored(new_memory(at), at)
            self.store.add_review_card(self.learner, lesson, kind, key, prompt.fingerprint, memory)
            return
        if card.fingerprint != prompt.fingerprint:  # a rewritten question starts afresh
            memory = _stored(new_memory(at), at)
            self.store.update_review_card(card.id, memory, prompt.fingerprint)
            return
        if card.memory.last_miss_at is not None and at <= utc(card.memory.last_miss_at):
            return  # counted already
        scheduled = _memory(card)
        if scheduled.due > at and (scheduled.last_review is None or at >= scheduled.last_review):
            scheduled = review(scheduled, Grade.again, at)
        self.store.update_review_card(card.id, _stored(scheduled, at))

    def note_flashcard(self, lesson: str, card_id: str, grade_given: Grade, now: datetime) -> None:
        """A self-graded flashcard: `again` and `hard` queue it; a queued card is reviewed."""
        prompt = self._prompt_of(lesson, "flashcard", card_id)
        card = self._card(lesson, "flashcard", card_id)
        if prompt is None:
            return
        if card is None or card.fingerprint != prompt.fingerprint:
            if grade_given in (Grade.again, Grade.hard):
                memory = _stored(new_memory(now))
                if card is None:
                    self.store.add_review_card(
                        self.learner, lesson, "flashcard", card_id, prompt.fingerprint, memory
                    )
                else:
                    self.store.update_review_card(card.id, memory, prompt.fingerprint)
            return
        with self.store.together():
            self.store.update_review_card(card.id, _stored(review(_memory(card), grade_given, now)))
            self.store.record_review_answer(self.learner, card.id, grade_given.value)

    # --- reading and answering ---------------------------------------------------------------
    def view(self, now: datetime) -> QueueView:
        """What is due now and what waits; reads only."""
        now = utc(now)
        due: list[QueueItem] = []
        later: list[datetime] = []
        for card in self.store.review_cards(self.learner):
            prompt = self._prompt(card)
            if prompt is None:
                continue  # the lesson no longer has this item, or asks it differently now
            when = utc(card.memory.due)
            if when <= now:
                due.append(QueueItem(card, prompt))
            else:
                later.append(when)
        due.sort(key=lambda item: (utc(item.card.memory.due), item.card.id))
        return QueueView(due, len(later), min(later) if later else None)

    def answer(self, card_id: int, given: Answer, now: datetime) -> tuple[Graded, Memory] | None:
        """Grade an answer to a due item and reschedule it; None when there is no such item."""
        card = self.store.review_card(self.learner, card_id)
        prompt = self._prompt(card) if card is not None else None
        if card is None or prompt is None:
            return None
        memory = _memory(card)
        if memory.due > utc(now):
            raise NotDue
        outcome = grade(prompt, given)
        if outcome.grade is not None:
            memory = review(memory, outcome.grade, now)
            with self.store.together():
                self.store.update_review_card(card.id, _stored(memory))
                self.store.record_review_answer(self.learner, card.id, outcome.grade.value)
        return outcome, memory

    def _prompt_of(self, lesson: str, kind: str, key: str) -> Prompt | None:
        found = self.catalog.get(lesson)
        return prompt_for(found, kind, key, self.learner) if found is not None else None

    def _prompt(self, card: StoredCard) -> Prompt | None:
        prompt = self._prompt_of(card.lesson, card.kind, card.key)
        return prompt if prompt is not None and prompt.fingerprint == card.fingerprint else None

    def _card(self, lesson: str, kind: str, key: str) -> StoredCard | None:
        return self.store.review_card_of(self.learner, lesson, kind, key)
