"""When to ask again: FSRS (Free Spaced Repetition Scheduler), from the maintained `fsrs` package.

FSRS models each item's memory with a stability (days until recall drops to 90%) and a
difficulty, and schedules the next review for when recall is predicted to fall to the desired
retention. Settings, and why:

- one 10-minute learning (and relearning) step: an item answered wrong comes back in the same
  sitting, after a gap long enough to make it a real recall; an item answered right leaves the
  day's queue (FSRS's first intervals are then days). A new item waits out that step too: a miss
  asked again at once would be re-read from short-term memory, not recalled;
- confidence: a right answer given as a guess counts as `hard`, and it and a miss given as
  certain come back before the rest of a sitting (`with_confidence`);
- no fuzzing: the same answers give the same dates, which learners (and tests) can rely on;
- the package's default parameters and 90% desired retention.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum

from fsrs import Card, Rating, Scheduler, State


class Grade(StrEnum):
    """How a review went: the four ratings of spaced repetition. Flashcards are graded by the
    learner; answers that the server grades count as `good` when right, `again` when wrong."""

    again = "again"
    hard = "hard"
    good = "good"
    easy = "easy"


STEP = timedelta(minutes=10)
SCHEDULER = Scheduler(learning_steps=(STEP,), relearning_steps=(STEP,), enable_fuzzing=False)
RATINGS = {
    Grade.again: Rating.Again,
    Grade.hard: Rating.Hard,
    Grade.good: Rating.Good,
    Grade.easy: Rating.Easy,
}


def utc(moment: datetime) -> datetime:
    """Aware UTC, whatever the database handed back (SQLite keeps no time zone)."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


@dataclass(frozen=True)
class Memory:
    """What is kept of one review item between reviews."""

    state: int  # fsrs.State: 1 learning, 2 review, 3 relearning
    step: int | None
    stability: float | None
    difficulty: float | None
    due: datetime
    last_review: datetime | None

    @property
    def is_new(self) -> bool:
        return self.last_review is None


def new_memory(now: datetime) -> Memory:
    """A new item, due after the first learning step (never at once)."""
    return Memory(State.Learning.value, 0, None, None, utc(now) + STEP, None)


def with_confidence(grade: Grade, confidence: str | None) -> tuple[Grade, bool]:
    """What a server-graded answer counts as, given how sure the learner said they were, and
    whether the item should come back first: a right guess was luck until shown otherwise (it
    counts as `hard`), and a confident miss is a misconception worth meeting again soon."""
    if grade is Grade.good and confidence == "guess":
        return Grade.hard, True
    return grade, grade is Grade.again and confidence == "certain"


def review(memory: Memory, grade: Grade, now: datetime) -> Memory:
    """The memory after one review graded `grade` at `now`."""
    card = Card(
        card_id=0,  # the package sleeps a millisecond to make an id when none is given
        state=State(memory.state),
        step=memory.step,
        stability=memory.stability,
        difficulty=memory.difficulty,
        due=utc(memory.due),
        last_review=utc(memory.last_review) if memory.last_review else None,
    )
    card, _ = SCHEDULER.review_card(card, RATINGS[grade], review_datetime=utc(now))
    return Memory(
        card.state.value, card.step, card.stability, card.difficulty, card.due, card.last_review
    )


def describe_wait(when: datetime, now: datetime) -> str:
    """'now', 'in 10 minutes', 'in 3 hours', 'tomorrow', 'in 11 days': when an item is due."""
    seconds = (utc(when) - utc(now)).total_seconds()
    if seconds <= 30:
        return "now"
    minutes = round(seconds / 60)
    if minutes < 60:
        return f"in {minutes} minute{'s' if minutes != 1 else ''}"
    hours = round(seconds / 3600)
    if hours < 24:
        return f"in {hours} hour{'s' if hours != 1 else ''}"
    days = round(seconds / 86400)
    return "tomorrow" if days == 1 else f"in {days} days"
