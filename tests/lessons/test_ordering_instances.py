"""An ordering step's variants: each instance is an ordering of its own (the last lines of its
filled code, cut as the step's lines are, and what it prints). What cannot work is refused at
load with a message saying why; `gradlab check --update` writes each instance's output and
`gradlab check` runs every instance against it, in the real sandbox."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from app.lessons.format import Step
from app.lessons.loader import load_catalog
from app.lessons.variant_runs import check_variants, run_instances
from app.lessons.variants import instances
from tests.conftest import SandboxHarness, in_own_thread

VARIANT_LESSONS = Path(__file__).parents[1] / "fixtures" / "variant-lessons"

# An ordering step whose numbers decide which call goes after the clearing.
STEP = """  - title: "Clear between the calls"
    level: intermediate
    concept: "Backward calls add into `.grad` until it is cleared."
    explanation: "The call after the clearing is the one printed alone."
    snippet:
      code: |
        import torch
        x = torch.tensor(2.0, requires_grad=True)
        (x * 3).backward()
        x.grad.zero_()
        (x * 4).backward()
        print(x.grad)
      output: |
        tensor(4.)
    ordering:
      question: "Put the lines in an order that prints the output below."
      lines:
        - "(x * 3).backward()"
        - "x.grad.zero_()"
        - "(x * 4).backward()"
        - "print(x.grad)"
      explanation: "The call with 4 comes after the clearing."
    variants:
      params:
        a: [5, 2]
        b: [7, 6]
      code: |
        import torch
        x = torch.tensor(2.0, requires_grad=True)
        (x * {a}).backward()
        x.grad.zero_()
        (x * {b}).backward()
        print(x.grad)
      explanation:
        - "Only the call with {b} follows the clearing: `x.grad` shows it alone."
        - "The call with {b} follows the clearing; the one with {a} comes before it."
    insight: "What you clear, and when, decides what the next read sees."
