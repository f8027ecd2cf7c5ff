"""Grading and progress through the HTTP API, on a real SQLite database."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.lessons.grading import TypedValueError, parse_typed_value
from app.main import create_app
from app.progress.models.learners import Learner
from tests.conftest import make_settings

LESSON = "/api/lessons/first-steps"


def test_a_prediction_reveals_the_answer_explanation_and_output(client: TestClient) -> None:
    wrong = client.post(
        f"{LESSON}/steps/1/prediction", json={"choice": "None", "confidence": "certain"}
    )
    assert wrong.status_code == 200
    assert wrong.json() == {
        "correct": False,
        "answer": "tensor([4., 6.])",
        "explanation_html": "<p>2x at [2, 3].</p>\n",
        "why_html": "A fresh tensor has no gradient, but <code>backward()</code> just ran.",
        "output": "tensor([4., 6.])\n",
        "error": None,
        "attempt": 1,
        "step": {
            "concept_html": "d(x²)/dx = 2x",
            "explanation_html": "<p>Run it.</p>\n",
            "insight_html": "Backward fills leaves.",
        },
        # The typed-value question opens with the commit: the page draws its form from this.
        # No variants here: the value is asked on the step's own code.
        "value": {"question_html": "Type <code>x.grad</code>.", "tensor": "x", "code": None},
    }
    right = client.post(
        f"{LESSON}/steps/1/prediction",
        json={"choice": "tensor([4., 6.])", "confidence": "fairly_sure"},
    )
    assert right.json()["correct"] is True
    assert right.json()["attempt"] == 2
    state = client.get(f"{LESSON}/progress").json()["steps"]["1"]["answer"]
    assert (state["kind"], state["sent"], state["confidence"], state["correct"]) == (
        "prediction",
        {"choice": "tensor([4., 6.])"},
        "fairly_sure",
        True,
    )


def test_a_prediction_must_be_one_of_the_choices(client: TestClient) -> None:
    answer = client.post(
        f"{LESSON}/steps/1/prediction", json={"choice": "tensor([1.])", "confidence": "guess"}
    )
    assert answer.status_code == 422
    assert (
        client.post(
            f"{LESSON}/steps/1/prediction", json={"choice": "None", "confidence": "sure"}
        ).status_code
        == 422
    )


def test_unknown_lessons_steps_and_myths_are_404(client: TestClient) -> None:
    assert (
        client.post(
            "/api/lessons/nope/steps/1/prediction", json={"choice": "None", "confidence": "guess"}
        ).status_code
        == 404
    )
    assert (
        client.post(
            f"{LESSON}/steps/9/prediction", json={"choice": "None", "confidence": "guess"}
        ).status_code
        == 404
    )
    assert client.post(f"{LESSON}/steps/0/value", json={"value": "1"}).status_code == 404
    assert client.post(f"{LESSON}/myths/2/answer", json={"answer": "yes"}).status_code == 404
    second = "/api/lessons/second-steps/steps/1/prediction"
    assert client.post(second, json={"choice": "x"}).status_code == 404


def commit(client: TestClient) -> None:
    """Commit step 1's prediction: its typed value is checked only after that."""
    assert (
        client.post(
            f"{LESSON}/steps/1/prediction", json={"choice": "None", "confidence": "fairly_sure"}
        ).status_code
        == 200
    )


def test_the_value_is_refused_before_the_prediction_is_committed(client: TestClient) -> None:
    for body in ({"value": "", "reveal": True}, {"value": "[4, 6]"}, {"value": "[4, 5]"}):
        refused = client.post(f"{LESSON}/steps/1/value", json=body)
        assert refused.status_code == 409
        # Problem Details and nothing else: no expected value, explanation nor hint.
        assert set(refused.json()) == {"type", "title", "status", "detail"}
        assert refused.json()["type"] == "/problems/prediction-not-committed"
        assert refused.json()["detail"].startswith("Commit your prediction for step 1 first")
        assert "4" not in refused.json()["detail"] and "2x" not in refused.text
    commit(client)
    after = client.post(f"{LESSON}/steps/1/value", json={"value": "", "reveal": True})
    assert after.status_code == 200 and after.json()["expected"] == [4.0, 6.0]


