"""`ProgressStore.together`: one transaction across store calls, on SQLite and PostgreSQL.

An answer, the review card it queues and what the reply reads back commit together or not at
all, and take one turn of the writer (app/progress/base.py)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime

import pytest
from sqlalchemy import event

from app.progress.database import make_engine
from app.progress.records import CardMemory, MythRecord, StepAnswerRecord
from app.progress.store import ProgressStore

NOW = datetime(2026, 11, 23, tzinfo=UTC)
MEMORY = CardMemory(state=1, step=0, stability=None, difficulty=None, due=NOW, last_review=None)


class Boom(Exception):
    pass


@pytest.fixture
def store(migrated_url: str) -> Iterator[ProgressStore]:
    engine = make_engine(migrated_url)
    yield ProgressStore(engine)
    engine.dispose()


def _commits(store: ProgressStore) -> list[int]:
    commits: list[int] = []
    event.listen(store.engine, "commit", lambda _: commits.append(1))
    return commits


def test_calls_inside_commit_once(store: ProgressStore) -> None:
    commits = _commits(store)
    with store.together():
        store.record_myth("ada", "lesson", 1, MythRecord("yes", False, "fp"))
        store.add_review_card("ada", "lesson", "myth", "1", "fp", MEMORY)
        # A read inside sees what the block wrote before it commits.
        assert store.lesson_myths("ada", "lesson") == {1: MythRecord("yes", False, "fp")}
    assert len(commits) == 1
    assert [card.key for card in store.review_cards("ada")] == ["1"]


def test_an_error_inside_keeps_nothing_of_the_block(store: ProgressStore) -> None:
    store.record_myth("ada", "lesson", 1, MythRecord("no", True, "fp"))  # before: kept
    with pytest.raises(Boom), store.together():
        store.record_step_answer("ada", "lesson", 1, StepAnswerRecord("a", "certain", False, "fp"))
        store.add_review_card("ada", "lesson", "prediction", "1", "fp", MEMORY)
        raise Boom
    assert store.lesson_state("ada", "lesson").steps == {}
    assert store.review_cards("ada") == []
    assert store.lesson_myths("ada", "lesson") == {1: MythRecord("no", True, "fp")}
    # The failed block left no open transaction behind: the next write lands on its own.
    store.mark_done("ada", "lesson", 2)
    assert store.steps_done("ada") == {"lesson": 1}


def test_blocks_nest_into_the_outer_one(store: ProgressStore) -> None:
    commits = _commits(store)
    with store.together():
        with store.together():
            store.mark_done("ada", "lesson", 1)
        store.save_code("ada", "lesson", 1, "print(1)")
    assert len(commits) == 1
    (step,) = store.lesson_state("ada", "lesson").steps.values()
    assert (step.done, step.code) == (True, "print(1)")


def test_the_same_card_twice_keeps_the_first(store: ProgressStore) -> None:
    """Two requests queueing one item: the second insert is ignored, not an error that would
    undo the answer in its block."""
    with store.together():
        store.add_review_card("ada", "lesson", "myth", "1", "first", MEMORY)
        store.add_review_card("ada", "lesson", "myth", "1", "second", MEMORY)
        store.record_myth("ada", "lesson", 1, MythRecord("yes", False, "fp"))
    assert [card.fingerprint for card in store.review_cards("ada")] == ["first"]
    assert store.lesson_myths("ada", "lesson")
