"""LTI 1.3 end to end against a platform someone else wrote (`lti1p3platform`), both served
over HTTP on loopback: launches land where they should, deep linking returns links the
platform accepts, scores reach the platform (also after it was down), and the course's roster
fills the class. Refusals: test_lti_refusals.py; a blocked cookie: test_lti_cookies.py."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest

from tests.lti_platform import (
    CONTEXT_ROLE,
    Launch,
    Pair,
    launch_through,
    wait_until,
)

pytestmark = pytest.mark.slow


def test_a_learner_launch_lands_on_the_linked_lesson(pair: Pair) -> None:
    pair.platform.next = Launch(user="learner-a", lesson="what-is-grad")
    with pair.browser() as browser:
        landed = launch_through(pair, browser)
        assert landed.status_code == 303, landed.text
        assert landed.headers["location"] == "/lessons/what-is-grad"
        assert browser.get("/lessons/what-is-grad").status_code == 200
        # The course became a class, and the learner is in it under the LMS's name.
        classes = browser.get("/progress").text
        assert "Deep Learning 101" in classes and "as Ada Lovelace" in classes


def test_an_instructor_launch_lands_on_the_class(pair: Pair) -> None:
    pair.platform.next = Launch(user="teacher-1", roles=[CONTEXT_ROLE + "Instructor"])
    with pair.browser() as browser:
        landed = launch_through(pair, browser)
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
        landed = launch_through(pair, browser)
        roster = browser.get(f"/api{landed.headers['location']}").json()["roster"]
    names = {row["display_name"] for row in roster}
    assert "Grace Hopper" in names
    assert "Left Early" not in names and "The Teacher" not in names


def test_the_same_lms_user_is_the_same_learner(pair: Pair) -> None:
    pair.platform.next = Launch(user="learner-same")
    ids = []
    for _ in range(2):
        with pair.browser() as browser:
            launch_through(pair, browser)
            ids.append(browser.get("/api/progress/export").json()["learner"])
    assert ids[0] == ids[1]


def test_deep_linking_returns_links_the_platform_accepts(pair: Pair) -> None:
    pair.platform.next = Launch(
        user="teacher-2", roles=[CONTEXT_ROLE + "Instructor"], lesson=None, deep_linking=True
    )
    with pair.browser() as browser:
        landed = launch_through(pair, browser)
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
        launch_through(pair, browser)
        answer = lesson.steps[step - 1].prediction.answer
        url = f"/api/lessons/what-is-grad/steps/{step}/prediction"
        assert (
            browser.post(url, json={"choice": answer, "confidence": "certain"}).status_code == 200
        )
    assert wait_until(lambda: any(s["userId"] == user for s in pair.platform.scores))
    score = next(s for s in pair.platform.scores if s["userId"] == user)
    # Each step that asks a choice or an order, and each myth, is one question of the score.
    questions = sum(1 for s in lesson.steps if s.prediction or s.ordering) + len(lesson.myths)
    assert score["scoreGiven"] == pytest.approx(1 / questions)
    assert score["scoreMaximum"] == 1
    assert score["activityProgress"] == "InProgress"
    assert score["gradingProgress"] == "Pending"
    assert score["timestamp"] and "1 of" in score["comment"]


def test_a_score_posted_while_the_platform_is_down_arrives_later(pair: Pair) -> None:
    user = f"learner-{uuid.uuid4().hex[:6]}"
    pair.platform.next = Launch(user=user, lesson="what-is-grad")
    with pair.browser() as browser:
        launch_through(pair, browser)
        pair.platform.down = True
        assert (
            browser.post(
                "/api/lessons/what-is-grad/myths/1/answer", json={"answer": "yes"}
            ).status_code
            == 200
        )
        store = pair.app.state.store
        assert wait_until(lambda: any(s.tries for s in store.due_scores(_far_future())), 10)
        assert not any(s["userId"] == user for s in pair.platform.scores)
        pair.platform.down = False
    assert wait_until(lambda: any(s["userId"] == user for s in pair.platform.scores), 30)


def _far_future() -> Any:
    from datetime import UTC, datetime, timedelta

    return datetime.now(UTC) + timedelta(days=1)
