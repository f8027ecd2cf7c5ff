"""Each pedagogy lint catches the fault it is for: a fault is planted in a clean fixture
curriculum, and the lint must name the lesson, the place and the problem."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from app.config.paths import BUNDLED_LESSONS
from app.lessons.check import check_lesson
from app.lessons.format import Lesson
from app.lessons.lint import Finding, lint_catalog
from app.lessons.loader import load_catalog, parse_yaml
from tests.conftest import FIXTURE_LESSONS, SandboxHarness

Data = dict[str, Any]


def curriculum() -> tuple[Data, Data]:
    """The fixture lessons, with the variants an author gives step 1: its typed value, asked
    after the reveal, is the number the reveal printed (the app's tests type it on the step's
    own code), so the lint asks for other numbers."""
    first: Data = parse_yaml((FIXTURE_LESSONS / "first-steps.yaml").read_text())
    second: Data = parse_yaml((FIXTURE_LESSONS / "second-steps.yaml").read_text())
    step(first)["variants"] = squares_variants()
    return first, second


def squares_variants() -> Data:
    """Step 1's code on other numbers, with what the sandbox computes for them."""
    code = "import torch\nx = torch.tensor({x}, requires_grad=True)\n"
    return {
        "params": {"x": [[1.0, -2.0], [0.5, 3.0]]},
        "code": code + "y = (x * x).sum()\ny.backward()\nprint(x.grad)\n",
        "values": {"grad": "str(x.grad)"},
        "choices": ["None", "{grad}"],
        "explanation": "2x at {x} is {grad}.",
        "instances": [
            {
                "params": {"x": [1.0, -2.0]},
                "values": {"grad": "tensor([ 2., -4.])"},
                "output": "tensor([ 2., -4.])\n",
                "grads": {"x": [2.0, -4.0], "y": None},
            },
            {
                "params": {"x": [0.5, 3.0]},
                "values": {"grad": "tensor([1., 6.])"},
                "output": "tensor([1., 6.])\n",
                "grads": {"x": [1.0, 6.0], "y": None},
            },
        ],
    }


def add_choice(data: Data, choice: Data | str) -> None:
    """A choice for step 1's prediction, and the same text as its rule in the variants."""
    step(data)["prediction"]["choices"].append(choice)
    text = choice if isinstance(choice, str) else choice["text"]
    step(data)["variants"]["choices"].append(text)


def lint(first: Data, second: Data, only: set[str] | None = None) -> list[Finding]:
    lessons = [Lesson.model_validate(first), Lesson.model_validate(second)]
    return lint_catalog(lessons, only=only)


def step(data: Data) -> Data:
    first: Data = data["steps"][0]
    return first


def myth(answer: str, question: str) -> Data:
    return {
        "question": question,
        "belief": "Some think so.",
        "answer": answer,
        "reality": "It is otherwise.",
        "why_it_matters": "It changes what you write.",
    }


def add_two_no_myths(first: Data, _: Data) -> None:
    """The first lesson gets two more myths answered "no": one-sided, and the curriculum too."""
    first["myths"].extend(
        [myth("no", "Is `.grad` a Python float?"), myth("no", "Is `.grad` on the output?")]
    )


def cubes(**changes: Any) -> Data:
    """A second step for the first fixture lesson, clean on its own."""
    code = "import torch\nx = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    data: Data = {
        "title": "Cubes",
        "level": "foundation",
        "concept": "d(x³)/dx = 3x²",
        "explanation": "Run it.",
        "snippet": {
            "code": code + "(x ** 3).sum().backward()\nprint(x.grad)\n",
            "output": "tensor([ 3., 12.])\n",
            "grads": {"x": [3.0, 12.0]},
        },
        "prediction": {
            "question": "What does `x.grad` print?",
            "choices": [
                {
                    "text": "tensor([1., 4.])",
                    "why": "That is x², not its slope.",
                    "misconception": "Thinks `.grad` holds x² itself.",
                },
                "tensor([ 3., 12.])",
            ],
            "answer": "tensor([ 3., 12.])",
            "explanation": "3x² at [1, 2].",
        },
        "insight": "Powers bring their exponent down.",
        "insight_question": "What happens to the exponent when you differentiate a power?",
    }
    data.update(changes)
    return data


