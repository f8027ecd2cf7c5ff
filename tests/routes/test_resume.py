"""A return to a begun lesson opens where the learner left it: the guided path at the first
unanswered step, the whole lesson one link away, and the catalog's card says where. Decided from
stored progress: the pages write nothing (tests/routes/test_reads_are_reads.py walks them)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.config.paths import BUNDLED_LESSONS
from app.main import create_app
from tests.catalogs import BUNDLED, page_text
from tests.conftest import make_settings

LESSON = "/lessons/what-is-grad"
API = "/api/lessons/what-is-grad"
WHOLE = "Show the whole lesson at once (deep dive)"
DEEP_DIVE = 'aria-label="On this page"'


@pytest.fixture
def learner(migrated_url: str) -> Iterator[TestClient]:
    """The real curriculum on SQLite and on PostgreSQL, without a sandbox."""
    settings = make_settings(lessons_dir=BUNDLED_LESSONS, database_url=migrated_url)
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def _answer(client: TestClient, step: int, slug: str = "what-is-grad") -> None:
    """Commit the step's first choice: right or wrong, the step is answered."""
    choice = BUNDLED.get(slug).steps[step - 1].prediction.texts[0]  # type: ignore[union-attr]
    body = {"choice": choice, "confidence": "guess"}
    url = f"/api/lessons/{slug}/steps/{step}/prediction"
    assert client.post(url, json=body).status_code == 200


def test_a_begun_lesson_opens_at_its_first_unanswered_step(learner: TestClient) -> None:
    for step in (1, 2, 4):
        _answer(learner, step)
    page = learner.get(LESSON).text
    assert 'data-resume="3"' in page and 'data-mode="step-by-step"' in page
    assert "Welcome back: you continue at step 3" in page_text(page)
    assert WHOLE in page and DEEP_DIVE not in page
    catalog = page_text(learner.get("/").text)
    assert catalog.count("Continue at step") == 1 and "Continue at step 3" in catalog
    assert f'{LESSON}#step-3"' in learner.get("/").text
    assert learner.get("/api/progress").json()["lessons"]["what-is-grad"]["resume_step"] == 3


def test_a_lesson_not_begun_or_finished_has_no_continue(learner: TestClient) -> None:
    # A lesson whose every step asks a choice (an order is answered by a run, and this app
    # has no sandbox).
    slug = "reading-leaf-gradients"
    assert "Continue at step" not in learner.get("/").text
    for step in range(1, len(BUNDLED.get(slug).steps) + 1):  # type: ignore[union-attr]
        _answer(learner, step, slug)
    assert "Continue at step" not in learner.get("/").text
    # Nothing left, answered on the guided path: its end, the recall and the whole lesson one
    # link away (a reload after the last step stays where the learner finished).
    page = learner.get(f"/lessons/{slug}").text
    total = len(BUNDLED.get(slug).steps)  # type: ignore[union-attr]
    assert f'data-resume="{total + 1}"' in page and DEEP_DIVE not in page
    assert "Welcome back: you have answered every step." in page_text(page)
    assert WHOLE in page


def test_a_finished_lesson_last_used_in_another_mode_opens_the_whole_lesson(
    learner: TestClient,
) -> None:
    slug = "reading-leaf-gradients"
    for step in range(1, len(BUNDLED.get(slug).steps) + 1):  # type: ignore[union-attr]
        _answer(learner, step, slug)
    learner.post(f"/api/lessons/{slug}/mode", json={"mode": "flashcards"})
    assert DEEP_DIVE in learner.get(f"/lessons/{slug}").text
    learner.post(f"/api/lessons/{slug}/mode", json={"mode": "step-by-step"})
    assert 'data-resume="' in learner.get(f"/lessons/{slug}").text


def test_a_learner_who_chose_the_deep_dive_keeps_it(learner: TestClient) -> None:
    _answer(learner, 1)
    learner.post(f"{API}/mode", json={"mode": "deep-dive"})  # what the deep dive's page posts
    assert DEEP_DIVE in learner.get(LESSON).text
    catalog = learner.get("/").text  # the card still leads to the step, in the deep dive
    assert "Continue at step 2" in catalog and f'{LESSON}#step-2"' in catalog
