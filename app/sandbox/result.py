"""The answer to one run, as the HTTP API returns it (see docs/http-contract.md)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, PrivateAttr

from app.sandbox.backward_result import BackwardWalk
from app.sandbox.doctor_result import DoctorRecord

Status = Literal["ok", "error", "timeout", "memory", "killed"]
# The statuses of a run that the sandbox killed, each its reason: the wall clock, the memory
# limit, or anything else (an output flood, a child lost).
KILLED: tuple[Status, ...] = ("timeout", "memory", "killed")


class ErrorInfo(BaseModel):
    type: str = Field(max_length=200)
    message: str = Field(max_length=4000)
    line: int | None = Field(default=None, description="1-based line in the learner's snippet")
    hint: str | None = Field(default=None, description="Plain-language explanation, if known")
    lesson: str | None = Field(default=None, description="Slug of the lesson that explains it")


class TensorInfo(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(max_length=200)
    shape: list[int]
    dtype: str = Field(max_length=64)
    requires_grad: bool
    is_leaf: bool
    grad_fn: str | None = Field(max_length=200)
    value: JsonValue
    grad: JsonValue = Field(description="`.grad` exactly as torch holds it; null where None")
    numel: int | None = None
    preview: bool | None = None


class GraphNode(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(max_length=16)
    kind: Literal["tensor", "leaf", "function", "accumulate"]
    label: str = Field(max_length=200)
    requires_grad: bool
    grad: JsonValue = None


class GraphEdge(BaseModel):
    model_config = ConfigDict(extra="forbid")

    source: str = Field(max_length=16)
    target: str = Field(max_length=16)


class Graph(BaseModel):
    nodes: list[GraphNode] = Field(default_factory=list, max_length=500)
    edges: list[GraphEdge] = Field(default_factory=list, max_length=5000)
    truncated: bool = False


class ChildReport(BaseModel):
    """What the child sends on its result channel; validated, because the child is untrusted."""

    model_config = ConfigDict(extra="forbid")

    error: ErrorInfo | None
    tensors: list[TensorInfo] = Field(max_length=200)
    graph: Graph
    backward: BackwardWalk = Field(default_factory=BackwardWalk)
    doctor: DoctorRecord | None = None  # when the run asked for the gradient doctor
    exec_ms: float
    # CLOCK_MONOTONIC readings for the phase table (app/sandbox/timeline.py); never shown.
    marks: dict[str, float] = Field(default_factory=dict, max_length=8)


class RunResult(BaseModel):
    status: Status
    stdout: str = ""
    stderr: str = ""
    truncated: bool = False
    error: ErrorInfo | None = None
    tensors: list[TensorInfo] = Field(default_factory=list)
    graph: Graph = Field(default_factory=Graph)
    backward: BackwardWalk = Field(
        default_factory=BackwardWalk, description="Every backward call, node by node"
    )
    duration_ms: float = 0.0
    # What the gradient doctor saw, for a run that asked for it: kept beside the answer, never
    # in it (POST /api/run answers without it; POST /api/doctor puts it beside the result).
    _doctor: DoctorRecord | None = PrivateAttr(default=None)

    def doctor(self) -> DoctorRecord | None:
        return self._doctor


def with_doctor(result: RunResult, report: ChildReport | None) -> RunResult:
    """`result` carrying the doctor's record from the child's report, if it has one."""
    result._doctor = report.doctor if report is not None else None
    return result
