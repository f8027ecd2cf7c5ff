"""`gradlab check --update` writes real outputs into lesson files and keeps everything else."""

from __future__ import annotations

import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from app.config.paths import BUNDLED_LESSONS
from app.lessons.disclosure import Disclosure
from app.lessons.loader import lesson_files, load_lesson, parse_yaml
from app.lessons.public import public_lesson
from app.lessons.update import run_update, stable_fragment
from app.lessons.yaml_edit import dump, round_trip_yaml
from tests.conftest import FIXTURE_LESSONS, SandboxHarness

LESSON_FILES = lesson_files(BUNDLED_LESSONS) + sorted(FIXTURE_LESSONS.glob("*.yaml"))


@pytest.mark.parametrize("path", LESSON_FILES, ids=lambda p: p.stem)
def test_every_lesson_round_trips_byte_for_byte(path: Path) -> None:
    """Whatever lessons/ holds now: reading and writing it back without a change is a no-op,
    so an update's diff is exactly what it changed."""
    text = path.read_text(encoding="utf-8")
    yaml = round_trip_yaml(text)
    assert dump(yaml, yaml.load(text)) == text


def update_in_thread(sandbox: SandboxHarness, **options: Any) -> int:
    """As the command runs it (asyncio.run), off the test's thread; its snippets run in
    `sandbox` (the session's `check_sandbox`)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(run_update, started=sandbox.runner(), **options).result()


@pytest.fixture
def pack(tmp_path: Path) -> Path:
    for path in FIXTURE_LESSONS.glob("*.yaml"):
        shutil.copy(path, tmp_path / path.name)
    return tmp_path


def test_update_on_true_lessons_changes_nothing(  # type: ignore[no-untyped-def]
    check_sandbox: SandboxHarness, pack: Path, capsys
) -> None:
    before = {path.name: path.read_bytes() for path in pack.iterdir()}
    assert update_in_thread(check_sandbox, lessons_dir=str(pack)) == 0
    assert {path.name: path.read_bytes() for path in pack.iterdir()} == before
    out = capsys.readouterr().out
    assert "---" not in out and "2 lessons: 0 updated" in out


def _edit(path: Path, *replacements: tuple[str, str]) -> None:
    text = path.read_text()
    for old, new in replacements:
        assert old in text, old
        text = text.replace(old, new, 1)
    path.write_text(text)


def test_update_writes_output_grads_and_errors_and_keeps_the_rest(  # type: ignore[no-untyped-def]
    check_sandbox: SandboxHarness, pack: Path, capsys
) -> None:
    first = pack / "first-steps.yaml"
    _edit(
        first,
        ("format: 1\n", "# my notes stay\nformat: 1\n"),
        # a wrong output, with a comment beside it
        (
            "      output: |\n        tensor([4., 6.])\n",
            "      output: |  # old\n        tensor([9.])\n",
        ),
        # a grads name listed with no value, to be filled in
        ("        y: null\n", "        y: null\n        x2:\n"),
        (
            "        print(x.grad)\n      output",
            "        x2 = x.detach().requires_grad_()\n        (x2 * 3).sum().backward()\n        print(x.grad)\n      output",
        ),
        # an error message that changed, in flow style
        (
            'message_contains: "grad can be implicitly created only for scalar outputs"}',
            'message_contains: "no longer said"}',
        ),
        # a demo that now prints without its output written
        (
            "        print(x.grad is None)\n      output: |\n        True\n",
            "        print(x.grad is None)\n        print('more')\n      output: |\n        True\n",
        ),
    )
    original = first.read_text()
    before = parse_yaml(original)
    assert update_in_thread(check_sandbox, lessons_dir=str(pack)) == 0
    out = capsys.readouterr().out
    text = first.read_text()
    assert (
        f"--- {first}" in out
        and "-        tensor([9.])" in out
        and "+        tensor([4., 6.])" in out
    )
    assert "# my notes stay\n" in text and "output: |  # old\n" in text
    assert "        x2: [3.0, 3.0]\n" in text
    assert (
        'error: {type: RuntimeError, message_contains: "grad can be implicitly created only for scalar outputs"}'
        in text
    )
    assert "        True\n        more\n" in text
    assert 'title: "First steps with .grad"' in text  # quoting kept
    after = parse_yaml(text)
    # Nothing but snippet claims moved: prose, predictions and answers are the same.
    for data in (before, after):
        for step in data["steps"]:
            step.pop("snippet")
        for myth in data["myths"]:
            myth.pop("demo")
        for pitfall in data["pitfalls"]:
            pitfall.pop("wrong"), pitfall.pop("correct")
    assert after == before
    assert load_lesson(first).steps[0].snippet is not None
    # Only the lines that needed it changed.
    changed = [
        line for line in out.splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---")
    ]
    assert len(changed) == 7, changed
    # And a second update finds nothing to do.
    assert update_in_thread(check_sandbox, lessons_dir=str(pack)) == 0
    assert first.read_text() == text


def test_update_reports_contradicted_answers_instead_of_rewriting(  # type: ignore[no-untyped-def]
    check_sandbox: SandboxHarness, pack: Path, capsys
) -> None:
    first = pack / "first-steps.yaml"
    # The code now computes 3x², so its output, grads and answers all change.
    _edit(first, ("y = (x * x).sum()", "y = (3 * x * x).sum()"))
    assert update_in_thread(check_sandbox, lessons_dir=str(pack)) == 1
    err = capsys.readouterr().err
    text = first.read_text()
    assert "        tensor([12., 18.])\n" in text and "x: [12.0, 18.0]" in text
    assert 'answer: "tensor([4., 6.])"' in text and "expected: [4.0, 6.0]" in text
    assert (
        "CHECK first-steps: step 1 (Squares) prediction: the answer 'tensor([4., 6.])' showed in the old output but not in the new one"
        in err
    )
    assert (
        "CHECK first-steps: step 1 (Squares) value prediction: the answer [4.0, 6.0] contradicts the run: x.grad is [12.0, 18.0]"
        in err
    )


def test_update_writes_a_new_error_and_drops_one_that_is_gone(
    check_sandbox: SandboxHarness, pack: Path
) -> None:
    first = pack / "first-steps.yaml"
    _edit(
        first,
        (
            "        print(x.grad is None)\n",
            "        print(x.grad is None)\n        x.grad.zero_()\n",
        ),
        (
            "        (x * 2).backward()\n",
            "        (x * 3).sum().backward()\n        print(x.grad)\n",
        ),
    )
    assert update_in_thread(check_sandbox, lessons_dir=str(pack), only=["first-steps"]) == 0
    lesson = load_lesson(first)
    demo = lesson.myths[0].demo
    assert demo is not None and demo.error is not None
    assert demo.error.type == "AttributeError"
    assert demo.error.message_contains == "'NoneType' object has no attribute 'zero_'"
    assert lesson.pitfalls[0].wrong.error is None
    assert lesson.pitfalls[0].wrong.output == "tensor([3., 3.])\n"


def test_update_lesson_narrows_it(check_sandbox: SandboxHarness, pack: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    for name in ("first-steps.yaml", "second-steps.yaml"):
        _edit(
            pack / name,
            ("      output: |\n        tensor(", "      output: |\n        wrong(tensor("),
        )
    before = (pack / "first-steps.yaml").read_text()
    assert update_in_thread(check_sandbox, lessons_dir=str(pack), only=["second-steps"]) == 0
    assert (pack / "first-steps.yaml").read_text() == before
    assert "        tensor(6.)\n" in (pack / "second-steps.yaml").read_text()
    assert update_in_thread(check_sandbox, lessons_dir=str(pack), only=["nope"]) == 1
    assert "no such lesson(s): nope" in capsys.readouterr().err


def test_update_leaves_an_invalid_file_alone(  # type: ignore[no-untyped-def]
    check_sandbox: SandboxHarness, pack: Path, capsys
) -> None:
    broken = pack / "first-steps.yaml"
    _edit(broken, ("level: beginner", "level: wizard"))
    before = broken.read_text()
    assert update_in_thread(check_sandbox, lessons_dir=str(pack)) == 1
    assert broken.read_text() == before
    assert "level" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("message", "fragment"),
    [
        (
            "grad can be implicitly created only for scalar outputs",
            "grad can be implicitly created only for scalar outputs",
        ),
        ("bad thing at 0x7f3a2b1c0d90 happened", "bad thing at"),
        ("first line\nsecond line", "first line"),
        ("word " * 30, ("word " * 16).strip()),
        (
            "one of the variables needed for gradient computation has been modified by an inplace operation: [torch.FloatTensor [2]] is at version 1; expected version 0 instead.",
            "one of the variables needed for gradient computation has been modified by an",
        ),
    ],
)
def test_stable_fragment(message: str, fragment: str) -> None:
    assert stable_fragment(message) == fragment


def test_a_new_block_output_keeps_the_blank_lines_around_it(
    check_sandbox: SandboxHarness, pack: Path
) -> None:
    first = pack / "first-steps.yaml"
    _edit(
        first,
        ("      output: |\n        True\npitfalls:", '      output: ""\n\npitfalls:'),
        (
            "      output: |\n        tensor([2., 2.])\n",
            '      output: "tensor([2., 2.])\\n"  # was quoted\n',
        ),
    )
    assert update_in_thread(check_sandbox, lessons_dir=str(pack)) == 0
    text = first.read_text()
    assert "      output: |\n        True\n\npitfalls:" in text
    assert '      output: "tensor([2., 2.])\\n"  # was quoted\n' in text  # true already: untouched


def test_a_new_block_output_keeps_the_comment_after_it_outside(
    check_sandbox: SandboxHarness, pack: Path
) -> None:
    first = pack / "first-steps.yaml"
    _edit(
        first,
        (
            "      output: |\n        tensor([4., 6.])\n      grads:",
            '      output: ""\n      # what it prints\n      grads:',
        ),
    )
    assert update_in_thread(check_sandbox, lessons_dir=str(pack)) == 0
    text = first.read_text()
    assert "      output: |\n        tensor([4., 6.])\n      # what it prints\n      grads:" in text


@pytest.mark.slow  # a sandbox of its own: several seconds
def test_update_writes_nothing_for_a_run_that_did_not_finish(  # type: ignore[no-untyped-def]
    check_sandbox: SandboxHarness, pack: Path, capsys
) -> None:
    first = pack / "first-steps.yaml"
    _edit(
        first,
        (
            "        print(x.grad is None)\n",
            "        print(x.grad is None)\n        print('x' * 100_000)\n",
        ),
    )
    _edit(
        pack / "second-steps.yaml",
        (
            "        print(w.grad)\n",
            "        print(w.grad)\n        while True:\n            pass\n",
        ),
    )
    before = {path.name: path.read_text() for path in pack.glob("*.yaml")}
    assert update_in_thread(check_sandbox, lessons_dir=str(pack)) == 1
    assert {path.name: path.read_text() for path in pack.glob("*.yaml")} == before
    err = capsys.readouterr().err
    assert "CHECK first-steps: myth 1 demo: the run printed more than the sandbox keeps" in err
    assert "CHECK second-steps: step 1 (Twice): the run ended with status 'timeout'" in err


def test_a_myths_other_forms_are_run_written_and_hidden_from_the_lesson(
    check_sandbox: SandboxHarness, pack: Path
) -> None:
    """A form's demo is a snippet like any other: the update writes what it printed, and the
    public lesson carries no form (review asks them, after the lesson's own question)."""
    first = pack / "first-steps.yaml"
    _edit(
        first,
        (
            "      output: |\n        True\npitfalls:",
            "      output: |\n        True\n"
            "    forms:\n"
            '      - question: "After `y = x * 2`, is `y.grad` filled at once?"\n'
            '        answer: "no"\n'
            '        reality: "No backward pass has run, so nothing has a gradient yet."\n'
            "        demo:\n"
            "          code: |\n"
            "            import torch\n"
            "            x = torch.ones(2, requires_grad=True)\n"
            "            print(x.grad, (x * 2).sum().item())\n"
            "          output: |\n"
            "            wrong\n"
            "pitfalls:",
        ),
    )
    assert update_in_thread(check_sandbox, lessons_dir=str(pack)) == 0
    lesson = load_lesson(first)
    assert lesson.myths[0].forms[0].demo.output == "None 4.0\n"
    assert ("myth 1 form 1 demo", lesson.myths[0].forms[0].demo) in lesson.snippets()
    for shown in (None, Disclosure.everything(lesson)):
        assert "forms" not in public_lesson(lesson, disclosure=shown).model_dump()["myths"][0]


TRICKY = [":2", "0:2", "2:5", "yes", "null", "1e3", "-", "#x", "a: b", "1:20:30", "[1]", "x[:, 0]"]


def test_an_instances_text_reads_back_as_the_same_text() -> None:
    """Variant params and values are written in flow style (`params: {s: ":2"}`); every text
    that the lesson loader (PyYAML, YAML 1.1) would not read back as itself is quoted."""
    from app.lessons.format import VariantInstance
    from app.lessons.variant_update import instance_node

    instance = VariantInstance(
        params={f"p{n}": text for n, text in enumerate(TRICKY)} | {"listed": TRICKY},
        values={f"v{n}": text for n, text in enumerate(TRICKY)},
    )
    yaml = round_trip_yaml("instances: []\n")
    text = dump(yaml, {"instances": [instance_node(instance)]})
    read = parse_yaml(text)["instances"][0]
    assert VariantInstance.model_validate(read) == instance
    assert '{p0: ":2", p1: 0:2, p2: "2:5"' in text  # plain where it reads back the same
