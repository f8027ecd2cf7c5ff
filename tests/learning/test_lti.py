"""LTI 1.3 end to end against a platform someone else wrote (`lti1p3platform`), both served
over HTTP on loopback: launches land where they should, deep linking returns links the
platform accepts, scores reach the platform (also after it was down), and every check of a
launch refuses what it should."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import jwt
import pytest

from app.config import BUNDLED_LESSONS
from app.learning.lti.keys import signing_key
from app.main import create_app
from tests.conftest import make_settings
from tests.lti_platform import (
    CLIENT_ID,
    CONTEXT_ROLE,
    DEPLOYMENT,
    ISSUER,
    Launch,
    Platform,
    ThreadServer,
    rsa_pems,
)

pytestmark = pytest.mark.slow


class Pair:
    def __init__(self) -> None:
        self.app = create_app(make_settings(lessons_dir=BUNDLED_LESSONS))
        self.tool = ThreadServer(self.app)
        # The tool learns its own address once it has a port, as GRADLAB_PUBLIC_URL says it.
        self.tool_url = self.tool.url
        self.app.state.learning.lti.public_url = self.tool_url
        self.platform = Platform(self.tool_url)
        store = self.app.state.store
        store.add_platform(
            ISSUER,
            CLIENT_ID,
            [DEPLOYMENT],
            f"{self.platform.url}/auth",
            f"{self.platform.url}/token",
            f"{self.platform.url}/jwks",
        )
        signing_key(store)

    def browser(self) -> httpx.Client:
        return httpx.Client(base_url=self.tool_url, follow_redirects=False, timeout=30)

    def stop(self) -> None:
        self.platform.stop()
        self.tool.stop()


@pytest.fixture(scope="module")
def pair() -> Iterator[Pair]:
    both = Pair()
    yield both
    both.stop()


def _launch(pair: Pair, browser: httpx.Client) -> httpx.Response:
    """A launch as a browser that keeps its cookies: the launch, then the page that checks the
    cookie came back. Returns that page's answer."""
    launched = pair.platform.launch(browser)
    assert launched.status_code == 303, launched.text
    assert launched.headers["location"].startswith("/lti/landed?")
    return browser.get(launched.headers["location"])


def _wait(predicate: Any, seconds: float = 20) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.2)
    return False


def test_a_learner_launch_lands_on_the_linked_lesson(pair: Pair) -> None:
    pair.platform.next = Launch(user="learner-a", lesson="what-is-grad")
    with pair.browser() as browser:
        landed = _launch(pair, browser)
        assert landed.status_code == 303, landed.text
        assert landed.headers["location"] == "/lessons/what-is-grad"
        assert browser.get("/lessons/what-is-grad").status_code == 200
        # The course became a class, and the learner is in it under the LMS's name.
        classes = browser.get("/progress").text
        assert "Deep Learning 101" in classes and "as Ada Lovelace" in classes


def test_an_instructor_launch_lands_on_the_class(pair: Pair) -> None:
    pair.platform.next = Launch(user="teacher-1", roles=[CONTEXT_ROLE + "Instructor"])
    with pair.browser() as browser:
        landed = _launch(pair, browser)
        assert landed.status_code == 303
        assert landed.headers["location"].startswith("/classes/")
        board = browser.get(landed.headers["location"])
        assert board.status_code == 200 and "Deep Learning 101" in board.text


def test_the_roster_lists_learners_who_have_not_launched(pair: Pair) -> None:
    learner = "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner"
    pair.platform.members = [
        {
            "user_id": "never-launched",
            "name": "Grace Hopper",
            "roles": [learner],
            "status": "Active",
        },
        {"user_id": "gone", "name": "Left Early", "roles": [learner], "status": "Inactive"},
        {"user_id": "teacher-1", "name": "The Teacher", "roles": [CONTEXT_ROLE + "Instructor"]},
    ]
    pair.platform.next = Launch(user="teacher-1", roles=[CONTEXT_ROLE + "Instructor"])
    with pair.browser() as browser:
        landed = _launch(pair, browser)
        roster = browser.get(f"/api{landed.headers['location']}").json()["roster"]
    names = {row["display_name"] for row in roster}
    assert "Grace Hopper" in names
    assert "Left Early" not in names and "The Teacher" not in names


def test_the_same_lms_user_is_the_same_learner(pair: Pair) -> None:
    pair.platform.next = Launch(user="learner-same")
    ids = []
    for _ in range(2):
        with pair.browser() as browser:
            _launch(pair, browser)
            ids.append(browser.get("/api/progress/export").json()["learner"])
    assert ids[0] == ids[1]


