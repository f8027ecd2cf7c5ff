"""Predict the gradient, flashcards and the pitfall fixer through their APIs, on SQLite and
PostgreSQL."""

from __future__ import annotations

from fastapi.testclient import TestClient

from tests.catalogs import FIXTURES, LESSON


def answer_the_build_up(client: TestClient) -> None:
    """Commit the fixture lesson's one prediction (rightly: no miss joins the review queue);
    its drills, cards and pitfalls open."""
    right = {"choice": "tensor([4., 6.])"}
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
        "answer_html": "<code>.grad</code>",
    }
    good = client.post(f"{LESSON}/flashcards/insight-1/rating", json={"rating": "good"}).json()
    assert good == {"queued": False, "due_count": 0}
    hard = client.post(f"{LESSON}/flashcards/takeaway-1/rating", json={"rating": "hard"}).json()
    assert hard == {"queued": True, "due_count": 1}
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
    assert first["title"] == "The root cause" and "scalar" in first["text_html"]
    second = client.get(f"{LESSON}/pitfalls/1/hints/2").json()
    assert (second["line"], second["code"]) == (3, "(x * 2).backward()")
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
