"""One backward call while it is recorded: the nodes its graph reaches from the roots, the hooks
put on them, and the record they fill (see backward_record.py, which starts and ends calls)."""

from __future__ import annotations

import collections
import functools
from typing import TYPE_CHECKING, Any

import torch

from app.sandbox.backward_types import (
    HOOK_NAME_CHARS,
    MAX_HOOKS,
    MAX_NODES,
    MAX_ROOTS,
    MAX_SLOTS,
    Api,
    CallRecord,
    HookRecord,
    NodeRecord,
)

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
        # (a tensor's hook dict, the hook's key, the watcher put there, the snippet's hook)
        self.watched: list[tuple[dict[Any, Any], Any, Any, Any]] = []
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
        self._watch_tensor_hooks()

    # --- the snippet's own tensor hooks --------------------------------------------------------
    def _watch_tensor_hooks(self) -> None:
        """Put a watcher in place of each hook the snippet registered on a named tensor of this
        graph: it calls the hook with the same gradient and returns what the hook returns, and
        notes both at the node the gradient flows into. finish() puts the hooks back."""
        seen: set[int] = set()
        nodes = {node["id"]: node for node in self.record["nodes"]}
        for name, tensor in self.recorder.named:
            try:
                hooks = tensor._backward_hooks
                if id(tensor) in seen or not hooks:
                    continue
                seen.add(id(tensor))
                fn = tensor.grad_fn if tensor.grad_fn is not None else self.node_of(tensor)
                node_id = self.ids.get(id(fn))
                if node_id is None:
                    continue
                for key, hook in list(hooks.items()):
                    watcher = functools.partial(self._hook_ran, nodes[node_id], name, hook)
                    hooks[key] = watcher
                    self.watched.append((hooks, key, watcher, hook))
            except Exception:  # noqa: BLE001, S112 - an unreadable tensor: its hooks run unwatched
                continue

    def _hook_ran(self, node: NodeRecord, tensor: str, hook: Any, grad: Any) -> Any:
        """The snippet's hook, run as it would be; what it was given and returned, noted."""
        result = hook(grad)
        try:
            if len(node["hooks"]) < MAX_HOOKS:
                node["hooks"].append(self._hook_record(tensor, hook, grad, result))
        except Exception:  # noqa: BLE001, S110 - recording must never break the backward pass
            pass
        return result

    def _hook_record(self, tensor: str, hook: Any, grad: Any, result: Any) -> HookRecord:
        preview = self.recorder.preview
        changed = False
        if isinstance(result, torch.Tensor) and isinstance(grad, torch.Tensor):
            with torch.no_grad():
                changed = result.shape != grad.shape or not torch.equal(result, grad)
        return {
            "name": hook_name(hook),
            "line": self._hook_line(hook),
            "tensor": tensor,
            "before": preview(grad),
            "after": preview(result) if result is not None else None,
            "changed": changed,
        }

    def _hook_line(self, hook: Any) -> int | None:
        code = getattr(hook, "__code__", None)
        if code is None or code.co_filename != self.recorder.snippet_filename:
            return None
        line = code.co_firstlineno
        return line if isinstance(line, int) else None

    def _unwatch(self) -> None:
        """Each hook back in its place, unless the snippet removed it meanwhile."""
        for hooks, key, watcher, hook in self.watched:
            try:
                if hooks.get(key) is watcher:
                    hooks[key] = hook
            except Exception:  # noqa: BLE001, S112 - nothing more can be put back
                continue
        self.watched.clear()

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
                "hooks": [],
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
        self._unwatch()
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


def hook_name(hook: Any) -> str:
    """A hook's function name as the snippet wrote it (`clip`, `<lambda>`, a class's name for
    another callable), cut to HOOK_NAME_CHARS: it is the snippet's text, shown as text."""
    try:
        name = getattr(hook, "__name__", None)
        if not isinstance(name, str):
            name = type(hook).__name__
    except Exception:  # noqa: BLE001 - a hostile callable's attributes may raise
        name = "a hook"
    name = " ".join(str(name).split()) or "a hook"
    return name if len(name) <= HOOK_NAME_CHARS else name[: HOOK_NAME_CHARS - 1] + "…"