def intermediate_step() -> Data:
    """A second step whose answer is a short word: `y.grad` of a result is None."""
    code = "import torch\nx = torch.tensor(2.0, requires_grad=True)\ny = x * 3\ny.backward()\n"
    return cubes(
        title="A result's grad",
        snippet={"code": code + "print(y.grad)\n", "output": "None\n"},
        prediction={
            "question": "What is `y.grad`?",
            "choices": [
                {
                    "text": "tensor(1.)",
                    "why": "Only leaves keep a gradient.",
                    "misconception": "Thinks every tensor keeps its gradient.",
                },
                "None",
            ],
            "answer": "None",
            "explanation": "y is not a leaf.",
        },
    )


def same_value(code: str) -> Data:
    """A second step whose answer is step 1's printed value, on the given code."""
    wrong = {
        "text": "tensor([0., 0.])",
        "why": "backward() did run.",
        "misconception": "Thinks `.grad` holds zeros before the pass fills it.",
    }
    return cubes(
        snippet={"code": code, "output": "tensor([4., 6.])\n"},
        prediction={
            **cubes()["prediction"],
            "choices": [wrong, "tensor([4., 6.])"],
            "answer": "tensor([4., 6.])",
        },
    )


def redone(first: Data, _: Data) -> None:
    code: str = step(first)["snippet"]["code"]
    first["steps"].append(same_value(code.replace("print(", "z = x.detach()\nprint(")))


def can_myths(first: Data, _: Data) -> None:
    first["myths"].extend(myth("yes", f"Can `.grad` be read after pass {n}?") for n in range(5))


def test_the_clean_fixture_curriculum_has_no_finding() -> None:
    assert lint(*curriculum()) == []


def test_every_bundled_wrong_choice_states_the_belief_behind_it() -> None:
    """What the class dashboard tells a teacher about each wrong choice is authored for every
    step prediction of the bundled lessons (the inventory's: tests/lessons/test_inventory_check.py)."""
    lessons = list(load_catalog(BUNDLED_LESSONS).lessons)
    assert [f for f in lint_catalog(lessons) if "`misconception`" in f.problem] == []
    beliefs = [
        choice.misconception
        for lesson in lessons
        for step in lesson.steps
        if step.prediction is not None
        for choice in step.prediction.choices
        if choice.text != step.prediction.answer
    ]
    assert len(beliefs) > 300 and all(beliefs)


Plant = Callable[[Data, Data], None]