def test_deep_linking_returns_links_the_platform_accepts(pair: Pair) -> None:
    pair.platform.next = Launch(
        user="teacher-2", roles=[CONTEXT_ROLE + "Instructor"], lesson=None, deep_linking=True
    )
    with pair.browser() as browser:
        landed = _launch(pair, browser)
        assert landed.headers["location"] == "/lti/deep-link"
        picker = browser.get("/lti/deep-link")
        assert "what-is-grad" in picker.text
        back = browser.post("/lti/deep-link", data={"lesson": ["what-is-grad", "autograd-grad"]})
        assert back.status_code == 200
        form = back.text
        return_url = form.split('action="', 1)[1].split('"', 1)[0]
        token = form.split('name="JWT" value="', 1)[1].split('"', 1)[0]
    assert return_url == f"{pair.platform.url}/deep-link-return"
    accepted = httpx.post(return_url, data={"JWT": token})
    assert accepted.status_code == 200, accepted.text
    items = pair.platform.deep_link_items
    assert [item["custom"]["lesson"] for item in items] == ["what-is-grad", "autograd-grad"]
    assert all(
        item["type"] == "ltiResourceLink" and item["lineItem"]["scoreMaximum"] == 1
        for item in items
    )


def test_a_score_reaches_the_platform_with_every_ags_field(pair: Pair) -> None:
    user = f"learner-{uuid.uuid4().hex[:6]}"
    pair.platform.next = Launch(user=user, lesson="what-is-grad")
    lesson = pair.app.state.catalog.get("what-is-grad")
    step = next(n for n, s in enumerate(lesson.steps, 1) if s.prediction)
    with pair.browser() as browser:
        _launch(pair, browser)
        answer = lesson.steps[step - 1].prediction.answer
        url = f"/api/lessons/what-is-grad/steps/{step}/prediction"
        assert (
            browser.post(url, json={"choice": answer, "confidence": "certain"}).status_code == 200
        )
    assert _wait(lambda: any(s["userId"] == user for s in pair.platform.scores))
    score = next(s for s in pair.platform.scores if s["userId"] == user)
    questions = sum(1 for s in lesson.steps if s.prediction) + len(lesson.myths)
    assert score["scoreGiven"] == pytest.approx(1 / questions)
    assert score["scoreMaximum"] == 1
    assert score["activityProgress"] == "InProgress"
    assert score["gradingProgress"] == "Pending"
    assert score["timestamp"] and "1 of" in score["comment"]


def test_a_score_posted_while_the_platform_is_down_arrives_later(pair: Pair) -> None:
    user = f"learner-{uuid.uuid4().hex[:6]}"
    pair.platform.next = Launch(user=user, lesson="what-is-grad")
    with pair.browser() as browser:
        _launch(pair, browser)
        pair.platform.down = True
        assert (
            browser.post(
                "/api/lessons/what-is-grad/myths/1/answer", json={"answer": "yes"}
            ).status_code
            == 200
        )
        store = pair.app.state.store
        assert _wait(lambda: any(s.tries for s in store.due_scores(_far_future())), 10)
        assert not any(s["userId"] == user for s in pair.platform.scores)
        pair.platform.down = False
    assert _wait(lambda: any(s["userId"] == user for s in pair.platform.scores), 30)


def _far_future() -> Any:
    from datetime import UTC, datetime, timedelta

    return datetime.now(UTC) + timedelta(days=1)


# --- refusals, one check at a time -----------------------------------------------------------


def _login(pair: Pair, browser: httpx.Client) -> dict[str, str]:
    """A real login through gradlab; returns its redirect's parameters (state, nonce)."""
    to_platform = browser.get(pair.platform.login_url())
    query = httpx.URL(to_platform.headers["location"]).params
    return {"state": query["state"], "nonce": query["nonce"]}


def _token(
    pair: Pair, nonce: str, key: str | None = None, kid: str | None = None, **changes: Any
) -> str:
    now = int(time.time())
    claims: dict[str, Any] = {
        "iss": ISSUER,
        "aud": CLIENT_ID,
        "sub": "someone",
        "iat": now,
        "exp": now + 300,
        "nonce": nonce,
        "https://purl.imsglobal.org/spec/lti/claim/message_type": "LtiResourceLinkRequest",
        "https://purl.imsglobal.org/spec/lti/claim/version": "1.3.0",
        "https://purl.imsglobal.org/spec/lti/claim/deployment_id": DEPLOYMENT,
        "https://purl.imsglobal.org/spec/lti/claim/roles": [],
    }
    claims.update(changes)
    headers = {"kid": kid or pair.platform.registration.get_kid()}
    return jwt.encode(claims, key or pair.platform.private_pem, algorithm="RS256", headers=headers)