def test_the_page_sends_the_value_question_only_after_the_commit(client: TestClient) -> None:
    """A step whose code raises has no value to type: a form drawn before the commit would
    say the code does not raise. Neither the form nor its question is sent until then."""
    form, question = 'data-kind="value" data-step="1"', "Type <code>x.grad</code>."
    before = client.get("/lessons/first-steps").text
    assert form not in before and question not in before
    assert "value_prediction" not in client.get(LESSON).json()["steps"][0]
    commit(client)
    after = client.get("/lessons/first-steps").text
    assert form in after and question in after and 'data-tensor="x"' in after
    assert client.get(LESSON).json()["steps"][0]["value_prediction"] == {
        "question": "Type `x.grad`.",
        "tensor": "x",
    }


def test_a_value_is_checked_element_by_element(client: TestClient) -> None:
    commit(client)
    answer = client.post(f"{LESSON}/steps/1/value", json={"value": "[4, 5]"}).json()
    assert answer["correct"] is False
    assert answer["elements"] == [True, False]
    assert answer["shape_ok"] is True
    assert answer["expected"] is None and answer["explanation_html"] is None  # not given away
    right = client.post(f"{LESSON}/steps/1/value", json={"value": "tensor([4., 6.])"}).json()
    assert right["correct"] is True
    assert right["expected"] == [4.0, 6.0]
    assert right["explanation_html"] == "<p>2x.</p>\n"


def test_a_value_of_the_wrong_shape_says_so(client: TestClient) -> None:
    commit(client)
    answer = client.post(f"{LESSON}/steps/1/value", json={"value": "[[4, 6]]"}).json()
    assert answer["correct"] is False and answer["shape_ok"] is False
    assert answer["your_shape"] == [1, 2] and answer["expected_shape"] == [2]
    assert "shape [1, 2]" in answer["problem"]


def test_an_unreadable_value_gets_a_clear_problem(client: TestClient) -> None:
    commit(client)
    answer = client.post(f"{LESSON}/steps/1/value", json={"value": "__import__('os')"}).json()
    assert answer["parsed"] is False
    assert "a number or a list of numbers" in answer["problem"]


def test_show_answer_reveals_the_value(client: TestClient) -> None:
    commit(client)
    answer = client.post(f"{LESSON}/steps/1/value", json={"value": "", "reveal": True}).json()
    assert answer["expected"] == [4.0, 6.0]
    assert answer["correct"] is False


def test_a_value_is_graded_against_the_real_run(sandbox_client: TestClient) -> None:
    commit(sandbox_client)
    answer = sandbox_client.post(f"{LESSON}/steps/1/value", json={"value": "[4., 6.]"}).json()
    assert answer["correct"] is True
    # Graded against the step's own code as it ran (kept, as every answer's run is).
    app = sandbox_client.app
    step = app.state.catalog.get("first-steps").steps[0]  # type: ignore[attr-defined]
    ran = app.state.learning.runs.answer_runs[step.snippet.code]  # type: ignore[attr-defined]
    assert [tensor.grad for tensor in ran.tensors if tensor.name == "x"] == [[4.0, 6.0]]


def test_myth_answers_are_graded_by_the_server_and_scored(client: TestClient) -> None:
    page = client.get("/lessons/first-steps").text
    assert "It is None until a backward pass reaches it." not in page  # not before answering
    wrong = client.post(f"{LESSON}/myths/1/answer", json={"answer": "yes"}).json()
    assert wrong["correct"] is False and wrong["answer"] == "no"
    assert wrong["reality_html"] == "<p>It is None until a backward pass reaches it.</p>\n"
    assert wrong["demo"]["output"] == "True\n"
    assert wrong["score"] == {"answered": 1, "correct": 0, "total": 1}
    right = client.post(f"{LESSON}/myths/1/answer", json={"answer": "no"}).json()
    assert right["score"] == {"answered": 1, "correct": 1, "total": 1}
    assert client.post(f"{LESSON}/myths/1/answer", json={"answer": "maybe"}).status_code == 422


def test_edited_code_is_kept_and_reset(client: TestClient) -> None:
    assert client.put(f"{LESSON}/steps/1/code", json={"code": "print('mine')"}).status_code == 204
    assert client.get(f"{LESSON}/progress").json()["steps"]["1"]["code"] == "print('mine')"
    assert client.delete(f"{LESSON}/steps/1/code").status_code == 204
    assert client.get(f"{LESSON}/progress").json()["steps"]["1"]["code"] is None
    assert client.put(f"{LESSON}/steps/1/code", json={"code": "x" * 20_001}).status_code == 422


