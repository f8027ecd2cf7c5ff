"""Record every backward pass a snippet makes, node by node, for the backward walk in the page.

Runs inside the confined child. `install()` wraps `torch.Tensor.backward`,
`torch.autograd.backward` and `torch.autograd.grad` before the snippet runs; a recorded call
walks the graph from its roots (grad_fn nodes, AccumulateGrad for leaves, edges from
next_functions), puts a post-hook on every node it reached (the engine calls it with what the
node received and what it sent, in execution order), and reads each leaf's `.grad` before and
after. A hook the snippet registered on a named tensor of the graph is watched for the call
(backward_call.py): what it was given and returned is noted at its node. `finish()` takes the
wrappers off and returns a plain, JSON-able record.

Installing costs three attribute writes; a snippet that never calls backward pays nothing else.
Recording never changes what the snippet computes: hooks return None, every read is guarded (a
hostile snippet's tensor subclass may raise anywhere), and a failure to record only loses the
record. Bounds: MAX_CALLS calls per run, MAX_NODES nodes per call, MAX_VALUES values per tensor
and MAX_TOTAL_VALUES values per run; what was cut is flagged and said in a note.
"""

from __future__ import annotations

import functools
import inspect
import sys
import warnings
from collections.abc import Callable
from typing import Any

import torch

from app.sandbox.backward_call import Call
from app.sandbox.backward_types import (
    MAX_CALLS,
    MAX_ROOTS,
    MAX_SAVED,
    MAX_TOTAL_VALUES,
    MAX_VALUES,
    Api,
    BackwardRecord,
    CallRecord,
    SavedTensor,
    TensorPreview,
)
from app.sandbox.inspection import _plain, named_tensors

SEQUENCE_ARGUMENTS = ("tensors", "grad_tensors", "outputs", "grad_outputs", "inputs")
_SINGLE = torch.Tensor | torch.autograd.graph.GradientEdge


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    if isinstance(value, _SINGLE):
        return [value]
    return list(value)


_SAVED_ATTRS: dict[type, tuple[str, ...]] = {}


# What a saved tensor packed by a hook is described as: reading it would run the hook.
PACKED = "not read: packed by a saved-tensors hook (e.g. checkpoint)"


def _saved_attrs(node_type: type) -> tuple[str, ...]:
    if node_type not in _SAVED_ATTRS:
        _SAVED_ATTRS[node_type] = tuple(a for a in dir(node_type) if a.startswith("_saved_"))
    return _SAVED_ATTRS[node_type]


@functools.cache
def _signature(function: Callable[..., Any]) -> inspect.Signature:
    return inspect.signature(function)


def _materialized(bound: inspect.BoundArguments) -> tuple[Any, Any]:
    """The call's arguments with any iterator (`model.parameters()`) made a tuple, in `bound`
    too: the record reads them and torch must still get every item. torch itself turns each
    into a tuple first, so this changes nothing it computes."""
    for name in SEQUENCE_ARGUMENTS:
        value = bound.arguments.get(name)
        if value is not None and not isinstance(value, _SINGLE | list | tuple):
            bound.arguments[name] = tuple(value)
    return bound.args, bound.kwargs


