"""`gradlab new`: a scaffold with every section, valid but for TODOs that check lists."""

from __future__ import annotations

import typing
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from app.cli import main
from app.config.paths import LESSON_SCHEMA
from app.lessons.format import Lesson
from app.lessons.loader import load_lesson, parse_yaml
from app.lessons.scaffold import schema_reference
from tests.conftest import SandboxHarness
from tests.lessons.test_check import check_in_thread


def _model_of(annotation: Any) -> type[BaseModel] | None:
    """The pydantic model inside `Step | None`, `list[Myth]`, `Annotated[list[Step], ...]`."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for argument in typing.get_args(annotation):
        found = _model_of(argument)
        if found is not None:
            return found
    return None


def _instances(model: type[BaseModel], data: Any, found: dict[str, list[Any]]) -> None:
    """Every mapping in `data` that stands for a `model`, grouped by model name."""
    for item in data if isinstance(data, list) else [data]:
        if not isinstance(item, dict):
            continue
        found.setdefault(model.__name__, []).append(item)
        for name, field in model.model_fields.items():
            inner = _model_of(field.annotation)
            if inner is not None and name in item:
                _instances(inner, item[name], found)


def _missing_fields(data: Any) -> list[str]:
    """`Model.field` for every field that no instance of that model in `data` shows."""
    found: dict[str, list[Any]] = {}
    _instances(Lesson, data, found)
    models = {m.__name__: m for m in _all_models(Lesson)}
    return [
        f"{name}.{field}"
        for name, model in models.items()
        for field in model.model_fields
        if not any(field in item for item in found.get(name, []))
    ]


def _all_models(model: type[BaseModel]) -> list[type[BaseModel]]:
    models = [model]
    for field in model.model_fields.values():
        inner = _model_of(field.annotation)
        if inner is not None and inner not in models:
            models += [m for m in _all_models(inner) if m not in models]
    return models


def test_new_writes_every_section_of_the_format(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["new", "my-lesson", "--dir", str(tmp_path)]) == 0
    path = tmp_path / "my-lesson.yaml"
    assert str(path) in capsys.readouterr().out
    text = path.read_text()
    lesson = load_lesson(path)  # valid as it stands
    assert lesson.slug == "my-lesson"
    # A choice's `because` and a claim are shown commented out: they need real code; an
    # insight's question too: most insights make a cloze card without one; a step's reason for
    # having no variants, which only a step without them gives; and a variant's
    # `answer`, which only some variants need; an exercise's hint for one kind of miss and its
    # probe, which only some exercises need (every exercise has a rerun).
    assert _missing_fields(parse_yaml(text)) == [
        "Step.ordering",  # a step that asks for an order (docs/authoring.md shows one)
        "Step.select_all",  # a step that asks "select all that apply" (docs/authoring.md too)
        "Step.no_variants",
        "Step.insight_question",
        "Choice.because",
        "Ordering.question",
        "Ordering.lines",
        "Ordering.explanation",
        "SelectAll.question",
        "SelectAll.options",
        "SelectAll.explanation",
        "Option.text",
        "Option.holds",
        "Option.applies",
        "Option.why",
        "Option.misconception",
        "Variants.answer",
        "Variants.raised",  # only where some instances raise
        "RaisedTexts.answer",
        "RaisedTexts.explanation",
        "VariantInstance.error",
        "VariantInstance.readings",  # written by `gradlab check --update` for a select-all
        "Exercise.probe",
        "Hint.text",
        "Hint.when",
        "Probe.after",
        "Probe.watch",
        "Probe.value",
        "Probe.expect",
        "Probe.miss",
        "Claim.says",
        "Claim.code",
    ]
    assert "# insight_question:" in text
    assert "because: |" in text and '`answer: "{grad}"`' in text
    assert "#   - says:" in text
    for rule in ("give the answer, or its numbers, away", "with a `why`", '"yes" about as often'):
        assert rule in text


def test_new_names_the_schema_for_the_editor(tmp_path: Path) -> None:
    assert main(["new", "my-lesson", "--dir", str(tmp_path)]) == 0
    first = (tmp_path / "my-lesson.yaml").read_text().splitlines()[0]
    reference = first.removeprefix("# yaml-language-server: $schema=")
    assert reference != first and not Path(reference).is_absolute()
    assert (tmp_path / reference).resolve() == LESSON_SCHEMA.resolve()
    assert schema_reference(LESSON_SCHEMA.parent) == "lesson.schema.json"


def test_new_refuses_to_overwrite(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "taken.yaml"
    path.write_text("mine\n")
    assert main(["new", "taken", "--dir", str(tmp_path)]) == 2
    assert "already exists" in capsys.readouterr().err
    assert path.read_text() == "mine\n"


@pytest.mark.parametrize("slug", ["Bad_Slug", "a--b", "x-", "x" * 65, "../up"])
def test_new_refuses_a_bad_slug(tmp_path: Path, capsys, slug: str) -> None:  # type: ignore[no-untyped-def]
    assert main(["new", slug, "--dir", str(tmp_path)]) == 2
    assert "is not a slug" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_new_refuses_a_missing_folder(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["new", "x", "--dir", str(tmp_path / "nowhere")]) == 2
    assert "no such folder" in capsys.readouterr().err


def test_check_lists_each_todo_and_nothing_else(  # type: ignore[no-untyped-def]
    check_sandbox: SandboxHarness, tmp_path: Path, capsys
) -> None:
    assert main(["new", "fresh", "--dir", str(tmp_path)]) == 0
    capsys.readouterr()
    assert check_in_thread(check_sandbox, lessons_dir=str(tmp_path)) == 1
    failures = capsys.readouterr().err.splitlines()
    failures = [line for line in failures if line.startswith("FAIL")]
    assert failures, "a fresh scaffold passed the check"
    # Only TODOs: the example code's outputs, grads and errors are true.
    assert all(line.endswith(": unfinished: TODO") for line in failures), failures
    assert "FAIL fresh: title: unfinished: TODO" in failures
    assert "FAIL fresh: steps[1].prediction.choices[2].why: unfinished: TODO" in failures
    todos = (tmp_path / "fresh.yaml").read_text().count('"TODO') + 1  # + the explanation block
    assert len(failures) == todos
