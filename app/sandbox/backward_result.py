"""The `backward` field of a run's answer: every backward call, recorded node by node.

The child builds it (app/sandbox/backward_record.py, which says what each field means and the
bounds); the server validates it here, because the child is untrusted.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from app.sandbox.backward_types import (
    HOOK_NAME_CHARS,
    MAX_CALLS,
    MAX_HOOKS,
    MAX_NODES,
    MAX_ROOTS,
    MAX_SLOTS,
)

_ID = Field(max_length=16)
_NAMES = 100  # inspection.MAX_TENSORS: the top-level tensors a call can name


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TensorPreview(_Strict):
    shape: list[int]
    dtype: str = Field(max_length=64)
    values: JsonValue = Field(
        description="Nested lists like tolist(); when `cut`, the first 16 elements, flat; "
        "null when the run's value budget ran out"
    )
    cut: bool


class SavedTensor(_Strict):
    attr: str = Field(max_length=100, description="The node's attribute, e.g. `_saved_self`")
    name: str | None = Field(max_length=200, description="The snippet's name for it, if any")
    shape: list[int]
    dtype: str = Field(max_length=64)


class BackwardHook(_Strict):
    name: str = Field(
        max_length=HOOK_NAME_CHARS,
        description="The hook function's name as the snippet wrote it (`<lambda>` for a "
        "lambda): the snippet's text, cut to 60 characters",
    )
    line: int | None = Field(description="1-based line of the snippet that defines it, if any")
    tensor: str = Field(max_length=200, description="The tensor it is registered on")
    before: TensorPreview | None = Field(description="The gradient the hook was given")
    after: TensorPreview | None = Field(description="What it returned; null: None (no change)")
    changed: bool = Field(description="It returned a gradient other than the one it was given")


class BackwardNode(_Strict):
    id: str = _ID
    label: str = Field(max_length=200, description="The node's class, e.g. `MulBackward0`")
    kind: Literal["function", "accumulate"]
    names: list[str] = Field(
        max_length=_NAMES,
        description="Top-level tensors whose grad_fn this is; for AccumulateGrad, its leaf",
    )
    saved: list[SavedTensor] = Field(max_length=8)
    step: int | None = Field(description="0-based position in the execution order; null: not run")
    received: list[TensorPreview | None] = Field(
        max_length=MAX_SLOTS, description="grad_outputs: the gradient of each output"
    )
    sent: list[TensorPreview | None] = Field(
        max_length=MAX_SLOTS, description="grad_inputs: one per next_functions entry (null: none)"
    )
    hooks: list[BackwardHook] = Field(
        default_factory=list,
        max_length=MAX_HOOKS,
        description="Tensor hooks run on the gradient flowing into this node, in order: "
        "`received` is what the last of them returned",
    )


class BackwardEdge(_Strict):
    source: str = _ID
    target: str = _ID
    slot: int = Field(description="Index in the source's next_functions and `sent`")


class BackwardRoot(_Strict):
    name: str | None = Field(max_length=200)
    node: str | None = Field(max_length=16)
    shape: list[int]
    gradient: TensorPreview | None = Field(description="The gradient argument, if one was given")
    implicit: bool = Field(description="No gradient given: backward starts from 1")


class BackwardInput(_Strict):
    name: str | None = Field(max_length=200)
    node: str | None = Field(max_length=16)
    result: TensorPreview | None = Field(description="autograd.grad's answer for this input")


class GradChange(_Strict):
    name: str = Field(max_length=200)
    node: str | None = Field(max_length=16)
    is_leaf: bool
    before: TensorPreview | None = Field(description="`.grad` before the call; null: None")
    after: TensorPreview | None = Field(description="`.grad` after the call; null: None")


class BackwardCall(_Strict):
    number: int = Field(description="1-based among all the run's backward calls")
    api: Literal["Tensor.backward", "torch.autograd.backward", "torch.autograd.grad"]
    line: int | None = Field(description="1-based line of the call in the snippet")
    roots: list[BackwardRoot] = Field(max_length=MAX_ROOTS)
    inputs: list[BackwardInput] = Field(max_length=MAX_ROOTS)
    retain_graph: bool
    create_graph: bool
    nodes: list[BackwardNode] = Field(max_length=MAX_NODES)
    edges: list[BackwardEdge] = Field(max_length=MAX_NODES * MAX_SLOTS)
    order: list[str] = Field(max_length=MAX_NODES, description="Node ids in execution order")
    grads: list[GradChange] = Field(max_length=_NAMES)
    unreached: list[str] = Field(
        max_length=_NAMES, description="Named leaves requiring grad that this graph misses"
    )
    error: str | None = Field(max_length=200, description="Exception type, if the call raised")
    truncated: bool
    note: str | None = Field(max_length=500)


class BackwardWalk(_Strict):
    """Every backward call of a run (Tensor.backward, torch.autograd.backward and .grad)."""

    calls: list[BackwardCall] = Field(default_factory=list, max_length=MAX_CALLS)
    total_calls: int = Field(default=0, description="Calls made, recorded or not")
    truncated: bool = False
    note: str | None = Field(default=None, max_length=500)
