"""Clients and lesson catalogs shared by the tests of the learning core, modes and routes.

Import the fixtures into a test module (`from tests.learner_clients import client`) to get a
learner's client on the test lessons, over SQLite and PostgreSQL (see `database_url`)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import timedelta

import pytest
from fastapi.testclient import TestClient

from app.config import PROJECT_ROOT
from app.lessons.loader import load_catalog
from app.main import create_app
from tests.conftest import FIXTURE_LESSONS, make_settings

BUNDLED = load_catalog(PROJECT_ROOT / "lessons")
FIXTURES = load_catalog(FIXTURE_LESSONS)
LESSON = "/api/lessons/first-steps"


@pytest.fixture(scope="module")
def bundled() -> Iterator[TestClient]:
    """The real curriculum, in-process, no sandbox."""
    with TestClient(create_app(make_settings(lessons_dir=PROJECT_ROOT / "lessons"))) as client:
        yield client


@pytest.fixture
def client(database_url: str) -> Iterator[TestClient]:
    """The test lessons on SQLite and on PostgreSQL (see `database_url`)."""
    with TestClient(create_app(make_settings(database_url=database_url))) as test_client:
        yield test_client


def page_text(html: str) -> str:
    """A page's text as a reader sees it: tags dropped, white space folded."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def time_passes(where: TestClient | str, wait: timedelta = timedelta(minutes=11)) -> None:
    """As if `wait` had gone by for the review queue: every card falls due that much earlier
    (a miss waits out a learning step before it is asked again). `where`: an in-process client,
    or the database URL of a live server."""
    from sqlalchemy import create_engine, select, update

    from app.progress.models import ReviewCard

    live = isinstance(where, str)
    engine = create_engine(where) if live else where.app.state.store.engine  # type: ignore[union-attr]
    with engine.begin() as connection:
        for card_id, due in connection.execute(select(ReviewCard.id, ReviewCard.due)).all():
            moved = update(ReviewCard).where(ReviewCard.id == card_id).values(due=due - wait)
            connection.execute(moved)
    if live:
        engine.dispose()
