"""The belief behind a wrong choice (its `misconception`) is written for the teacher: no
response a learner gets carries it, on SQLite and PostgreSQL, with the bundled lessons and
their inventory. A learner who does not play along answers every choice of every step
prediction (each reveal is scanned), reads every lesson in every mode before and after, comes
back for review, and takes both inventory tests."""

from __future__ import annotations

import html
import json
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.config.paths import BUNDLED_LESSONS
from app.learning.pages.registry import MODES
from app.lessons.loader import load_catalog
from app.main import create_app
from app.rendering import markdown_inline, plain_text
from tests.clock import time_passes
from tests.conftest import make_settings
from tests.learning.test_inventory_gain import answers, client_learner, open_post_test

CATALOG = load_catalog(BUNDLED_LESSONS)
INVENTORY = CATALOG.inventory


def _beliefs() -> list[str]:
    """Every wrong choice's belief: the lessons' step predictions and the inventory's items."""
    predictions = [
        step.prediction
        for lesson in CATALOG.lessons
        for step in lesson.steps
        if step.prediction is not None
    ]
    predictions += [item.prediction for item in INVENTORY.items] if INVENTORY else []
    return [c.misconception for p in predictions for c in p.choices if c.misconception]


BELIEFS = _beliefs()
# Each belief as a response could carry it: as written, as JSON escapes it, as HTML escapes it,
# rendered from Markdown, and as plain text.
FORMS = sorted(
    {
        form
        for belief in BELIEFS
        for form in (
            belief,
            json.dumps(belief)[1:-1],
            html.escape(belief),
            str(markdown_inline(belief)),
            plain_text(belief),
        )
    }
)


def _carries_no_belief(where: str, body: str) -> None:
    found = [form for form in FORMS if form in body]
    assert not found, f"{where} carries {found[0]!r}"


@pytest.fixture
def bundled_both(migrated_url: str) -> Iterator[TestClient]:
    """The bundled curriculum, once on SQLite and once on PostgreSQL."""
    settings = make_settings(lessons_dir=BUNDLED_LESSONS, database_url=migrated_url)
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def _pages(client: TestClient) -> Iterator[tuple[str, str]]:
    yield "/api/lessons", client.get("/api/lessons").text
    for path in ("/", "/progress", "/review", "/api/review", "/api/progress"):
        yield path, client.get(path).text
    for lesson in CATALOG.lessons:
        yield f"/api/lessons/{lesson.slug}", client.get(f"/api/lessons/{lesson.slug}").text
        for mode in MODES:
            path = f"/lessons/{lesson.slug}/{mode.name}"
            yield path, client.get(path).text


def test_no_learner_response_carries_a_belief(bundled_both: TestClient) -> None:
    client = bundled_both
    assert len(BELIEFS) > 300  # every wrong choice of the bundled lessons and inventory has one
    for where, body in _pages(client):  # before anything
        _carries_no_belief(where, body)
    reveals = 0
    for lesson in CATALOG.lessons:
        for number, step in enumerate(lesson.steps, start=1):
            if step.prediction is None:
                continue
            url = f"/api/lessons/{lesson.slug}/steps/{number}/prediction"
            # Every wrong choice first (each reveal says what that choice gets wrong), then
            # the right one.
            wrong = [t for t in step.prediction.texts if t != step.prediction.answer]
            for choice in [*wrong, step.prediction.answer]:
                reply = client.post(url, json={"choice": choice, "confidence": "certain"})
                assert reply.status_code == 200, (url, reply.text)
                _carries_no_belief(f"{url} with {choice!r}", reply.text)
                reveals += 1
    assert reveals > 400
    time_passes(client)
    for where, body in _pages(client):  # every step answered, review due
        _carries_no_belief(where, body)
    # The concept inventory, both tests, every reply and page.
    links = client.app.state.store.create_class("Beliefs")  # type: ignore[attr-defined]
    client.post(f"/api/join/{links.join_token}", json={"display_name": "B"})
    open_post_test(client, links.info.id)
    learner = client_learner(client)
    for phase in ("pre", "post"):
        for path in (f"/api/inventory/{phase}", f"/inventory/{phase}"):
            _carries_no_belief(path, client.get(path).text)
        sent = client.post(
            f"/api/inventory/{phase}", json={"answers": answers(learner, phase, 0, True)}
        )
        assert sent.status_code == 200, sent.text
        _carries_no_belief(f"POST /api/inventory/{phase}", sent.text)
        for path in (f"/inventory/{phase}", "/api/progress/inventory", "/progress", "/"):
            _carries_no_belief(path, client.get(path).text)
    # The learner's own data, everything kept about them.
    _carries_no_belief("/api/progress/export", client.get("/api/progress/export").text)


def test_the_scan_finds_a_belief_where_one_is() -> None:
    """The scan is no test that cannot fail: a body holding a belief, in any of its forms."""
    belief = next(b for b in BELIEFS if "`" in b)
    for body in (belief, json.dumps({"x": belief}), f"<td>{markdown_inline(belief)}</td>"):
        with pytest.raises(AssertionError):
            _carries_no_belief("planted", body)
