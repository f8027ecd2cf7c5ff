"""Predict the gradient, flashcards and the pitfall fixer through their APIs, on SQLite and
PostgreSQL."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from app.config.paths import BUNDLED_LESSONS
from app.lessons.variants import instances
from tests.catalogs import BUNDLED, FIXTURES, LESSON, page_text
from tests.clock import time_passes
from tests.conftest import app_on_shared_sandbox, make_settings


def answer_the_build_up(client: TestClient) -> None:
    """Commit the fixture lesson's one prediction (rightly: no miss joins the review queue);
    its drills, cards and pitfalls open."""
    right = {"choice": "tensor([4., 6.])", "confidence": "fairly_sure"}
    assert client.post(f"{LESSON}/steps/1/prediction", json=right).status_code == 200


# --- Predict the gradient ---------------------------------------------------------------------


def test_a_drill_is_graded_per_element_and_a_miss_is_queued(client: TestClient) -> None:
    url = f"{LESSON}/drills/step-1.x/answer"
    refused = client.post(url, json={"value": "", "reveal": True})
    assert refused.status_code == 409 and "expected" not in refused.json()  # step 1 unanswered
    answer_the_build_up(client)
    wrong = client.post(url, json={"value": "[4, 5]"}).json()
    assert (wrong["correct"], wrong["elements"], wrong["expected"], wrong["queued"]) == (
        False,
        [True, False],
        None,
        True,
    )
    unreadable = client.post(url, json={"value": "four"}).json()
    assert unreadable["parsed"] is False and "number" in unreadable["problem"]
    right = client.post(url, json={"value": "tensor([4., 6.])"}).json()
    assert right["correct"] is True and right["expected"] == [4.0, 6.0]
    shown = client.post(url, json={"value": "", "reveal": True}).json()
    assert shown["expected"] == [4.0, 6.0]
    time_passes(client)
    due = client.get("/api/review").json()["due"]
    assert [(item["kind"], item["key"]) for item in due] == [("drill", "step-1.x")]
    assert client.post(f"{LESSON}/drills/step-9.x/answer", json={"value": "1"}).status_code == 404
    page = client.get("/lessons/first-steps/predict-the-gradient").text
    assert "1 of 1 right" in page and 'data-correct="true"' in page


# --- Flashcards -------------------------------------------------------------------------------


def test_a_flashcard_is_turned_over_and_rated(client: TestClient) -> None:
    answer_the_build_up(client)
    back = client.get(f"{LESSON}/flashcards/takeaway-1").json()
    assert back == {
        "back_html": "<p>Backward fills <code>.grad</code> of leaves.</p>\n",
        "answer_html": "<code>.grad</code> of leaves.",
    }
    good = client.post(f"{LESSON}/flashcards/insight-1/rating", json={"rating": "good"}).json()
    assert good == {"queued": False, "due_count": 0}
    hard = client.post(f"{LESSON}/flashcards/takeaway-1/rating", json={"rating": "hard"}).json()
    assert hard == {"queued": True, "due_count": 0}  # back after a learning step, not at once
    assert (
        client.post(f"{LESSON}/flashcards/takeaway-1/rating", json={"rating": "meh"}).status_code
        == 422
    )
    assert client.get(f"{LESSON}/flashcards/takeaway-9").status_code == 404
    assert "Last time: hard" in client.get("/lessons/first-steps/flashcards").text


# --- Pitfall fixer ----------------------------------------------------------------------------


def test_the_hints_and_the_fix_come_on_request(client: TestClient) -> None:
    answer_the_build_up(client)
    first = client.get(f"{LESSON}/pitfalls/1/hints/1").json()
    assert first["title"] == "What to compare" and "RuntimeError" in first["text_html"]
    second = client.get(f"{LESSON}/pitfalls/1/hints/2").json()
    assert second["code"] == "(x * 2).backward()" and "line" not in second
    third = client.get(f"{LESSON}/pitfalls/1/hints/3").json()
    assert third["title"] == "Why it goes wrong" and "scalar" in third["text_html"]
    assert client.get(f"{LESSON}/pitfalls/1/hints/4").status_code == 404
    assert client.get(f"{LESSON}/pitfalls/2/hints/1").status_code == 404
    fix = client.get(f"{LESSON}/pitfalls/1/fix").json()
    assert "(x * 2).sum().backward()" in fix["code"]


def test_a_fix_is_judged_by_running_it(sandbox_client: TestClient) -> None:
    answer_the_build_up(sandbox_client)
    url = f"{LESSON}/pitfalls/1/check"
    lesson = FIXTURES.get("first-steps")
    assert lesson is not None
    wrong = sandbox_client.post(url, json={"code": lesson.pitfalls[0].wrong.code}).json()
    assert wrong["passed"] is False
    assert "RuntimeError" in " ".join(wrong["reasons_html"])
    # Not the lesson's text, the same behaviour: a different fix passes.
    mine = (
        "import torch\n"
        "x = torch.tensor([1.0, 2.0], requires_grad=True)\n"
        "y = x * 2\n"
        "y.backward(torch.ones_like(y))  # my own way\n"
        "print(x.grad)\n"
    )
    right = sandbox_client.post(url, json={"code": mine}).json()
    assert right["passed"] is True and right["reasons_html"] == []
    assert right["result"]["stdout"] == "tensor([2., 2.])\n"
    off = sandbox_client.post(
        url, json={"code": mine.replace("print(x.grad)", "print(x.grad * 2)")}
    )
    assert off.json()["passed"] is False
    assert "should print" in " ".join(off.json()["reasons_html"])
    page = sandbox_client.get("/lessons/first-steps/pitfall-fixer").text
    assert "You fixed this one before" in page


def test_checking_a_fix_needs_the_sandbox(client: TestClient) -> None:
    answer_the_build_up(client)
    answer = client.post(f"{LESSON}/pitfalls/1/check", json={"code": "print(1)"})
    assert answer.status_code == 503


# --- Fixes graded by what they do, on the real curriculum and the real sandbox -----------------
LOOPS = "/api/lessons/grad-in-training-loops/pitfalls/2"
SETUP = """import torch
x = torch.tensor([1.0, 2.0, 3.0, 4.0])
y = torch.tensor([3.0, 5.0, 7.0, 9.0])
w = torch.tensor(0.0, requires_grad=True)
b = torch.tensor(0.0, requires_grad=True)
"""
ZERO_FIRST = (
    SETUP
    + """for step in range(5):
    for p in (w, b):
        if p.grad is not None:
            p.grad.zero_()
    loss = ((w * x + b - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        for p in (w, b):
            p -= 0.05 * p.grad
    print(step, f"{loss.item():.4f}")
"""
)
OPTIMIZER = (
    SETUP
    + """opt = torch.optim.SGD([w, b], lr=0.05)
for step in range(5):
    opt.zero_grad()
    loss = ((w * x + b - y) ** 2).mean()
    loss.backward()
    opt.step()
    print(step, f"{loss.item():.4f}")
"""
)
# Clears the gradient before the update uses it: nothing is learned.
TOO_EARLY = (
    SETUP
    + """for step in range(5):
    loss = ((w * x + b - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        for p in (w, b):
            p.grad.zero_()
            p -= 0.05 * p.grad
    print(step, f"{loss.item():.4f}")
"""
)


@pytest.fixture(scope="module")
def curriculum_sandbox(request: pytest.FixtureRequest) -> Iterator[TestClient]:
    """The real curriculum with the session's real sandbox behind it."""
    settings = make_settings(sandbox_enabled=True, lessons_dir=BUNDLED_LESSONS)
    with TestClient(app_on_shared_sandbox(request, settings)) as test_client:
        # The pitfalls open with the reference; this learner reads the lessons ahead.
        for slug in ("grad-in-training-loops", "what-is-grad"):
            assert test_client.post(f"/lessons/{slug}/read-ahead").status_code in (200, 303)
        yield test_client


@pytest.mark.parametrize("fix", [ZERO_FIRST, OPTIMIZER], ids=["zero-before-backward", "zero_grad"])
def test_the_textbook_fixes_for_forgetting_to_zero_pass(
    curriculum_sandbox: TestClient, fix: str
) -> None:
    verdict = curriculum_sandbox.post(f"{LOOPS}/check", json={"code": fix}).json()
    assert verdict["reasons_html"] == [] and verdict["passed"] is True
    grads = {t["name"]: t["grad"] for t in verdict["result"]["tensors"]}
    assert grads["w"] is not None  # the last step's gradient stays, unlike the lesson's own fix


def test_a_wrong_fix_for_forgetting_to_zero_still_fails(curriculum_sandbox: TestClient) -> None:
    verdict = curriculum_sandbox.post(f"{LOOPS}/check", json={"code": TOO_EARLY}).json()
    assert verdict["passed"] is False
    assert "should print" in " ".join(verdict["reasons_html"])


def test_the_goal_is_shown_in_full(curriculum_sandbox: TestClient) -> None:
    loops = page_text(curriculum_sandbox.get("/lessons/grad-in-training-loops/pitfall-fixer").text)
    assert "4 0.0122" in loops  # the goal's whole output
    assert "What the .grad attributes hold at the end is up to your fix." in loops
    about_none = page_text(curriculum_sandbox.get("/lessons/what-is-grad/pitfall-fixer").text)
    assert "a.grad : None (not a tensor of zeros)" in about_none
    assert "w.grad : 5.0" in about_none


# --- A wrong typed value gets the matching misconception's why ---------------------------------
WHAT_IS_GRAD = "/api/lessons/what-is-grad"


def test_a_named_wrong_value_gets_its_why(bundled: TestClient) -> None:
    """Step 2 asks its typed value on a variant, `y = h * h` through `h = x * x`: its
    misconceptions are rules (the value of `y`, the value of `x`, the slope of `h` alone)
    computed for that instance's numbers."""
    step = BUNDLED.get("what-is-grad").steps[1]  # type: ignore[union-attr]
    assert step.prediction is not None  # the value is checked once the choice is committed
    committed = {"choice": step.prediction.answer, "confidence": "fairly_sure"}
    reveal = bundled.post(f"{WHAT_IS_GRAD}/steps/2/prediction", json=committed)
    (instance,) = [i for i in instances(step) if i.code == reveal.json()["value"]["code"]]
    x = float(instance.code.split("tensor(")[1].split(",")[0])
    url = f"{WHAT_IS_GRAD}/steps/2/value"
    typed_y = bundled.post(url, json={"value": str(x**4)}).json()
    assert typed_y["correct"] is False and typed_y["expected"] is None  # the answer waits
    assert "the value of <code>y</code> itself" in typed_y["why_html"]
    assert f"{4 * x**3}" not in typed_y["why_html"]  # the why does not give the answer away
    typed_x = bundled.post(url, json={"value": f"tensor({x})"}).json()
    assert "the value of <code>x</code>" in typed_x["why_html"]
    # The slope the step's own reveal gave, `2x`, stops at `h`.
    typed_formula = bundled.post(url, json={"value": str(2 * x)}).json()
    assert typed_formula["correct"] is False
    assert "the slope of <code>h = x · x</code> alone" in typed_formula["why_html"]
    unnamed = bundled.post(url, json={"value": str(4 * x**3 + 1)}).json()
    assert unnamed["correct"] is False and unnamed["why_html"] is None
    right = bundled.post(url, json={"value": str(4 * x**3)}).json()
    assert right["correct"] is True and right["why_html"] is None
    drills = bundled.get("/lessons/what-is-grad/predict-the-gradient").text
    found = re.search(
        r"x = torch.tensor\((-?[0-9.]+), requires_grad=True\)\nh = x \* x\ny = h \* h\n", drills
    )
    assert found is not None and float(found.group(1)) != x  # the drill asks other numbers
    drilled = float(found.group(1))
    drill_url = f"{WHAT_IS_GRAD}/drills/step-2.x/answer"
    drill = bundled.post(drill_url, json={"value": str(drilled**4)}).json()
    assert "the value of <code>y</code> itself" in drill["why_html"]


def test_named_wrong_values_are_not_sent_before_an_answer(bundled: TestClient) -> None:
    bundled.cookies.clear()  # a fresh learner: the value question waits for step 2's choice
    assert "value_prediction" not in bundled.get(WHAT_IS_GRAD).json()["steps"][1]
    step = BUNDLED.get("what-is-grad").steps[1]  # type: ignore[union-attr]
    assert step.prediction is not None
    choice = {"choice": step.prediction.answer, "confidence": "guess"}
    assert bundled.post(f"{WHAT_IS_GRAD}/steps/2/prediction", json=choice).status_code == 200
    step_json = bundled.get(WHAT_IS_GRAD).json()["steps"][1]
    assert "misconceptions" not in step_json["value_prediction"]
    assert "the value of `y` itself" not in bundled.get("/lessons/what-is-grad").text
    assert "the value of <code>y</code> itself" not in bundled.get("/lessons/what-is-grad").text


@pytest.mark.parametrize(
    ("misconceptions", "problem"),
    [
        ([{"value": 6, "why": "x"}], "is the right value"),
        ([{"value": 9, "why": "a"}, {"value": 9.0, "why": "b"}], "listed twice"),
    ],
)
def test_a_named_wrong_value_must_be_wrong_and_listed_once(
    misconceptions: list[dict[str, object]], problem: str
) -> None:
    from pydantic import ValidationError

    from app.lessons.format import ValuePrediction

    fields = {"question": "q", "tensor": "x", "expected": 6.0, "explanation": "e"}
    with pytest.raises(ValidationError, match=problem):
        ValuePrediction.model_validate({**fields, "misconceptions": misconceptions})
