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


# --- a myth's reveal that answers a step of its lesson -------------------------------------------
def demo_myth(
    code: str, output: str, question: str = "Does `.grad` hold the slope?", **grads: Any
) -> Data:
    return {
        "question": question,
        "belief": "Some think so.",
        "answer": "yes",
        "reality": "It is otherwise.",
        "why_it_matters": "It changes what you write.",
        "demo": {"code": code, "output": output, "grads": grads},
    }


SQUARES_AT_5_1 = (
    "import torch\nx = torch.tensor([5.0, 1.0], requires_grad=True)\n"
    "y = (x * x).sum()\ny.backward()\nprint(x.grad)\n"
)
TRIPLES = (
    "import torch\nx = torch.tensor([5.0, 1.0], requires_grad=True)\n"
    "y = (x * 3).sum()\ny.backward()\nprint(x.grad)\n"
)
LOG = "import torch\nx = torch.tensor([-1.0, {at}], requires_grad=True)\ntorch.log(x).sum().backward()\n"


def sqrt_at_zero() -> Data:
    code = "import torch\nx = torch.tensor([0.0, 4.0], requires_grad=True)\n"
    return cubes(
        title="sqrt at zero",
        snippet={
            "code": code + "torch.sqrt(x).sum().backward()\nprint(x.grad)\n",
            "output": "tensor([   inf, 0.2500])\n",
            "grads": {"x": [float("inf"), 0.25]},
        },
        prediction={
            "question": "What is `x.grad[0]`?",
            "choices": [{"text": "nan", "why": "Nothing multiplies 0 by inf."}, "inf"],
            "answer": "inf",
            "explanation": "1 / (2 sqrt(0)).",
        },
    )


def _myth_findings(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if f.problem.startswith("myth ")]


def _with_step(first: Data, added: Data | None) -> Data:
    if added is not None:
        first["steps"].append(added)
    return first


@pytest.mark.parametrize(
    ("added", "myth", "where", "problem"),
    [
        (
            None,
            demo_myth(SQUARES_AT_5_1, "tensor([10.,  2.])\n"),
            "step 1",
            "myth 2's demo is this step's computation with other numbers and prints `x.grad`",
        ),
        (
            sqrt_at_zero(),
            demo_myth(
                LOG.format(at="0.0") + "print(x.grad)\n",
                "tensor([-1., inf])\n",
                x=[-1.0, float("inf")],
            ),
            "step 2",
            "myth 2's demo prints the gradient of `x` at 0, inf, which is this step's answer",
        ),
        (
            cubes(
                prediction={
                    **cubes()["prediction"],
                    "choices": [
                        "tensor([ 3., 12.])",
                        {
                            "text": "It raises: backward's result is not the derivative of x³",
                            "why": "Autograd never checks.",
                        },
                    ],
                }
            ),
            demo_myth(
                TRIPLES,
                "tensor([3., 3.])\n",
                "Will autograd use a backward whose result is not the derivative of forward?",
            ),
            "step 2",
            "myth 2 asks what the choice \"It raises: backward's result is not the derivative "
            "of x³\" claims ('result is not the derivative of')",
        ),
    ],
    ids=["the same computation with other numbers", "the same point", "the same claim"],
)
def test_a_myth_that_answers_a_step_is_found(
    added: Data | None, myth: Data, where: str, problem: str
) -> None:
    first, second = curriculum()
    _with_step(first, added)["myths"].append(myth)
    findings = _myth_findings(lint(first, second))
    assert [f.where.split(" (")[0] for f in findings] == [where], "\n".join(map(str, findings))
    assert problem in findings[0].problem
    # The same reveal as one of the myth's forms (asked in review) is found too.
    first, second = curriculum()
    form = {"question": "Is it so?", "answer": "no", "reality": "No.", "demo": myth["demo"]}
    if "claims" in problem:
        form["question"] = myth["question"]
    _with_step(first, added)["myths"][0]["forms"] = [form]
    (found,) = _myth_findings(lint(first, second))
    assert found.problem.startswith("myth 1's form 1")


