"""The one place where an error becomes an HTTP answer, for the API and the pages alike.

The API answers every error as Problem Details (RFC 9457, `application/problem+json`); a page
answers the same error with the friendly error page, same status and headers. The problems
themselves are declared in `app/errors.py`; here they are only drawn. `responses(...)` puts an
operation's errors, with their bodies and headers, into the OpenAPI document, and the document
hook adds what every operation with a body or parameters may meet (400, 413, 422).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator, Mapping
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.dependencies.models import Dependant
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import JSONResponse, Response
from fastapi.routing import APIRoute
from pydantic import BaseModel, Field
from sqlalchemy.exc import OperationalError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import BaseRoute
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.errors import (
    TYPE_PREFIX,
    BodyTooLarge,
    CrossSiteRequest,
    Problem,
    StoreUnavailable,
)
from app.web.templates import render

log = logging.getLogger("gradlab")

MEDIA_TYPE = "application/problem+json"
# Paths whose answers are for programs, not people; everything else is a page.
_API_PATHS = ("/api/", "/healthz", "/readyz", "/openapi.json", "/static/", "/dev/")


class FieldError(BaseModel):
    """One field of a request that does not fit: where, what is wrong, and its kind."""

    loc: list[str | int] = Field(description='Where: ["body", "code"], ["path", "number"]')
    msg: str = Field(description="What is wrong, in words")
    type: str = Field(description="The kind of mistake (pydantic's error type)")


class ProblemDetails(BaseModel):
    """An error, as RFC 9457 Problem Details. `type` tells refusals apart: see
    docs/http-contract.md for the list."""

    type: str = Field(description="/problems/<slug>: which refusal this is")
    title: str = Field(description="The same short sentence for every problem of this type")
    status: int = Field(description="The HTTP status, repeated")
    detail: str = Field(description="What went wrong this time, in plain words")
    errors: list[FieldError] | None = Field(
        default=None, description="For a request that does not fit its schema: each field"
    )


# Problems the framework meets before a route runs, named like the core's.
MALFORMED_JSON = ("malformed-json", "The body is not valid JSON", 400)
INVALID_REQUEST = ("invalid-request", "The request does not fit the schema", 422)
_FRAMEWORK_SLUGS = {404: "not-found", 405: "method-not-allowed"}


def is_api(request: Request) -> bool:
    return request.url.path.startswith(_API_PATHS)


def problem_body(
    slug: str, title: str, status: int, detail: str, errors: list[FieldError] | None = None
) -> dict[str, Any]:
    body = ProblemDetails(
        type=f"{TYPE_PREFIX}{slug}" if slug else "about:blank",
        title=title,
        status=status,
        detail=detail,
        errors=errors,
    )
    return body.model_dump(mode="json", exclude_none=True)


def answer(
    request: Request,
    status: int,
    body: dict[str, Any],
    headers: Mapping[str, str] | None = None,
) -> Response:
    """The error as Problem Details for the API, as the error page for a page."""
    if is_api(request):
        return JSONResponse(body, status_code=status, headers=headers, media_type=MEDIA_TYPE)
    # A refusal (403) says what was refused; other errors stay plain.
    title = {404: "Page not found", 403: body.get("title")}.get(status) or "Something went wrong"
    page = render(request, "error.html", status, title=title, status=status, detail=body["detail"])
    page.headers.update(headers or {})
    return page


def problem_answer(request: Request, problem: Problem) -> Response:
    body = problem_body(problem.slug, problem.title, problem.status, problem.detail)
    return answer(request, problem.status, body, problem.headers())


def server_error_answer(request: Request) -> Response:
    """A 500: the error page for a page, Problem Details for the API, never the cause."""
    detail = "Something went wrong on the server; it has been logged."
    return answer(request, 500, problem_body("", "Internal Server Error", 500, detail))


class ServerErrors:
    """A route that raises (a bug, a template that cannot render in some learner's state)
    answers a real 500 from inside the middleware stack, so that the access line, the metrics,
    the request id and the security headers all see it, and its traceback is logged once, with
    the request id. Starlette's own handler sits outside every middleware: there, the access
    line and the headers would miss it. An exception after the response has started cannot
    change its status: it is logged and goes on up, and the server closes the connection."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def sending(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except Exception:
            log.exception("server error: %s %s", scope["method"], scope["path"])
            if started:
                raise
            try:
                response = server_error_answer(Request(scope))
            except Exception:  # the error page itself cannot render: say it in plain text
                log.exception("the error page could not be drawn")
                response = Response("Internal Server Error", 500, media_type="text/plain")
            await response(scope, receive, send)


def refusal_body(problem: Problem) -> bytes:
    """A refusal sent before any route runs (the body limit's 413 and 408), as bytes."""
    body = problem_body(problem.slug, problem.title, problem.status, problem.detail)
    return bytes(JSONResponse(body).body)


def _field_errors(exc: RequestValidationError) -> list[FieldError]:
    return [
        FieldError(
            loc=[part if isinstance(part, int) else str(part) for part in error.get("loc", ())],
            msg=str(error.get("msg", "")),
            type=str(error.get("type", "")),
        )
        for error in jsonable_encoder(exc.errors())
    ]


def _in_words(errors: Iterable[FieldError]) -> str:
    said = [f"{'.'.join(str(p) for p in e.loc[1:]) or e.loc[0]}: {e.msg}" for e in errors]
    return "; ".join(said) or "The request does not fit the schema."


def install(app: FastAPI) -> None:
    """Every error handler of the app, and the OpenAPI hook."""

    @app.exception_handler(Problem)
    async def refused(request: Request, exc: Problem) -> Response:
        return problem_answer(request, exc)

    @app.exception_handler(OperationalError)
    async def database_unavailable(request: Request, exc: OperationalError) -> Response:
        log.error("progress store unavailable: %s", str(exc).splitlines()[0])
        return problem_answer(
            request,
            StoreUnavailable(
                "Your progress cannot be reached right now; nothing was lost. Try again shortly."
            ),
        )

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> Response:
        errors = _field_errors(exc)
        unreadable = [e for e in exc.errors() if e.get("type") == "json_invalid"]
        if unreadable:
            slug, title, status = MALFORMED_JSON
            why = str((unreadable[0].get("ctx") or {}).get("error", "")).strip()
            detail = f"The body is not valid JSON ({why})." if why else f"{title}."
            return answer(request, status, problem_body(slug, title, status, detail))
        slug, title, status = INVALID_REQUEST
        return answer(request, status, problem_body(slug, title, status, _in_words(errors), errors))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        status = exc.status_code
        phrase = HTTPStatus(status).phrase
        if status == 400:  # FastAPI's "There was an error parsing the body"
            slug, title, _ = MALFORMED_JSON
        else:
            slug, title = _FRAMEWORK_SLUGS.get(status, ""), phrase
        detail = exc.detail if isinstance(exc.detail, str) else phrase
        return answer(request, status, problem_body(slug, title, status, detail), exc.headers)

    @app.exception_handler(Exception)
    async def server_error(request: Request, exc: Exception) -> Response:
        # Only what fails outside `ServerErrors` (a middleware around it) arrives here; Starlette
        # logs it. Nothing of the cause reaches a client.
        return server_error_answer(request)

    app.openapi = _openapi_hook(app)  # type: ignore[method-assign]


# --- the OpenAPI document -----------------------------------------------------------------
_REF = {"$ref": "#/components/schemas/ProblemDetails"}
_RETRY_AFTER = {
    "Retry-After": {
        "description": "Seconds after which the same request may succeed",
        "required": True,
        "schema": {"type": "integer", "minimum": 0},
    }
}


def _described(status: int, problems: Iterable[tuple[str, str, bool]]) -> dict[str, Any]:
    """One status: its problem types in the description, Retry-After when all of them send it."""
    listed = list(problems)
    lines = "; ".join(f"`{TYPE_PREFIX}{slug}`: {title}" for slug, title, _ in listed)
    entry: dict[str, Any] = {
        "description": f"{HTTPStatus(status).phrase}. {lines}",
        "content": {MEDIA_TYPE: {"schema": _REF}},
    }
    if listed and all(retry for _, _, retry in listed):
        entry["headers"] = _RETRY_AFTER
    return entry


def responses(*problems: type[Problem]) -> dict[int | str, dict[str, Any]]:
    """`responses=` for an operation that may raise these problems: each status with the types
    that produce it, its Problem Details body and, where it is sent, Retry-After."""
    by_status: dict[int, list[tuple[str, str, bool]]] = {}
    for problem in problems:
        retries = problem.retry_after is not None or problem.status == 429
        by_status.setdefault(problem.status, []).append((problem.slug, problem.title, retries))
    return {status: _described(status, listed) for status, listed in sorted(by_status.items())}


def _framework_responses(operation: dict[str, Any], method: str) -> None:
    """What any operation with a body or parameters may meet before its route runs (and any
    that writes: the cross-site check), next to what its route declared for the same status."""
    from app.web.cross_site import SAFE_METHODS  # it answers through this module

    answers: dict[str, Any] = operation.setdefault("responses", {})
    found: list[tuple[str, str, int]] = []
    if method.upper() not in SAFE_METHODS:
        found.append((CrossSiteRequest.slug, CrossSiteRequest.title, CrossSiteRequest.status))
    if "requestBody" in operation:
        found += [MALFORMED_JSON, (BodyTooLarge.slug, BodyTooLarge.title, BodyTooLarge.status)]
    if "requestBody" in operation or operation.get("parameters"):
        found.append(INVALID_REQUEST)
    for slug, title, status in found:
        entry = _described(status, [(slug, title, False)])
        own = answers.get(str(status), {}).get("description", "").partition(". ")[2]
        if own:
            entry["description"] += f"; {own}"
        answers[str(status)] = entry
    operation["responses"] = dict(sorted(answers.items()))


def _dependency_problems(app: FastAPI) -> dict[str, tuple[type[Problem], ...]]:
    """operationId -> the problems its dependencies declare they may raise, through a
    `problems` attribute on the dependency's function (a new learner's cookie, for one)."""
    return {
        route.unique_id: tuple(_raised_by(route.dependant))
        for route in _api_routes(app.routes)
        if route.include_in_schema
    }


def _api_routes(routes: Iterable[BaseRoute]) -> Iterator[APIRoute]:
    """Every APIRoute, included routers' too (FastAPI keeps those behind a wrapper that holds
    the router it included)."""
    for route in routes:
        if isinstance(route, APIRoute):
            yield route
        included = getattr(route, "original_router", None)
        if included is not None:
            yield from _api_routes(included.routes)


def _raised_by(dependant: Dependant) -> Iterator[type[Problem]]:
    for sub in dependant.dependencies:
        yield from getattr(sub.call, "problems", ())
        yield from _raised_by(sub)


def _dependencies_responses(operation: dict[str, Any], raised: tuple[type[Problem], ...]) -> None:
    answers: dict[str, Any] = operation.setdefault("responses", {})
    for status, entry in responses(*raised).items():
        own = answers.get(str(status))
        if own is not None:
            entry["description"] += "; " + own["description"].partition(". ")[2]
        answers[str(status)] = entry


def _openapi_hook(app: FastAPI) -> Callable[[], dict[str, Any]]:
    def openapi() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        document = get_openapi(
            title=app.title,
            version=app.version,
            summary=app.summary,
            routes=app.routes,
        )
        schemas = document.setdefault("components", {}).setdefault("schemas", {})
        for name in ("HTTPValidationError", "ValidationError"):
            schemas.pop(name, None)
        model = ProblemDetails.model_json_schema(ref_template="#/components/schemas/{model}")
        schemas.update(model.pop("$defs", {}))
        schemas["ProblemDetails"] = model
        raised = _dependency_problems(app)
        for path in document.get("paths", {}).values():
            for method, operation in path.items():
                _dependencies_responses(operation, raised.get(operation.get("operationId"), ()))
                _framework_responses(operation, method)
        app.openapi_schema = document
        return document

    return openapi