class Recorder:
    def __init__(self, namespace: dict[str, Any], snippet_filename: str) -> None:
        self.namespace = namespace
        self.snippet_filename = snippet_filename
        self.calls: list[CallRecord] = []
        self.total_calls = 0
        self.values_left = MAX_TOTAL_VALUES
        self.values_cut = False
        self.active = False
        self.current: Call | None = None  # the recorded call running now
        self.named: list[tuple[str, torch.Tensor]] = []
        self.names: dict[int, list[str]] = {}
        self.originals: list[tuple[Any, str, Any]] = []

    # --- what a call is made of ------------------------------------------------------------
    def preview(self, value: Any) -> TensorPreview | None:
        if not isinstance(value, torch.Tensor):
            return None
        try:
            data = value.detach()
            if data.layout != torch.strided:
                data = data.to_dense()
            shape, count = list(data.shape), min(data.numel(), MAX_VALUES, self.values_left)
            if count <= 0 and data.numel() > 0:
                self.values_cut = True
                return {"shape": shape, "dtype": str(data.dtype), "values": None, "cut": True}
            self.values_left -= count
            cut = count < data.numel()
            flat = data.cpu().reshape(-1)[:count] if cut else data.cpu()
            return {
                "shape": shape,
                "dtype": str(data.dtype),
                "values": _plain(flat.tolist()),
                "cut": cut,
            }
        except Exception:  # noqa: BLE001 - a tensor we cannot read is shown as unknown
            return None

    def names_of(self, fn: Any, accumulate: bool) -> list[str]:
        key = id(getattr(fn, "variable", None)) if accumulate else id(fn)
        return self.names.get(key, [])

    def _index_names(self) -> None:
        """Top-level names by the tensor (leaves) or grad_fn (the rest) they are bound to."""
        self.named = named_tensors(self.namespace)
        self.names = {}
        for name, tensor in self.named:
            fn = tensor.grad_fn
            self.names.setdefault(id(tensor) if fn is None else id(fn), []).append(name)

    def saved_tensors(self, fn: Any) -> list[SavedTensor]:
        """The tensors a node saved for its backward, by the snippet's name where it has one:
        built-in nodes expose them as `_saved_*`, a custom Function's as ctx.saved_tensors."""
        found: list[tuple[str, Any]] = []
        packed: list[SavedTensor] = []
        for attr in _saved_attrs(type(fn)):
            # Unpacking a tensor packed by a saved-tensors hook runs the hook: for
            # torch.utils.checkpoint, that recomputes the forward, which the snippet would see.
            raw = getattr(fn, "_raw" + attr, None)
            if getattr(raw, "unpack_hook", None) is not None:
                packed.append({"attr": attr, "name": None, "shape": [], "dtype": PACKED})
                continue
            try:
                found.append((attr, getattr(fn, attr)))
            except Exception:  # noqa: BLE001, S112 - freed by an earlier backward
                continue
        if not found and isinstance(fn, torch.autograd.function.BackwardCFunction):
            try:
                found = [(f"saved_tensors[{i}]", t) for i, t in enumerate(fn.saved_tensors)]
            except Exception:  # noqa: BLE001 - freed by an earlier backward
                found = []
        saved: list[SavedTensor] = packed[:MAX_SAVED]
        for attr, value in found:
            if not isinstance(value, torch.Tensor) or len(saved) >= MAX_SAVED:
                continue
            key = self._storage_key(value)
            name = next((n for n, t in self.named if key and self._storage_key(t) == key), None)
            saved.append(
                {"attr": attr, "name": name, "shape": list(value.shape), "dtype": str(value.dtype)}
            )
        return saved

    @staticmethod
    def _storage_key(tensor: torch.Tensor) -> tuple[int, tuple[int, ...], str] | None:
        try:
            return (tensor.data_ptr(), tuple(tensor.shape), str(tensor.dtype))
        except Exception:  # noqa: BLE001 - no storage (a meta or wrapped tensor)
            return None

    def snippet_line(self) -> int | None:
        frame = sys._getframe(1)
        while frame is not None:
            if frame.f_code.co_filename == self.snippet_filename:
                return frame.f_lineno
            frame = frame.f_back  # type: ignore[assignment]
        return None

    def where(self, node: Any) -> tuple[int, str] | None:
        """The running recorded call's number and the id of `node` in it, if it has one (the
        gradient doctor names the node of a finding by it, docs/doctor.md)."""
        call = self.current
        node_id = call.ids.get(id(node)) if call is not None else None
        return None if call is None or node_id is None else (call.record["number"], node_id)

    def _name(self, tensor: Any) -> str | None:
        return next((name for name, t in self.named if t is tensor), None)

    # --- the wrappers ----------------------------------------------------------------------
    def begin(self, api: Api, bound: dict[str, Any]) -> Call:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # reading .grad of a non-leaf warns
            self._index_names()
            call = Call(self, self.total_calls, api)
            if api == "Tensor.backward":
                roots, gradients = [bound["self"]], [bound.get("gradient")]
                inputs = _as_list(bound.get("inputs"))
            elif api == "torch.autograd.backward":
                roots = _as_list(bound["tensors"])
                gradients = _as_list(bound.get("grad_tensors"))
                inputs = _as_list(bound.get("inputs"))
            else:
                roots = _as_list(bound["outputs"])
                gradients = _as_list(bound.get("grad_outputs"))
                inputs = _as_list(bound["inputs"])
            create_graph = bool(bound.get("create_graph", False))
            retain = bound.get("retain_graph")
            call.record["create_graph"] = create_graph
            call.record["retain_graph"] = create_graph if retain is None else bool(retain)
            if len(roots) > MAX_ROOTS or len(inputs) > MAX_ROOTS:
                call.cuts.add("roots")
            roots, inputs = roots[:MAX_ROOTS], inputs[:MAX_ROOTS]
            root_fns = [call.node_of(root) for root in roots]
            call.walk(root_fns)
            for index, root in enumerate(roots):
                given = gradients[index] if index < len(gradients) else None
                call.record["roots"].append(
                    {
                        "name": self._name(root),
                        "node": call.ids.get(id(root_fns[index])),
                        "shape": list(getattr(root, "shape", [])),
                        "gradient": self.preview(given),
                        "implicit": given is None,
                    }
                )
            call.record["inputs"] = [
                {
                    "name": self._name(item),
                    "node": call.ids.get(id(call.node_of(item))),
                    "result": None,
                }
                for item in inputs
            ]
            call.hook_all()
        return call

    def wrap(self, api: Api, original: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(original)
        def recorded(*args: Any, **kwargs: Any) -> Any:
            if self.active:  # Tensor.backward calls torch.autograd.backward: one call
                return original(*args, **kwargs)
            self.total_calls += 1
            call: Call | None = None
            if len(self.calls) < MAX_CALLS:
                try:
                    bound = _signature(original).bind(*args, **kwargs)
                except TypeError:  # wrong arguments: torch says what is wrong
                    bound = None
                if bound is not None:
                    args, kwargs = _materialized(bound)
                    try:
                        call = self.begin(api, bound.arguments)
                    except Exception:  # noqa: BLE001 - unreadable arguments: no record
                        call = None
            self.active, self.current = True, call
            try:
                result = original(*args, **kwargs)
            except BaseException as exc:
                self.active, self.current = False, None
                self._keep(call, None, exc)
                raise
            self.active, self.current = False, None
            self._keep(call, result, None)
            return result

        return recorded

    def _keep(self, call: Call | None, result: Any, error: BaseException | None) -> None:
        if call is None:
            return
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self.calls.append(call.finish(result, error))
        except Exception:  # noqa: BLE001, S110 - the call happened; only its record is lost
            pass

    def install(self) -> None:
        targets: list[tuple[Any, str, Api]] = [
            (torch.Tensor, "backward", "Tensor.backward"),
            (torch.autograd, "backward", "torch.autograd.backward"),
            (torch.autograd, "grad", "torch.autograd.grad"),
        ]
        for owner, attr, api in targets:
            original = getattr(owner, attr)
            self.originals.append((owner, attr, original))
            setattr(owner, attr, self.wrap(api, original))

    def finish(self) -> BackwardRecord:
        """Take the wrappers off (a process may run more than one snippet) and report."""
        for owner, attr, original in reversed(self.originals):
            setattr(owner, attr, original)
        self.originals.clear()
        notes = []
        if self.total_calls > len(self.calls):
            notes.append(
                f"The run made {self.total_calls} backward calls; the first {len(self.calls)} "
                "are recorded."
            )
        if self.values_cut:
            notes.append(
                "Some gradients are shown by their shape only: the run recorded enough values."
            )
        return {
            "calls": self.calls,
            "total_calls": self.total_calls,
            "truncated": bool(notes),
            "note": " ".join(notes) or None,
        }


def install(namespace: dict[str, Any], snippet_filename: str) -> Recorder:
    """Start recording the backward calls of the snippet about to run in `namespace`."""
    recorder = Recorder(namespace, snippet_filename)
    recorder.install()
    return recorder


# Computed at import, in the zygote before it forks: a run's first recorded call then finds the
# signatures (the slowest part of reading its arguments) already made.
for _function in (torch.Tensor.backward, torch.autograd.backward, torch.autograd.grad):
    _signature(_function)
