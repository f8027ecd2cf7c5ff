"""No page of another site can change anything through a learner's browser: every route that
takes a method other than GET, HEAD or OPTIONS, listed from the app itself (a new one without a
request here fails the first test), is posted to as a browser sends another site's form or
script (Sec-Fetch-Site cross-site or same-site; an older browser's foreign or `null` Origin),
in its own encoding, as a form and as text/plain, under both cookie settings (SameSite=Lax,
and SameSite=None as an LMS frame needs): each is refused, and the database and the browser's
cookies are as they were. The same requests from gradlab's own pages (Sec-Fetch-Site:
same-origin, or only a matching Origin) still reach their routes, and those that write do.

On the real curriculum (it has every kind of route: exercises, ordering, the inventory) on
SQLite and PostgreSQL, without a sandbox: a run's route answers 503 `sandbox-disabled` from the
site itself, which is its own answer, not the cross-site refusal."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from starlette.routing import BaseRoute

from app.config.paths import BUNDLED_LESSONS
from app.learning.inventory.learner import forms_for
from app.learning.lti.messages import Launched
from app.main import create_app
from app.modes.drills import lesson_drills
from app.routes import dev
from app.routes.lti import PLATFORM_POSTS
from tests.catalogs import BUNDLED
from tests.conftest import make_settings
from tests.routes.test_reads_are_reads import _snapshot

SLUG = "what-is-grad"
API = f"/api/lessons/{SLUG}"
SAFE = {"GET", "HEAD", "OPTIONS"}
FOREIGN = [
    {"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"},
    {"Sec-Fetch-Site": "same-site", "Origin": "https://other.gradlab.example"},
    {"Origin": "https://evil.example"},  # an older browser: no Sec-Fetch-Site
    {"Origin": "null"},  # a sandboxed frame, a redirect across sites
]


@dataclass(frozen=True)
class Call:
    """A request a learner's page makes to one route, as the page makes it."""

    method: str
    path: str
    json: Any = None
    form: dict[str, str] | None = None
    writes: bool = True  # from gradlab's own page it changes the database or the cookie
    params: dict[str, str] = field(default_factory=dict)

    def send(self, client: TestClient, headers: dict[str, str], body: str = "own") -> Any:
        kwargs: dict[str, Any] = {"headers": dict(headers), "params": self.params}
        if body == "form":
            kwargs["data"] = self.form or {"choice": "x"}
        elif body == "text":
            kwargs["content"] = '{"code": "print(1)"}'
            kwargs["headers"]["Content-Type"] = "text/plain"
        elif self.form is not None:
            kwargs["data"] = self.form
        elif self.json is not None:
            kwargs["json"] = self.json
        return client.request(self.method, self.path, follow_redirects=False, **kwargs)


def _state_changing(routes: list[BaseRoute]) -> Iterator[tuple[str, str]]:
    """(route name, method) of every route of the app that is not a read, included routers'
    too (FastAPI keeps those behind a wrapper that holds the router it included)."""
    for route in routes:
        if isinstance(route, APIRoute):
            for method in sorted((route.methods or set()) - SAFE):
                yield route.name, method
        included = getattr(route, "original_router", None)
        if included is not None:
            yield from _state_changing(included.routes)


def _pre_test(client: TestClient) -> list[dict[str, str]]:
    """Every item of this learner's pre-test, answered."""
    learner = client.get("/api/progress/export").json()["learner"]
    assert BUNDLED.inventory is not None
    items = BUNDLED.inventory.form(forms_for(learner)["pre"])
    return [
        {"item": item.id, "choice": item.prediction.answer, "confidence": "guess"} for item in items
    ]


