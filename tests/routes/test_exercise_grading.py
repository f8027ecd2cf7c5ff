"""How code to write is graded, with the real sandbox and the real curriculum, on SQLite and
PostgreSQL: a hint is chosen by what the run did (an error, a wrong output, a wrong `.grad`),
and a goal is met only through the mechanism the exercise is about (a `.grad` written in by
hand, or a graph rebuilt instead of walked twice, fails)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from tests.conftest import curriculum_with_sandbox
from tests.routes.test_exercises_api import WHAT_IS_GRAD, check, reasons

TWICE = "/api/lessons/graphs-used-twice/exercises/1"


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def grading(request: pytest.FixtureRequest) -> Iterator[TestClient]:
    """The real curriculum and the real sandbox, once on each database."""
    yield from curriculum_with_sandbox(request)


def _new_learner(client: TestClient) -> None:
    """A learner of their own, who has read both lessons ahead (their exercises open)."""
    client.cookies.clear()
    for slug in ("what-is-grad", "graphs-used-twice"):
        assert client.post(f"/lessons/{slug}/read-ahead").status_code in (200, 303)


@pytest.mark.parametrize(
    ("lines", "title", "about"),
    [
        # An error: a second walk through the freed record raises.
        ("loss.backward()\nloss.backward()", "About the error", "Read the last line of the error"),
        # A wrong output, every `.grad` right: something extra is printed.
        ("loss.backward()\nprint(loss)", "About the output", "should print nothing of its own"),
        # A wrong `.grad`: the walk was never started.
        ("loss.backward", "About the gradient", "Compare <code>w.grad</code> after your run"),
        # A wrong `.grad` on the second run: written in by hand, it does not follow `w`.
        ("w.grad = torch.tensor(20.)", "About the gradient", "whatever value <code>w</code>"),
    ],
)
def test_a_hint_is_chosen_by_what_the_run_did(
    grading: TestClient, lines: str, title: str, about: str
) -> None:
    _new_learner(grading)
    verdict = check(grading, WHAT_IS_GRAD, lines)
    assert verdict["passed"] is False
    hint = verdict["hint"]
    assert isinstance(hint, dict)
    assert hint["title"] == title and about in hint["text_html"], hint


def test_each_kind_of_miss_climbs_its_own_ladder(grading: TestClient) -> None:
    _new_learner(grading)
    levels = [
        check(grading, WHAT_IS_GRAD, lines)["hint"]
        for lines in (
            "loss.backward()\nloss.backward()",  # an error: its first hint
            "loss.backward()\nprint(loss)",  # then a wrong output: its own first hint
            "loss.backward",  # a wrong `.grad`: its first hint
            "(2 * loss).backward()",  # a wrong `.grad` again: the next one for it, a plain one
        )
    ]
    assert [(hint["level"], hint["title"]) for hint in levels] == [  # type: ignore[index]
        (2, "About the error"),
        (3, "About the output"),
        (1, "About the gradient"),
        (4, "Look closer"),
    ]


def test_a_goal_written_into_grad_fails(grading: TestClient) -> None:
    _new_learner(grading)
    verdict = check(grading, WHAT_IS_GRAD, "w.grad = torch.tensor(20.)")
    assert verdict["passed"] is False
    told = reasons(verdict)
    assert "ran your code again with other values" in told
    assert "<code>torch.tensor(-1.0, requires_grad=True)</code>" in told
    assert "<code>w.grad</code> is <code>20.0</code> after your run" in told
    assert "-12.0" in told
    result = verdict["result"]
    assert isinstance(result, dict) and result["stdout"] == "tensor(20.)\n"  # the learner's run
    assert check(grading, WHAT_IS_GRAD, "loss.backward()")["passed"] is True


@pytest.mark.parametrize(
    "lines",
    [
        "(x ** 3).backward()",  # the first pass through a graph built anew
        "y.backward()\ny = x ** 3",  # the second pass through a graph built anew
        "x.grad = torch.tensor(12.)",  # no first pass at all
    ],
)
def test_a_graph_not_walked_twice_fails(grading: TestClient, lines: str) -> None:
    _new_learner(grading)
    verdict = check(grading, TWICE, lines)
    assert verdict["passed"] is False
    assert "was walked only once" in reasons(verdict)
    result = verdict["result"]
    assert isinstance(result, dict) and "gradlab-probe" not in result["stderr"]


@pytest.mark.parametrize(
    "lines", ["y.backward(retain_graph=True)", "torch.autograd.backward(y, retain_graph=True)"]
)
def test_one_graph_walked_twice_passes(grading: TestClient, lines: str) -> None:
    _new_learner(grading)
    verdict = check(grading, TWICE, lines)
    assert (verdict["passed"], verdict["reasons_html"]) == (True, [])
