"""No request answers 500: a property over every body field and query parameter of every
operation /openapi.json lists (a new route is covered without being named here), with the
values a learner who does not play along sends: numbers no float holds, as numbers and as text,
NaN and Infinity (which Python's JSON reader takes), deep nesting, control characters, long
text, wrong types, missing and extra fields. The app runs in-process on SQLite, without a
sandbox (a run's 503 `sandbox-disabled` is an answer too); the learner has committed the
fixture lesson's prediction and has a drill due for review, so that typed values, drills and
review reach their graders.

Schemathesis (tests/test_http_contract.py) checks the whole documented contract against a live
server; this test aims the values it rarely draws at the same operations, quickly."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.lessons.loader import load_catalog
from app.main import create_app
from app.modes.drills import lesson_drills
from app.modes.flashcards import lesson_flashcards
from tests.catalogs import LESSON
from tests.clock import time_passes
from tests.conftest import FIXTURE_LESSONS, make_settings

EXAMPLES_PER_OPERATION = 30
# What a server may answer without having failed: the sandbox is off, or busy.
ANSWERED_5XX = {503}

NUMBER_TEXTS = [
    "9" * 1999,
    "-" + "9" * 1998,
    "9" * 5000,  # past Python's 4300 digits for int()
    "1e999",
    "-1e999",
    "1e-999",
    "0x" + "f" * 1990,
    "[" + "9" * 1990 + "]",
    "tensor([" + "9" * 1980 + ".])",
    "nan",
    "-inf",
    "²",
    "٣",
    "1_000",
    "[" * 1000 + "]" * 1000,
    "-" * 1999 + "1",
]
HUGE_NUMBERS = [10**400, -(10**400), 2**63, -(2**63) - 1, 1e308, float("inf"), float("nan")]


# Stands for JSON nested deeper than Python's recursion limit, which json.dumps cannot write:
# put in as text once the rest is encoded (`_encoded`).
DEEP = "\x00deep\x00"
DEEP_JSON = "[" * 3000 + "1" + "]" * 3000


def _encoded(value: Any) -> str:
    return json.dumps(value).replace(json.dumps(DEEP), DEEP_JSON)


def hostile(longest: int = 100_000) -> st.SearchStrategy[Any]:
    """A hostile value; text up to `longest` characters (a URL's are bounded by the client, and
    by the server's cap on a request's head)."""
    numbers = st.one_of(st.sampled_from(NUMBER_TEXTS), st.sampled_from(HUGE_NUMBERS))
    others = st.one_of(
        st.integers(),
        st.floats(),
        st.booleans(),
        st.none(),
        st.text(max_size=40),
        st.text(alphabet=st.characters(max_codepoint=0x1F), max_size=10),
        st.just("x" * longest),
    )
    scalars = st.one_of(numbers, others)
    return st.one_of(
        numbers,
        scalars,
        st.lists(scalars, max_size=4),
        st.dictionaries(st.text(max_size=8), scalars, max_size=3),
        st.sampled_from([DEEP, [[[[[[1]]]]]]]),
    )


def _known(name: str) -> list[Any]:
    """Real identifiers for a path parameter, so that requests reach the learning core."""
    lessons = load_catalog(FIXTURE_LESSONS).lessons
    known: dict[str, list[Any]] = {
        "slug": [lesson.slug for lesson in lessons],
        "number": [1, 2, 3],
        "level": [1, 2, 3],
        "drill_id": [drill.id for lesson in lessons for drill in lesson_drills(lesson)],
        "card_id": [card.id for lesson in lessons for card in lesson_flashcards(lesson)],
        "phase": ["pre", "post"],
    }
    return known.get(name, [])


def _path_value(name: str, schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    text = st.one_of(st.sampled_from(NUMBER_TEXTS), st.text(max_size=20))
    other = st.integers(1, 5) | st.integers() if schema.get("type") == "integer" else text
    known = _known(name)
    # The first known value reaches the core most often (the fixture lesson, its step 1).
    return st.one_of(st.just(known[0]), st.sampled_from(known), other) if known else other


def _field(schema: dict[str, Any], components: dict[str, Any]) -> st.SearchStrategy[Any]:
    """A value for one body field: one of its schema's own (an enum's members, a mode's
    slug) half the time, else a hostile one."""
    if "$ref" in schema:
        schema = components[schema["$ref"].rsplit("/", 1)[1]]
    members = schema.get("enum") or [
        member for option in schema.get("anyOf", []) for member in option.get("enum", [])
    ]
    fitting = st.sampled_from(members) if members else st.sampled_from(["tensor([4., 6.])", "1"])
    return st.one_of(fitting, st.sampled_from(NUMBER_TEXTS), hostile())


def _properties(schema: dict[str, Any], components: dict[str, Any]) -> dict[str, Any]:
    """A body's fields (a free-form body, the review answer's: what any kind sends)."""
    if "$ref" in schema:
        schema = components[schema["$ref"].rsplit("/", 1)[1]]
    found: dict[str, Any] = schema.get("properties") or {
        name: {} for name in ("value", "choice", "confidence", "answer", "order", "rating")
    }
    return found


def _body(properties: dict[str, Any], components: dict[str, Any]) -> st.SearchStrategy[Any]:
    fields = {name: _field(spec, components) for name, spec in properties.items()}
    whole = st.fixed_dictionaries(fields)
    some = st.fixed_dictionaries({}, optional=fields)
    extra = st.dictionaries(st.text(max_size=6), hostile(), max_size=1)
    objects = st.tuples(st.one_of(whole, whole, some), extra).map(lambda b: {**b[1], **b[0]})
    return st.one_of(objects, objects, objects, hostile())


def _operations() -> list[tuple[str, str, dict[str, Any]]]:
    with TestClient(create_app(make_settings())) as client:
        document = client.get("/openapi.json").json()
    found = [
        (method.upper(), path, {**operation, "components": document["components"]["schemas"]})
        for path, methods in document["paths"].items()
        for method, operation in methods.items()
    ]
    assert len(found) > 30  # the document lists the app's operations
    return found


OPERATIONS = _operations()


@pytest.fixture(scope="module")
def learner() -> Iterator[TestClient]:
    app = create_app(make_settings(new_learners_per_minute=10_000))
    with TestClient(app, raise_server_exceptions=False) as client:
        right = {"choice": "tensor([4., 6.])", "confidence": "fairly_sure"}
        assert client.post(f"{LESSON}/steps/1/prediction", json=right).status_code == 200
        client.post(f"{LESSON}/drills/step-1.x/answer", json={"value": "0"})  # a miss: review
        time_passes(client)
        assert client.get("/api/review").json()["due_count"] == 1
        yield client


@pytest.mark.slow
@pytest.mark.parametrize(
    ("method", "path", "operation"), OPERATIONS, ids=[f"{m} {p}" for m, p, _ in OPERATIONS]
)
def test_no_request_answers_500(
    learner: TestClient, method: str, path: str, operation: dict[str, Any]
) -> None:
    components = operation["components"]
    parameters = operation.get("parameters", [])
    paths = {p["name"]: p["schema"] for p in parameters if p["in"] == "path"}
    queries = [p["name"] for p in parameters if p["in"] == "query"]
    content = operation.get("requestBody", {}).get("content", {}).get("application/json")
    fields = _properties(content["schema"], components) if content else {}

    def send(path_values: dict[str, Any], query: dict[str, Any], payload: Any) -> None:
        url = re.sub(r"\{(\w+)\}", lambda m: _segment(path_values[m.group(1)]), path)
        params = {k: v if isinstance(v, str) else _encoded(v) for k, v in query.items()}
        body = _encoded(payload).encode() if content else None
        headers = {"content-type": "application/json"} if content else {}
        answer = learner.request(method, url, params=params, content=body, headers=headers)
        assert answer.status_code < 500 or answer.status_code in ANSWERED_5XX, (
            f"{method} {url} {str(payload)[:300]!r}: {answer.status_code} {answer.text[:500]}"
        )

    # Every field at once with each number text, on the path that reaches the core.
    reaching = {name: (_known(name) or [1])[0] for name in paths}
    for text in NUMBER_TEXTS:
        send(reaching, dict.fromkeys(queries, text), dict.fromkeys(fields, text))

    @settings(
        max_examples=EXAMPLES_PER_OPERATION,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(
        st.fixed_dictionaries({name: _path_value(name, s) for name, s in paths.items()}),
        st.fixed_dictionaries({}, optional=dict.fromkeys(queries, hostile(longest=8000))),
        _body(fields, components) if content else st.none(),
    )
    def answers(path_values: dict[str, Any], query: dict[str, Any], payload: Any) -> None:
        send(path_values, query, payload)

    answers()


def _segment(value: Any) -> str:
    """A path segment, percent-encoded: text as it is, anything else as JSON."""
    text = value if isinstance(value, str) else _encoded(value)
    return quote(text, safe="") or "%20"