FAULTS: list[tuple[str, Plant, str, str, str]] = [
    (
        "answer in the title",
        lambda a, b: step(a).update(title="Squares give tensor([4., 6.])"),
        "first-steps",
        "step 1",
        "the answer 'tensor([4., 6.])' shows in the title or setup",
    ),
    (
        "answer's numbers in the setup",
        lambda a, b: step(a).update(setup="The slopes will be 4 and 6."),
        "first-steps",
        "step 1",
        "the answer's number(s) 4, 6 show in the title or setup",
    ),
    (
        "answer in the question alone",
        lambda a, b: step(a)["prediction"].update(
            question="Does `x.grad` print `tensor([4., 6.])`?"
        ),
        "first-steps",
        "step 1",
        "shows in the question",
    ),
    (
        "answer in the lesson's introduction",
        lambda a, b: a["mental_model"].update(core_idea="Here x.grad is tensor([4., 6.])."),
        "first-steps",
        "step 1",
        "shows in the lesson's introduction",
    ),
    (
        "value prediction's numbers before the answer",
        lambda a, b: step(a)["value_prediction"].update(question="Type `x.grad` (it is 4 and 6)."),
        "first-steps",
        "step 1 (Squares) value prediction",
        "the expected value's number(s) 4, 6 show before the answer",
    ),
    (
        "a value misconception's why gives the answer away",
        lambda a, b: step(a)["value_prediction"].update(
            misconceptions=[{"value": [2.0, 3.0], "why": "That is x; the slopes are 4 and 6."}]
        ),
        "first-steps",
        "step 1 (Squares) value misconception 1",
        "its why gives the expected value's number(s) 4, 6 away",
    ),
    (
        "wrong choice without a why",
        lambda a, b: add_choice(a, "tensor([2., 3.])"),
        "first-steps",
        "step 1",
        "the wrong choice 'tensor([2., 3.])' has no `why`",
    ),
    (
        "a because on the right choice",
        lambda a, b: step(a)["prediction"]["choices"].__setitem__(
            1, {"text": "tensor([4., 6.])", "because": "print('tensor([4., 6.])')"}
        ),
        "first-steps",
        "step 1",
        "the right choice has a `because`",
    ),
    (
        "wrong choice without the belief behind it",
        lambda a, b: add_choice(a, {"text": "tensor([2., 3.])", "why": "That is x itself."}),
        "first-steps",
        "step 1",
        "the wrong answer 'tensor([2., 3.])' has no `misconception`",
    ),
    (
        "belief on the right choice",
        lambda a, b: step(a)["prediction"]["choices"].__setitem__(
            1, {"text": "tensor([4., 6.])", "misconception": "Knows the slope is 2x."}
        ),
        "first-steps",
        "step 1",
        "the right choice has a `misconception`",
    ),
    (
        "belief that copies the rebuttal",
        lambda a, b: step(a)["prediction"]["choices"][0].update(
            misconception=step(a)["prediction"]["choices"][0]["why"]
        ),
        "first-steps",
        "step 1",
        "has a `misconception` that copies its `why`",
    ),
    (
        "myths all one answer",
        add_two_no_myths,
        "first-steps",
        "myths",
        "all 3 myths answer 'no'",
    ),
    (
        "curriculum myths mostly no",
        add_two_no_myths,
        "curriculum",
        "myths",
        "1 of 4 myths answer yes (25%)",
    ),
    (
        "duplicate myth across lessons",
        lambda a, b: b["myths"].append(myth("no", "Is `.grad` filled when the tensor is created?")),
        "second-steps",
        "myth 2",
        "asks the same as first-steps myth 1",
    ),
    (
        "duplicate prediction across lessons",
        lambda a, b: b["steps"].append(
            {**step(a), "level": "intermediate", "title": "Squares again"}
        ),
        "second-steps",
        "step 2",
        "the same question on the same code as first-steps step 1 (Squares)",
    ),
    (
        "minutes far below the reading time",
        lambda a, b: a.update(minutes=1),
        "first-steps",
        "minutes",
        "1 minutes is far below the reading time",
    ),
    (
        "cross-reference by number",
        lambda a, b: step(a).update(explanation="See lesson 40 for more."),
        "first-steps",
        "steps[1].explanation",
        "'lesson 40' is not a link",
    ),
    (
        "link to a lesson that does not exist",
        lambda a, b: step(a).update(explanation="See [more](/lessons/no-such-lesson)."),
        "first-steps",
        "steps[1].explanation",
        "links to /lessons/no-such-lesson: no such lesson",
    ),
    (
        "step level going down",
        lambda a, b: b["steps"].append({**step(b), "level": "foundation", "title": "Back"}),
        "second-steps",
        "step 2 (Back)",
        "level foundation comes after a intermediate step",
    ),
    (
        "lesson level falling along the path",
        lambda a, b: a.update(level="advanced"),
        "second-steps",
        "level",
        "intermediate comes after first-steps (advanced) in the path",
    ),
    (
        "prerequisite later in the path",
        lambda a, b: a.update(prerequisites=["second-steps"], next=None),
        "first-steps",
        "prerequisites",
        "second-steps comes later in the path",
    ),
    (
        "an earlier step's reveal states a later answer",
        lambda a, b: (
            step(a).update(explanation="Cubing [1, 2] instead gives tensor([ 3., 12.])."),
            a["steps"].append(cubes()),
        ),
        "first-steps",
        "step 2 (Cubes)",
        "the answer 'tensor([ 3., 12.])' shows in step 1's reveal",
    ),
    (
        "an earlier step's rule names a later answer",
        lambda a, b: (
            step(a).update(insight="Backward fills leaves; `y.grad` is None for a result."),
            a["steps"].append(intermediate_step()),
        ),
        "first-steps",
        "step 2",
        "step 1's reveal says what the question asks: 'None'",
    ),
    (
        "an earlier step's output answers the same computation asked again",
        redone,
        "first-steps",
        "step 2",
        "the answer 'tensor([4., 6.])' shows in step 1's reveal (its answer)",
    ),
    (
        "a value-only step's question gives a later step's answer",
        lambda a, b: (
            step(a).pop("prediction"),
            step(a)["variants"].pop("choices"),
            step(a)["value_prediction"].update(
                question="Type `x.grad` (the cubes below print tensor([ 3., 12.]))."
            ),
            a["steps"].append(cubes()),
        ),
        "first-steps",
        "step 2",
        "the answer 'tensor([ 3., 12.])' shows in step 1's value question",
    ),
    (
        "a pitfall opened early prints a later answer",
        lambda a, b: (
            a["steps"].append(
                cubes(
                    snippet={**cubes()["snippet"], "output": "tensor([2., 2.])\n"},
                    prediction={
                        **cubes()["prediction"],
                        "choices": [
                            {
                                "text": "tensor([1., 1.])",
                                "why": "The slope of 2x is 2.",
                                "misconception": "Thinks the slope of 2x is 1.",
                            },
                            "tensor([2., 2.])",
                        ],
                        "answer": "tensor([2., 2.])",
                    },
                )
            ),
            a["pitfalls"][0].update(after_step=1),
        ),
        "first-steps",
        "step 2",
        "the answer 'tensor([2., 2.])' shows in pitfall 1 fixed output",
    ),
    (
        "the same example asked again later in the path",
        lambda a, b: b["steps"].append(
            {
                **step(a),
                "level": "intermediate",
                "title": "Squares, asked again",
                "prediction": {**step(a)["prediction"], "question": "Which does it print?"},
            }
        ),
        "second-steps",
        "step 2",
        "asks about the same code as first-steps step 1",
    ),
    (
        "every lesson's myths split the same way",
        lambda a, b: b["myths"][0].update(answer="no"),
        "curriculum",
        "myths",
        "every lesson's myths split the same way (1 no)",
    ),
    (
        "a myth's first word predicts its answer",
        can_myths,
        "curriculum",
        "myths",
        "a myth starting 'Can' answers 'yes' 5 times out of 5",
    ),
    (
        "a myth's reveal states a step's answer",
        lambda a, b: a["myths"][0].update(
            reality="It is None until backward; squares of [2, 3] leave tensor([4., 6.])."
        ),
        "first-steps",
        "step 1",
        "the answer 'tensor([4., 6.])' shows in myth 1's reveal",
    ),
    (
        "a question on what is printed with a choice that the code raises",
        lambda a, b: add_choice(
            a, {"text": "It raises a RuntimeError", "why": "The sum is a scalar: backward() runs."}
        ),
        "first-steps",
        "step 1",
        "the question asks what is printed, so the choice 'It raises a RuntimeError' is ruled out",
    ),
    (
        "a step far above its lesson's level",
        lambda a, b: (a.update(level="beginner"), step(a).update(level="advanced")),
        "first-steps",
        "step 1",
        "level advanced in a beginner lesson: a step may be at most 1 level above its lesson",
    ),
    (
        "a takeaway with nothing to blank",
        lambda a, b: a.update(takeaways=["Gradients accumulate."]),
        "first-steps",
        "takeaways[1]",
        "its flashcard has no place for a blank",
    ),
    (
        "a takeaway whose only code spans are .grad and None",
        lambda a, b: a.update(takeaways=["Fresh `.grad` is `None`."]),
        "first-steps",
        "takeaways[1]",
        "its flashcard has no place for a blank",
    ),
    (
        "an insight with nothing to blank and no question",
        lambda a, b: step(a).pop("insight_question"),
        "first-steps",
        "steps[1].insight",
        "give the step an insight_question",
    ),
    (
        "an insight question that states its answer",
        lambda a, b: step(a).update(insight_question="Why does backward fill leaves?"),
        "first-steps",
        "steps[1].insight_question",
        "the flashcard answers itself",
    ),
    (
        "an insight question that is not a question",
        lambda a, b: step(a).update(insight_question="Say what backward writes."),
        "first-steps",
        "steps[1].insight_question",
        "must be a question",
    ),
    (
        "a typed value the reveal has just printed, on a step without variants",
        lambda a, b: step(a).pop("variants"),
        "first-steps",
        "step 1",
        "the typed value [4.0, 6.0] is shown in the step's reveal (its output) just before it is "
        "asked: give the step variants, so the typed value asks other numbers",
    ),
    (
        "words with two meanings",
        lambda a, b: step(a).update(explanation="The upstream gradient arrives."),
        "first-steps",
        "steps[1].explanation",
        "'upstream' means opposite things",
    ),
]