"""
CODE = """import torch
x = torch.tensor(2.0, requires_grad=True)
(x * {a}).backward()
x.grad.zero_()
(x * {b}).backward()
print(x.grad)
"""


def _step_data() -> dict[str, Any]:
    from app.lessons.loader import parse_yaml

    data: dict[str, Any] = parse_yaml(STEP)[0]
    return data


def _refusal(change: dict[str, Any]) -> str:
    data = _step_data()
    data["variants"] |= change
    with pytest.raises(ValueError) as refused:
        Step.model_validate(data)
    return str(refused.value)


def test_an_ordering_takes_variants_and_cuts_each_instance_as_its_lines() -> None:
    step = Step.model_validate(_step_data())
    assert step.variants is not None and step.ordering is not None
    assert step.ordering.split(step.variants.code_of(1)) == (
        "import torch\nx = torch.tensor(2.0, requires_grad=True)\n",
        ["(x * 2).backward()", "x.grad.zero_()", "(x * 6).backward()", "print(x.grad)"],
    )
    assert step.variants.explanation_of(1).startswith("The call with {b}")


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"params": {"a": [5, 7], "b": [5, 6]}}, "instance 1's last lines cannot be ordered: two"),
        ({"code": "print({a}, {b})\n"}, "instance 1's code is shorter than the 4 lines"),
        ({"answer": "{a}"}, "has no `answer` or `raised` texts"),
        ({"choices": ["{a}", "{b}"]}, "2 rules for the prediction's 0 choices"),
        ({"explanation": ["Only one."] * 3}, "explanation: 3 texts for 2 instances"),
        (
            {
                "instances": [
                    {"params": {"a": 5, "b": 7}, "output": "tensor(7.)\n"},
                    {
                        "params": {"a": 2, "b": 6},
                        "error": {"type": "NameError", "message_contains": "x"},
                    },
                ]
            },
            "variants.instances 2: an ordering's instance must print its output without "
            "raising, and this one raises NameError",
        ),
    ],
)
def test_what_cannot_be_an_ordering_is_refused_at_load(change: dict[str, Any], says: str) -> None:
    assert says in _refusal(change)


def test_an_ordering_with_variants_declares_no_grad_a_drill_would_ask() -> None:
    data = _step_data()
    data["snippet"]["grads"] = {"x": 4.0}
    with pytest.raises(ValueError, match=r"an ordering with variants drills no `\.grad`"):
        Step.model_validate(data)


def test_a_block_and_indented_lines_are_cut_as_the_steps_lines_are() -> None:
    data = _step_data()
    data["ordering"]["lines"] = [
        "(x * 3).backward()",
        "x.grad.zero_()\n(x * 4).backward()",
        "print(x.grad)",
    ]
    step = Step.model_validate(data)
    assert step.ordering is not None and step.ordering.shape == [1, 2, 1]
    cut = step.ordering.split("for _ in range(2):\n    a()\n    b()\n    c()\nd()\n")
    assert cut == ("for _ in range(2):\n", ["    a()", "    b()\n    c()", "d()"])


@pytest.fixture(scope="module")
def ordering_pack(tmp_path_factory: pytest.TempPathFactory, check_sandbox: SandboxHarness) -> Path:
    """The variants lesson with the ordering step above, as `gradlab check --update` wrote it."""
    from app.lessons.update import run_update

    folder = tmp_path_factory.mktemp("ordering")
    text = (VARIANT_LESSONS / "other-numbers.yaml").read_text(encoding="utf-8")
    (folder / "other-numbers.yaml").write_text(text.replace("takeaways:", STEP + "takeaways:"))
    assert in_own_thread(run_update, str(folder), None, check_sandbox.runner()) == 0
    return folder


def _ordering_step(folder: Path) -> tuple[int, Step]:
    lesson = load_catalog([folder]).lessons[0]
    return next((n, s) for n, s in enumerate(lesson.steps, 1) if s.ordering is not None)


def test_the_update_writes_each_instances_output_and_the_check_proves_it(
    ordering_pack: Path, sandbox: SandboxHarness
) -> None:
    number, step = _ordering_step(ordering_pack)
    assert step.variants is not None and step.variants.current
    assert [i.output for i in step.variants.instances] == ["tensor(7.)\n", "tensor(6.)\n"]
    served = instances(step)
    assert [i.lines[0] for i in served] == ["(x * 5).backward()", "(x * 2).backward()"]
    assert (
        served[1].explanation
        == "The call with 6 follows the clearing; the one with 2 comes before it."
    )
    lesson = load_catalog([ordering_pack]).lessons[0]
    failures = sandbox.call(check_variants(lesson, sandbox.sandbox.run))
    assert [f for f in failures if f.where.startswith(f"step {number} ")] == []


def test_a_planted_output_fails_the_check(ordering_pack: Path, sandbox: SandboxHarness) -> None:
    number, step = _ordering_step(ordering_pack)
    assert step.variants is not None
    stored = list(step.variants.instances)
    stored[0] = stored[0].model_copy(update={"output": "tensor(12.)\n"})
    lesson = load_catalog([ordering_pack]).lessons[0]
    planted = step.model_copy(
        update={"variants": step.variants.model_copy(update={"instances": stored})}
    )
    steps = list(lesson.steps)
    steps[number - 1] = planted
    failures = sandbox.call(
        check_variants(lesson.model_copy(update={"steps": steps}), sandbox.sandbox.run)
    )
    assert [f"{f.where}: {f.problem}" for f in failures] == [
        f"step {number} (Clear between the calls) variants instance 1: output is written "
        "'tensor(12.)\\n' but the run prints 'tensor(7.)\\n'"
    ]


def test_an_instance_that_raises_is_a_failure_never_written(
    ordering_pack: Path, sandbox: SandboxHarness
) -> None:
    """Clearing before any call raises (`.grad` is still None): the update and the check say
    that an ordering's instance must print its output without raising."""
    number, step = _ordering_step(ordering_pack)
    assert step.variants is not None
    lesson = load_catalog([ordering_pack]).lessons[0]
    steps = list(lesson.steps)
    cleared_first = "x.grad.zero_()\n(x * {a}).backward()\n(x * {b}).backward()\n"
    code = CODE.replace(
        "(x * {a}).backward()\nx.grad.zero_()\n(x * {b}).backward()\n", cleared_first
    )
    broken = step.variants.model_copy(update={"code": code, "instances": []})
    steps[number - 1] = step.model_copy(update={"variants": broken})
    computed = sandbox.call(
        run_instances(lesson.model_copy(update={"steps": steps}), sandbox.sandbox.run)
    )[number]
    assert all(isinstance(made, ValueError) for made in computed)
    assert "raised AttributeError" in str(computed[0])
    assert "an ordering's instance must print its output without raising" in str(computed[0])
