"""Variants: instances of a step's question, computed in the real sandbox, stored in the lesson
and verified by `gradlab check`."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.lessons.format import Lesson, Step, VariantInstance
from app.lessons.loader import load_catalog
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


def _written(lesson: Lesson, number: int, sandbox: SandboxHarness, **change: object) -> Lesson:
    """`lesson` with step `number`'s variants changed and their instances computed now, as
    `gradlab check --update` writes them."""
    step = lesson.steps[number - 1]
    assert step.variants is not None
    moved = step.variants.model_copy(update={**change, "instances": []})
    moved_lesson = _with_step(lesson, number, step.model_copy(update={"variants": moved}))
    computed = sandbox.call(run_instances(moved_lesson, sandbox.sandbox.run))[number]
    assert all(isinstance(made, VariantInstance) for made in computed), computed
    written = moved.model_copy(update={"instances": computed})
    return _with_step(lesson, number, step.model_copy(update={"variants": written}))


def test_an_instance_that_raises_is_recorded_and_its_values_are_absent(
    sandbox: SandboxHarness,
) -> None:
    """`v` is not defined: the second instance raises NameError, recorded as a snippet's
    error is, with what it printed before; the choices name values it never computed."""
    lesson = _written(_lesson(), 2, sandbox, params={"used": ["w", "v", "w"], "k": [3.0] * 3})
    step = lesson.steps[1]
    assert step.variants is not None
    raised = step.variants.instances[1]
    assert raised.error is not None and raised.error.type == "NameError"
    assert raised.error.message_contains == "name 'v' is not defined"
    assert (raised.values, raised.grads, raised.output) == ({}, {}, "")
    assert _check(sandbox, lesson) == [
        "step 2 (A tensor that may be cut off) variants instance 2: choice 1 names {printed}, "
        "but this instance raised NameError, so its values were never computed",
        "step 2 (A tensor that may be cut off) variants instance 2: choice 2 names {value}, "
        "but this instance raised NameError, so its values were never computed",
        "step 2 (A tensor that may be cut off) variants: some instances raise and others run "
        "to the end: give `raised: {answer: ...}`, the right choice of those that raise",
    ]


def test_a_stored_error_is_checked_against_the_run(sandbox: SandboxHarness) -> None:
    lesson = _written(_lesson(), 2, sandbox, params={"used": ["w", "v", "w"], "k": [3.0] * 3})
    step = lesson.steps[1]
    assert step.variants is not None
    stored = list(step.variants.instances)
    assert stored[1].error is not None
    stored[1] = stored[1].model_copy(
        update={"error": stored[1].error.model_copy(update={"type": "TypeError"})}
    )
    stored[0] = stored[0].model_copy(update={"error": stored[1].error})
    stored[0] = VariantInstance.model_validate(stored[0].model_dump() | {"values": {}, "grads": {}})
    planted = step.variants.model_copy(update={"instances": stored})
    failures = _check(sandbox, _with_step(lesson, 2, step.model_copy(update={"variants": planted})))
    at = "step 2 (A tensor that may be cut off) variants instance"
    assert (
        f"{at} 1: error is written raises TypeError: \"name 'v' is not defined\", but the run finishes"
        in failures
    )
    assert (
        f"{at} 2: error is written raises TypeError: \"name 'v' is not defined\", but the run "
        "raises NameError: \"name 'v' is not defined\""
    ) in failures


def test_an_expression_that_raises_after_the_code_is_a_failure(sandbox: SandboxHarness) -> None:
    lesson = _lesson()
    step = lesson.steps[1]
    assert step.variants is not None
    values = {**step.variants.values, "broken": "str(nowhere)"}
    broken = step.variants.model_copy(update={"values": values, "instances": []})
    computed = sandbox.call(
        run_instances(
            _with_step(lesson, 2, step.model_copy(update={"variants": broken})),
            sandbox.sandbox.run,
        )
    )[2]
    assert all(isinstance(made, ValueError) for made in computed)
    assert "a `values` or misconception expression raised NameError" in str(computed[0])


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
    """`step` (what-is-grad's step 2) with its first instance moved to `x`, its stored slope
    `slope`."""
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
    from app.config.paths import BUNDLED_LESSONS
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


# A step that asks whether its code raises, its variants every slice that does not fit: text
# params that YAML 1.1 would misread (`2:5` is a base-60 integer, `:2` does not parse plain).
WHICH_ERROR = """\
  - title: "A slice that does not fit"
    level: intermediate
    setup: "A slice of `x` meets a tensor of two numbers."
    concept: "Shapes must match or broadcast."
    explanation: "Three numbers against two."
    snippet:
      code: |
        import torch
        x = torch.ones(6, requires_grad=True)
        print("sliced")
        y = x[1:4] * torch.tensor([1.0, 2.0])
        print(y)
    prediction:
      question: "What happens on the line that multiplies?"
      choices:
        - "It raises RuntimeError"
        - text: "tensor([1., 2.])"
          why: "A slice of three numbers does not shrink to fit two."
      answer: "It raises RuntimeError"
      explanation: "`x[1:4]` has three elements and the other tensor two."
    variants:
      params:
        s: [":3", "0:3", "2:5"]
      code: |
        import torch
        x = torch.ones(6, requires_grad=True)
        print("sliced")
        y = x[{s}] * torch.tensor([1.0, 2.0])
        print(y)
      choices:
        - "It raises {error}"
        - text: "tensor([1., 2.])"
          why: "A slice of three numbers does not shrink to fit two."
      explanation: "`x[{s}]` has three elements and the other tensor two: {error_message}."
    insight: "Shapes are checked before anything is computed."
  - title: "A result changed in place"
    level: advanced
    setup: "`y` is changed in place before backward."
    concept: "Backward needs what the forward saved."
    explanation: "`exp` saves its output."
    snippet:
      code: |
        import torch
        w = torch.tensor(1.0, requires_grad=True)
        y = w.exp()
        y.add_(1)
        y.backward()
    prediction:
      question: "What happens on `y.backward()`?"
      choices:
        - "It raises RuntimeError"
        - text: "It runs to the end"
          why: "`exp` saved its output for backward, and `add_` changed it."
      answer: "It raises RuntimeError"
      explanation: "`exp` saves its output, and `add_` changed it."
    variants:
      params:
        f: ["exp()", "mul(3.0)", "sigmoid()", "add(2.0)"]
      code: |
        import torch
        w = torch.tensor(1.0, requires_grad=True)
        y = w.{f}
        y.add_(1)
        y.backward()
      choices:
        - "It raises RuntimeError"
        - text: "It runs to the end"
          why: "`{f}` saved its output for backward, and `add_` changed it."
      answer: "It runs to the end"
      explanation: "`{f}` saved nothing that `add_` changes, so backward runs."
      raised:
        answer: "It raises {error}"
        explanation: "`{f}` saved its output for backward, and `add_` changed it: {error_message}."
    insight: "Backward needs what the forward saved."
"""
SIZES = "The size of tensor a (3) must match the size of tensor b (2) at non-singleton"


@pytest.fixture(scope="module")
def raising_pack(tmp_path_factory: pytest.TempPathFactory, check_sandbox: SandboxHarness) -> Path:
    """The variants lesson with the step above, as `gradlab check --update` wrote it."""
    from app.lessons.update import run_update
    from tests.conftest import in_own_thread

    folder = tmp_path_factory.mktemp("raising")
    text = (VARIANT_LESSONS / "other-numbers.yaml").read_text(encoding="utf-8")
    (folder / "other-numbers.yaml").write_text(
        text.replace("takeaways:", WHICH_ERROR + "takeaways:")
    )
    assert in_own_thread(run_update, str(folder), None, check_sandbox.runner()) == 0
    return folder


def _raising_lesson(folder: Path) -> Lesson:
    return load_catalog([folder]).lessons[0]


def test_the_update_writes_each_error_and_quotes_text_yaml_would_misread(
    check_sandbox: SandboxHarness, raising_pack: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (raising_pack / "other-numbers.yaml").read_text(encoding="utf-8")
    assert '- params: {s: ":3"}' in text and '- params: {s: "2:5"}' in text
    assert text.count(f'message_contains: "{SIZES}"') == 4  # the snippet's and 3 instances'
    step = _raising_lesson(raising_pack).steps[2]
    assert step.variants is not None and step.variants.current
    assert [i.params["s"] for i in step.variants.instances] == [":3", "0:3", "2:5"]
    from app.lessons.update import run_update
    from tests.conftest import in_own_thread

    capsys.readouterr()
    assert (
        in_own_thread(run_update, str(raising_pack), None, check_sandbox.runner()) == 0
    )  # written once, then left alone
    assert "1 lessons: 0 updated" in capsys.readouterr().out


def test_a_step_that_asks_which_error_passes_the_check_and_names_it(
    raising_pack: Path, sandbox: SandboxHarness
) -> None:
    lesson = _raising_lesson(raising_pack)
    assert _check(sandbox, lesson) == []
    step = lesson.steps[2]
    served = instances(step)
    assert [i.answer for i in served] == ["It raises RuntimeError"] * 3
    assert served[2].texts == ["It raises RuntimeError", "tensor([1., 2.])"]
    assert served[2].explanation == (
        f"`x[2:5]` has three elements and the other tensor two: {SIZES}."
    )
    assert served[2].output == "sliced\n" and not served[2].finished
    # No instance finished: none can ask a `.grad` (the step asks none).
    assert pick(step, "learner/step-3", ran=True) is None
    assert pick(step, "learner/review/3", avoid="learner/step-3") is not None
    # Some instances of step 4 raise and others finish: each reads its own answer.
    mixed = instances(lesson.steps[3])
    assert [i.finished for i in mixed] == [False, True, False, True]
    assert [i.answer for i in mixed] == ["It raises RuntimeError", "It runs to the end"] * 2
    assert mixed[1].explanation == "`mul(3.0)` saved nothing that `add_` changes, so backward runs."
    assert mixed[2].explanation == (
        "`sigmoid()` saved its output for backward, and `add_` changed it: one of the variables "
        "needed for gradient computation has been modified by an."  # cut at 80 characters
    )


def test_an_error_named_where_none_was_raised_fails_the_check(
    raising_pack: Path, sandbox: SandboxHarness
) -> None:
    lesson = _raising_lesson(raising_pack)
    step = lesson.steps[0]
    assert step.variants is not None
    named = step.variants.model_copy(update={"explanation": "2x at {x}, not {error}."})
    failures = _check(sandbox, _with_step(lesson, 1, step.model_copy(update={"variants": named})))
    assert failures == [
        f"step 1 (A square) variants instance {n}: the explanation names {{error}}, but this "
        "instance does not raise"
        for n in range(1, 5)
    ]


def test_served_instances_that_raised_are_never_asked_a_grad(sandbox: SandboxHarness) -> None:
    """Step 2's second instance raises: the drills and the typed value ask only the others;
    a review of its prediction may ask it, and its reveal shows the error."""
    from app.learning.answers.grader import instance_choice
    from app.modes.drills import find_drill, for_learner

    lesson = _written(_lesson(), 2, sandbox, params={"used": ["w", "v", "w"], "k": [3.0] * 3})
    step = lesson.steps[1]
    drill = find_drill(lesson, "step-2.w")
    assert drill is not None
    asked = {
        for_learner(lesson, drill, f"learner-{n}", "drills/step-2").instance for n in range(40)
    }
    assert asked == {0, 2}
    typed = [pick(step, f"learner-{n}/other-numbers/2", ran=True) for n in range(40)]
    assert {instance.index for instance in typed if instance is not None} == {0, 2}
    assert None not in typed
    raised = instances(step)[1]
    graded = instance_choice(step, raised, raised.texts[0])
    assert graded.reveal.error == {
        "type": "NameError",
        "message_contains": "name 'v' is not defined",
    }


def test_a_choice_without_why_may_not_fall_back_on_the_steps_numbers() -> None:
    """The step's own `why` of `tensor(9.)` says "9 is the value of `y`": an instance at
    x = 5 shows no 9. Where the step's `why` names no number of the step, it may stand."""
    from app.lessons.variant_runs import template_problems

    step = _lesson().steps[0]
    prediction, variants = step.prediction, step.variants
    assert prediction is not None and variants is not None
    bare = [
        variants.choices[0],
        variants.choices[1].model_copy(update={"why": None}),
        variants.choices[2],
    ]
    without = step.model_copy(update={"variants": variants.model_copy(update={"choices": bare})})
    assert template_problems(without, instances(without)[0]) == [
        "choice 2 has no `why`, and the step's own `why` names 9, which this instance does "
        "not show: give the variant choice a `why`"
    ]
    general = prediction.choices[1].model_copy(update={"why": "That is the value of `y`."})
    choices = [prediction.choices[0], general, prediction.choices[2]]
    fine = without.model_copy(
        update={"prediction": prediction.model_copy(update={"choices": choices})}
    )
    assert template_problems(fine, instances(fine)[0]) == []


def test_a_step_whose_instances_differ_needs_the_answer_of_those_that_raise(
    raising_pack: Path,
) -> None:
    """Without `raised`, an instance that raised would read the answer of those that finish,
    "It runs to the end", which no template can catch: the check asks for it."""
    from app.lessons.variant_runs import step_problems

    step = _raising_lesson(raising_pack).steps[3]
    assert step.variants is not None and step_problems(step) == []
    bare = step.model_copy(update={"variants": step.variants.model_copy(update={"raised": None})})
    assert step_problems(bare) == [
        "some instances raise and others run to the end: give `raised: {answer: ...}`, the "
        "right choice of those that raise"
    ]
