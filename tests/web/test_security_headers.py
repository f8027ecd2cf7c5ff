"""Security headers on every kind of response, and HEAD on every GET route."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from pydantic import ValidationError

from app.learning.pages.registry import MODES
from app.main import create_app
from tests.conftest import make_settings

SAMPLE = {"slug": "first-steps", "mode": MODES[0].slug, "card_id": "1", "number": "1"}


def _routes(routes: list[Any]) -> Iterator[Any]:
    for route in routes:
        included = getattr(route, "original_router", None)  # FastAPI's include_router
        if included is not None:
            yield from _routes(included.routes)
        else:
            yield route


def _get_paths(client: TestClient) -> list[str]:
    """Every GET route of the app, its path parameters filled with real values."""
    paths = []
    for route in _routes(client.app.routes):  # type: ignore[attr-defined]
        if isinstance(route, APIRoute) and "GET" in route.methods:
            paths.append(re.sub(r"{(\w+)}", lambda m: SAMPLE.get(m.group(1), "1"), route.path))
    return paths


def _policy(response_headers: object) -> dict[str, str]:
    header = response_headers["content-security-policy"]  # type: ignore[index]
    return dict(part.strip().split(" ", 1) for part in header.split(";"))


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/lessons/first-steps",
        "/api/lessons",
        "/static/css/site.css",
        "/no-such-page",
        "/api/lessons/nope",
    ],
)
def test_every_kind_of_response_carries_the_headers(sqlite_client: TestClient, path: str) -> None:
    response = sqlite_client.get(path)
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["referrer-policy"] == "same-origin"
    policy = _policy(response.headers)
    assert policy["script-src"] == "'self'"
    assert re.fullmatch(r"'self' 'nonce-[\w-]{16,}'", policy["style-src"])
    assert policy["frame-ancestors"] == "'self'"
    assert policy["object-src"] == "'none'"
    assert "strict-transport-security" not in response.headers  # not behind TLS by default


def test_each_page_gets_its_own_style_nonce_and_hands_it_to_the_editor(
    sqlite_client: TestClient,
) -> None:
    nonces = []
    for _ in range(2):
        response = sqlite_client.get("/lessons/first-steps")
        nonce = _policy(response.headers)["style-src"].split("'nonce-")[1].rstrip("'")
        assert f'<meta name="csp-nonce" content="{nonce}">' in response.text
        nonces.append(nonce)
    assert nonces[0] != nonces[1]


def test_the_api_docs_get_their_own_policy(sqlite_client: TestClient) -> None:
    """Swagger UI starts with an inline script from a CDN; it shows no learner output."""
    policy = _policy(sqlite_client.get("/docs").headers)
    assert "https://cdn.jsdelivr.net" in policy["script-src"]
    assert policy["frame-ancestors"] == "'self'"


def test_frame_ancestors_and_hsts_come_from_the_settings() -> None:
    settings = make_settings(
        frame_ancestors="'self' https://course.example.org", cookie_secure=True
    )
    with TestClient(create_app(settings)) as client:
        response = client.get("/")
    assert _policy(response.headers)["frame-ancestors"] == "'self' https://course.example.org"
    assert response.headers["strict-transport-security"].startswith("max-age=")


@pytest.mark.parametrize("bad", ["'self'; script-src *", "a,b", "", "x\ny"])
def test_a_frame_ancestors_value_cannot_inject_a_directive(bad: str) -> None:
    with pytest.raises(ValidationError, match="frame_ancestors"):
        make_settings(frame_ancestors=bad)


def test_head_answers_every_get_route_like_get_without_a_body(sqlite_client: TestClient) -> None:
    paths = _get_paths(sqlite_client)
    assert "/" in paths and len(paths) > 10
    for path in [*paths, "/static/css/site.css", "/no-such-page"]:
        get = sqlite_client.get(path)
        head = sqlite_client.head(path)
        assert head.status_code == get.status_code, path
        assert head.content == b"", path
        assert head.headers.get("content-type") == get.headers.get("content-type"), path
        assert "content-security-policy" in head.headers, path
