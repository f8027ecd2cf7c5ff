"""What goes over HTTP for the gradient doctor: POST /api/doctor's body and answer
(docs/doctor.md, docs/http-contract.md)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from app.sandbox.doctor_result import Kind
from app.sandbox.result import RunResult


class DoctorRequest(BaseModel):
    code: str = Field(description="Python source of the training code to check")


class DoctorFinding(BaseModel):
    kind: Kind = Field(description="What is wrong (docs/doctor.md lists every kind)")
    tensor: str | None = Field(
        description="What it is about, as the code names it (`model.fc2.weight`, `w`)"
    )
    line: int | None = Field(description="1-based line of the code that causes it, if known")
    message_html: str = Field(
        description="The finding in plain words; HTML whose only markup is <code>, with the "
        "code's own text escaped"
    )
    lesson: str = Field(description="Slug of the lesson that teaches the cause")
    call: int | None = Field(
        default=None,
        description="The backward call the finding is about: its `number` in the run's "
        "`result.backward.calls`; null when not known or not recorded",
    )
    node: str | None = Field(
        default=None,
        description="The id of the node of that call's recorded graph the finding is about "
        "(`result.backward.calls[].nodes[].id`): where a NaN first appeared, the node that "
        "raised; null when not known",
    )


class DoctorParameter(BaseModel):
    name: str = Field(description="The parameter as the code names it")
    shape: list[int]
    grad_norms: list[float | None] = Field(
        description="Its gradient's norm after each backward call (null: no gradient, or "
        "not finite); the first 200 calls"
    )


class DoctorAnswer(BaseModel):
    findings: list[DoctorFinding] = Field(description="Empty when nothing is wrong")
    parameters: list[DoctorParameter]
    result: RunResult = Field(description="The run, exactly as POST /api/run answers it")