def _calls(client: TestClient) -> dict[str, Call]:
    """One request per state-changing route, in an order in which each that writes does (the
    class is left before the learner's data is deleted, the share deleted last of its own)."""
    lesson = BUNDLED.get(SLUG)
    assert lesson is not None
    store = client.app.state.store  # type: ignore[attr-defined]
    links = store.create_class("Cross-site")
    share = client.post("/api/shares", json={"code": "print(1)", "lesson": SLUG}).json()["id"]
    token = client.app.state.learning.lti.resumes.sealed(  # type: ignore[attr-defined]
        Launched(str(uuid.uuid4()), None, None, SLUG)
    ).resume
    step = lesson.steps[0]
    assert step.prediction is not None
    deep = BUNDLED.get("grad-deep-dive")
    assert deep is not None and deep.exercises[0].diagnosis is not None
    diagnosis = deep.exercises[0].diagnosis.texts[0]
    calls = {
        "join_class": Call("POST", f"/api/join/{links.join_token}", {"display_name": "Ada"}),
        "read_ahead": Call("POST", f"/lessons/{SLUG}/read-ahead"),
        "answer_step": Call(
            "POST",
            f"{API}/steps/1/prediction",
            {"choice": step.prediction.answer, "confidence": "certain"},
        ),
        "answer_recall": Call(
            "POST",
            f"{API}/recall/1",
            {"choice": "x", "confidence": "guess"},
            writes=False,  # the recall is asked once the build-up is committed: 409
            params={"form": "0"},
        ),
        "save_code": Call("PUT", f"{API}/steps/1/code", {"code": "print('mine')"}),
        "reset_code": Call("DELETE", f"{API}/steps/1/code"),
        "answer_drill": Call(
            "POST", f"{API}/drills/{lesson_drills(lesson)[0].id}/answer", {"value": "0"}
        ),
        "rate_flashcard": Call("POST", f"{API}/flashcards/takeaway-1/rating", {"rating": "again"}),
        "check_fix": Call("POST", f"{API}/pitfalls/1/check", {"code": "print(1)"}, writes=False),
        "check_exercise": Call(
            "POST", f"{API}/exercises/1", {"lines": ["loss.backward()"]}, writes=False
        ),
        "diagnose_exercise": Call(
            "POST",
            "/api/lessons/grad-deep-dive/exercises/1/diagnosis",
            {"choice": diagnosis, "confidence": "certain"},
        ),
        "reset_progress_form": Call("POST", "/progress/reset"),
        "answer_myth": Call("POST", f"{API}/myths/1/answer", {"answer": "yes"}),
        "remember_mode": Call("POST", f"{API}/mode", {"mode": "flashcards"}),
        "answer_review": Call(
            "POST", "/api/review/1/answer", {"answer": "no", "confidence": "guess"}, writes=False
        ),
        "report_question": Call(
            "POST",
            f"{API}/report",
            {"kind": "prediction", "number": 1, "text": "The choices are unclear."},
        ),
        "run_snippet": Call("POST", "/api/run", {"code": "print(1)"}, writes=False),
        "doctor": Call("POST", "/api/doctor", {"code": "print(1)"}, writes=False),
        "make_share": Call("POST", "/api/shares", {"code": "print(2)", "lesson": SLUG}),
        "share_viewed": Call("POST", f"/api/shares/{share}/views", writes=False),
        "delete_share": Call("DELETE", f"/api/shares/{share}"),
        "answer_inventory": Call("POST", "/api/inventory/pre", {"answers": _pre_test(client)}),
        "skip_inventory": Call("POST", "/inventory/skip"),
        "deep_link_return": Call("POST", "/lti/deep-link", form={"lesson": SLUG}, writes=False),
        "reset_progress": Call("POST", "/api/progress/reset"),
        "leave_class_form": Call("POST", f"/progress/classes/{links.info.id}/leave"),
        "leave_class": Call(
            "POST", f"/api/classes/{links.info.id}/leave", writes=False
        ),  # left already, through the progress page's form: 404
        "open_post_test": Call(
            "POST", f"/classes/{links.info.id}/post-test/open", writes=False
        ),  # the dashboard's button: this browser holds no instructor link, so it opens nothing
        "delete_my_data": Call("POST", "/progress/delete", form={"confirm": "on"}),
        "lti_resume_confirmed": Call("POST", f"/lti/resume/{token}"),
    }
    return calls


@pytest.fixture(params=["lax", "none"])
def learner_client(request: pytest.FixtureRequest, migrated_url: str) -> Iterator[TestClient]:
    """A learner's browser on the real curriculum, under each SameSite setting (None needs
    Secure, so the site is https)."""
    none = request.param == "none"
    settings = make_settings(
        lessons_dir=BUNDLED_LESSONS,
        database_url=migrated_url,
        cookie_samesite=request.param,
        cookie_secure=none,
    )
    base = "https://testserver" if none else "http://testserver"
    with TestClient(create_app(settings), base_url=base) as client:
        yield client