@pytest.mark.parametrize(
    ("added", "myth"),
    [
        (None, demo_myth(TRIPLES, "tensor([3., 3.])\n")),  # another computation
        (  # the lines of the step in another order are another computation
            None,
            demo_myth(
                "import torch\ny = None\nx = torch.tensor([5.0, 1.0], requires_grad=True)\n"
                "y.backward()\ny = (x * x).sum()\nprint(x.grad)\n",
                "",
            ),
        ),
        (  # the same computation, but the demo never prints the gradient the step asks
            None,
            demo_myth(SQUARES_AT_5_1.replace("print(x.grad)", "print(y)"), "tensor(26.)\n"),
        ),
        (  # log at another point
            sqrt_at_zero(),
            demo_myth(
                LOG.format(at="2.0") + "print(x.grad)\n",
                "tensor([-1.0000,  0.5000])\n",
                x=[-1.0, 0.5],
            ),
        ),
        (
            cubes(),
            demo_myth(TRIPLES, "tensor([3., 3.])\n", "Does autograd compare a custom backward?"),
        ),
    ],
    ids=["another computation", "another order", "not printed", "another point", "another claim"],
)
def test_a_myth_that_leaves_its_lessons_steps_open_passes(added: Data | None, myth: Data) -> None:
    first, second = curriculum()
    _with_step(first, added)["myths"].append(myth)
    assert _myth_findings(lint(first, second)) == []


# --- an earlier lesson's example asked again with other numbers ----------------------------------
def asking(code: str) -> Data:
    """A step of the second lesson that asks what its code prints."""
    return cubes(
        title="Again",
        level="intermediate",
        snippet={"code": code, "output": "tensor([10.,  2.])\n"},
        prediction={
            "question": "What does it print?",
            "choices": [{"text": "None", "why": "backward() ran."}, "tensor([10.,  2.])"],
            "answer": "tensor([10.,  2.])",
            "explanation": "2v.",
        },
    )


def _again(findings: list[Finding]) -> list[Finding]:
    return [f for f in findings if "again with other numbers" in f.problem]


@pytest.mark.parametrize(
    ("code", "earlier"),
    [
        (
            "import torch\nv = torch.tensor([5.0, 1.0], requires_grad=True)\n"
            "z = (v * v).sum()\nz.backward()\nprint(v.grad)\n",
            "first-steps step 1's example",
        ),
        (
            "import torch\nw = torch.tensor([3.0, 4.0], requires_grad=True)\n"
            "(w * 5).sum().backward()\nprint('done')\nprint(w.grad)\n",
            "first-steps pitfall 1 (fixed)'s example",
        ),
    ],
    ids=["a step's, other numbers and names", "a pitfall's fixed code, other numbers"],
)
def test_an_earlier_lessons_example_with_other_numbers_is_found(code: str, earlier: str) -> None:
    first, second = curriculum()
    second["steps"].append(asking(code))
    (found,) = _again(lint(first, second))
    assert (found.lesson, found.where) == ("second-steps", "step 2 (Again)")
    assert f"asks about {earlier} again with other numbers or names" in found.problem


@pytest.mark.parametrize(
    "code",
    [
        "import torch\nv = torch.tensor([5.0, 1.0], requires_grad=True)\n"
        "z = (v * v * v).sum()\nz.backward()\nprint(v.grad)\n",  # another computation
        "import torch\nv = torch.tensor([5.0, 1.0], requires_grad=True)\n"
        "z = (v * v).sum()\nprint(z)\n",  # part of it: nothing walks back
    ],
    ids=["another computation", "a part of it"],
)
def test_another_example_in_a_later_lesson_passes(code: str) -> None:
    first, second = curriculum()
    second["steps"].append(asking(code))
    assert _again(lint(first, second)) == []


def test_the_same_code_exactly_is_reported_once_as_the_same_example() -> None:
    first, second = curriculum()
    second["steps"].append(asking(first["steps"][0]["snippet"]["code"]))
    findings = lint(first, second)
    assert _again(findings) == []
    assert any("asks about the same code as first-steps step 1" in f.problem for f in findings)
