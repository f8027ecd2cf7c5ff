"""The gradient doctor's record as the child sends it, validated here because the child is
untrusted (the child builds it in app/sandbox/doctor_findings.py; docs/doctor.md says what each
kind means). Nothing in it is markup: app/learning/running/doctor.py writes the words."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

# The kinds of finding, by their names in the API (docs/doctor.md).
Kind = Literal[
    "no-grad",
    "accumulating",
    "cleared-before-step",
    "not-in-optimizer",
    "no-update",
    "non-finite",
    "exploding",
    "vanishing",
    "inplace",
    "graph-freed",
    "non-scalar",
    "no-graph",
]
MAX_FINDINGS = 50  # doctor_findings.MAX_FINDINGS
MAX_PARAMS = 64  # doctor_state.MAX_PARAMS
MAX_CALLS = 200  # doctor_state.MAX_CALLS
Name = Annotated[str, Field(max_length=200)]
Fact = Annotated[str, Field(max_length=200)] | int | float | None


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RawFinding(_Strict):
    kind: Kind
    tensor: Name | None
    line: int | None
    cause: str | None = Field(max_length=32)
    facts: dict[Annotated[str, Field(max_length=32)], Fact] = Field(max_length=8)
    call: int | None = Field(default=None, ge=1)
    node: str | None = Field(default=None, pattern=r"^b\d{1,6}$")


class ParameterTrace(_Strict):
    name: Name
    shape: list[int] = Field(max_length=16)
    grad_norms: list[float | None] = Field(max_length=MAX_CALLS)


class DoctorRecord(_Strict):
    findings: list[RawFinding] = Field(max_length=MAX_FINDINGS)
    parameters: list[ParameterTrace] = Field(max_length=MAX_PARAMS)
    calls: int
