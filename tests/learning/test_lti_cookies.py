"""LTI 1.3 inside a course page whose browser blocks gradlab's cookie: the launch lands on a
page with a link that resumes the session in a window of its own, for a short time only, once
the learner presses its page's button (never unasked over a browser's own learner)."""

from __future__ import annotations

import time
import uuid

import httpx
import pytest

from tests.lti_platform import (
    CONTEXT_ROLE,
    ISSUER,
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


SAME_ORIGIN = {"Sec-Fetch-Site": "same-origin"}
SWITCH = "continuing will switch this browser from your current progress to theirs"


def pair_url(window: httpx.Client) -> str:
    return str(window.base_url).rstrip("/")


def _resume(window: httpx.Client, link: str, *, switching: bool = False) -> httpx.Response:
    """What a learner does with the link: open it (a page that asks, and changes nothing),
    then press its button (a POST from gradlab's own page). Returns the POST's answer."""
    before = window.cookies.get("gradlab_learner")
    page = window.get(link)
    assert page.status_code == 200, page.text
    assert f'<form method="post" action="{pair_url(window)}{link}">' in page.text
    assert (SWITCH in " ".join(page.text.lower().split())) is switching
    assert window.cookies.get("gradlab_learner") == before  # the GET signed no one in
    return window.post(link, headers=SAME_ORIGIN)


def test_a_blocked_cookie_gets_a_link_that_resumes_the_same_learner(pair: Pair) -> None:
    user = f"learner-{uuid.uuid4().hex[:6]}"
    learner, _, page = _blocked_page(pair, Launch(user=user, lesson="what-is-grad"))
    link = _resume_link(page)
    with pair.browser() as window:  # a fresh browser: it is asked, without a warning
        resumed = _resume(window, link)
        assert resumed.status_code == 303, resumed.text
        assert resumed.headers["location"] == "/lessons/what-is-grad"
        assert window.get("/lessons/what-is-grad").status_code == 200
        assert window.get("/api/progress/export").json()["learner"] == learner


def test_a_blocked_instructor_resumes_onto_their_class(pair: Pair) -> None:
    launch = Launch(user="teacher-3", roles=[CONTEXT_ROLE + "Instructor"])
    _, _, page = _blocked_page(pair, launch)
    with pair.browser() as window:
        resumed = _resume(window, _resume_link(page))
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
        resumed = _resume(window, _resume_link(page))
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
            for answer in (
                window.get(f"/lti/resume/{bad}"),
                window.post(f"/lti/resume/{bad}", headers=SAME_ORIGIN),
            ):
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


def test_a_resume_link_never_replaces_a_browsers_own_learner_unasked(pair: Pair) -> None:
    """Another learner's link (passed on, or one's own from another browser) opened in a
    browser that has progress of its own: the page says what continuing would do; only its
    button, posted from gradlab's own page, switches; a post from another site is refused."""
    theirs, _, page = _blocked_page(pair, Launch(user="learner-other", lesson="what-is-grad"))
    link = _resume_link(page)
    with pair.browser() as window:
        window.post("/api/lessons/what-is-grad/mode", json={"mode": "flashcards"})
        own = window.get("/api/progress/export").json()["learner"]
        assert own != theirs
        forged = window.post(link, headers={"Sec-Fetch-Site": "cross-site"})
        assert forged.status_code == 403, forged.text
        assert window.get("/api/progress/export").json()["learner"] == own
        switched = _resume(window, link, switching=True)
        assert switched.status_code == 303, switched.text
        assert window.get("/api/progress/export").json()["learner"] == theirs


def test_the_own_learners_link_asks_without_a_warning(pair: Pair) -> None:
    """The browser that launched (its cookie kept after all) opens its own link: the page asks
    to continue, with no warning, since it is the same learner."""
    pair.platform.next = Launch(user="learner-same", lesson="what-is-grad")
    with pair.browser() as browser:
        launched = pair.platform.launch(browser)
        link = "/lti/resume/" + httpx.URL(launched.headers["location"]).params["c"]
        learner = browser.get("/api/progress/export").json()["learner"]
        assert _resume(browser, link).status_code == 303
        assert browser.get("/api/progress/export").json()["learner"] == learner


def test_the_platforms_own_posts_pass_from_its_site(pair: Pair) -> None:
    """The OIDC login and the launch are posted by the course site itself, as a browser sends
    them (Sec-Fetch-Site: cross-site, the platform's Origin): exempt from the cross-site check,
    by name; the deep-link answer, posted from gradlab's picker, is not."""
    pair.platform.next = Launch(user="learner-x", lesson="what-is-grad")
    with pair.browser() as browser:
        browser.headers.update({"Sec-Fetch-Site": "cross-site", "Origin": pair.platform.url})
        launched = pair.platform.launch(browser)
        assert launched.status_code == 303, launched.text
        posted_login = browser.post("/lti/login", data={"iss": ISSUER, "login_hint": "x"})
        assert posted_login.status_code == 302, posted_login.text
        picked = browser.post("/lti/deep-link", data={"lesson": ["what-is-grad"]})
        assert picked.status_code == 403, picked.text
