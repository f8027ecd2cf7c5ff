"""Every question review asks again has other forms: a step with a prediction or a typed value
has variants (or says why not in `no_variants`), a myth has at least two forms. The lint is
behind `REQUIRE_FORMS` (off for an author's own pack, where `gradlab check` prints how many have
them); here it is on, against planted lessons and against the bundled curriculum, which must
have them all."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from app.lessons import lint_variants
from app.lessons.format import Lesson
from app.lessons.lint import Finding, lint_catalog
from app.lessons.lint_variants import form_counts
from app.lessons.loader import load_catalog
from tests.conftest import SandboxHarness
from tests.lessons.test_check import check_in_thread
from tests.lessons.test_lint import curriculum, myth, squares_variants, step

FORMS_LESSONS = Path(__file__).parents[1] / "fixtures" / "review-forms"
Data = dict[str, Any]


def form(answer: str, number: int) -> Data:
    code = f"import torch\nw = torch.tensor(1.0, requires_grad=True)\nprint((w * {number}).backward())\n"
    return {
        "question": f"Does `(w * {number}).backward()` print a number?",
        "answer": answer,
        "reality": "It prints `None`.",
        "demo": {"code": code, "output": "None\n"},
    }


MISSING = ("review would ask it again", "review can ask only", "review asks a missed myth")


def missing(first: Data, second: Data) -> list[Finding]:
    lessons = [Lesson.model_validate(first), Lesson.model_validate(second)]
    return [f for f in lint_catalog(lessons) if any(part in f.problem for part in MISSING)]


@pytest.fixture
def required(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lint_variants, "REQUIRE_FORMS", True)


@pytest.mark.usefixtures("required")
def test_every_bundled_question_review_asks_again_has_other_forms() -> None:
    from app.config.paths import BUNDLED_LESSONS

    lessons = list(load_catalog(BUNDLED_LESSONS).lessons)
    found = [f for f in lint_catalog(lessons) if any(part in f.problem for part in MISSING)]
    assert found == []
    counts = form_counts(lessons)
    assert counts.with_variants + len(counts.no_variants) == counts.steps
    assert counts.neither == 0 and counts.one_left == []
    assert counts.myths_with_forms == counts.myths > 0


def test_off_it_finds_nothing() -> None:
    first, second = curriculum()
    first["steps"][0].pop("variants")
    assert not lint_variants.REQUIRE_FORMS
    assert missing(first, second) == []


@pytest.mark.usefixtures("required")
def test_a_step_without_variants_and_a_myth_without_forms_fail() -> None:
    first, second = curriculum()
    first["steps"][0].pop("variants")
    found = {(f.lesson, f.where) for f in missing(first, second)}
    # second-steps' step asks nothing: review never asks it.
    assert found == {
        ("first-steps", "step 1 (Squares)"),  # a prediction and a typed value, no variants
        ("first-steps", "myth 1"),
        ("second-steps", "myth 1"),
    }
    problems = " ".join(f.problem for f in missing(first, second))
    assert "`no_variants`" in problems and "has 0 other forms" in problems


def three_instances() -> Data:
    """Step 1's variants with a third instance: two left for review besides the typed value's."""
    variants = squares_variants()
    variants["params"]["x"].append([2.0, 2.0])
    variants["instances"].append(
        {
            "params": {"x": [2.0, 2.0]},
            "values": {"grad": "tensor([4., 4.])"},
            "output": "tensor([4., 4.])\n",
            "grads": {"x": [4.0, 4.0], "y": None},
        }
    )
    return variants


@pytest.mark.usefixtures("required")
def test_two_instances_beside_a_typed_value_leave_review_one() -> None:
    first, second = curriculum()  # step 1 of first-steps: a typed value and two instances
    found = [(f.where, f.problem) for f in missing(first, second) if f.lesson == "first-steps"]
    assert (
        "step 1 (Squares)",
        "review can ask only 1 instance (its typed value asks another on the lesson page), so "
        "every return asks the same: give `variants` at least 3 instances",
    ) in found
    step(first)["variants"] = three_instances()
    assert "step 1 (Squares)" not in [f.where for f in missing(first, second)]
    counts = form_counts([Lesson.model_validate(first)])
    assert counts.one_left == [] and counts.with_variants == 1


@pytest.mark.usefixtures("required")
def test_variants_a_stated_reason_and_two_forms_pass_and_one_form_does_not() -> None:
    first, second = curriculum()
    step(first)["variants"] = three_instances()
    first["myths"][0]["forms"] = [form("no", 2), form("no", 3)]
    second["myths"][0]["forms"] = [form("no", 4)]
    found = [(f.lesson, f.where, f.problem) for f in missing(first, second)]
    assert found == [
        (
            "second-steps",
            "myth 1",
            "has 1 other forms: review asks a missed myth as one of its `forms`, another each "
            "time, so it needs at least 2",
        )
    ]
    step(first).pop("variants")
    step(first)["no_variants"] = "Its answer is a fact of the API, the same for any numbers."
    assert [f.where for f in missing(first, second)] == ["myth 1"]


@pytest.mark.usefixtures("required")
def test_the_review_fixture_lessons_have_every_form() -> None:
    lessons = list(load_catalog([FORMS_LESSONS]).lessons)
    found = lint_catalog(lessons)
    assert found  # the fixtures fail other lints: the switch is on and finds nothing of its own
    assert not [f for f in found if any(part in f.problem for part in MISSING)]


def test_the_counts() -> None:
    first, second = curriculum()
    step(second)["no_variants"] = "Its answer is a fact of the API,\n  the same for any numbers."
    first["myths"].append({**myth("yes", "Is it?"), "forms": [form("no", 2), form("yes", 3)]})
    counts = form_counts([Lesson.model_validate(first), Lesson.model_validate(second)])
    # first-steps' step has variants; second-steps' says why it has none.
    assert (counts.steps, counts.with_variants, counts.neither, counts.neither_asking) == (
        2,
        1,
        0,
        0,
    )
    assert (counts.myths, counts.myths_with_forms) == (3, 1)
    lines = counts.lines()
    assert lines[0].startswith("Review forms: 1 of ")
    assert "1 say why they have none (no_variants)" in lines[0]
    assert "1 of 3 myths have at least 2 other forms" in lines[0]
    assert lines[1:] == [
        "  no variants: second-steps step 1 (Twice): Its answer is a fact of the API, the same "
        "for any numbers.",
        "  one instance for review: first-steps step 1 (Squares): its typed value asks the other "
        "on the lesson page, so every return asks the same",
    ]


def test_gradlab_check_prints_the_counts(  # type: ignore[no-untyped-def]
    check_sandbox: SandboxHarness, tmp_path: Path, capsys
) -> None:
    for source in FORMS_LESSONS.glob("*.yaml"):
        data = yaml.safe_load(source.read_text())
        data["steps"][3].pop("variants")  # one step with neither
        (tmp_path / source.name).write_text(yaml.safe_dump(data, allow_unicode=True))
    check_in_thread(check_sandbox, lessons_dir=str(tmp_path))
    out = capsys.readouterr().out
    assert (
        "Review forms: 6 of 8 steps have variants with at least 2 instances, 0 say why they "
        "have none (no_variants), 2 have neither (2 of them ask a prediction or a typed value); "
        "4 of 4 myths have at least 2 other forms"
    ) in out
