"""The backward walk's record as the child builds it (app/sandbox/backward_record.py) and its
bounds. Plain TypedDicts: importable without torch or pydantic, by the child and the server
(app/sandbox/backward_result.py validates the same shape)."""

from __future__ import annotations

from typing import Any, Literal, TypedDict

MAX_CALLS = 8
MAX_NODES = 100
MAX_VALUES = 16
MAX_TOTAL_VALUES = 20_000
MAX_SAVED = 6
MAX_SLOTS = 64  # edges out of one node (torch.cat of many tensors has one per input)
MAX_ROOTS = 100  # roots and inputs= of one call
MAX_HOOKS = 8  # tensor hooks recorded at one node in one call
HOOK_NAME_CHARS = 60  # a hook's name is the snippet's text: cut to this many characters

Api = Literal["Tensor.backward", "torch.autograd.backward", "torch.autograd.grad"]


class TensorPreview(TypedDict):
    shape: list[int]
    dtype: str
    values: Any  # nested lists, or the first MAX_VALUES elements flat when `cut`; None: budget
    cut: bool


class SavedTensor(TypedDict):
    attr: str  # e.g. "_saved_self"
    name: str | None  # the snippet's name for it, when it is one of its top-level tensors
    shape: list[int]
    dtype: str


class HookRecord(TypedDict):
    """One call of a tensor hook (`t.register_hook(fn)`) on the gradient flowing into a node:
    which function, on which tensor, and the gradient it was given and what it returned."""

    name: str  # the function's name (`<lambda>` for a lambda), at most HOOK_NAME_CHARS
    line: int | None  # where the snippet defines it, when it does
    tensor: str  # the snippet's name of the tensor it is registered on
    before: TensorPreview | None  # the gradient it was given
    after: TensorPreview | None  # what it returned; None: it returned None, nothing changed
    changed: bool  # it returned a gradient other than the one it was given


class NodeRecord(TypedDict):
    id: str
    label: str  # the node's class: MulBackward0, AccumulateGrad, ...
    kind: Literal["function", "accumulate"]
    names: list[str]  # top-level tensors whose grad_fn this is (or, for AccumulateGrad, the leaf)
    saved: list[SavedTensor]
    step: int | None  # 0-based position in the execution order; None: did not run
    received: list[TensorPreview | None]  # grad_outputs: the gradient of each of its outputs
    sent: list[TensorPreview | None]  # grad_inputs: one per next_functions entry
    hooks: list[HookRecord]  # tensor hooks run on its incoming gradient, in the order they ran


class EdgeRecord(TypedDict):
    source: str
    target: str
    slot: int  # index into the source's next_functions and `sent`


class RootRecord(TypedDict):
    name: str | None
    node: str | None
    shape: list[int]
    gradient: TensorPreview | None  # the gradient argument; None when implicit or absent
    implicit: bool  # no gradient given: torch starts from 1 (a scalar root)


class InputRecord(TypedDict):
    name: str | None
    node: str | None
    result: TensorPreview | None  # for autograd.grad: what it returned for this input


class GradChange(TypedDict):
    name: str
    node: str | None
    is_leaf: bool
    before: TensorPreview | None
    after: TensorPreview | None


class CallRecord(TypedDict):
    number: int  # 1-based among every backward call of the run
    api: Api
    line: int | None
    roots: list[RootRecord]
    inputs: list[InputRecord]
    retain_graph: bool
    create_graph: bool
    nodes: list[NodeRecord]
    edges: list[EdgeRecord]
    order: list[str]
    grads: list[GradChange]
    unreached: list[str]  # named tensors that require grad but are not in this graph
    error: str | None  # the exception's type, when the call raised
    truncated: bool
    note: str | None


class BackwardRecord(TypedDict):
    calls: list[CallRecord]
    total_calls: int
    truncated: bool
    note: str | None
