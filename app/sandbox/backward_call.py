"""One backward call while it is recorded: the nodes its graph reaches from the roots, the hooks
put on them, and the record they fill (see backward_record.py, which starts and ends calls)."""

from __future__ import annotations

import collections
import functools
from typing import TYPE_CHECKING, Any

import torch

from app.sandbox.backward_types import MAX_NODES, MAX_ROOTS, MAX_SLOTS, Api, CallRecord, NodeRecord

if TYPE_CHECKING:
    from app.sandbox.backward_record import Recorder

CUT_NOTES = {
    "nodes": f"The graph has more than {MAX_NODES} nodes: only the {MAX_NODES} nearest the "
    "output are shown.",
    "roots": f"Only the first {MAX_ROOTS} outputs and inputs of the call are shown.",
    "slots": f"A node has more than {MAX_SLOTS} inputs: only the first {MAX_SLOTS} are shown.",
}


class Call:
    """One recorded call while it runs: the nodes it can reach and the hooks put on them."""

    def __init__(self, recorder: Recorder, number: int, api: Api) -> None:
        self.recorder = recorder
        self.ids: dict[int, str] = {}
        self.fns: list[Any] = []
        self.handles: list[Any] = []
        self.cuts: set[str] = set()
        self.leaves: list[tuple[str, torch.Tensor, str | None, bool]] = []
        self.record: CallRecord = {
            "number": number,
            "api": api,
            "line": recorder.snippet_line(),
            "roots": [],
            "inputs": [],
            "retain_graph": False,
            "create_graph": False,
            "nodes": [],
            "edges": [],
            "order": [],
            "grads": [],
            "unreached": [],
            "error": None,
            "truncated": False,
            "note": None,
        }

    def node_of(self, tensor: Any) -> Any:
        if isinstance(tensor, torch.autograd.graph.GradientEdge):
            return tensor.node
        if not isinstance(tensor, torch.Tensor) or not tensor.requires_grad:
            return None
        return torch.autograd.graph.get_gradient_edge(tensor).node

    def walk(self, roots: list[Any]) -> None:
        """Breadth-first from the roots through next_functions, up to MAX_NODES nodes; then
        the named tensors that the walk reached (their `.grad` before) or missed."""
        self._traverse([fn for fn in roots if fn is not None])
        self._map_named()

    def _traverse(self, roots: list[Any]) -> None:
        queue = collections.deque(roots)
        for fn in roots:
            self._add(fn)
        while queue:
            fn = queue.popleft()
            source = self.ids[id(fn)]
            for slot, (next_fn, _) in enumerate(fn.next_functions):
                if next_fn is None:
                    continue
                if slot >= MAX_SLOTS:
                    self.cuts.add("slots")
                    break
                if id(next_fn) not in self.ids:
                    if len(self.fns) >= MAX_NODES:
                        self.cuts.add("nodes")
                        continue
                    self._add(next_fn)
                    queue.append(next_fn)
                target = self.ids[id(next_fn)]
                self.record["edges"].append({"source": source, "target": target, "slot": slot})

    def _map_named(self) -> None:
        rec = self.recorder
        for name, tensor in rec.named:
            fn = self.node_of(tensor) if tensor.is_leaf or tensor.retains_grad else None
            node_id = self.ids.get(id(fn)) if fn is not None else None
            if node_id is not None:
                self.leaves.append((name, tensor, node_id, tensor.is_leaf))
            elif tensor.is_leaf and tensor.requires_grad and not self.cuts:
                self.record["unreached"].append(name)
        self.record["grads"] = [
            {
                "name": name,
                "node": node_id,
                "is_leaf": is_leaf,
                "before": rec.preview(tensor.grad),
                "after": None,
            }
            for name, tensor, node_id, is_leaf in self.leaves
        ]

    def hook_all(self) -> None:
        """Last, once nothing else can fail: a hook left behind would outlive the record."""
        for fn, node in zip(self.fns, self.record["nodes"], strict=True):
            try:
                self.handles.append(fn.register_hook(functools.partial(self._ran, node)))
            except Exception:  # noqa: BLE001 - a node that takes no hooks is shown, not timed
                self.handles.append(None)

    def _add(self, fn: Any) -> None:
        node_id = f"b{len(self.fns)}"
        self.ids[id(fn)] = node_id
        self.fns.append(fn)
        accumulate = type(fn).__name__ == "AccumulateGrad"
        names = self.recorder.names_of(fn, accumulate)
        self.record["nodes"].append(
            {
                "id": node_id,
                "label": type(fn).__name__,
                "kind": "accumulate" if accumulate else "function",
                "names": names,
                "saved": [] if accumulate else self.recorder.saved_tensors(fn),
                "step": None,
                "received": [],
                "sent": [],
            }
        )

    def _ran(self, node: NodeRecord, grad_inputs: Any, grad_outputs: Any) -> None:
        """The node's post-hook: the engine just ran it. Returns None: nothing is changed."""
        try:
            order = self.record["order"]
            node["step"] = len(order)
            order.append(node["id"])
            preview = self.recorder.preview
            node["received"] = [preview(g) for g in grad_outputs[:MAX_SLOTS]]
            node["sent"] = [preview(g) for g in grad_inputs[:MAX_SLOTS]]
        except Exception:  # noqa: BLE001, S110 - recording must never break the backward pass
            pass

    def finish(self, result: Any, error: BaseException | None) -> CallRecord:
        for handle in self.handles:
            if handle is not None:
                handle.remove()
        rec = self.recorder
        for change, (_, tensor, _, _) in zip(self.record["grads"], self.leaves, strict=True):
            change["after"] = rec.preview(tensor.grad)
        if self.record["api"] == "torch.autograd.grad" and isinstance(result, tuple):
            for item, value in zip(self.record["inputs"], result, strict=False):
                item["result"] = rec.preview(value)
        if error is not None:
            self.record["error"] = type(error).__name__
        if self.cuts:
            self.record["truncated"] = True
            self.record["note"] = " ".join(CUT_NOTES[cut] for cut in sorted(self.cuts))
        return self.record
