"""An author's path, for real: the guide's example lesson, and new -> fill -> update -> check."""

from __future__ import annotations

import re
from pathlib import Path

from app.cli import main
from app.config.paths import PROJECT_ROOT
from app.lessons.loader import load_lesson
from app.lessons.unfinished import unfinished_fields
from tests.conftest import SandboxHarness
from tests.lessons.test_check import check_in_thread
from tests.lessons.test_update import update_in_thread

GUIDE = PROJECT_ROOT / "docs" / "authoring.md"


def guide_example() -> tuple[str, str]:
    """The file name and text of the lesson the guide prints."""
    found = re.search(
        r"<!-- example-lesson: (?P<name>[a-z0-9-]+\.yaml) -->\n```yaml\n(?P<text>.*?)```",
        GUIDE.read_text(encoding="utf-8"),
        re.DOTALL,
    )
    assert found, "docs/authoring.md lost its example lesson"
    return found["name"], found["text"]


def test_the_guides_example_lesson_passes_the_check(  # type: ignore[no-untyped-def]
    check_sandbox: SandboxHarness, tmp_path: Path, capsys
) -> None:
    name, text = guide_example()
    (tmp_path / name).write_text(text, encoding="utf-8")
    assert check_in_thread(check_sandbox, lessons_dir=str(tmp_path), verbose=True) == 0, (
        capsys.readouterr().err
    )
    # It is complete as printed: an update finds nothing to write.
    assert update_in_thread(check_sandbox, lessons_dir=str(tmp_path)) == 0
    assert (tmp_path / name).read_text(encoding="utf-8") == text


def test_the_guide_names_every_field() -> None:
    from app.lessons.json_schema import lesson_json_schema

    guide = GUIDE.read_text(encoding="utf-8")
    schema = lesson_json_schema()
    models = [schema, *schema["$defs"].values()]
    fields = {
        name
        for model in models
        for variant in [model, *model.get("anyOf", [])]
        for name in variant.get("properties", {})
    }
    assert sorted(field for field in fields if f"`{field}`" not in guide) == []


# What an author writes over each TODO of the scaffold, in order of appearance.
FILLING = [
    "A tensor that is cubed",
    "Read the gradient of a cube and check it against the power rule.",
    "The power rule as autograd applies it: the slope of x³ is 3x².",
    "Every loss is built from powers and products like this one.",
    "Any polynomial feature, and every squared error.",
    "backward() applies the calculus rules you know, one operation at a time.",
    "A ruler laid along the curve at each point of x.",
    "Cubing two numbers at once",
    "`x` holds two numbers and `y` adds up their cubes.",
    "The gradient of x³ is 3x², element by element.",
    "Each element's slope is three times its square.",
    "What does `print(x.grad)` show?",
    "tensor([12., 27.])",
    "tensor([4., 9.])",
    "Those are the squares of x: the power rule also multiplies by the exponent, 3.",
    "Thinks the slope of a power is the next lower power, forgetting the exponent as a factor.",
    "tensor([8., 27.])",
    "Those are the cubes, the values of the terms of y, not their slopes.",
    "Confuses the gradient with the values the forward pass computed.",
    "tensor([12., 27.])",
    "3 · 2² = 12 and 3 · 3² = 27.",
    "Type `x.grad`.",
    "Three times the square of each element.",
    "The slope of a power is the exponent times one power less.",
    "PowBackward0 multiplies the incoming gradient by 3 · x².",
    "Each operation knows its own derivative, so any composition is differentiable.",
    "Higher derivatives need `create_graph=True`.",
    "When you only need values, wrap the code in `torch.no_grad()`.",
    "Losses like mean squared error use the same rule.",
    "The chain rule",
    "The power rule is one link of the chain.",
    "Every gradient is a product of such local slopes.",
    "Is `x.grad` empty right after the tensor is created?",
    "People expect a zero tensor.",
    "It is None until a backward pass reaches it.",
    "Reading it early and doing arithmetic on it fails.",
    "Right after `torch.zeros(3, requires_grad=True)`, does `w.grad` hold three zeros?",
    "No backward pass has run yet, so `w.grad` is None, not zeros.",
    "Does `x ** 3` have a different gradient from `x * x * x`?",
    "Some think the two formulas differentiate differently.",
    "Both give 3x²; only the graph differs.",
    "Rewriting a formula for speed does not change its gradient.",
    "backward() on a vector",
    "backward() needs a single number, so sum the vector first.",
    "The line that fills x.grad",
    "Write the one line that leaves the slopes of `y` in `x.grad`.",
    "Compare `x.grad` with the goal: has anything sent a gradient back to it?",
    "The backward of doubling",
    "Return the gradient with respect to the input of the doubling.",
    "Gradcheck compares your backward with finite differences: by what factor do they differ?",
    "What is wrong with this backward?",
    "It drops the local slope: the chain rule multiplies `grad_output` by 2.",
    "Nothing: the sum already gives every element a slope of 1.",
    "The sum sends 1 to each element, but the doubling multiplies it by 2 on its way to x.",
    "Thinks a sum hands every input a slope of 1, whatever it passed through first.",
    "It drops the local slope: the chain rule multiplies `grad_output` by 2.",
    "Each node multiplies the gradient it receives by its own derivative; returning it as is skips that.",
    "Cubes follow the power rule: the gradient of `x ** 3` is `3 * x ** 2`.",
]


