"""Exercises (code to write) through their API, with the real sandbox and the real curriculum,
on SQLite and PostgreSQL: any line that behaves right passes, a wrong one is told what differs
and gets a hint, a custom backward is graded by gradcheck, a bug is named before it is fixed."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.progress.models.modes import ExerciseAttempt
from tests.catalogs import BUNDLED, page_text
from tests.conftest import curriculum_with_sandbox
from tests.learning.test_store_off_the_loop import calls_on_loop, writes_on_loop  # noqa: F401

WHAT_IS_GRAD = "/api/lessons/what-is-grad/exercises/1"
ACCUMULATE = "/api/lessons/gradients-accumulate/exercises/1"
NO_GRAD = "/api/lessons/turning-gradients-off/exercises/1"
CUSTOM = "/api/lessons/custom-autograd-function/exercises/1"
CAPSTONE = "/api/lessons/grad-deep-dive/exercises/1"
DIAGNOSES = BUNDLED.get("grad-deep-dive").exercises[0].diagnosis.texts  # type: ignore[union-attr]
READ = ("what-is-grad", "gradients-accumulate", "turning-gradients-off", "grad-deep-dive")


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def lab(request: pytest.FixtureRequest) -> Iterator[TestClient]:
    """The real curriculum and the real sandbox, once on each database."""
    for client in curriculum_with_sandbox(request):
        for slug in READ:  # this learner reads these lessons ahead: their exercises open
            assert client.post(f"/lessons/{slug}/read-ahead").status_code in (200, 303)
        yield client


def check(client: TestClient, url: str, *lines: str) -> dict[str, object]:
    answer = client.post(url, json={"lines": list(lines)})
    assert answer.status_code == 200, answer.text
    verdict: dict[str, object] = answer.json()
    return verdict


def reasons(verdict: dict[str, object]) -> str:
    found = verdict["reasons_html"]
    assert isinstance(found, list)
    return " ".join(found)


@pytest.mark.parametrize(
    "line",
    [
        "loss.backward()",
        "torch.autograd.backward(loss)",
        "loss.backward(torch.tensor(1.0))",
        "w.grad = torch.autograd.grad(loss, w)[0]",
        "(loss * 1).backward()  # any line that behaves right",
    ],
)
def test_any_line_that_behaves_right_passes(lab: TestClient, line: str) -> None:
    verdict = check(lab, WHAT_IS_GRAD, line)
    assert (verdict["passed"], verdict["reasons_html"], verdict["hint"]) == (True, [], None)


def test_a_wrong_line_is_told_what_differs_and_gets_a_hint(lab: TestClient) -> None:
    uncalled = check(lab, WHAT_IS_GRAD, "loss.backward")
    assert uncalled["passed"] is False
    assert "should print" in reasons(uncalled) and "None" in reasons(uncalled)
    hint = uncalled["hint"]
    assert isinstance(hint, dict) and hint["level"] >= 1
    assert "loss.backward()" not in hint["text_html"]  # a hint leads; it never writes the line
    raising = check(lab, ACCUMULATE, "w.grad.zero_()")  # w.grad is None on the first pass
    assert raising["passed"] is False
    assert "It still raises <code>AttributeError</code>" in reasons(raising)
    for right in ("w.grad = None", "if w.grad is not None: w.grad.zero_()"):
        assert check(lab, ACCUMULATE, right)["passed"] is True


def test_an_update_must_not_be_recorded(lab: TestClient) -> None:
    recorded = check(lab, NO_GRAD, "w.sub_(0.25 * w.grad)")
    assert recorded["passed"] is False and "RuntimeError" in reasons(recorded)
    rebound = check(lab, NO_GRAD, "w = w - 0.25 * w.grad")
    # Rebound, `w` is no longer a leaf: the next pass leaves its .grad None.
    assert rebound["passed"] is False and "TypeError" in reasons(rebound)
    two_lines = "with torch.no_grad():\n    w -= 0.25 * w.grad"
    assert check(lab, NO_GRAD, two_lines)["passed"] is True
    assert check(lab, NO_GRAD, "w.data -= 0.25 * w.grad")["passed"] is True


def test_a_custom_backward_is_graded_by_gradcheck(lab: TestClient) -> None:
    assert lab.post("/lessons/custom-autograd-function/read-ahead").status_code in (200, 303)
    right = "x, w = ctx.saved_tensors\nreturn grad_output * 2 * w * x, grad_output * x * x"
    assert check(lab, CUSTOM, right)["passed"] is True
    # Right on the demo, whose .sum() sends ones; gradcheck's one-hot vectors catch it.
    ignores = check(lab, CUSTOM, "x, w = ctx.saved_tensors\nreturn 2 * w * x, x * x")
    assert ignores["passed"] is False
    first = ignores["reasons_html"][0]  # type: ignore[index]
    assert "gradcheck" in first and "failed for input 0 (torch.randn(3))" in first
    assert "numerical:" in first and "analytical:" in first
    swapped = check(
        lab, CUSTOM, "x, w = ctx.saved_tensors\nreturn grad_output * x * x, grad_output * 2 * w * x"
    )
    assert swapped["passed"] is False and "should print" in reasons(swapped)
    short = check(lab, CUSTOM, "x, w = ctx.saved_tensors\nreturn grad_output * 2 * w * x")
    assert "incorrect number of gradients" in reasons(short)


def test_the_bug_is_named_before_it_is_fixed(lab: TestClient) -> None:
    early = lab.post(CAPSTONE, json={"lines": ["loss.backward()"]})
    assert early.status_code == 409 and early.json()["type"] == "/problems/prediction-not-committed"
    page = page_text(lab.get("/lessons/grad-deep-dive").text)
    assert "total.backward(retain_graph=True)" in page  # the bug, shown in place
    misread = "A gradient edited afterwards: the optimizer changes `w.grad` before it steps"
    unsure = lab.post(f"{CAPSTONE}/diagnosis", json={"choice": misread})
    assert unsure.status_code == 422 and "how sure you are" in unsure.json()["detail"]
    body = {"choice": misread, "confidence": "certain"}
    reveal = lab.post(f"{CAPSTONE}/diagnosis", json=body).json()
    assert reveal["correct"] is False and "momentum" in reveal["why_html"]
    with lab.app.state.store.engine.connect() as connection:  # type: ignore[attr-defined]
        kept = connection.execute(
            select(ExerciseAttempt.confidence).where(
                ExerciseAttempt.part == "diagnosis", ExerciseAttempt.answer == misread
            )
        ).all()
    assert [row.confidence for row in kept] == ["certain"]  # stored with the diagnosis
    assert reveal["answer"].startswith("A path walked more than once")
    assert reveal["source"] == {
        "slug": "graphs-used-twice",
        "title": "Graphs used twice, and hooks that act during backward",
        "url": "/lessons/graphs-used-twice",
    }
    assert [part["kind"] for part in reveal["parts"]] == ["code", "blank", "code"]
    assert check(lab, CAPSTONE, "total.backward(retain_graph=True)")["passed"] is False
    assert check(lab, CAPSTONE, "loss.backward()")["passed"] is True
    assert check(lab, CAPSTONE, "opt.zero_grad(); loss.backward()")["passed"] is True
    not_one = lab.post(f"{CAPSTONE}/diagnosis", json={"choice": "a typo", "confidence": "guess"})
    assert not_one.status_code == 422 and not_one.json()["type"] == "/problems/not-a-choice"
    none = {"choice": "x", "confidence": "guess"}
    assert lab.post(f"{WHAT_IS_GRAD}/diagnosis", json=none).status_code == 404


def test_an_escape_is_refused_as_any_snippet_is(lab: TestClient) -> None:
    verdict = check(lab, WHAT_IS_GRAD, "print(open('/etc/shadow').read())")
    assert verdict["passed"] is False
    result = verdict["result"]
    assert isinstance(result, dict) and result["error"]["type"] in (
        "PermissionError",
        "FileNotFoundError",
    )


def test_bad_input_is_a_problem_not_a_500(lab: TestClient) -> None:
    assert lab.post(WHAT_IS_GRAD, json={"lines": []}).status_code == 422
    assert lab.post(WHAT_IS_GRAD, json={"lines": ["a", "b"]}).json()["type"] == (
        "/problems/not-an-answer"
    )
    assert lab.post(WHAT_IS_GRAD, json={"lines": ["x" * 5000]}).status_code == 422
    assert lab.post(WHAT_IS_GRAD.replace("/1", "/9"), json={"lines": ["1"]}).status_code == 404
    assert lab.post("/api/lessons/nope/exercises/1", json={"lines": ["1"]}).status_code == 404
    huge = lab.post(
        WHAT_IS_GRAD, content=b"x" * (2 * 1024 * 1024), headers={"content-type": "application/json"}
    )
    assert huge.status_code == 413


def test_an_exercise_waits_for_the_step_it_follows(lab: TestClient) -> None:
    lab.cookies.clear()  # a new learner, who has read nothing ahead
    closed = lab.post(WHAT_IS_GRAD, json={"lines": ["loss.backward()"]})
    assert closed.status_code == 409
    before = lab.get("/lessons/what-is-grad/deep-dive").text
    assert "The line that fills .grad" not in before
    assert "Code to write follows this step" in before  # where it will open, nothing of it
    for number, choice in ((1, "None"), (2, "tensor(6.)")):
        commit = {"choice": choice, "confidence": "fairly_sure"}
        posted = lab.post(f"/api/lessons/what-is-grad/steps/{number}/prediction", json=commit)
        assert posted.status_code == 200, posted.text
    assert check(lab, WHAT_IS_GRAD, "loss.backward()")["passed"] is True
    page = lab.get("/lessons/what-is-grad/deep-dive").text
    assert "The line that fills .grad" in page and 'data-solved="true"' in page
    assert "Code to write follows this step" not in page


def test_exercise_answers_touch_the_store_off_the_loop(
    lab: TestClient,
    calls_on_loop: list[str],
    writes_on_loop: list[str],
) -> None:
    lab.cookies.clear()
    assert lab.post("/lessons/grad-deep-dive/read-ahead").status_code in (200, 303)
    calls_on_loop.clear()
    right = "A path walked more than once"
    choice = next(c for c in DIAGNOSES if c.startswith(right))
    body = {"choice": choice, "confidence": "fairly_sure"}
    assert lab.post(f"{CAPSTONE}/diagnosis", json=body).json()["correct"] is True
    assert check(lab, CAPSTONE, "loss.backward()")["passed"] is True
    assert writes_on_loop == []
    assert [name for name in calls_on_loop if "exercise" in name] == []
