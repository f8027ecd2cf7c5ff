"""Code to write in the learning loop, with the real sandbox and the real curriculum, on SQLite
and PostgreSQL: a missed exercise comes back in review, spaced, and is graded there by a run;
/progress counts exercises solved and attempted; step by step shows an exercise on the screen of
the step it follows."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from tests.catalogs import page_text
from tests.clock import time_passes
from tests.routes.test_exercises_api import WHAT_IS_GRAD, check, lab  # noqa: F401

COMMITS = ((1, "None"), (2, "tensor(6.)"))  # what-is-grad's steps 1 and 2, answered right


def _commit_steps(client: TestClient) -> None:
    for number, choice in COMMITS:
        body = {"choice": choice, "confidence": "fairly_sure"}
        posted = client.post(f"/api/lessons/what-is-grad/steps/{number}/prediction", json=body)
        assert posted.status_code == 200, posted.text


def test_a_missed_exercise_comes_back_in_review_and_is_graded_there_by_a_run(
    lab: TestClient,
) -> None:
    lab.cookies.clear()  # a new learner
    _commit_steps(lab)
    missed = check(lab, WHAT_IS_GRAD, "loss.backward")
    assert missed["passed"] is False and missed["hint"] is not None
    assert missed["comes_back"] is None  # not a review answer: it enters the queue
    queue = lab.get("/api/review").json()
    assert queue["due_count"] == 0 and queue["scheduled"] == 1  # spaced: never due at once

    time_passes(lab)
    queue = lab.get("/api/review").json()
    assert queue["due_count"] == 1
    item = queue["due"][0]
    assert (item["kind"], item["lesson"], item["key"]) == ("exercise", "what-is-grad", "1")
    assert item["link"] == "/lessons/what-is-grad/pitfall-fixer#exercise-1"
    page = lab.get("/review").text
    drawn = page.split('class="review-item"', 1)[1]
    assert 'data-widget="code"' in drawn and 'class="exercise"' in drawn
    assert "The line that fills .grad" in drawn and "Check my code" in drawn
    parts = re.search(r'data-parts="([^"]*)"', drawn)
    assert parts is not None and "blank" in parts.group(1)  # the code to write, at once
    refused = lab.post(f"/api/review/{item['id']}/answer", json={"value": "1"})
    assert refused.status_code == 422  # graded by running it, not by the queue's answer

    again = check(lab, WHAT_IS_GRAD, "loss.backward")  # wrong in review
    assert again["passed"] is False and again["comes_back"] == "in 10 minutes"
    time_passes(lab)
    solved = check(lab, WHAT_IS_GRAD, "loss.backward()")
    assert solved["passed"] is True and solved["due_count"] == 0
    assert re.fullmatch(r"(tomorrow|in \d+ days)", str(solved["comes_back"]))
    assert lab.get("/api/review").json()["due_count"] == 0


def test_a_solved_exercise_never_enters_the_queue(lab: TestClient) -> None:
    lab.cookies.clear()
    _commit_steps(lab)
    assert check(lab, WHAT_IS_GRAD, "loss.backward()")["passed"] is True
    time_passes(lab)
    assert lab.get("/api/review").json()["due_count"] == 0


def test_progress_counts_exercises_solved_and_attempted(lab: TestClient) -> None:
    lab.cookies.clear()
    line = next(
        li
        for li in lab.get("/progress").text.split('class="progress-lesson"')
        if "What is .grad" in li
    )
    assert "0/1 exercises solved (0 attempted)" in page_text(line)
    _commit_steps(lab)
    check(lab, WHAT_IS_GRAD, "loss.backward")  # attempted, missed
    lines = lab.get("/progress").text.split('class="progress-lesson"')
    line = next(li for li in lines if "What is .grad" in li)
    assert "0/1 exercises solved (1 attempted)" in page_text(line)
    check(lab, WHAT_IS_GRAD, "loss.backward()")
    lines = lab.get("/progress").text.split('class="progress-lesson"')
    line = next(li for li in lines if "What is .grad" in li)
    assert "1/1 exercises solved (1 attempted)" in page_text(line)


def test_step_by_step_shows_an_exercise_on_the_screen_of_its_step(
    lab: TestClient,
) -> None:
    lab.cookies.clear()
    before = lab.get("/lessons/what-is-grad/step-by-step").text
    step_two = before.split('id="step-2"', 1)[1].split('id="step-3"', 1)[0]
    assert "Code to write follows this step" in step_two
    assert "The line that fills .grad" not in before  # closed: its goal would answer step 2
    _commit_steps(lab)
    after = lab.get("/lessons/what-is-grad/step-by-step").text
    step_two = after.split('id="step-2"', 1)[1].split('id="step-3"', 1)[0]
    assert 'id="exercise-1"' in step_two and "The line that fills .grad" in step_two
    assert "Code to write follows this step" not in after
