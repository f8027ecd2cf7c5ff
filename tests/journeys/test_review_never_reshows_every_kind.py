"""Two review sittings an hour apart, on the kinds a run grades, select-all questions and
flashcards: an ordering and a select-all question come back on an instance whose code (so its
numbers) the learner was not shown, neither on the lesson page nor in a sitting before; code to write (one version) leaves review once
written right, however long one waits; a flashcard comes back as rated, which is what a card
is for, and never sooner: not again in the sitting that rated it, `again` after the scheduler's
learning step, `good` days later. The real curriculum (gradients-accumulate: an ordering with
variants, a select-all question with variants, an exercise, flashcards) and the real sandbox, on SQLite and PostgreSQL (the
predictions, typed values, drills, myths and recall are in test_review_never_reshows.py)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.lessons.format import Lesson, Step
from app.lessons.variants import instances
from app.modes.flashcards import lesson_flashcards
from tests.catalogs import BUNDLED
from tests.clock import time_passes
from tests.conftest import curriculum_with_sandbox

SLUG = "gradients-accumulate"
API = f"/api/lessons/{SLUG}"
HOUR = timedelta(hours=1)


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def curriculum(request: pytest.FixtureRequest) -> Iterator[TestClient]:
    yield from curriculum_with_sandbox(request)


@pytest.fixture
def learner(curriculum: TestClient) -> TestClient:
    curriculum.cookies.clear()
    return curriculum


def _lesson() -> Lesson:
    found = BUNDLED.get(SLUG)
    assert found is not None
    return found


def _ordering_step() -> int:
    return next(n for n, step in enumerate(_lesson().steps, 1) if step.ordering is not None)


def _post(client: TestClient, url: str, body: object) -> dict[str, Any]:
    answered = client.post(url, json=body)
    assert answered.status_code == 200, f"{url}: {answered.text}"
    found: dict[str, Any] = answered.json()
    return found


def _select_all_step() -> int:
    return next(n for n, step in enumerate(_lesson().steps, 1) if step.select_all is not None)


def _every_option(step: Step) -> dict[str, object]:
    """A select-all answer that ticks every statement: wrong where some do not hold."""
    assert step.select_all is not None
    return {"picked": list(step.select_all.texts), "confidence": "certain"}


def _study(client: TestClient) -> tuple[str, str]:
    """Commit every prediction right, miss the ordering, the select-all question and the
    exercise, rate two cards `again`: the ids of those two cards."""
    lesson = _lesson()
    for number, step in enumerate(lesson.steps, 1):
        if step.prediction is not None:
            body = {"choice": step.prediction.answer, "confidence": "certain"}
            _post(client, f"{API}/steps/{number}/prediction", body)
    number = _select_all_step()
    url = f"{API}/steps/{number}/select-all"
    assert _post(client, url, _every_option(lesson.steps[number - 1]))["correct"] is False
    number = _ordering_step()
    step = lesson.steps[number - 1]
    assert step.ordering is not None
    body = {"order": list(step.ordering.lines)[::-1], "confidence": "certain"}
    assert _post(client, f"{API}/steps/{number}/ordering", body)["correct"] is False
    blanks = ["pass"] * len(lesson.exercises[0].solution)
    assert _post(client, f"{API}/exercises/1", {"lines": blanks})["passed"] is False
    first, second = (card.id for card in lesson_flashcards(lesson)[:2])
    for card in (first, second):
        assert client.get(f"{API}/flashcards/{card}").status_code == 200
        _post(client, f"{API}/flashcards/{card}/rating", {"rating": "again"})
    return first, second


def _due(client: TestClient) -> dict[tuple[str, str], dict[str, Any]]:
    return {(item["kind"], item["key"]): item for item in client.get("/api/review").json()["due"]}


def _ordering_code(item: dict[str, Any]) -> str:
    step = _lesson().steps[_ordering_step() - 1]
    assert isinstance(item["form"], int)
    return instances(step)[item["form"]].code.strip()


def _miss_select_all(client: TestClient, item: dict[str, Any]) -> str:
    """Answer the select-all question's return wrongly (so that it comes back): the code of
    the instance it asked."""
    step = _lesson().steps[_select_all_step() - 1]
    url = f"/api/review/{item['id']}/answer?form={item['form']}"
    assert _post(client, url, _every_option(step))["correct"] is False
    return instances(step)[item["form"]].code.strip()


def _miss_order(client: TestClient, item: dict[str, Any]) -> None:
    """Answer the ordering's return wrongly, on the instance it asks (so that it comes back)."""
    lines = list(instances(_lesson().steps[_ordering_step() - 1])[item["form"]].lines)
    url = f"{API}/steps/{_ordering_step()}/ordering?form={item['form']}"
    assert _post(client, url, {"order": lines[::-1], "confidence": "certain"})["correct"] is False


def test_two_sittings_of_orderings_select_all_code_to_write_and_flashcards(
    learner: TestClient,
) -> None:
    client = learner
    good, again = _study(client)
    step = _lesson().steps[_ordering_step() - 1]
    assert step.snippet is not None
    shown = {step.snippet.code.strip()}  # the lesson page's lines are its own code's
    key = str(_ordering_step())
    select = str(_select_all_step())
    select_step = _lesson().steps[_select_all_step() - 1]
    assert select_step.snippet is not None
    ticked = {select_step.snippet.code.strip()}  # the lesson page's code

    time_passes(client, HOUR)
    first = _due(client)
    assert set(first) == {
        ("ordering", key),
        ("select_all", select),
        ("exercise", "1"),
        ("flashcard", good),
        ("flashcard", again),
    }
    asked = _miss_select_all(client, first["select_all", select])
    assert asked not in ticked
    ticked.add(asked)
    assert _ordering_code(first["ordering", key]) not in shown
    shown.add(_ordering_code(first["ordering", key]))
    _miss_order(client, first["ordering", key])
    solution = {"lines": _lesson().exercises[0].solution}
    written = _post(client, f"{API}/exercises/1", solution)
    assert written["passed"] is True and written["comes_back"] is not None
    for card, rating in ((good, "good"), (again, "again")):
        url = f"/api/review/{first['flashcard', card]['id']}/answer"
        rated = _post(client, url, {"rating": rating})
        assert rated["left"] is False  # a card stays, spaced
        assert rated["comes_back"] == ("in 10 minutes" if rating == "again" else "in 2 days")
    # The rest of the sitting: nothing it asked is asked again, a card rated `again` included.
    assert _due(client) == {}
    time_passes(client, timedelta(minutes=9))
    assert _due(client) == {}

    time_passes(client, HOUR)
    second = _due(client)
    # The card rated `again` is back (as rated); the one rated `good` waits its days; the code
    # written right has left; the ordering asks code shown neither on the page nor before.
    assert set(second) == {("ordering", key), ("select_all", select), ("flashcard", again)}
    asked = _miss_select_all(client, second["select_all", select])
    assert asked not in ticked
    ticked.add(asked)
    assert _ordering_code(second["ordering", key]) not in shown
    shown.add(_ordering_code(second["ordering", key]))
    _miss_order(client, second["ordering", key])

    for _ in range(3):
        time_passes(client, timedelta(days=60))
        kinds = {kind for kind, _ in _due(client)}
        assert "exercise" not in kinds and {"ordering", "flashcard"} <= kinds
    # A third return asks the instance not shown yet, while one remains.
    unseen = {instance.code.strip() for instance in instances(step)} - shown
    assert unseen, "the step has an instance more to ask"
    assert _ordering_code(_due(client)["ordering", key]) in unseen