def test_the_catalog_summarises_progress(client: TestClient) -> None:
    assert "0/1 steps, 0/1 myths" in client.get("/").text
    client.post(f"{LESSON}/steps/1/prediction", json={"choice": "None", "confidence": "guess"})
    assert client.get("/api/progress").json()["lessons"]["first-steps"]["done"] is False
    client.post(f"{LESSON}/myths/1/answer", json={"answer": "no"})
    assert "1/1 steps, 1/1 myths" in client.get("/").text
    summary = client.get("/api/progress").json()["lessons"]["first-steps"]
    assert summary == {
        "done": True,
        "steps_done": 1,
        "steps_total": 1,
        "myths_answered": 1,
        "myths_correct": 1,
        "myths_total": 1,
        "resume_step": None,  # every step answered: nowhere to resume
    }


def test_reset_forgets_everything(client: TestClient) -> None:
    client.post(f"{LESSON}/steps/1/prediction", json={"choice": "None", "confidence": "guess"})
    assert client.post("/api/progress/reset").status_code == 204
    assert client.get(f"{LESSON}/progress").json()["steps"] == {}
    client.post(f"{LESSON}/myths/1/answer", json={"answer": "no"})
    assert client.post("/progress/reset", follow_redirects=False).status_code == 303
    assert client.get(f"{LESSON}/progress").json()["myths"] == {}


def test_progress_survives_a_restart_of_the_server(migrated_url: str) -> None:
    settings = make_settings(database_url=migrated_url)
    with TestClient(create_app(settings)) as first:
        first.post(f"{LESSON}/steps/1/prediction", json={"choice": "None", "confidence": "guess"})
        cookie = first.cookies["gradlab_learner"]
    with TestClient(create_app(settings), cookies={"gradlab_learner": cookie}) as second:
        assert second.get(f"{LESSON}/progress").json()["steps_done"] == 1


def test_a_forged_cookie_is_a_stranger(client: TestClient) -> None:
    client.post(f"{LESSON}/steps/1/prediction", json={"choice": "None", "confidence": "guess"})
    client.cookies.set("gradlab_learner", "forged." + client.cookies["gradlab_learner"][7:])
    assert client.get(f"{LESSON}/progress").json()["steps"] == {}


def test_reading_creates_no_learner_row(client: TestClient) -> None:
    client.get("/")
    client.get(f"{LESSON}/progress")
    assert "gradlab_learner" not in client.cookies
    client.get("/lessons/first-steps")  # an id in the cookie (for the choice order), no row
    assert "gradlab_learner" in client.cookies
    store = client.app.state.store  # type: ignore[attr-defined]
    with store.reading() as connection:
        assert connection.scalar(select(func.count()).select_from(Learner)) == 0


def test_running_a_step_without_prediction_marks_it_done(sandbox_client: TestClient) -> None:
    code = "import torch\nw = torch.tensor(1.0, requires_grad=True)\n"
    sandbox_client.post("/api/run", json={"code": code, "lesson": "second-steps", "step": 1})
    assert sandbox_client.get("/api/lessons/second-steps/progress").json()["steps_done"] == 1


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("4", 4.0),
        ("-3.5e-2", -0.035),
        ("[4, 6]", [4.0, 6.0]),
        ("tensor([4., 6.])", [4.0, 6.0]),
        ("tensor(3.)", 3.0),
        ("tensor([[1., 2.], [3., 4.]], requires_grad=True)", [[1.0, 2.0], [3.0, 4.0]]),
        ("None", None),
        ("(1, 2)", [1.0, 2.0]),
    ],
)
def test_typed_values_are_read_like_torch_prints_them(text: str, value: object) -> None:
    assert parse_typed_value(text) == value


@pytest.mark.parametrize(
    "text", ["", "x", "__import__('os')", "[1, [2]]", "[1, 'a']", "{1: 2}", "True", "1" * 3000]
)
def test_anything_but_numbers_is_refused(text: str) -> None:
    with pytest.raises(TypedValueError):
        parse_typed_value(text)