def test_from_an_empty_folder_to_a_checked_lesson(  # type: ignore[no-untyped-def]
    check_sandbox: SandboxHarness, tmp_path: Path, capsys
) -> None:
    assert main(["new", "cubes", "--dir", str(tmp_path)]) == 0
    path = tmp_path / "cubes.yaml"
    scaffold = path.read_text(encoding="utf-8")
    comments = [line.strip() for line in scaffold.splitlines() if line.strip().startswith("#")]

    # The author fills every TODO with real text...
    answers = iter(FILLING)
    text = re.sub(
        r'"TODO:[^"]*"|TODO: why the code prints what it prints\.',
        lambda found: (
            '"' + next(answers).replace('"', '\\"') + '"'
            if found[0].startswith('"')
            else next(answers)  # inside a | block: no quotes
        ),
        scaffold,
    )
    assert next(answers, None) is None, "the scaffold has fewer TODOs than the filling"
    # ...writes the step's own code and their answer to it, and types no output at all.
    text = text.replace("y = (x * x).sum()", "y = (x ** 3).sum()", 1)
    text = text.replace("      output: |\n        tensor([4., 6.])\n", '      output: ""\n', 1)
    text = text.replace("        x: [4.0, 6.0]\n", "        x:\n", 1)
    text = text.replace("      expected: [4.0, 6.0]\n", "      expected: [12.0, 27.0]\n", 1)
    path.write_text(text, encoding="utf-8")
    assert unfinished_fields(path) == []

    assert (
        check_in_thread(check_sandbox, lessons_dir=str(tmp_path)) == 1
    )  # the output is not written yet
    capsys.readouterr()
    assert update_in_thread(check_sandbox, lessons_dir=str(tmp_path), only=["cubes"]) == 0
    out = capsys.readouterr().out
    assert "+        tensor([12., 27.])" in out and "+        x: [12.0, 27.0]" in out
    assert check_in_thread(check_sandbox, lessons_dir=str(tmp_path)) == 0, capsys.readouterr().err

    final = path.read_text(encoding="utf-8")
    assert [line.strip() for line in final.splitlines() if line.strip().startswith("#")] == comments
    lesson = load_lesson(path)
    assert lesson.title == "A tensor that is cubed"
    snippet = lesson.steps[0].snippet
    assert snippet is not None and snippet.output == "tensor([12., 27.])\n"
    assert snippet.grads == {"x": [12.0, 27.0]}
