"""The quiz's code side: nothing that explains an answer before the commit, choices in a
per-learner order graded by text, a wrong pick's why, calibration on current questions only,
and saved answers to a rewritten question retired."""

from __future__ import annotations

import html
import re
from collections import Counter

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update

from app.config.paths import BUNDLED_LESSONS
from app.learning.kinds import choice_order
from app.main import create_app
from app.progress.models.learners import MythAnswer, StepAnswer
from tests.catalogs import BUNDLED, LESSON, page_text
from tests.clock import time_passes
from tests.conftest import make_settings

EXPLAINS = ["d(x²)/dx = 2x", "Backward fills leaves.", "Run it.", "2x at [2, 3]", "A fresh tensor"]


@pytest.mark.parametrize("path", ["/lessons/first-steps", "/lessons/first-steps/step-by-step"])
def test_the_page_withholds_what_explains_the_answer(client: TestClient, path: str) -> None:
    page = client.get(path).text
    assert "`backward()` runs on a sum of squares." not in page  # rendered, not raw
    assert "runs on a sum of squares." in page_text(page)  # the setup shows
    for hidden in EXPLAINS:
        assert hidden not in page, hidden
    assert "It starts at zero." not in page  # a myth's belief waits for the verdict


@pytest.mark.parametrize("mode", ["flashcards", "code-lab", "myth-busters", "quick-read"])
def test_other_modes_withhold_it_too(client: TestClient, mode: str) -> None:
    page = client.get(f"/lessons/first-steps/{mode}").text
    assert page.count("d(x²)/dx = 2x") == 0, mode  # the concept of a step that asks
    assert "Backward fills leaves." not in page and "It starts at zero." not in page


def test_the_review_page_withholds_it(client: TestClient) -> None:
    client.post(f"{LESSON}/steps/1/prediction", json={"choice": "None", "confidence": "guess"})
    client.post(f"{LESSON}/myths/1/answer", json={"answer": "yes"})
    time_passes(client)
    page = client.get("/review").text
    assert "What does" in page  # the prediction is asked
    for hidden in [
        "d(x²)/dx = 2x",
        "Backward fills leaves.",
        "A fresh tensor",
        "It starts at zero.",
    ]:
        assert hidden not in page, hidden


def test_the_commit_and_a_reload_carry_the_reveal(client: TestClient) -> None:
    client.get("/lessons/first-steps")
    reveal = client.post(
        f"{LESSON}/steps/1/prediction", json={"choice": "None", "confidence": "guess"}
    ).json()
    assert reveal["why_html"].startswith("A fresh tensor has no gradient")
    assert reveal["step"]["concept_html"] == "d(x²)/dx = 2x"
    saved = client.get(f"{LESSON}/progress").json()["steps"]["1"]["answer"]["reveal"]
    assert saved["step"]["insight_html"] == "Backward fills leaves."
    right = client.post(
        f"{LESSON}/steps/1/prediction", json={"choice": "tensor([4., 6.])", "confidence": "guess"}
    )
    assert right.json()["why_html"] is None  # a right pick has nothing to correct
    myth = client.post(f"{LESSON}/myths/1/answer", json={"answer": "yes"}).json()
    assert myth["belief_html"] == "It starts at zero."


def test_the_api_lesson_withholds_it_too(client: TestClient) -> None:
    step = client.get(LESSON).json()["steps"][0]
    assert {"concept", "explanation", "insight"}.isdisjoint(step)
    assert sorted(step["prediction"]["choices"]) == ["None", "tensor([4., 6.])"]
    page = client.get("/lessons/first-steps").text  # the same learner: the same order
    assert step["prediction"]["choices"] == _choices(page)
    assert "belief" not in client.get(LESSON).json()["myths"][0]


def _choices(page: str) -> list[str]:
    return re.findall(r'class="choice" data-choice="([^"]*)"', page)


def test_choices_keep_one_order_per_learner_in_every_page(client: TestClient) -> None:
    first = _choices(client.get("/lessons/first-steps").text)
    assert sorted(first) == ["None", "tensor([4., 6.])"]
    assert _choices(client.get("/lessons/first-steps").text) == first  # a reload
    assert _choices(client.get("/lessons/first-steps/step-by-step").text) == first
    client.post(f"{LESSON}/steps/1/prediction", json={"choice": "None", "confidence": "guess"})
    time_passes(client)
    (item,) = client.get("/api/review").json()["due"]
    # A return is asked in an order of its own (not a copy of the lesson page), the same on
    # the review page and in the API, and across reloads of one sitting.
    assert sorted(item["choices"]) == sorted(first)
    assert _choices(client.get("/review").text) == item["choices"]
    assert _choices(client.get("/review").text) == item["choices"]


