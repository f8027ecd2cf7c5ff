"""Fixtures of the route tests that more than one module needs."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from tests.conftest import curriculum_with_sandbox


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def curriculum_app(request: pytest.FixtureRequest) -> Iterator[TestClient]:
    """The real curriculum with the session's real sandbox, once a module on each database."""
    yield from curriculum_with_sandbox(request)


@pytest.fixture
def curriculum_learner(curriculum_app: TestClient) -> TestClient:
    """`curriculum_app` as a new learner: its cookies are cleared for each test."""
    curriculum_app.cookies.clear()
    return curriculum_app
