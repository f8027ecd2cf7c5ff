"""The lesson format's building blocks: its text types, levels and snippets (the questions a
step asks are app/lessons/format_questions.py's; app/lessons/format.py puts a lesson together
from both)."""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Annotated

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetJsonSchemaHandler,
    StringConstraints,
    model_validator,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema
from typing_extensions import TypeAliasType

# A value a reading or a variant's computed value holds: a number, text, a truth value, a list.
Plain = TypeAliasType("Plain", "bool | int | float | str | list[Plain] | None")

Slug = Annotated[str, StringConstraints(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$", max_length=64)]
Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
Code = Annotated[str, StringConstraints(min_length=1, max_length=20_000)]
# A gradient as a lesson writes it: a number, a (nested) list of numbers, or null for None.
GradValue = TypeAliasType("GradValue", "float | list[GradValue] | None")

IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


class Strict(BaseModel):
    """Every model refuses unknown fields, so a typo in a lesson is an error, not silence."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Level(StrEnum):
    beginner = "beginner"
    intermediate = "intermediate"
    advanced = "advanced"
    expert = "expert"


class StepLevel(StrEnum):
    foundation = "foundation"
    intermediate = "intermediate"
    advanced = "advanced"
    expert = "expert"


class ExpectedError(Strict):
    """The exception a snippet is meant to raise."""

    type: Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_.]*$")]
    # A fragment of the message, matched literally; enough to tell this error from others.
    message_contains: Text


class Snippet(Strict):
    """Runnable code and everything it is claimed to do when run."""

    code: Code
    # Exactly what the snippet prints to stdout, byte for byte ("" when it prints nothing).
    output: str = ""
    # Set when the snippet is meant to fail; `output` is then what it prints before failing.
    error: ExpectedError | None = None
    # `.grad` of named tensors after the run, compared numerically; null claims `.grad is None`.
    grads: dict[str, GradValue] = Field(default_factory=dict)
    # Open the backward walk under the run's output (it is collapsed in lesson steps otherwise).
    # Runs are locked until the prediction is committed, so the walk never shows before it.
    walk: bool = False

    @model_validator(mode="after")
    def _grad_names_are_identifiers(self) -> Snippet:
        for name in self.grads:
            if not IDENTIFIER.match(name):
                raise ValueError(f"grads: {name!r} is not a variable name")
        return self


class TextOrMapping(Strict):
    """A model a lesson file may write as plain text, meaning `{text: ...}` (a choice)."""

    @model_validator(mode="before")
    @classmethod
    def _plain_text_is_a_choice(cls, data: object) -> object:
        return {"text": data} if isinstance(data, str) else data

    @classmethod
    def __get_pydantic_json_schema__(
        cls, core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        # The validator above turns plain text into {text: ...}, which pydantic cannot see:
        # say in the schema that a choice may also be a string.
        found = handler(core_schema)
        schema = handler.resolve_ref_schema(found)
        mapping = dict(schema)
        schema.clear()
        schema["anyOf"] = [{"type": "string", "minLength": 1}, mapping]
        schema["description"] = mapping.get("description", "")
        schema["title"] = mapping.get("title", "Choice")
        return found