def _state(client: TestClient) -> tuple[dict[str, list[tuple[object, ...]]], dict[str, str]]:
    """Every table, and the browser's cookies (a session change lives there)."""
    return _snapshot(client), dict(client.cookies.items())


def test_every_state_changing_route_has_a_request_here(learner_client: TestClient) -> None:
    app = learner_client.app
    names = {name for name, _ in _state_changing(app.routes)}  # type: ignore[attr-defined]
    assert names - set(PLATFORM_POSTS) == set(_calls(learner_client))
    assert set(PLATFORM_POSTS) <= names  # the exempt ones are still routes of the app
    # The dev router is mounted only under --reload, not here: it must not write either.
    assert list(_state_changing(dev.router.routes)) == []


def _a_learner_with_something_everywhere(client: TestClient) -> None:
    """Answers, saved code, a mode, a class, a share, the inventory offered: what a forged
    request could delete, leave or overwrite."""
    lesson = BUNDLED.get(SLUG)
    assert lesson is not None and lesson.steps[0].prediction is not None
    answer = {"choice": lesson.steps[0].prediction.answer, "confidence": "guess"}
    assert client.post(f"{API}/steps/1/prediction", json=answer).status_code == 200
    assert client.post(f"{API}/myths/1/answer", json={"answer": "no"}).status_code == 200
    assert client.put(f"{API}/steps/1/code", json={"code": "print(0)"}).status_code == 204
    assert client.post(f"{API}/mode", json={"mode": "predict-the-gradient"}).status_code == 204
    assert client.post("/lessons/grad-deep-dive/read-ahead").status_code in (200, 303)


def test_a_cross_site_write_is_refused_and_changes_nothing(learner_client: TestClient) -> None:
    _a_learner_with_something_everywhere(learner_client)
    calls = _calls(learner_client)
    learner_client.post(calls["join_class"].path, json={"display_name": "Ada"})
    before = _state(learner_client)
    assert before[0]["class_members"] and before[0]["shares"] and before[0]["step_states"]
    for name, call in calls.items():
        for headers in FOREIGN:
            for body in ("own", "form", "text"):
                answer = call.send(learner_client, headers, body)
                assert answer.status_code == 403, (name, headers, body, answer.text)
                api = call.path.startswith("/api/")
                kind = answer.headers["content-type"]
                assert kind.startswith("application/problem+json" if api else "text/html")
                assert "cross-site" in answer.text.lower() or "another site" in answer.text
    assert _state(learner_client) == before


def test_the_same_requests_from_the_site_itself_still_work(learner_client: TestClient) -> None:
    _a_learner_with_something_everywhere(learner_client)
    own = str(learner_client.base_url).rstrip("/")
    for name, call in _calls(learner_client).items():
        before = _state(learner_client)
        answer = call.send(learner_client, {"Origin": own})  # an older browser: Origin alone
        assert answer.status_code != 403, (name, answer.text)
        assert "cross-site-request" not in answer.text, name
        if call.writes:
            assert answer.status_code < 400, (name, answer.text)
            assert _state(learner_client) != before, f"{name} changed nothing from the site itself"
        again = call.send(learner_client, {"Sec-Fetch-Site": "same-origin", "Origin": own})
        assert again.status_code != 403 and "cross-site-request" not in again.text, name


def test_a_text_plain_reset_from_another_site_keeps_the_progress(
    learner_client: TestClient,
) -> None:
    """A form on another site with enctype text/plain, posted to the API's reset."""
    _a_learner_with_something_everywhere(learner_client)
    before = learner_client.get("/api/progress").json()
    forged = learner_client.post(
        "/api/progress/reset",
        content="a=b",
        headers={"Content-Type": "text/plain", "Sec-Fetch-Site": "cross-site"},
    )
    assert forged.status_code == 403
    assert forged.json()["type"] == "/problems/cross-site-request"
    assert learner_client.get("/api/progress").json() == before
