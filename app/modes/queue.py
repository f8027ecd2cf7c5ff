"""The review queue: what a learner got wrong, scheduled by FSRS.

Items enter the queue from wrong answers anywhere: predictions, myths and typed values are
read from the answers the lesson pages already store (so the deep dive feeds the queue too);
drills and flashcards are noted when they are answered. A new item is due at once. A new miss
of an item that was scheduled for later counts as a lapse (an `again` review at the time of the
miss). Reviewing happens on /review: a right answer pushes the item days ahead, a wrong one
brings it back after a short step.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime

from app.lessons.loader import Catalog
from app.modes.drills import value_drill_id
from app.modes.review import Answer, Outcome, Prompt, grade, prompt_for
from app.modes.scheduler import Grade, Memory, new_memory, review, utc
from app.progress.store import ProgressStore, StoredCard


class NotDue(Exception):
    """The item was already answered (it is scheduled for later)."""


@dataclass(frozen=True)
class QueueItem:
    card: StoredCard
    prompt: Prompt


@dataclass(frozen=True)
class QueueView:
    due: list[QueueItem]
    scheduled: int  # items waiting for a later date
    next_due: datetime | None  # the soonest of those


def _memory(card: StoredCard) -> Memory:
    return Memory(
        card.state,
        card.step,
        card.stability,
        card.difficulty,
        utc(card.due),
        utc(card.last_review) if card.last_review else None,
    )


class ReviewQueue:
    def __init__(self, store: ProgressStore, catalog: Catalog) -> None:
        self.store = store
        self.catalog = catalog

    # --- entering the queue ----------------------------------------------------------------
    def note_miss(
        self,
        learner: str,
        lesson: str,
        kind: str,
        key: str,
        at: datetime,
        cards: dict[tuple[str, str, str], StoredCard] | None = None,
    ) -> None:
        """A wrong answer to one item at `at`: queue it, or count a lapse if it was scheduled."""
        at = utc(at)
        if cards is None:
            cards = self._cards_by_item(learner)
        card = cards.get((lesson, kind, key))
        if card is None:
            self.store.add_review_card(
                learner, lesson, kind, key, {**asdict(new_memory(at)), "last_miss_at": at}
            )
            return
        if card.last_miss_at is not None and at <= utc(card.last_miss_at):
            return  # counted already
        memory = _memory(card)
        if memory.due > at and (memory.last_review is None or at >= memory.last_review):
            memory = review(memory, Grade.again, at)
        self.store.update_review_card(card.id, {**asdict(memory), "last_miss_at": at})

    def note_flashcard(
        self, learner: str, lesson: str, card_id: str, grade_given: Grade, now: datetime
    ) -> None:
        """A self-graded flashcard: `again` and `hard` queue it; a queued card is reviewed."""
        card = self._cards_by_item(learner).get((lesson, "flashcard", card_id))
        if card is None:
            if grade_given in (Grade.again, Grade.hard):
                self.store.add_review_card(
                    learner, lesson, "flashcard", card_id, asdict(new_memory(now))
                )
            return
        self.store.update_review_card(card.id, asdict(review(_memory(card), grade_given, now)))
        self.store.record_review_answer(learner, card.id, grade_given.value)

    def sync(self, learner: str) -> None:
        """Queue the wrong answers the lesson pages stored since the last look."""
        cards = self._cards_by_item(learner)
        for miss in self.store.misses(learner):
            lesson = self.catalog.get(miss.lesson)
            if lesson is None:
                continue
            kind, key = miss.kind, miss.key
            if kind == "value":
                drill = value_drill_id(lesson, int(key))
                if drill is None:
                    continue
                kind, key = "drill", drill
            self.note_miss(learner, miss.lesson, kind, key, miss.at, cards)

    # --- reading and answering ---------------------------------------------------------------
    def view(self, learner: str, now: datetime) -> QueueView:
        self.sync(learner)
        now = utc(now)
        due: list[QueueItem] = []
        later: list[datetime] = []
        for card in self.store.review_cards(learner):
            prompt = self._prompt(card)
            if prompt is None:
                continue  # the lesson no longer has this item
            when = utc(card.due)
            if when <= now:
                due.append(QueueItem(card, prompt))
            else:
                later.append(when)
        due.sort(key=lambda item: (utc(item.card.due), item.card.id))
        return QueueView(due, len(later), min(later) if later else None)

    def answer(
        self, learner: str, card_id: int, given: Answer, now: datetime
    ) -> tuple[Outcome, Memory] | None:
        """Grade an answer to a due item and reschedule it; None when there is no such item."""
        self.sync(learner)
        card = self.store.review_card(learner, card_id)
        prompt = self._prompt(card) if card is not None else None
        if card is None or prompt is None:
            return None
        memory = _memory(card)
        if memory.due > utc(now):
            raise NotDue(memory.due)
        outcome = grade(prompt, given)
        if outcome.grade is not None:
            memory = review(memory, outcome.grade, now)
            self.store.update_review_card(card.id, asdict(memory))
            self.store.record_review_answer(learner, card.id, outcome.grade.value)
        return outcome, memory

    def _prompt(self, card: StoredCard) -> Prompt | None:
        lesson = self.catalog.get(card.lesson)
        return prompt_for(lesson, card.kind, card.key) if lesson is not None else None

    def _cards_by_item(self, learner: str) -> dict[tuple[str, str, str], StoredCard]:
        return {(c.lesson, c.kind, c.key): c for c in self.store.review_cards(learner)}