def diagnosed(title: str, task: str) -> Data:
    """Code to write that asks its bug named first: the answer is that nothing walks back."""
    return {
        "title": title,
        "task": task,
        "code": "import torch\nx = torch.tensor(3.0, requires_grad=True)\ny = x * x\n____\n",
        "solution": ["y.backward()"],
        "grads": {"x": 6.0},
        "hints": ["What walks the recorded graph back to `x`?"],
        "buggy": ["y.sum()"],
        "source": "first-steps",
        "diagnosis": {
            "question": "Why is `x.grad` empty?",
            "choices": [
                "Nothing ever walks the graph backwards from `y`",
                {"text": "The gradient is cleared at the end", "why": "Nothing clears it."},
            ],
            "answer": "Nothing ever walks the graph backwards from `y`",
            "explanation": "No backward pass runs.",
        },
    }


FAULTS.append(
    (
        "an exercise card that names its diagnosis's answer",
        lambda a, b: a.update(
            exercises=[diagnosed("A graph nobody walks backwards", "Name the bug, then fix it.")]
        ),
        "first-steps",
        "exercise 1",
        "its title names the diagnosis's answer before it is committed: 'backward', 'graph', 'walk'",
    )
)
FAULTS.append(
    (
        "an exercise task that names its diagnosis's answer",
        lambda a, b: a.update(
            exercises=[diagnosed("An empty gradient", "Make something walk the graph.")]
        ),
        "first-steps",
        "exercise 1",
        "its task names the diagnosis's answer before it is committed: 'graph', 'walk'",
    )
)


