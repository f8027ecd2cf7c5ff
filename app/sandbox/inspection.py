"""Describe the tensors a snippet left behind and the autograd graph that joins them.

Runs inside the confined child after the snippet, on objects the snippet made: every access is
guarded, because a hostile snippet can hand us tensor subclasses whose attributes raise.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Literal, NotRequired, TypedDict

import torch

PREVIEW_ELEMENTS = 64
MAX_GRAPH_NODES = 200
MAX_TENSORS = 100

# What a tensor's values become: nested lists of numbers, non-finite and complex ones as text.
Plain = None | bool | int | float | str | list["Plain"]
NodeKind = Literal["tensor", "leaf", "function", "accumulate"]


class TensorDescription(TypedDict):
    name: str
    shape: list[int]
    dtype: str
    requires_grad: bool
    is_leaf: bool
    grad_fn: str | None
    value: Plain
    grad: Plain
    numel: NotRequired[int]  # with preview: the values are the first PREVIEW_ELEMENTS only
    preview: NotRequired[bool]


class NodeDescription(TypedDict):
    id: str
    kind: NodeKind
    label: str
    requires_grad: bool
    grad: NotRequired[Plain]  # leaves only


class EdgeDescription(TypedDict):
    source: str
    target: str


class GraphDescription(TypedDict):
    nodes: list[NodeDescription]
    edges: list[EdgeDescription]
    truncated: NotRequired[bool]


def _plain(value: object) -> Plain:
    """torch's tolist() output made JSON-safe: non-finite floats and complex numbers as text."""
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, bool | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    return str(value)


def _values(tensor: torch.Tensor) -> tuple[Plain, bool]:
    """The tensor's values as nested lists, or a flat preview of the first elements."""
    data = tensor.detach()
    if data.layout != torch.strided:
        data = data.to_dense()
    if data.device.type != "cpu":
        data = data.cpu()
    if data.numel() <= PREVIEW_ELEMENTS:
        return _plain(data.tolist()), False
    return _plain(data.reshape(-1)[:PREVIEW_ELEMENTS].tolist()), True


def describe_tensor(name: str, tensor: torch.Tensor) -> TensorDescription:
    with warnings.catch_warnings():
        # Reading .grad of a non-leaf warns; the inspector explains that itself.
        warnings.simplefilter("ignore")
        grad = tensor.grad
    grad_fn = tensor.grad_fn
    value, value_preview = _values(tensor)
    info: TensorDescription = {
        "name": name,
        "shape": list(tensor.shape),
        "dtype": str(tensor.dtype),
        "requires_grad": bool(tensor.requires_grad),
        "is_leaf": bool(tensor.is_leaf),
        "grad_fn": type(grad_fn).__name__ if grad_fn is not None else None,
        "value": value,
        "grad": None,
    }
    preview = value_preview
    if isinstance(grad, torch.Tensor):
        info["grad"], grad_preview = _values(grad)
        preview = preview or grad_preview
    if preview:
        info["numel"] = tensor.numel()
        info["preview"] = True
    return info


def named_tensors(namespace: dict[str, Any]) -> list[tuple[str, torch.Tensor]]:
    """Tensors bound to top-level names, in order of first binding, plus module parameters."""
    found: list[tuple[str, torch.Tensor]] = []
    for name, value in list(namespace.items()):
        if name.startswith("__"):
            continue
        try:
            found.extend(_tensors_of(name, value))
        except Exception:  # noqa: BLE001, S112 - the learner's object: a broken one shows none
            continue
        if len(found) >= MAX_TENSORS:
            break
    return found[:MAX_TENSORS]


def _tensors_of(name: str, value: object) -> list[tuple[str, torch.Tensor]]:
    """A top-level name's tensor, or its module's parameters (which the learner's own module
    may fail to list: the caller passes it over)."""
    if isinstance(value, torch.Tensor):
        return [(name, value)]
    if isinstance(value, torch.nn.Module):
        return [(f"{name}.{param_name}", param) for param_name, param in value.named_parameters()]
    return []


