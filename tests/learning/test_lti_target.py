"""Where a launch lands when the link names no lesson of its own: the `target_link_uri` claim,
read for a lesson page on gradlab's own origin and never followed elsewhere. Against the real
platform (`lti1p3platform`) for the launches; the origin rules on their own below."""

from __future__ import annotations

import pytest

from app.learning.lti import claims as c
from app.learning.lti.target import lesson_candidates, lesson_path, origin, own_origin
from tests.lti_platform import Launch, Pair, launch_through


def _lands(pair: Pair, launch: Launch) -> str:
    pair.platform.next = launch
    with pair.browser() as browser:
        landed = launch_through(pair, browser)
    assert landed.status_code == 303, landed.text
    return str(landed.headers["location"])


@pytest.mark.slow
def test_a_hand_made_link_to_a_lesson_page_lands_on_that_lesson(pair: Pair) -> None:
    target = f"{pair.tool_url}/lessons/autograd-grad"
    assert _lands(pair, Launch(user="by-hand", lesson=None, target=target)) == (
        "/lessons/autograd-grad"
    )


@pytest.mark.slow
def test_a_target_on_another_origin_lands_on_the_default_page(pair: Pair) -> None:
    for target in (
        "https://evil.example/lessons/autograd-grad",
        pair.tool_url.replace("http://", "https://") + "/lessons/autograd-grad",
        f"http://127.0.0.1:{pair.tool.port + 1}/lessons/autograd-grad",  # another port
        "//evil.example/lessons/autograd-grad",
        "javascript:alert(1)//lessons/autograd-grad",
    ):
        assert _lands(pair, Launch(user="elsewhere", lesson=None, target=target)) == "/", target


@pytest.mark.slow
def test_an_unknown_lesson_page_lands_on_the_default_page(pair: Pair) -> None:
    target = f"{pair.tool_url}/lessons/no-such-lesson"
    assert _lands(pair, Launch(user="unknown", lesson=None, target=target)) == "/"


@pytest.mark.slow
def test_the_custom_lesson_wins_over_the_target(pair: Pair) -> None:
    target = f"{pair.tool_url}/lessons/autograd-grad"
    launch = Launch(user="custom", lesson="what-is-grad", target=target)
    assert _lands(pair, launch) == "/lessons/what-is-grad"


@pytest.mark.slow
def test_without_a_public_url_the_address_the_launch_reached_is_gradlabs(pair: Pair) -> None:
    lti = pair.app.state.learning.lti
    lti.public_url_set = False
    try:
        target = f"{pair.tool_url}/lessons/autograd-grad"
        assert _lands(pair, Launch(user="reached", lesson=None, target=target)) == (
            "/lessons/autograd-grad"
        )
    finally:
        lti.public_url_set = True


# --- the rules on their own ---------------------------------------------------------------

OWN = "https://gradlab.example"


@pytest.mark.parametrize(
    "target",
    [
        "https://gradlab.example/lessons/chain-rule",
        "https://gradlab.example/lessons/chain-rule/",
        "https://GRADLAB.example:443/lessons/chain-rule",
        "https://gradlab.example/lessons/chain-rule?from=canvas#top",
    ],
)
def test_a_lesson_page_on_the_own_origin_names_the_lesson(target: str) -> None:
    assert lesson_path(target, OWN) == "chain-rule"


@pytest.mark.parametrize(
    "target",
    [
        "http://gradlab.example/lessons/chain-rule",  # another scheme
        "https://gradlab.example:8443/lessons/chain-rule",  # another port
        "https://gradlab.example.evil.test/lessons/chain-rule",
        "https://evil.test/lessons/chain-rule",
        "https://gradlab.example@evil.test/lessons/chain-rule",
        "https://user@gradlab.example/lessons/chain-rule",  # credentials: refused outright
        "//gradlab.example/lessons/chain-rule",  # scheme-relative
        "/lessons/chain-rule",  # not an address at all
        "javascript:location='https://gradlab.example/lessons/chain-rule'",
        "https://gradlab.example:99999/lessons/chain-rule",  # not a port
        "https://gradlab.example/",
        "https://gradlab.example/lessons/",
        "https://gradlab.example/lessons/chain-rule/edit",
        "https://gradlab.example/review",
        "",
    ],
)
def test_nothing_else_names_a_lesson(target: str) -> None:
    assert lesson_path(target, OWN) is None


def test_a_public_url_with_a_path_is_the_prefix_of_its_pages() -> None:
    own = "https://school.example/gradlab/"
    assert lesson_path("https://school.example/gradlab/lessons/chain-rule", own) == "chain-rule"
    assert lesson_path("https://school.example/lessons/chain-rule", own) is None
    assert lesson_path("https://school.example/gradlabx/lessons/chain-rule", own) is None


def test_the_own_origin_is_the_public_url_when_set_else_the_address_reached() -> None:
    assert own_origin("https://gradlab.example", "http://10.0.0.7:8000/") == OWN
    assert own_origin(None, "http://127.0.0.1:8000/") == "http://127.0.0.1:8000/"
    assert origin("https://gradlab.example") == ("https", "gradlab.example", 443)
    assert origin("http://127.0.0.1:8000/") == ("http", "127.0.0.1", 8000)
    assert origin("ftp://gradlab.example") is None


def test_the_custom_lesson_comes_first_then_the_query_then_the_page() -> None:
    claims = {
        c.CUSTOM: {"lesson": "from-custom"},
        c.TARGET_LINK_URI: "https://gradlab.example/lessons/from-page?lesson=from-query",
    }
    assert lesson_candidates(claims, OWN) == ["from-custom", "from-query", "from-page"]
    claims = {c.TARGET_LINK_URI: "https://evil.test/lessons/from-page"}
    assert lesson_candidates(claims, OWN) == []
    assert lesson_candidates({c.CUSTOM: "not a mapping", c.TARGET_LINK_URI: 7}, OWN) == []
