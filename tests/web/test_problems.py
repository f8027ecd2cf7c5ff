"""Errors as HTTP: one format for the API (Problem Details), the error page for pages, every
problem type documented, and every error an operation declares in the OpenAPI document."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator

import pytest
from fastapi.testclient import TestClient

from app import errors
from app.config.paths import PROJECT_ROOT
from app.errors import Problem, TooManyRequests, UnknownLesson
from app.main import create_app
from app.web.problems import responses
from tests.conftest import make_settings

CONTRACT = (PROJECT_ROOT / "docs" / "http-contract.md").read_text()


def _problems() -> list[type[Problem]]:
    found = [Problem]
    for problem in found:
        found.extend(problem.__subclasses__())
    return found[1:]


@pytest.fixture
def app_client() -> Iterator[TestClient]:
    app = create_app(make_settings())

    async def limited() -> None:
        raise TooManyRequests(retry_after=7, detail="Three shares a minute; wait a little.")

    async def limited_page() -> None:
        raise TooManyRequests(retry_after=7)

    app.add_api_route("/api/limited", limited, responses=responses(TooManyRequests))
    app.add_api_route("/limited", limited_page, include_in_schema=False)
    with TestClient(app) as client:
        yield client


@pytest.mark.parametrize("problem", _problems(), ids=lambda p: p.slug)
def test_every_problem_type_is_documented_with_its_status(problem: type[Problem]) -> None:
    assert f"| `{problem.slug}` | {problem.status} |" in CONTRACT


def test_problem_types_are_distinct() -> None:
    slugs = [problem.slug for problem in _problems()]
    assert len(slugs) == len(set(slugs))


def test_a_limit_is_a_429_with_retry_after_for_the_api_and_for_a_page(
    app_client: TestClient,
) -> None:
    api = app_client.get("/api/limited")
    assert api.status_code == 429
    assert api.headers["retry-after"] == "7"
    assert api.headers["content-type"] == "application/problem+json"
    assert api.json() == {
        "type": "/problems/too-many-requests",
        "title": "Too many requests",
        "status": 429,
        "detail": "Three shares a minute; wait a little.",
    }
    page = app_client.get("/limited")
    assert page.status_code == 429
    assert page.headers["retry-after"] == "7"
    assert page.headers["content-type"].startswith("text/html")
    assert "Too many requests" in page.text


def test_the_same_refusal_is_a_problem_for_the_api_and_a_page_for_a_person(
    app_client: TestClient,
) -> None:
    api = app_client.get("/api/lessons/nope")
    page = app_client.get("/lessons/nope")
    assert api.status_code == page.status_code == 404
    assert api.json()["type"] == UnknownLesson.type_uri()
    assert page.headers["content-type"].startswith("text/html")
    assert "Page not found" in page.text and "No lesson called" in page.text


def test_a_server_error_says_nothing_of_its_cause(app_client: TestClient) -> None:
    app = app_client.app

    async def broken() -> None:
        raise RuntimeError("secret-token-123 leaked")

    app.add_api_route("/api/broken", broken)  # type: ignore[attr-defined]
    with TestClient(app, raise_server_exceptions=False) as client:  # type: ignore[arg-type]
        answer = client.get("/api/broken")
    assert answer.status_code == 500
    assert answer.headers["content-type"] == "application/problem+json"
    assert "secret" not in answer.text
    assert answer.json()["title"] == "Internal Server Error"


def test_a_page_that_cannot_render_is_a_500_every_layer_sees(
    app_client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    """A template that fails (here: a macro reaching for the page's context it was not given)
    answers the error page with status 500, the request id and the security headers, and the
    access line says 500: never a reset connection logged as 200."""
    from app.web.templates import templates

    app = app_client.app
    broken = templates.env.from_string(
        '{% macro link() %}{{ url_for("catalog_page") }}{% endmacro %}{{ link() }}'
    )

    async def page() -> None:
        broken.render()

    app.add_api_route("/broken-page", page, include_in_schema=False)  # type: ignore[attr-defined]
    with caplog.at_level(logging.INFO):
        answer = app_client.get("/broken-page")  # raise_server_exceptions stays on: none escapes
    assert answer.status_code == 500
    assert answer.headers["content-type"].startswith("text/html")
    assert "Something went wrong" in answer.text and "KeyError" not in answer.text
    assert answer.headers["x-request-id"] and answer.headers["x-content-type-options"]
    [access] = [r for r in caplog.records if r.name == "gradlab.access"]
    assert access.getMessage().startswith("GET /broken-page 500")
    [logged] = [r for r in caplog.records if r.getMessage().startswith("server error")]
    assert logged.exc_info is not None and "url_for" in logging.Formatter().formatException(
        logged.exc_info
    )


def test_an_error_after_the_answer_began_is_logged_as_500(
    app_client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    from starlette.responses import StreamingResponse

    app = app_client.app

    async def chunks() -> AsyncIterator[bytes]:
        yield b"<p>begun"
        raise RuntimeError("mid-body")

    async def page() -> StreamingResponse:
        return StreamingResponse(chunks(), media_type="text/html")

    app.add_api_route("/half-page", page, include_in_schema=False)  # type: ignore[attr-defined]
    with caplog.at_level(logging.INFO), TestClient(app, raise_server_exceptions=False) as client:  # type: ignore[arg-type]
        client.get("/half-page")
    [access] = [r for r in caplog.records if r.name == "gradlab.access"]
    assert access.getMessage().startswith("GET /half-page 500")


def test_every_error_in_the_document_is_problem_details(app_client: TestClient) -> None:
    document = app_client.get("/openapi.json").json()
    assert "HTTPValidationError" not in document["components"]["schemas"]
    limited = document["paths"]["/api/limited"]["get"]["responses"]["429"]
    assert limited["headers"]["Retry-After"]["required"] is True
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            for status, answer in operation["responses"].items():
                if int(status) < 400:
                    continue
                where = f"{method.upper()} {path} {status}"
                assert list(answer["content"]) == ["application/problem+json"], where
                schema = answer["content"]["application/problem+json"]["schema"]
                assert schema == {"$ref": "#/components/schemas/ProblemDetails"}, where
                assert "/problems/" in answer["description"], where


def test_a_slug_names_a_problem_not_an_error_class() -> None:
    assert errors.NotAChoice.type_uri() == "/problems/not-a-choice"
    assert errors.PredictionNotCommitted.status == 409
    assert errors.SandboxBusy("busy").headers() == {"Retry-After": "1"}
    assert errors.SandboxDisabled().headers() == {}
