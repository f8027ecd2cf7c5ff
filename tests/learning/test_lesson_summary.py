"""A lesson page draws its one line of progress from the learner's records of that lesson alone,
and it is the same line the catalog shows."""

from __future__ import annotations

from fastapi.testclient import TestClient

from app.learning.kinds import myth_fingerprint
from app.learning.pages.lesson_page import catalog_progress, lesson_summary
from app.progress.records import MythRecord
from tests.catalogs import FIXTURES


def test_one_lessons_summary_is_its_line_of_the_catalog(client: TestClient) -> None:
    store = client.app.state.store  # type: ignore[attr-defined]
    first, second = FIXTURES.lessons
    current = myth_fingerprint(first.myths[0])
    # Two learners with progress in both lessons; one answer is stale (its myth changed since).
    store.mark_done("ada", first.slug, 1)
    store.record_myth("ada", first.slug, 1, MythRecord("no", True, current))
    store.record_myth("ada", second.slug, 1, MythRecord("yes", False, "an older myth"))
    store.mark_done("bob", second.slug, 1)
    store.record_myth("bob", second.slug, 1, MythRecord("no", True, "an older myth"))
    for learner in ("ada", "bob", "nobody"):
        whole = catalog_progress(FIXTURES, store, learner).lessons
        for lesson in (first, second):
            assert (
                lesson_summary(lesson, store.lesson_state(learner, lesson.slug))
                == whole[lesson.slug]
            )
    ada = lesson_summary(first, store.lesson_state("ada", first.slug))
    assert (ada.steps_done, ada.myths_answered, ada.myths_correct) == (1, 1, 1)
    stale = lesson_summary(second, store.lesson_state("ada", second.slug))
    assert (stale.steps_done, stale.myths_answered) == (0, 0)  # the stale answer is retired
    assert lesson_summary(second, store.lesson_state("bob", second.slug)).steps_done == 1
