"""Variants: instances of a step's question, computed in the real sandbox, stored in the lesson
and verified by `gradlab check`."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.lessons.loader import load_catalog
from app.lessons.schema import Lesson, Step, VariantInstance
from app.lessons.variant_runs import check_variants, run_instances
from app.lessons.variants import expected_value, fill, instances, pick
from tests.conftest import SandboxHarness

VARIANT_LESSONS = Path(__file__).parents[1] / "fixtures" / "variant-lessons"


def _lesson() -> Lesson:
    return load_catalog([VARIANT_LESSONS]).lessons[0]


def _with_step(lesson: Lesson, number: int, step: Step) -> Lesson:
    steps = list(lesson.steps)
    steps[number - 1] = step
    return lesson.model_copy(update={"steps": steps})


def _check(sandbox: SandboxHarness, lesson: Lesson) -> list[str]:
    failures = sandbox.call(check_variants(lesson, sandbox.sandbox.run))
    return [f"{failure.where}: {failure.problem}" for failure in failures]


def test_a_template_fills_its_params_and_leaves_other_braces_alone() -> None:
    template = "x = torch.tensor({x})\nd = {'a': 1}\nprint(f'{x}')\ny = {used} * 2"
    filled = fill(template, {"x": [1.0, 2.0], "used": "w.detach()"})
    assert (
        filled
        == "x = torch.tensor([1.0, 2.0])\nd = {'a': 1}\nprint(f'[1.0, 2.0]')\ny = w.detach() * 2"
    )
    assert fill("{a} and {b}", {"a": 3}) == "3 and {b}"


def test_each_instance_reads_its_rules_with_its_own_numbers() -> None:
    step = _lesson().steps[0]
    first, second = instances(step)[:2]
    assert first.code.splitlines()[1] == "x = torch.tensor(5.0, requires_grad=True)"
    assert (first.answer, first.texts) == ("tensor(10.)", ["tensor(10.)", "tensor(25.)", "None"])
    assert second.answer == "tensor(-4.)" and expected_value(step, second) == -4.0
    assert [m.value for m in second.misconceptions] == [4.0]
    assert second.misconceptions[0].why == "That is the value of `y`, `-2.0 · -2.0`."
    assert second.choice("tensor(4.)") is not None and second.explanation == "2x at -2.0."


def test_picking_is_stable_and_a_review_never_asks_the_lesson_pages_instance() -> None:
    step = _lesson().steps[0]
    asked = pick(step, "learner/other-numbers/1")
    assert asked is not None and pick(step, "learner/other-numbers/1") == asked
    for token in range(40):
        again = pick(step, f"learner/{token}", avoid="learner/other-numbers/1")
        assert again is not None and again.index != asked.index


def test_the_stored_instances_are_what_the_sandbox_computes(sandbox: SandboxHarness) -> None:
    assert _check(sandbox, _lesson()) == []
    computed = sandbox.call(run_instances(_lesson(), sandbox.sandbox.run))
    cut_off = computed[2][1]
    assert isinstance(cut_off, VariantInstance)
    assert cut_off.grads == {"w": None, "b": 1.0}  # a detached path: None is the answer
    assert cut_off.output == "None tensor(1.)\n"


def test_a_planted_wrong_answer_fails_the_check(sandbox: SandboxHarness) -> None:
    lesson = _lesson()
    step = lesson.steps[0]
    assert step.variants is not None
    stored = list(step.variants.instances)
    stored[1] = stored[1].model_copy(update={"grads": {"x": 7.0}})
    planted = step.variants.model_copy(update={"instances": stored})
    failures = _check(sandbox, _with_step(lesson, 1, step.model_copy(update={"variants": planted})))
    assert failures == [
        "step 1 (A square) variants instance 2: grads.x is written 7.0, computed -4.0"
    ]


def test_a_misconception_that_coincides_with_the_answer_fails_the_check(
    sandbox: SandboxHarness,
) -> None:
    """At x = 2, y = x · x = 4 is also the slope 2 · x: the rule "the value of y" would be
    graded as a misconception while it is the answer."""
    lesson = _lesson()
    step = lesson.steps[0]
    assert step.variants is not None
    params = {"x": [5.0, 2.0]}
    moved = step.variants.model_copy(update={"params": params, "instances": []})
    moved_lesson = _with_step(lesson, 1, step.model_copy(update={"variants": moved}))
    computed = sandbox.call(run_instances(moved_lesson, sandbox.sandbox.run))[1]
    written = moved.model_copy(update={"instances": computed})
    failures = _check(sandbox, _with_step(lesson, 1, step.model_copy(update={"variants": written})))
    assert failures == [
        "step 1 (A square) variants instance 2: choices 1 and 2 both read 'tensor(4.)'",
        "step 1 (A square) variants instance 2: misconception 1 gives 4.0, which is the right "
        "value",
    ]


def test_an_instance_that_raises_fails_the_check(sandbox: SandboxHarness) -> None:
    lesson = _lesson()
    step = lesson.steps[1]
    assert step.variants is not None
    params = {"used": ["w", "v"], "k": [3.0, 3.0]}
    broken = step.variants.model_copy(update={"params": params, "instances": []})
    failures = _check(sandbox, _with_step(lesson, 2, step.model_copy(update={"variants": broken})))
    assert failures == [
        "step 2 (A tensor that may be cut off) variants: the instances are not written for "
        "these params: run `gradlab check --update`"
    ]
    computed = sandbox.call(
        run_instances(
            _with_step(lesson, 2, step.model_copy(update={"variants": broken})),
            sandbox.sandbox.run,
        )
    )[2]
    assert isinstance(computed[1], ValueError) and "NameError" in str(computed[1])


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"params": {"x": [1.0, 2.0], "z": [1.0, 2.0, 3.0]}}, "as many values"),
        ({"code": "x = {x}\ny = {nope}"}, "{nope} is not a parameter"),
        ({"explanation": "{nowhere}"}, "{nowhere} is not a param or a value"),
    ],
)
def test_the_loader_refuses_templates_that_name_nothing(
    change: dict[str, object], problem: str
) -> None:
    step = _lesson().steps[0]
    assert step.variants is not None
    data = step.variants.model_dump() | change
    with pytest.raises(ValueError, match=problem.replace("{", r"\{").replace("}", r"\}")):
        type(step.variants).model_validate(data)


def _with_first_instance(step: Step, x: float, slope: float) -> Step:
    """`step` (what-is-grad's step 2, y = x * x) with its first instance moved to `x`."""
    variants = step.variants
    assert variants is not None
    params = {"x": [x, *variants.params["x"][1:]]}
    first = variants.instances[0].model_copy(
        update={"params": {"x": x}, "grads": {"x": slope}, "output": f"tensor({slope:g}.)\n"}
    )
    moved = variants.model_copy(
        update={"params": params, "instances": [first, *variants.instances[1:]]}
    )
    return step.model_copy(update={"variants": moved})


def test_an_instance_may_not_be_an_example_already_worked_out() -> None:
    from app.config import BUNDLED_LESSONS
    from app.lessons.lint_variants import repeated_instances

    lesson = next(
        lesson
        for lesson in load_catalog(Path(BUNDLED_LESSONS)).lessons
        if lesson.slug == "what-is-grad"
    )
    step = lesson.steps[1]
    assert list(repeated_instances(lesson, 2, step)) == []
    # Plant a myth whose demo works out y = x * x at x = 5 (slope 10): an instance at 5 copies it.
    myth = lesson.myths[-1]
    assert myth.demo is not None
    worked = myth.demo.model_copy(
        update={
            "code": "import torch\nx = torch.tensor(5.0, requires_grad=True)\ny = x * x\n"
            "y.backward()\nprint(x.grad)\n",
            "output": "tensor(10.)\n",
        }
    )
    lesson = lesson.model_copy(
        update={"myths": [*lesson.myths[:-1], myth.model_copy(update={"demo": worked})]}
    )
    found = list(repeated_instances(lesson, 2, _with_first_instance(step, 5.0, 10.0)))
    assert len(found) == 1 and "myth" in found[0] and "10.0" in found[0]
    # Other numbers are a new example.
    assert list(repeated_instances(lesson, 2, _with_first_instance(step, 7.0, 14.0))) == []