class _GraphBuilder:
    def __init__(self, tensors: list[tuple[str, torch.Tensor]]) -> None:
        self.nodes: list[NodeDescription] = []
        self.edges: list[EdgeDescription] = []
        self.ids: dict[int, str] = {}
        self.truncated = False
        self.leaf_names = {id(t): name for name, t in tensors if t.is_leaf}

    def _add(self, key: int, kind: NodeKind, label: str, requires_grad: bool = True) -> str | None:
        """The node for the object with id `key`, added if new (None past the bound)."""
        if key in self.ids:
            return self.ids[key]
        if len(self.nodes) >= MAX_GRAPH_NODES:
            self.truncated = True
            return None
        node_id = f"n{len(self.nodes)}"
        self.ids[key] = node_id
        self.nodes.append(
            {"id": node_id, "kind": kind, "label": label, "requires_grad": requires_grad}
        )
        return node_id

    def _edge(self, source: str | None, target: str | None) -> None:
        if source is not None and target is not None:
            edge: EdgeDescription = {"source": source, "target": target}
            if edge not in self.edges:
                self.edges.append(edge)

    def leaf(self, tensor: torch.Tensor) -> str | None:
        name = self.leaf_names.get(id(tensor), "(unnamed leaf)")
        known = id(tensor) in self.ids
        node_id = self._add(id(tensor), "leaf", name, bool(tensor.requires_grad))
        if node_id is not None and not known:
            grad = tensor.grad
            self.nodes[-1]["grad"] = _values(grad)[0] if isinstance(grad, torch.Tensor) else None
        return node_id

    def function(self, fn: Any) -> str | None:
        """Add `fn` and everything behind it, walking next_functions breadth-first."""
        root = self._add(id(fn), _kind(fn), type(fn).__name__)
        queue = [fn]
        seen = {id(fn)}
        while queue:
            current = queue.pop(0)
            current_id = self.ids.get(id(current))
            if type(current).__name__ == "AccumulateGrad":
                self._edge(current_id, self.leaf(current.variable))
                continue
            for next_fn, _ in getattr(current, "next_functions", ()):
                if next_fn is None:
                    continue
                next_id = self._add(id(next_fn), _kind(next_fn), type(next_fn).__name__)
                self._edge(current_id, next_id)
                if id(next_fn) not in seen and next_id is not None:
                    seen.add(id(next_fn))
                    queue.append(next_fn)
        return root


def _kind(fn: Any) -> NodeKind:
    return "accumulate" if type(fn).__name__ == "AccumulateGrad" else "function"


def autograd_graph(tensors: list[tuple[str, torch.Tensor]]) -> GraphDescription:
    """Nodes and edges in the direction backward() walks: output → grad_fn → … → leaf."""
    builder = _GraphBuilder(tensors)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, tensor in tensors:
            if tensor.grad_fn is not None:
                tensor_id = builder._add(id(tensor), "tensor", name)
                builder._edge(tensor_id, builder.function(tensor.grad_fn))
            elif tensor.requires_grad:
                builder.leaf(tensor)
    graph: GraphDescription = {"nodes": builder.nodes, "edges": builder.edges}
    if builder.truncated:
        graph["truncated"] = True
    return graph


def inspect_namespace(
    namespace: dict[str, Any],
) -> tuple[list[TensorDescription], GraphDescription]:
    tensors = named_tensors(namespace)
    described = []
    for name, tensor in tensors:
        try:
            described.append(describe_tensor(name, tensor))
        except Exception:  # noqa: BLE001, S112 - a hostile tensor subclass is simply not shown
            continue
    try:
        graph = autograd_graph(tensors)
    except Exception:  # noqa: BLE001 - likewise: no graph rather than no result
        graph = {"nodes": [], "edges": [], "truncated": True}
    return described, graph
