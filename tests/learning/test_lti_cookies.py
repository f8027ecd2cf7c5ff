"""LTI 1.3 inside a course page whose browser blocks gradlab's cookie: the launch lands on a
page with a link that resumes the session in a window of its own, for a short time only."""

from __future__ import annotations

import time
import uuid

import httpx
import pytest

from tests.lti_platform import (
    CONTEXT_ROLE,
    Launch,
    Pair,
    login_through,
)

pytestmark = pytest.mark.slow


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
        login_state = login_through(pair, window)["state"]  # signed by the same key, another salt
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