def test_an_exercise_card_that_keeps_its_diagnosis_open_passes() -> None:
    first, second = curriculum()
    first["exercises"] = [diagnosed("An empty gradient", "Name the bug, then fix it.")]
    assert [f for f in lint(first, second) if f.where.startswith("exercise")] == []
    capstone = Lesson.model_validate(
        parse_yaml((BUNDLED_LESSONS / "grad-deep-dive.yaml").read_text())
    )
    assert [f for f in lint_catalog([capstone]) if "diagnosis's answer" in f.problem] == []


@pytest.mark.parametrize(
    ("plant", "lesson", "where", "problem"),
    [(plant, lesson, where, problem) for _, plant, lesson, where, problem in FAULTS],
    ids=[name for name, *_ in FAULTS],
)
def test_the_lint_catches_the_planted_fault(
    plant: Plant, lesson: str, where: str, problem: str
) -> None:
    first, second = curriculum()
    plant(first, second)
    findings = lint(first, second)
    assert any(
        f.lesson == lesson and f.where.startswith(where) and problem in f.problem for f in findings
    ), "\n".join(map(str, findings))


def test_a_pitfall_waits_for_the_build_up_unless_it_says_otherwise() -> None:
    """The same pitfall output, sent only after the build-up: no finding."""
    first, second = curriculum()
    snippet = {**cubes()["snippet"], "output": "tensor([2., 2.])\n"}
    prediction = {
        **cubes()["prediction"],
        "choices": [
            {
                "text": "tensor([1., 1.])",
                "why": "The slope of 2x is 2.",
                "misconception": "Thinks the slope of 2x is 1.",
            },
            "tensor([2., 2.])",
        ],
        "answer": "tensor([2., 2.])",
    }
    first["steps"].append(cubes(snippet=snippet, prediction=prediction))
    assert lint(first, second) == []


