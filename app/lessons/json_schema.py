"""The lesson format as JSON Schema, generated from the pydantic models in `format.py`.

Editors that run the YAML language server read it (a lesson file's first line names it) to
complete and validate fields while an author types. `lessons/lesson.schema.json` is this output,
committed; a test and CI check it is current.
"""

from __future__ import annotations

import json
from typing import Any

from app.lessons.format import Lesson

DIALECT = "https://json-schema.org/draft/2020-12/schema"


def lesson_json_schema() -> dict[str, Any]:
    schema = Lesson.model_json_schema(mode="validation")
    return {
        "$schema": DIALECT,
        "title": "gradlab lesson (format 1)",
        **{key: value for key, value in schema.items() if key != "title"},
    }


def schema_text() -> str:
    """The schema as committed: stable key order, two-space indent, a final newline."""
    return json.dumps(lesson_json_schema(), indent=2, ensure_ascii=False) + "\n"
