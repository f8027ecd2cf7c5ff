"""`gradlab schema`: the committed JSON Schema is current and agrees with the pydantic models."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jsonschema
import pytest

from app.cli import main
from app.config.paths import BUNDLED_LESSONS, LESSON_SCHEMA
from app.lessons.json_schema import lesson_json_schema, schema_text
from app.lessons.loader import lesson_files, parse_yaml
from app.lessons.scaffold import scaffold_text
from tests.conftest import FIXTURE_LESSONS

COMMITTED = LESSON_SCHEMA
LESSONS = lesson_files(BUNDLED_LESSONS) + sorted(FIXTURE_LESSONS.glob("*.yaml"))


def test_the_committed_schema_is_current(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["schema"]) == 0
    printed = capsys.readouterr().out
    assert printed == schema_text()
    assert COMMITTED.read_text(encoding="utf-8") == printed, (
        "lessons/lesson.schema.json is stale: run `gradlab schema > lessons/lesson.schema.json`"
    )


def validator() -> jsonschema.protocols.Validator:
    schema = lesson_json_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_every_lesson_the_models_accept_the_schema_accepts(path: Path) -> None:
    errors = [error.message for error in validator().iter_errors(parse_yaml(path.read_text()))]
    assert errors == []


def test_the_scaffold_validates_against_the_schema() -> None:
    data = parse_yaml(scaffold_text("my-lesson", "lesson.schema.json", "2.13.0"))
    assert [error.message for error in validator().iter_errors(data)] == []


def _first_lesson() -> dict[str, Any]:
    data: dict[str, Any] = parse_yaml((FIXTURE_LESSONS / "first-steps.yaml").read_text())
    return data


@pytest.mark.parametrize(
    ("mutate", "problem"),
    [
        (lambda d: d.update(levle="beginner"), "Additional properties are not allowed ('levle'"),
        (lambda d: d.update(level="wizard"), "'wizard' is not one of"),
        (lambda d: d["myths"][0].update(answer="maybe"), "'maybe' is not one of"),
        (lambda d: d["steps"][0]["prediction"]["choices"].append({"txt": "x"}), "'txt'"),
        (lambda d: d["steps"][0]["snippet"].update(grads={"x": "four"}), "'four'"),
    ],
    ids=["typo", "level", "myth answer", "choice field", "grad value"],
)
def test_the_schema_catches_what_an_editor_should_flag(mutate, problem: str) -> None:  # type: ignore[no-untyped-def]
    data = _first_lesson()
    mutate(data)
    messages = " | ".join(error.message for error in validator().iter_errors(data))
    messages += " | ".join(
        sub.message for error in validator().iter_errors(data) for sub in error.context or []
    )
    assert problem in messages