def test_the_order_differs_between_learners_and_spreads_the_answer() -> None:
    choices = ["a", "b", "c", "d"]
    orders = {tuple(choice_order(f"learner-{n}", "lesson", 1, choices)) for n in range(40)}
    assert len(orders) > 10  # different learners, different orders
    # One learner over 60 questions whose answer is always the file's second choice.
    positions = Counter(
        choice_order("one-learner", f"lesson-{q // 6}", q % 6, choices).index("b")
        for q in range(60)
    )
    assert max(positions.values()) / 60 <= 0.4, positions
    assert choice_order("one-learner", "lesson-0", 1, choices) == choice_order(
        "one-learner", "lesson-0", 1, list(reversed(choices))
    )  # the order does not depend on the file's order


def test_grading_goes_by_the_text_never_the_position(client: TestClient) -> None:
    assert (
        client.post(
            f"{LESSON}/steps/1/prediction", json={"choice": "1", "confidence": "guess"}
        ).status_code
        == 422
    )
    right = client.post(
        f"{LESSON}/steps/1/prediction", json={"choice": "tensor([4., 6.])", "confidence": "guess"}
    )
    assert right.json()["correct"] is True


def _rewrite(client: TestClient, model: type[StepAnswer] | type[MythAnswer]) -> None:
    """Make every stored answer look like it answered an older version of its question."""
    store = client.app.state.store  # type: ignore[attr-defined]
    with store.writing() as connection:
        connection.execute(update(model).values(fingerprint="an-older-question"))


def test_a_rewritten_question_retires_its_saved_answers(client: TestClient) -> None:
    client.post(f"{LESSON}/steps/1/prediction", json={"choice": "None", "confidence": "certain"})
    client.post(f"{LESSON}/myths/1/answer", json={"answer": "no"})
    calibration = client.get("/api/progress/calibration").json()
    assert calibration["based_on"] == 1
    _rewrite(client, StepAnswer)
    _rewrite(client, MythAnswer)
    progress = client.get(f"{LESSON}/progress").json()
    assert progress["steps"]["1"]["answer"] is None  # never shown as the new one's answer
    assert progress["myths"] == {} and progress["score"]["answered"] == 0
    assert client.get("/api/progress").json()["lessons"]["first-steps"]["myths_answered"] == 0
    assert client.get("/api/progress/calibration").json()["based_on"] == 0
    assert "Based on 0 answers" in client.get("/progress").text
    # The new question's first attempt counts; the old attempts do not make it a second one.
    again = client.post(
        f"{LESSON}/steps/1/prediction", json={"choice": "tensor([4., 6.])", "confidence": "guess"}
    )
    assert again.json()["attempt"] == 1
    assert client.get("/api/progress/calibration").json()["based_on"] == 1


def test_calibration_counts_first_attempts_and_says_on_how_many(client: TestClient) -> None:
    client.post(f"{LESSON}/steps/1/prediction", json={"choice": "None", "confidence": "guess"})
    client.post(
        f"{LESSON}/steps/1/prediction", json={"choice": "tensor([4., 6.])", "confidence": "guess"}
    )
    out = client.get("/api/progress/calibration").json()
    assert out["based_on"] == 1
    assert "Based on 1 answer." in client.get("/progress").text


@pytest.mark.parametrize("learner", ["learner-a", "learner-b", "learner-c"])
def test_on_the_real_curriculum_no_position_holds_the_answer_often(learner: str) -> None:
    """On the bundled lessons: for one learner, the right choice's position
    over every prediction of the curriculum, no position holding more than 40%."""
    from app.config.paths import BUNDLED_LESSONS
    from app.lessons.loader import load_catalog

    questions = [
        (lesson.slug, number, step.prediction)
        for lesson in load_catalog(BUNDLED_LESSONS).lessons
        for number, step in enumerate(lesson.steps, start=1)
        if step.prediction is not None
    ]
    positions = Counter(
        choice_order(learner, slug, number, p.texts).index(p.answer)
        for slug, number, p in questions
    )
    assert max(positions.values()) / len(questions) <= 0.4, positions


def test_the_code_lab_keeps_an_ordering_s_code_back_until_it_is_answered() -> None:
    """An ordering's answer is its code in order: the code lab does not show that cell's code
    before the step is answered (it did, in order, while every other cell was only locked)."""
    with TestClient(create_app(make_settings(lessons_dir=BUNDLED_LESSONS))) as client:
        _ordering_cell_waits(client)


def _ordering_cell_waits(bundled_sqlite: TestClient) -> None:
    lesson = BUNDLED.get("what-is-grad")
    assert lesson is not None
    number, step = next(
        (n, s) for n, s in enumerate(lesson.steps, start=1) if s.ordering is not None
    )
    assert step.snippet is not None
    ordered = step.snippet.code.strip()
    page = bundled_sqlite.get("/lessons/what-is-grad/code-lab").text
    cell = page.split(f'id="step-{number}"')[1].split("</li>")[0]
    assert html.escape(ordered.splitlines()[-1]) not in cell  # no line of it, in any order
    assert "its code is the answer" in cell
    bundled_sqlite.post("/lessons/what-is-grad/read-ahead", follow_redirects=False)
    page = bundled_sqlite.get("/lessons/what-is-grad/code-lab").text
    assert html.escape(ordered.splitlines()[-1]) in page.split(f'id="step-{number}"')[1]
