"""The lints for three leaks found in the bundled lessons, each planted in the clean fixture
curriculum (the lint must name it) and in its fixed form (the lint must pass): a typed value its
step's reveal states in words, a myth's reveal that answers a step of its lesson, and an
earlier lesson's example asked again with other numbers."""

from __future__ import annotations

from typing import Any

import pytest

from app.lessons.lint import Finding
from tests.lessons.test_lint import Data, cubes, curriculum, lint

COMPARE = (
    "import torch\nw = torch.tensor([1.0, -1.0], requires_grad=True)\n"
    "X = torch.tensor([[1.0, 2.0], [3.0, 4.0]])\n"
    "((X @ w) ** 2).mean().backward()\nprint(torch.allclose(w.grad, X.T @ (X @ w)))\n"
)


def compared(explanation: str, why: str = "They agree.", **value: Any) -> Data:
    """A step whose print compares (it shows True, not the gradient), then asks `w.grad`."""
    return cubes(
        title="The mean's gradient",
        explanation=explanation,
        snippet={"code": COMPARE, "output": "True\n", "grads": {"w": [-4.0, -6.0]}},
        prediction={
            "question": "What does the `print` show?",
            "choices": [{"text": "False", "why": why}, "True"],
            "answer": "True",
            "explanation": "The mean of the per-example gradients.",
        },
        value_prediction={
            "question": "Type `w.grad`.",
            "tensor": "w",
            "expected": value.get("expected", [-4.0, -6.0]),
            "explanation": "The column means.",
        },
    )


def _stated(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if "states the typed value" in f.problem]


@pytest.mark.parametrize(
    ("explanation", "why", "expected", "how"),
    [
        ("It is the batch's gradient, `[-4, -6]`.", "They agree.", [-4.0, -6.0], "in a row"),
        (
            "The means: `(-4 - 6 - 2) / 3 = -4` and `(-8 - 8 - 2) / 3 = -6`.",
            "They agree.",
            [-4.0, -6.0],
            "one result after another",
        ),
        ("Nothing here.", "Both are `[−4, −6]`: they agree.", [-4.0, -6.0], "in a row"),
        ("The first pass left `2`; `w.grad` went from `2` to `4`.", "No.", 4.0, "right after"),
    ],
    ids=["numbers in a row", "results in turn", "a wrong choice's why", "one number"],
)
def test_a_typed_value_the_reveal_states_in_words_is_found(
    explanation: str, why: str, expected: Any, how: str
) -> None:
    first, second = curriculum()
    first["steps"].append(compared(explanation, why, expected=expected))
    (found,) = _stated(lint(first, second))
    assert found.lesson == "first-steps" and found.where.startswith("step 2")
    assert how in found.problem


@pytest.mark.parametrize(
    ("explanation", "expected"),
    [
        ("Differentiation is linear: the mean's gradient is the gradients' mean.", [-4.0, -6.0]),
        ("The means: `(-4 - 6 - 2) / 3` and `(-8 - 8 - 2) / 3`.", [-4.0, -6.0]),
        ("`w.grad` is the sum of both passes; the loop runs 4 times.", 4.0),
    ],
    ids=["no number", "the sums without their results", "the number in another clause"],
)
def test_a_reveal_that_leaves_the_typed_value_to_the_learner_passes(
    explanation: str, expected: Any
) -> None:
    first, second = curriculum()
    first["steps"].append(compared(explanation, expected=expected))
    assert _stated(lint(first, second)) == []


def test_a_step_with_variants_asks_other_numbers_so_its_prose_may_state_its_own() -> None:
    first, second = curriculum()
    first["steps"][0]["explanation"] = "2x at [2, 3] is `[4, 6]`."
    assert _stated(lint(first, second)) == []
    del first["steps"][0]["variants"]
    assert len(_stated(lint(first, second))) == 1
