"""A newcomer gets a learner's cookie from every page they can run, share or answer from, not
only from a lesson's: the playground, a share, review and progress (and the lesson pages and
modes, as before). The same limit of new learners per client address holds; past it those
pages are still served, without a cookie. The catalog gives none (nothing runs there). Over
a real server, with runs: tests/test_one_address.py."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.learning.pages.registry import MODES
from app.main import create_app
from app.progress.models.learners import Learner
from tests.conftest import make_settings

COOKIE = "gradlab_learner"
LESSON = "first-steps"


@pytest.fixture(scope="module")
def started() -> Iterator[TestClient]:
    settings = make_settings(new_learners_per_minute=2 + 4 + len(MODES))
    with TestClient(create_app(settings)) as client:
        yield client


def _newcomer(started: TestClient, address: str) -> TestClient:
    client = TestClient(started.app, client=(address, 50000))
    client.portal = started.portal
    return client


def _share(started: TestClient) -> str:
    author = _newcomer(started, "192.0.2.200")
    assert author.get(f"/lessons/{LESSON}").status_code == 200
    made = author.post("/api/shares", json={"code": "print(1)", "lesson": LESSON})
    assert made.status_code == 201
    share: str = made.json()["id"]
    return share


def test_every_page_that_runs_shares_or_answers_gives_a_cookie(started: TestClient) -> None:
    share = _share(started)
    pages = ["/playground", f"/playground?share={share}", f"/s/{share}", "/review", "/progress"]
    pages += [f"/lessons/{LESSON}", *(f"/lessons/{LESSON}/{mode.slug}" for mode in MODES)]
    for page in pages:
        client = _newcomer(started, "192.0.2.1")
        answer = client.get(page)
        assert answer.status_code == 200, page
        assert COOKIE in client.cookies, page
    # Only the signed cookie: no learner has a row (a share names none).
    with started.app.state.store.reading() as connection:  # type: ignore[attr-defined]
        assert connection.scalar(select(func.count()).select_from(Learner)) == 0


def test_the_catalog_gives_none(started: TestClient) -> None:
    client = _newcomer(started, "192.0.2.2")
    assert client.get("/").status_code == 200
    assert COOKIE not in client.cookies


def test_a_learner_keeps_the_cookie_they_came_with(started: TestClient) -> None:
    client = _newcomer(started, "192.0.2.3")
    client.get("/playground")
    first = client.cookies[COOKIE]
    for page in ("/playground", "/review", "/progress", f"/lessons/{LESSON}"):
        client.get(page)
        assert client.cookies[COOKIE] == first, page


def test_past_the_address_limit_the_pages_are_served_without_a_cookie() -> None:
    with TestClient(create_app(make_settings(new_learners_per_minute=1))) as started:
        first = _newcomer(started, "198.51.100.1")
        assert first.get("/playground").status_code == 200
        assert COOKIE in first.cookies
        for page in ("/playground", "/review", "/progress"):
            later = _newcomer(started, "198.51.100.1")
            assert later.get(page).status_code == 200, page
            assert COOKIE not in later.cookies, page
        # A lesson page needs a learner (its choices are in the learner's order): refused.
        refused = _newcomer(started, "198.51.100.1").get(f"/lessons/{LESSON}")
        assert refused.status_code == 429
        assert int(refused.headers["retry-after"]) > 0
        # Another address has a bucket of its own.
        other = _newcomer(started, "198.51.100.2")
        assert other.get("/playground").status_code == 200
        assert COOKIE in other.cookies