def test_a_value_question_beside_a_choice_is_read_after_that_choice() -> None:
    """It comes with the choice's reveal: naming the choice's answer gives nothing away. It
    still must not give its own typed value before that is answered."""
    first, second = curriculum()
    step(first)["value_prediction"].update(
        question="Type `x.grad`, which printed tensor([4., 6.]) when you committed."
    )
    assert [(f.where, f.problem) for f in lint(first, second)] == [
        (
            "step 1 (Squares) value prediction",
            "the expected value's number(s) 4, 6 show before the answer",
        )
    ]


def test_another_example_with_the_same_value_does_not_leak() -> None:
    first, second = curriculum()
    code = "import torch\nw = torch.tensor([1.0, 1.5], requires_grad=True)\n"
    first["steps"].append(same_value(code + "(2 * w**2).sum().backward()\nprint(w.grad)\n"))
    assert lint(first, second) == []


def test_a_question_naming_every_choice_does_not_leak() -> None:
    first, second = curriculum()
    step(first)["prediction"].update(question="`None` or `tensor([4., 6.])`?")
    assert lint(first, second) == []


def test_a_question_that_names_raising_may_offer_it() -> None:
    first, second = curriculum()
    prediction = step(first)["prediction"]
    add_choice(
        first,
        {
            "text": "It raises",
            "why": "The sum is a scalar.",
            "misconception": "Thinks a sum is not a scalar.",
        },
    )
    prediction.update(question="What does `x.grad` print, or does the code raise?")
    assert lint(first, second) == []


def test_checking_one_lesson_reports_only_that_lesson() -> None:
    first, second = curriculum()
    step(second).update(explanation="As lesson 1 showed.")
    assert lint(first, second, only={"first-steps"}) == []
    assert [f.where for f in lint(first, second, only={"second-steps"})] == ["steps[1].explanation"]


def test_a_because_that_does_not_print_its_choice_fails(sandbox: SandboxHarness) -> None:
    first, _ = curriculum()
    wrong = step(first)["prediction"]["choices"][0]
    wrong["because"] = "print(None)\n"  # prints its choice: fine
    lesson = Lesson.model_validate(first)
    assert sandbox.call(check_lesson(lesson, sandbox.sandbox.run)) == []
    wrong["because"] = "import torch\nprint(torch.zeros(2))\n"
    lesson = Lesson.model_validate(first)
    failures = sandbox.call(check_lesson(lesson, sandbox.sandbox.run))
    assert [str(f) for f in failures] == [
        "first-steps: step 1 (Squares): the `because` code of the choice 'None' prints "
        "'tensor([0., 0.])'"
    ]
    wrong["because"] = "raise ValueError('no')\n"
    lesson = Lesson.model_validate(first)
    failures = sandbox.call(check_lesson(lesson, sandbox.sandbox.run))
    assert "raised ValueError: no" in str(failures[0])


# --- numbers in prose are claims (checked against the real sandbox) ---------------------------
def claim(says: str, code: str) -> Data:
    return {"says": says, "code": code}