def _refused(pair: Pair, browser: httpx.Client, token: str, state: str, check: str) -> None:
    answer = browser.post("/lti/launch", data={"id_token": token, "state": state})
    assert answer.status_code == 400, answer.text
    assert check in answer.text
    assert "Traceback" not in answer.text and token not in answer.text


@pytest.mark.parametrize(
    ("change", "check"),
    [
        ({"aud": "another-client"}, "audience"),
        ({"https://purl.imsglobal.org/spec/lti/claim/deployment_id": "unknown"}, "deployment"),
        ({"exp": int(time.time()) - 3600, "iat": int(time.time()) - 7200}, "expiry"),
        ({"iss": "https://impostor.example"}, "issuer"),
        ({"https://purl.imsglobal.org/spec/lti/claim/version": "1.1"}, "version"),
    ],
)
def test_a_launch_is_refused_for_each_bad_claim(
    pair: Pair, change: dict[str, Any], check: str
) -> None:
    with pair.browser() as browser:
        login = _login(pair, browser)
        _refused(pair, browser, _token(pair, login["nonce"], **change), login["state"], check)


def test_a_token_signed_with_another_key_is_refused(pair: Pair) -> None:
    other, _ = rsa_pems()
    with pair.browser() as browser:
        login = _login(pair, browser)
        _refused(
            pair, browser, _token(pair, login["nonce"], key=other), login["state"], "signature"
        )
        login = _login(pair, browser)
        unknown = _token(pair, login["nonce"], key=other, kid="not-published")
        _refused(pair, browser, unknown, login["state"], "signature")


def test_a_replayed_nonce_or_state_is_refused(pair: Pair) -> None:
    with pair.browser() as browser:
        first = _login(pair, browser)
        token = _token(pair, first["nonce"])
        ok = browser.post("/lti/launch", data={"id_token": token, "state": first["state"]})
        assert ok.status_code == 303
        # The same launch again: its state was used.
        _refused(pair, browser, token, first["state"], "state")
        # A new login, the old token (and so the old nonce).
        second = _login(pair, browser)
        _refused(pair, browser, token, second["state"], "nonce")


def test_a_missing_or_wrong_state_is_refused(pair: Pair) -> None:
    with pair.browser() as browser:
        login = _login(pair, browser)
        token = _token(pair, login["nonce"])
        _refused(pair, browser, token, "", "state")
        _refused(pair, browser, token, "made-up-state", "state")
        # This browser started `login`; a state another browser started is not its own.
        with pair.browser() as other:
            theirs = _login(pair, other)
        _refused(pair, browser, _token(pair, theirs["nonce"]), theirs["state"], "state")


def test_a_login_from_an_unknown_platform_is_refused(pair: Pair) -> None:
    with pair.browser() as browser:
        answer = browser.get(
            "/lti/login", params={"iss": "https://nope.example", "login_hint": "x"}
        )
        assert answer.status_code == 400 and "issuer" in answer.text


def test_the_key_set_publishes_the_signing_key_and_no_private_part(pair: Pair) -> None:
    keys = httpx.get(f"{pair.tool_url}/lti/jwks").json()["keys"]
    assert keys and all(k["kty"] == "RSA" and k["alg"] == "RS256" for k in keys)
    assert not any("d" in k or "p" in k for k in keys)


# --- a browser that blocks the cookie inside the course page ---------------------------------


def _blocked_page(pair: Pair, launch: Launch) -> tuple[str, str, httpx.Response]:
    """A launch whose cookie does not come back: the launching browser keeps its cookie (and so
    the learner id, to compare), a browser without it follows the redirect. Returns the
    learner id, the landed URL and the page the cookieless browser was shown."""
    pair.platform.next = launch
    with pair.browser() as browser:
        launched = pair.platform.launch(browser)
        assert launched.status_code == 303, launched.text
        learner = browser.get("/api/progress/export").json()["learner"]
    landed = launched.headers["location"]
    with pair.browser() as cookieless:
        return learner, landed, cookieless.get(landed)


def _resume_link(page: httpx.Response) -> str:
    assert page.status_code == 200, page.text
    assert "Your browser blocked gradlab's cookie inside your course page" in page.text
    anchor = page.text.split('href="/lti/resume/', 1)[1].split(">", 1)[0]
    assert 'target="_blank"' in anchor and 'rel="noopener"' in anchor
    return "/lti/resume/" + anchor.split('"', 1)[0]


