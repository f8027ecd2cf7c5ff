"""A GET never writes: a walk over every GET page and endpoint leaves the database as it was,
for a learner with saved answers and for a new visitor, on SQLite and PostgreSQL."""

from __future__ import annotations

import uuid

from fastapi.testclient import TestClient
from sqlalchemy import select

from app.learning.lti.messages import Launched
from app.learning.pages.registry import MODES
from app.progress.models.declarative import Base

LESSON = "/api/lessons/first-steps"


def _gets(share: str) -> list[str]:
    pages = ["/", "/playground", "/review", "/progress", "/healthz", "/api/lessons"]
    pages += [f"/s/{share}", f"/playground?share={share}", "/s/no-such-share"]
    for slug in ("first-steps", "second-steps"):
        pages += [f"/lessons/{slug}", f"/api/lessons/{slug}", f"/api/lessons/{slug}/progress"]
        pages += [f"/lessons/{slug}/{mode.slug}" for mode in MODES]
    pages += ["/api/progress", "/api/review", "/api/progress/calibration"]
    pages += [f"{LESSON}/flashcards/takeaway-1", f"{LESSON}/pitfalls/1/hints/2"]
    return [*pages, f"{LESSON}/pitfalls/1/fix", "/lessons/nope", "/lessons/first-steps/nope"]


def _lti_gets(client: TestClient) -> list[str]:
    """After an LTI launch: the cookie check (this client never launched, so it is shown the
    blocked-cookie page) and the resume link, which shows the page that asks before its POST
    signs the launch's learner in (tests/learning/test_lti_cookies.py)."""
    resumes = client.app.state.learning.lti.resumes  # type: ignore[attr-defined]
    launched = resumes.sealed(Launched(str(uuid.uuid4()), None, None, "first-steps"))
    return [launched.landed_url, f"/lti/resume/{launched.resume}"]


def _snapshot(client: TestClient) -> dict[str, list[tuple[object, ...]]]:
    store = client.app.state.store  # type: ignore[attr-defined]
    with store.reading() as connection:
        return {
            table.name: sorted(
                (tuple(row) for row in connection.execute(select(table)).all()), key=repr
            )
            for table in Base.metadata.sorted_tables
        }


def test_a_walk_over_every_get_writes_nothing(client: TestClient) -> None:
    # A learner with something in every table that a GET used to touch.
    client.post(f"{LESSON}/steps/1/prediction", json={"choice": "None", "confidence": "guess"})
    client.post(f"{LESSON}/myths/1/answer", json={"answer": "yes"})
    client.post(f"{LESSON}/steps/1/value", json={"value": "[0, 0]"})
    client.post(f"{LESSON}/flashcards/takeaway-1/rating", json={"rating": "again"})
    client.post(f"{LESSON}/mode", json={"mode": "flashcards"})
    share = client.post("/api/shares", json={"code": "print(1)", "lesson": "first-steps"})
    before = _snapshot(client)
    assert before["review_cards"] and before["learners"] and before["shares"]
    for path in [*_gets(share.json()["id"]), *_lti_gets(client)]:
        assert client.get(path).status_code in (200, 404), path
    assert _snapshot(client) == before


def test_a_new_visitor_walks_every_page_without_a_row(client: TestClient) -> None:
    share = TestClient(client.app).post("/api/shares", json={"code": "print(1)"}).json()["id"]
    before = _snapshot(client)
    for path in [*_gets(share), *_lti_gets(client)]:
        # 409: what would answer an uncommitted question is refused, and writes nothing.
        assert client.get(path).status_code in (200, 404, 409), path
    assert _snapshot(client) == before
    assert before["learners"] == []


def test_a_walk_over_a_class_writes_nothing(client: TestClient) -> None:
    links = client.app.state.store.create_class("Reads")  # type: ignore[attr-defined]
    client.post(f"/api/join/{links.join_token}", json={"display_name": "Ada"})
    client.post(
        f"{LESSON}/steps/1/prediction", json={"choice": "None", "confidence": "fairly_sure"}
    )
    before = _snapshot(client)
    assert before["class_members"]
    class_id = links.info.id
    pages = [f"/join/{links.join_token}", f"/teach/{links.instructor_token}"]
    pages += [f"/classes/{class_id}", f"/api/classes/{class_id}"]
    pages += [f"/api/classes/{class_id}/items", f"/api/classes/{class_id}/export.csv", "/stats"]
    for path in pages:
        assert client.get(path).status_code == 200, path
    assert _snapshot(client) == before
