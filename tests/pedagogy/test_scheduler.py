"""The review scheduler follows FSRS (the `fsrs` package) with gradlab's settings: one
10-minute learning and relearning step, no fuzzing, 90% desired retention."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest
from fsrs.scheduler import DEFAULT_PARAMETERS as W

from app.pedagogy.scheduler import Grade, Memory, describe_wait, new_memory, review, with_confidence

START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
MINUTES, DAYS = timedelta(minutes=1), timedelta(days=1)
LEARNING, REVIEW, RELEARNING = 1, 2, 3


def walk(grades: list[str]) -> tuple[list[timedelta], Memory]:
    """Review a new item with each grade in turn, each time exactly when it falls due."""
    memory, now, intervals = new_memory(START), START, []
    for grade in grades:
        memory = review(memory, Grade(grade), now)
        intervals.append(memory.due - now)
        now = memory.due
    return intervals, memory


@pytest.mark.parametrize(
    ("grades", "intervals", "state"),
    [
        # A new item: `again` and `hard` stay in the (single, 10-minute) learning step.
        (["again"], [10 * MINUTES], LEARNING),
        (["hard"], [15 * MINUTES], LEARNING),  # FSRS: 1.5 x the only learning step
        # `good` and `easy` graduate: the first interval is the initial stability w[2] / w[3]
        # in days (at 90% desired retention an interval equals the stability), rounded.
        (["good"], [2 * DAYS], REVIEW),
        (["easy"], [8 * DAYS], REVIEW),
        # Recalled again at the due date: the interval grows fast.
        (["good", "good"], [2 * DAYS, 11 * DAYS], REVIEW),
        (["good", "good", "good"], [2 * DAYS, 11 * DAYS, 46 * DAYS], REVIEW),
        (["easy", "easy"], [8 * DAYS, 66 * DAYS], REVIEW),
        (["good", "hard"], [2 * DAYS, 8 * DAYS], REVIEW),
        # Wrong, then right ten minutes later: graduates with one day.
        (["again", "good"], [10 * MINUTES, 1 * DAYS], REVIEW),
        (["again", "again"], [10 * MINUTES, 10 * MINUTES], LEARNING),
        (["hard", "good"], [15 * MINUTES, 1 * DAYS], REVIEW),
        # A lapse: a learned item answered wrong relearns for ten minutes, then a day.
        (["good", "again"], [2 * DAYS, 10 * MINUTES], RELEARNING),
        (["good", "again", "good"], [2 * DAYS, 10 * MINUTES, 1 * DAYS], REVIEW),
    ],
)
def test_intervals_follow_fsrs(grades: list[str], intervals: list[timedelta], state: int) -> None:
    got, memory = walk(grades)
    assert got == intervals
    assert memory.state == state


def test_the_first_intervals_are_the_initial_stabilities() -> None:
    for grade, weight in ((Grade.good, W[2]), (Grade.easy, W[3])):
        memory = review(new_memory(START), grade, START)
        assert memory.stability == pytest.approx(weight)
        assert memory.due - START == timedelta(days=round(weight))


def test_a_second_recall_uses_the_fsrs6_stability_formula() -> None:
    """S' = S * (1 + e^w8 * (11 - D) * S^-w9 * (e^(w10 * (1 - R)) - 1)), written out here,
    independently of the package."""
    first = review(new_memory(START), Grade.good, START)
    stability = W[2]
    difficulty = W[4] - math.exp(W[5] * 2) + 1  # D0 for `good`
    decay = -W[20]
    factor = 0.9 ** (1 / decay) - 1
    elapsed = 2  # days: the first interval
    recall = (1 + factor * elapsed / stability) ** decay
    after = stability * (
        1
        + math.exp(W[8])
        * (11 - difficulty)
        * stability ** -W[9]
        * (math.exp(W[10] * (1 - recall)) - 1)
    )
    second = review(first, Grade.good, first.due)
    assert second.stability == pytest.approx(after)
    assert second.due - first.due == timedelta(days=round(after))


def test_same_answers_give_the_same_dates() -> None:
    assert walk(["good", "good", "good"]) == walk(["good", "good", "good"])


def test_a_new_item_waits_out_the_first_learning_step() -> None:
    memory = new_memory(START)
    assert memory.due == START + 10 * MINUTES and memory.is_new


@pytest.mark.parametrize(
    ("grade", "confidence", "counted", "first"),
    [
        (Grade.good, "guess", Grade.hard, True),  # right by luck, until shown otherwise
        (Grade.good, "fairly_sure", Grade.good, False),
        (Grade.good, "certain", Grade.good, False),
        (Grade.again, "certain", Grade.again, True),  # a confident miss: a misconception
        (Grade.again, "guess", Grade.again, False),
        (Grade.again, None, Grade.again, False),
    ],
)
def test_confidence_shapes_what_an_answer_counts_as(
    grade: Grade, confidence: str | None, counted: Grade, first: bool
) -> None:
    assert with_confidence(grade, confidence) == (counted, first)


def test_naive_times_from_sqlite_are_read_as_utc() -> None:
    naive = START.replace(tzinfo=None)
    memory = Memory(LEARNING, 0, None, None, naive, None)
    assert review(memory, Grade.good, naive).due == START + 2 * DAYS


@pytest.mark.parametrize(
    ("wait", "words"),
    [
        (timedelta(seconds=0), "now"),
        (timedelta(minutes=1), "in 1 minute"),
        (timedelta(minutes=10), "in 10 minutes"),
        (timedelta(hours=3), "in 3 hours"),
        (timedelta(days=1), "tomorrow"),
        (timedelta(days=11), "in 11 days"),
    ],
)
def test_waits_are_described_in_words(wait: timedelta, words: str) -> None:
    assert describe_wait(START + wait, START) == words
