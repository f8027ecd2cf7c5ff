"""What the gradient doctor's watch records (doctor_watch.py), and the small helpers it reads
tensors with. Runs inside the confined child."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

import torch

MAX_PARAMS = 64
MAX_CALLS = 200  # gradient norms kept per parameter
MAX_EVENTS = 64
MAX_WALK = 4000  # graph nodes walked to find the leaves behind a tensor
CHECK_NUMEL = 1 << 20  # tensors larger than this are not checked for NaN values
SNAPSHOT_NUMEL = 1 << 22  # parameters (all together) larger than this are not copied
LINE_KEY = "gradlab_line"
CUTS = {"detach": "detach", "data": "data", "item": "item", "numpy": "numpy", "tolist": "tolist"}
CUTS.update({"__float__": "item", "__int__": "item", "tensor": "tensor", "as_tensor": "tensor"})
INPLACE_DUNDERS = {"__iadd__", "__isub__", "__imul__", "__itruediv__", "__setitem__"}


@dataclass
class Param:
    """A tensor the snippet trains: a module's parameter, a named leaf or an optimizer's."""

    tensor: torch.Tensor
    name: str
    first_call: int
    norms: list[float | None] = field(default_factory=list)
    start: torch.Tensor | None = None  # its value when first seen
    snapshot: torch.Tensor | None = None  # its value at the previous backward call
    grad_after: torch.Tensor | None = None  # its .grad right after the previous call
    got_grad: bool = False
    nonfinite_call: int | None = None


@dataclass
class Event:
    line: int | None
    op: str
    leaves: frozenset[int] = frozenset()
    target: Any = None  # a weak reference to the tensor concerned
    fn: str | None = None  # the target's grad_fn before an in-place op
    shape: tuple[int, ...] = ()
    name: str | None = None  # the target's name when the event happened


WalkNode = tuple[int, str]  # a backward call's number and a node's id in the backward walk
Where = Callable[[Any], WalkNode | None]  # a node of the running call -> its WalkNode
# An error a backward call raised: kind, line, root, message, and the walk's node that raised.
ErrorSeen = tuple[str, int | None, str | None, str, WalkNode | None]


def nowhere(node: Any) -> WalkNode | None:
    """No backward walk is recorded."""
    return None


def grad_of(tensor: torch.Tensor) -> torch.Tensor | None:
    grad = tensor.grad  # a leaf's: reading it never warns
    return grad if isinstance(grad, torch.Tensor) else None


def graph_nodes(roots: list[Any]) -> Iterator[Any]:
    """The nodes of the graphs behind `roots` (grad_fn nodes), each once, up to MAX_WALK."""
    seen: set[int] = set()
    stack = list(roots)
    while stack and len(seen) < MAX_WALK:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        yield node
        stack.extend(next_fn for next_fn, _ in node.next_functions)


def leaves_behind(tensor: Any) -> frozenset[int]:
    """The ids of the leaves (requiring grad) a tensor's graph reaches."""
    if not isinstance(tensor, torch.Tensor) or not tensor.requires_grad:
        return frozenset()
    if tensor.grad_fn is None:
        return frozenset({id(tensor)})
    variables = (getattr(node, "variable", None) for node in graph_nodes([tensor.grad_fn]))
    return frozenset(id(v) for v in variables if v is not None)


def snippet_frames(filename: str) -> list[FrameType]:
    """The snippet's frames on the stack, outermost first."""
    frames: list[FrameType] = []
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename == filename:
            frames.append(frame)
        frame = frame.f_back
    return frames[::-1]


def snippet_line(filename: str) -> int | None:
    """The line of the snippet that is running (its innermost frame's)."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename == filename:
            return frame.f_lineno
        frame = frame.f_back
    return None


def all_zero(grad: torch.Tensor | None) -> bool:
    return grad is None or not bool(grad.any())


def func_name(func: Any) -> str:
    name = getattr(func, "__name__", "")
    if name == "__get__":  # a property: .grad, .data
        name = getattr(getattr(func, "__self__", None), "__name__", "")
    return str(name)


def nonfinite(value: Any) -> bool:
    if not isinstance(value, torch.Tensor) or not value.is_floating_point():
        return False
    if value.numel() > CHECK_NUMEL or value.is_sparse:
        return False
    return not bool(torch.isfinite(value.detach()).all())


VERSION_ERROR = re.compile(r"\[[\w.]+ \[([\d, ]*)\]\](?:, which is output \d+ of (\w+))?")
ERRORS = (
    ("does not require grad and does not have a grad_fn", "no-graph"),
    ("implicitly created only for scalar outputs", "non-scalar"),
    ("backward through the graph a second time", "graph-freed"),
    ("modified by an inplace operation", "inplace"),
)


def error_kind(message: str) -> str | None:
    return next((kind for text, kind in ERRORS if text in message), None)


def modified_by(
    events: list[Event], message: str, name_of: Callable[[Any], str | None]
) -> tuple[int | None, str | None, str] | None:
    """The in-place op that changed the tensor a version-counter error names: the latest
    one on a tensor of its shape (and grad_fn, when the message names one)."""
    found = VERSION_ERROR.search(message)
    shape = tuple(int(n) for n in found.group(1).split(",") if n.strip()) if found else None
    fn = found.group(2) if found else None
    for strict in (True, False):
        for event in reversed(events):
            if shape is not None and event.shape != shape:
                continue
            if strict and fn is not None and re.sub(r"Backward\d*$", "", event.fn or "") != fn:
                continue
            target = event.target() if event.target is not None else None
            return event.line, name_of(target) if target is not None else None, event.op
    return None


def tensor_roots(args: Any, kwargs: Any) -> list[Any]:
    """The roots of a `Tensor.backward` call."""
    return [args[0] if args else kwargs.get("self")]


def autograd_roots(args: Any, kwargs: Any) -> list[Any]:
    """The roots of a `torch.autograd.backward` call."""
    roots = args[0] if args else kwargs.get("tensors")
    return [roots] if isinstance(roots, torch.Tensor) else list(roots or [])


def trained_candidates(
    scopes: list[dict[str, Any]], optimizers: list[Any]
) -> list[tuple[str, Any]]:
    """The tensors a snippet trains, named as it names them: its modules' parameters, its named
    leaves that require grad (from `scopes`, the snippet's variables), its optimizers'
    parameters."""
    found: list[tuple[str, Any]] = []
    for scope in scopes:
        for key, value in list(scope.items()):
            if key.startswith("__") or key == "self":
                continue
            if isinstance(value, torch.nn.Module):
                found.extend((f"{key}.{n}", p) for n, p in value.named_parameters())
            elif isinstance(value, torch.Tensor) and value.is_leaf and value.requires_grad:
                found.append((key, value))
    for number, optimizer in enumerate(optimizers):
        for g, group in enumerate(optimizer.param_groups):
            found.extend(
                (f"optimizer {number + 1}, group {g}, parameter {i}", param)
                for i, param in enumerate(group["params"])
            )
    return found
