"""A learner's first visit to a lesson opens the guided path (step by step, the mental model
first, the other modes folded away); once every step is answered it opens the path's end, and
once the whole lesson was chosen, the deep dive, which is always one link away. A return to a
begun lesson: tests/routes/test_resume.py."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.catalogs import LESSON

GUIDED = "Before step 1: the big picture"
WHOLE = "Show the whole lesson at once (deep dive)"
DEEP_DIVE = 'aria-label="On this page"'  # the deep dive's contents list


def test_a_first_visit_opens_the_guided_path(client: TestClient) -> None:
    page = client.get("/lessons/first-steps")
    assert page.status_code == 200
    assert GUIDED in page.text and WHOLE in page.text
    assert DEEP_DIVE not in page.text
    assert 'data-mode="step-by-step"' in page.text  # drawn by the step-by-step script
    assert '<details class="mode-switcher">' in page.text  # the modes wait behind one control
    assert "Read ahead: show every answer" not in page.text
    assert client.get("/lessons/first-steps").text.count(GUIDED) == 1  # the visit wrote nothing


def test_the_deep_dive_is_one_link_away_and_stays_the_default_once_opened(
    client: TestClient,
) -> None:
    deep = client.get("/lessons/first-steps/deep-dive").text
    assert DEEP_DIVE in deep and GUIDED not in deep
    client.post(f"{LESSON}/mode", json={"mode": "deep-dive"})  # what the deep dive's page posts
    assert DEEP_DIVE in client.get("/lessons/first-steps").text


def test_once_every_step_is_answered_the_lesson_opens_the_guided_path_s_end(
    client: TestClient,
) -> None:
    client.post(
        f"{LESSON}/steps/1/prediction", json={"choice": "None", "confidence": "fairly_sure"}
    )
    page = client.get("/lessons/first-steps").text
    assert 'data-resume="2"' in page and WHOLE in page and DEEP_DIVE not in page
    assert GUIDED in client.get("/lessons/second-steps").text  # per lesson


def test_a_myth_answered_ends_the_first_visit_and_reading_ahead_opens_the_whole_lesson(
    client: TestClient,
) -> None:
    client.post(f"{LESSON}/myths/1/answer", json={"answer": "no"})
    page = client.get("/lessons/first-steps").text  # begun: back at its unanswered step
    assert "Welcome back: you continue at step 1" in page and 'data-resume="1"' in page
    client.post("/lessons/second-steps/read-ahead", follow_redirects=False)
    assert DEEP_DIVE in client.get("/lessons/second-steps").text


def test_step_by_step_opens_with_the_mental_model(client: TestClient) -> None:
    page = client.get("/lessons/first-steps/step-by-step").text
    assert GUIDED in page and WHOLE not in page
    assert page.index(GUIDED) < page.index('id="step-1"')


def test_an_unknown_lesson_is_still_the_friendly_404(client: TestClient) -> None:
    assert client.get("/lessons/no-such-lesson").status_code == 404