def test_a_blocked_cookie_gets_a_link_that_resumes_the_same_learner(pair: Pair) -> None:
    user = f"learner-{uuid.uuid4().hex[:6]}"
    learner, _, page = _blocked_page(pair, Launch(user=user, lesson="what-is-grad"))
    link = _resume_link(page)
    with pair.browser() as window:
        resumed = window.get(link)
        assert resumed.status_code == 303, resumed.text
        assert resumed.headers["location"] == "/lessons/what-is-grad"
        assert window.get("/lessons/what-is-grad").status_code == 200
        assert window.get("/api/progress/export").json()["learner"] == learner


def test_a_blocked_instructor_resumes_onto_their_class(pair: Pair) -> None:
    launch = Launch(user="teacher-3", roles=[CONTEXT_ROLE + "Instructor"])
    _, _, page = _blocked_page(pair, launch)
    with pair.browser() as window:
        resumed = window.get(_resume_link(page))
        board = resumed.headers["location"]
        assert resumed.status_code == 303 and board.startswith("/classes/")
        # The class key was read again from the store: it is in the session, not in the link.
        assert window.get(board).status_code == 200
    assert pair.app.state.store.instructor_key(board.rsplit("/", 1)[1]) not in page.text


def test_a_blocked_deep_linking_launch_resumes_onto_the_picker(pair: Pair) -> None:
    launch = Launch(
        user="teacher-4", roles=[CONTEXT_ROLE + "Instructor"], lesson=None, deep_linking=True
    )
    _, _, page = _blocked_page(pair, launch)
    with pair.browser() as window:
        resumed = window.get(_resume_link(page))
        assert resumed.headers["location"] == "/lti/deep-link"
        back = window.post("/lti/deep-link", data={"lesson": ["what-is-grad"]})
        assert back.status_code == 200 and f"{pair.platform.url}/deep-link-return" in back.text


def _refused_page(answer: httpx.Response, check: str) -> None:
    assert answer.status_code == 400, answer.text
    assert check in answer.text and "Traceback" not in answer.text


def test_an_expired_tampered_or_foreign_resume_token_is_refused(pair: Pair) -> None:
    from itsdangerous import TimestampSigner, URLSafeTimedSerializer

    _, _, page = _blocked_page(pair, Launch(user="learner-late", lesson="what-is-grad"))
    token = _resume_link(page).rsplit("/", 1)[1]
    real = pair.app.state.learning.lti.resumes.tokens

    class Earlier(TimestampSigner):
        def get_timestamp(self) -> int:
            return int(time.time()) - 200  # past the two minutes

    earlier = URLSafeTimedSerializer(real.secret_keys[-1], salt=real.salt, signer=Earlier)
    expired = earlier.dumps(real.loads(token))
    assert real.loads(expired) == real.loads(token)  # well signed: only its age is wrong
    tampered = token[:-2] + ("AA" if not token.endswith("AA") else "BB")
    with pair.browser() as window:
        login_state = _login(pair, window)["state"]  # signed by the same key, another salt
        for bad in (expired, tampered, login_state, "nonsense"):
            answer = window.get(f"/lti/resume/{bad}")
            assert answer.status_code == 400, bad
            _refused_page(answer, "resume")
            assert "gradlab_learner" not in window.cookies  # no session was opened
        _refused_page(window.get("/lti/landed", params={"to": "/", "c": expired}), "resume")


@pytest.mark.parametrize(
    "to", ["https://evil.example/", "//evil.example/", "/\\evil.example", "/\t/evil.example", ""]
)
def test_a_landing_that_is_not_a_local_path_is_refused(pair: Pair, to: str) -> None:
    _, landed, _ = _blocked_page(pair, Launch(user="learner-far", lesson="what-is-grad"))
    token = httpx.URL(landed).params["c"]
    with pair.browser() as browser:
        answer = browser.get("/lti/landed", params={"to": to, "c": token})
        _refused_page(answer, "landing")
        assert "location" not in answer.headers


def test_a_launch_that_keeps_its_cookie_goes_straight_on(pair: Pair) -> None:
    pair.platform.next = Launch(user="learner-b", lesson="what-is-grad")
    with pair.browser() as browser:
        launched = pair.platform.launch(browser)
        assert launched.status_code == 303
        landed = browser.get(launched.headers["location"])
        assert landed.status_code == 303
        assert landed.headers["location"] == "/lessons/what-is-grad"