PROSE_FAULTS: list[tuple[str, Plant, str, str]] = [
    (
        "a number no snippet gives, in a diagram",
        lambda a, _: a["mental_model"].update(diagram="x ──► y = x² ──► x.grad = [4, 7]"),
        "mental_model.diagram",
        "the number 7 in",
    ),
    (
        "a number written with the wrong sign",
        lambda a, _: step(a)["prediction"].update(explanation="2x at [2, 3] is [4, -6]."),
        "steps[1].prediction.explanation",
        "the number 6 in",
    ),
    (
        "a number no snippet gives, in a step's explanation",
        lambda a, _: step(a).update(explanation="The slope at 3 is 2 · 3, which is 5."),
        "steps[1].explanation",
        "the number 5 in",
    ),
    (
        "algebra with a wrong result",
        lambda a, _: step(a).update(explanation="The slope is 2·x = 7 at x = 3."),
        "steps[1].explanation",
        "the number 7 in",
    ),
    (
        "false arithmetic",
        lambda a, _: step(a)["prediction"].update(explanation="2x at [2, 3]: 2 · 3 = 7."),
        "steps[1].prediction.explanation",
        "the arithmetic '2 · 3 = 7' is false: it gives 6",
    ),
    (
        "false arithmetic with a unicode minus and a fraction",
        lambda a, _: a["takeaways"].append("The mean of the slopes is (−4 − 6)/2 = −4.5."),
        "takeaways[2]",
        "the arithmetic '(−4 − 6)/2 = −4.5' is false: it gives -5",
    ),
    (
        "true arithmetic on an input nothing gives",
        lambda a, _: step(a)["prediction"].update(explanation="2x at [2, 3.5]: 2 · 3.5 = 7."),
        "steps[1].prediction.explanation",
        "the number 3.5 in",
    ),
    (
        "a wrong choice's why states a false number",
        lambda a, _: step(a)["prediction"]["choices"][0].update(
            why="A fresh tensor has no gradient, but `backward()` ran and left 9 in it."
        ),
        "steps[1].prediction.choices[1].why",
        "the number 9 in",
    ),
    (
        "a myth's reality states a false number",
        lambda a, _: a["myths"][0].update(reality="It is None until backward, then 5."),
        "myths[1].reality",
        "the number 5 in",
    ),
    (
        "a pitfall's root cause states a false number",
        lambda a, _: a["pitfalls"][0].update(
            root_cause="backward() needs a scalar, not 7 of them."
        ),
        "pitfalls[1].root_cause",
        "the number 7 in",
    ),
    (
        "a claim whose code fails",
        lambda a, _: (
            a["takeaways"].append("Doubling 2.5 gives 5.5."),
            a.update(claims=[claim("Doubling 2.5 gives 5.5", "assert 2 * 2.5 == 5.5\n")]),
        ),
        "claims[1]",
        "its code fails (error) AssertionError",
    ),
    (
        "a claim whose words are no longer in the prose",
        lambda a, _: a.update(claims=[claim("Doubling 2.5 gives 5", "assert 2 * 2.5 == 5\n")]),
        "claims[1]",
        "'Doubling 2.5 gives 5' is not in the lesson's prose",
    ),
]


def checked(sandbox: SandboxHarness, first: Data) -> list[str]:
    """What `gradlab check` says of the first fixture lesson, run in the real sandbox."""
    lesson = Lesson.model_validate(first)
    found: list[Finding] = sandbox.call(check_lesson(lesson, sandbox.sandbox.run))
    return [f"{f.where}: {f.problem}" for f in found]


@pytest.mark.parametrize(
    ("plant", "where", "problem"),
    [(plant, where, problem) for _, plant, where, problem in PROSE_FAULTS],
    ids=[name for name, *_ in PROSE_FAULTS],
)
def test_the_check_catches_a_planted_number_in_prose(
    sandbox: SandboxHarness, plant: Plant, where: str, problem: str
) -> None:
    first, second = curriculum()
    plant(first, second)
    found = checked(sandbox, first)
    assert any(f.startswith(where) and problem in f for f in found), "\n".join(found)


def test_numbers_a_run_arithmetic_or_a_claim_verifies_pass(sandbox: SandboxHarness) -> None:
    """Each route verifies: a printed value, written arithmetic, a claim; and what is not a
    quantity (an ordinal, a release, a format's width, a list marker) is not a claim."""
    first, _ = curriculum()
    step(first).update(explanation="The slope at 3 is 2 · 3 = 6, as step 1 prints in torch 2.1.0.")
    first["mental_model"].update(diagram="x ──► y = x² ──► x.grad = [4, 6]")
    first["takeaways"] += [
        "1. A 16-bit float halves 2.5 to 1.25 exactly.",
        "Slopes: (6 − 4)/2 = 1.",
    ]
    first["claims"] = [claim("halves 2.5 to 1.25", "assert 2.5 / 2 == 1.25\n")]
    assert checked(sandbox, first) == []


def test_a_wrong_number_in_a_bundled_diagram_fails(sandbox: SandboxHarness) -> None:
    data: Data = parse_yaml((BUNDLED_LESSONS / "retain-grad-and-hooks.yaml").read_text())
    diagram = data["under_the_hood"]["diagram"]
    assert "y.grad = 40" in diagram
    assert checked(sandbox, data) == []
    data["under_the_hood"]["diagram"] = diagram.replace("y.grad = 40", "y.grad = 41")
    (found,) = checked(sandbox, data)
    assert found.startswith("under_the_hood.diagram: the number 41 in")
