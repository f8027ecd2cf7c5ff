"""The gradient doctor's watch over one run, inside the confined child (see docs/doctor.md).

`Watch.install()` puts, before the snippet runs: a TorchFunctionMode that sees every torch call
the snippet makes (its line, the cuts from the graph: `detach`, `.data`, `.item()`, `.numpy()`,
`torch.tensor(t)`; ops run under `no_grad`; in-place ops; reads of a non-leaf's `.grad`; the
first forward op whose output is NaN or infinite), a wrapper around `Tensor.backward` and
`torch.autograd.backward` (the parameters' gradients and values around each call, hooks on the
graph's nodes for the first non-finite gradient, the error a call raises), the optimizers'
global step hooks and a wrapper around `zero_grad`. `finish()` takes all of it off; what was seen
is read by doctor_findings.py. Watching never changes what the snippet computes: every read is
guarded, and the doctor's own torch calls are not watched (`busy`).
"""

from __future__ import annotations

import contextlib
import functools
import weakref
from typing import Any

import torch
import torch.optim.optimizer as optim_hooks
from torch.overrides import TorchFunctionMode

from app.sandbox.doctor_state import (
    CUTS,
    INPLACE_DUNDERS,
    LINE_KEY,
    MAX_CALLS,
    MAX_EVENTS,
    MAX_PARAMS,
    SNAPSHOT_NUMEL,
    ErrorSeen,
    Event,
    Param,
    WalkNode,
    Where,
    all_zero,
    autograd_roots,
    error_kind,
    func_name,
    grad_of,
    graph_nodes,
    leaves_behind,
    modified_by,
    nonfinite,
    nowhere,
    snippet_frames,
    snippet_line,
    tensor_roots,
    trained_candidates,
)


class Watch(TorchFunctionMode):  # type: ignore[misc]
    def __init__(self, namespace: dict[str, Any], filename: str, where: Where = nowhere) -> None:
        super().__init__()
        self.namespace = namespace
        self.filename = filename
        self.where = where  # a node of the running backward call -> its place in the walk
        self.running: WalkNode | None = None  # the walk's node the engine is running
        self.nonfinite_at: WalkNode | None = None  # the walk's node of node_nonfinite
        self.busy = False
        self.calls = 0  # backward calls that ran to the end
        self.params: dict[int, Param] = {}
        self.optimizers: list[Any] = []
        self.optimizer_lines: list[int | None] = []
        self.cuts: dict[tuple[int | None, str], Event] = {}
        self.no_grad_ops: dict[int | None, Event] = {}
        self.inplace: list[Event] = []
        self.nonleaf_reads: list[Event] = []
        self.frozen_reads: list[Event] = []
        self.forward_nonfinite: Event | None = None
        self.node_nonfinite: tuple[str, int | None] | None = None
        self.errors: list[ErrorSeen] = []
        self.accumulating: list[tuple[int | None, int]] = []  # backward line, param id
        self.cleared: list[tuple[int | None, int, int | None]] = []  # line, param id, clear line
        self.last_clear: int | None = None
        self.steps = 0
        self.manual_updates: set[int] = set()
        self.step_calls: dict[int, int] = {}  # optimizer id -> backward calls at its last step
        self.copying = True
        self.originals: list[tuple[Any, str, Any]] = []
        self.handles: list[Any] = []
        self.backward_lines: list[int | None] = []
        self.modified: tuple[int | None, str | None, str] | None = None

    # --- where the snippet is -----------------------------------------------------------------
    def line(self) -> int | None:
        return snippet_line(self.filename)

    def scopes(self) -> list[dict[str, Any]]:
        return [self.namespace, *(f.f_locals for f in snippet_frames(self.filename)[1:])]

    def name_of(self, tensor: Any) -> str | None:
        """The tensor's name as the snippet calls it: `w`, `model.fc2.weight`."""
        for scope in self.scopes():
            for key, value in list(scope.items()):
                if key.startswith("__") or key == "self":
                    continue
                if value is tensor:
                    return key
                if isinstance(value, torch.nn.Module):
                    for sub, param in value.named_parameters():
                        if param is tensor:
                            return f"{key}.{sub}"
        return None

    # --- the torch calls ----------------------------------------------------------------------
    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        kwargs = kwargs or {}
        if self.busy:
            return func(*args, **kwargs)
        name = func_name(func)
        target = args[0] if args else None
        inplace = isinstance(target, torch.Tensor) and (
            name in INPLACE_DUNDERS or (name.endswith("_") and not name.startswith("_"))
        )
        before = None
        if inplace and isinstance(target, torch.Tensor):
            with contextlib.suppress(Exception):  # a hostile tensor subclass may raise here
                before = type(target.grad_fn).__name__ if target.grad_fn is not None else None
        result = func(*args, **kwargs)
        self.busy = True
        try:
            self._seen(name, target, args, kwargs, result, inplace, before)
        except Exception:  # noqa: BLE001, S110 - watching must never break the snippet
            pass
        finally:
            self.busy = False
        return result

    def _seen(
        self, name: str, target: Any, args: Any, kwargs: Any, result: Any, inplace: bool, fn: Any
    ) -> None:
        line = self.line()
        if line is None:
            return
        if inplace:
            self._inplace(line, name, target, fn)
        elif name == "grad" and isinstance(target, torch.Tensor):
            self._grad_read(line, target)
        elif name in CUTS and isinstance(target, torch.Tensor) and target.requires_grad:
            key = (line, CUTS[name])
            if key not in self.cuts and len(self.cuts) < MAX_EVENTS:
                self.cuts[key] = Event(line, CUTS[name], leaves_behind(target))
        elif isinstance(result, torch.Tensor):
            self._output(line, name, args, kwargs, result)

    def _inplace(self, line: int, name: str, target: torch.Tensor, fn: str | None) -> None:
        param = self.params.get(id(target))
        if name == "zero_" and any(grad_of(p.tensor) is target for p in self.params.values()):
            self.last_clear = line
        if param is not None and not torch.is_grad_enabled():
            self.manual_updates.add(id(target))
            if param.got_grad and all_zero(grad_of(target)) and param.grad_after is not None:
                self.cleared.append((line, id(target), self.last_clear))
        event = Event(line, name, target=weakref.ref(target), fn=fn, shape=tuple(target.shape))
        self.inplace = [*self.inplace[-(MAX_EVENTS - 1) :], event]

    def _grad_read(self, line: int, target: torch.Tensor) -> None:
        if len(self.nonleaf_reads) + len(self.frozen_reads) >= MAX_EVENTS:
            return
        if not target.is_leaf and not target.retains_grad:
            name = self.name_of(target)
            self.nonleaf_reads.append(Event(line, "grad", target=weakref.ref(target), name=name))
        elif target.is_leaf and not target.requires_grad:
            name = self.name_of(target)
            self.frozen_reads.append(Event(line, "grad", target=weakref.ref(target), name=name))

    def _output(self, line: int, name: str, args: Any, kwargs: Any, result: torch.Tensor) -> None:
        inputs = [a for a in (*args, *kwargs.values()) if isinstance(a, torch.Tensor)]
        if result.grad_fn is not None:
            result.grad_fn.metadata[LINE_KEY] = line
        elif not torch.is_grad_enabled() or torch.is_inference_mode_enabled():
            self._off(line, inputs)
        first = self.forward_nonfinite is None and nonfinite(result)
        if first and not any(nonfinite(a) for a in inputs):
            self.forward_nonfinite = Event(line, name)

    def _off(self, line: int, inputs: list[torch.Tensor]) -> None:
        """An op the snippet ran with gradients off, on tensors that require them."""
        if line in self.no_grad_ops or len(self.no_grad_ops) >= MAX_EVENTS:
            return
        leaves = frozenset().union(*(leaves_behind(a) for a in inputs))
        if leaves:
            mode = "inference_mode" if torch.is_inference_mode_enabled() else "no_grad"
            self.no_grad_ops[line] = Event(line, mode, leaves)

    # --- backward calls -----------------------------------------------------------------------
    def wrap_backward(self, original: Any, roots_of: Any) -> Any:
        @functools.wraps(original)
        def watched(*args: Any, **kwargs: Any) -> Any:
            if self.busy:
                return original(*args, **kwargs)
            self.busy = True
            line = self.line()
            roots: list[Any] = []
            handles: list[Any] = []
            try:
                roots = roots_of(args, kwargs)
                self._before(line)
                handles = self._hook_nodes(roots)
            except Exception:  # noqa: BLE001, S110 - watching must never break the snippet
                pass
            try:
                with self._stepped_aside():
                    result = original(*args, **kwargs)
            except BaseException as exc:
                self._failed(exc, roots, line)
                raise
            finally:
                for handle in handles:
                    handle.remove()
                self.busy = False
            self.busy = True
            try:
                self._after(line)
            except Exception:  # noqa: BLE001, S110
                pass
            finally:
                self.busy = False
            return result

        return watched

    def _stepped_aside(self) -> contextlib.AbstractContextManager[Any]:
        """The watch's mode off the stack while a backward call runs (its every op, and the
        backward walk's, would pass through it for nothing), when it is on top of the stack:
        a mode the snippet pushed since stays where it is."""
        if torch.overrides._get_current_function_mode() is self:
            aside: contextlib.AbstractContextManager[Any] = torch.overrides._pop_mode_temporarily()
            return aside
        return contextlib.nullcontext()

    def _discover(self) -> None:
        total = sum(param.tensor.numel() for param in self.params.values())
        for name, tensor in trained_candidates(self.scopes(), self.optimizers):
            if id(tensor) in self.params or len(self.params) >= MAX_PARAMS:
                continue
            if not isinstance(tensor, torch.Tensor) or not tensor.is_leaf:
                continue
            total += tensor.numel()
            self.copying = self.copying and total <= SNAPSHOT_NUMEL
            param = Param(tensor, name, self.calls)
            param.norms = [None] * min(self.calls, MAX_CALLS)
            if self.copying:
                param.start = tensor.detach().clone()
            self.params[id(tensor)] = param

    def _before(self, line: int | None) -> None:
        self._discover()
        for param in self.params.values():
            grad = grad_of(param.tensor)
            moved = param.snapshot is not None and not torch.equal(param.snapshot, param.tensor)
            kept = param.grad_after is not None and grad is not None
            if kept and moved and not all_zero(grad) and torch.equal(grad, param.grad_after):
                self.accumulating.append((line, id(param.tensor)))
            if self.copying:
                param.snapshot = param.tensor.detach().clone()

    def _hook_nodes(self, roots: list[Any]) -> list[Any]:
        """A pre-hook on each node (the one running raises), a post-hook until a NaN is found."""
        self.running, handles = None, []
        for node in graph_nodes([r.grad_fn for r in roots if isinstance(r, torch.Tensor)]):
            if getattr(node, "variable", None) is not None:
                continue
            handles.append(node.register_prehook(functools.partial(self._node_starts, node)))
            if self.node_nonfinite is None:
                handles.append(node.register_hook(functools.partial(self._node_ran, node)))
        return handles

    def _node_starts(self, node: Any, received: Any) -> None:
        self.running = None
        with contextlib.suppress(Exception):  # watching must never break the backward pass
            self.running = self.where(node)

    def _node_ran(self, node: Any, sent: Any, received: Any) -> None:
        try:
            first = self.node_nonfinite is None and any(nonfinite(g) for g in sent)
            if first and not any(nonfinite(g) for g in received):
                self.node_nonfinite = (type(node).__name__, node.metadata.get(LINE_KEY))
                self.nonfinite_at = self.where(node)
        except Exception:  # noqa: BLE001, S110 - watching must never break the backward pass
            pass

    def _after(self, line: int | None) -> None:
        self.calls += 1
        self.backward_lines.append(line)
        for param in self.params.values():
            grad = grad_of(param.tensor)
            norm = None
            if grad is not None:
                param.got_grad = True
                value = float(grad.detach().double().norm())
                norm = value if value == value and abs(value) != float("inf") else None
                if norm is None and param.nonfinite_call is None:
                    param.nonfinite_call = self.calls
            if len(param.norms) < MAX_CALLS:
                param.norms.append(norm)
            param.grad_after = grad.detach().clone() if grad is not None else None

    def _failed(self, exc: BaseException, roots: list[Any], line: int | None) -> None:
        try:
            message = str(exc)
            kind = error_kind(message)
            if kind is not None and len(self.errors) < MAX_EVENTS:
                root = self.name_of(roots[0]) if roots else None
                self.errors.append((kind, line, root, message, self.running))
                if kind == "inplace":
                    self.modified = modified_by(self.inplace, message, self.name_of)
        except Exception:  # noqa: BLE001, S110
            pass

    # --- optimizers -----------------------------------------------------------------------------
    def _optimizer_made(self, original: Any) -> Any:
        @functools.wraps(original)
        def made(optimizer: Any, *args: Any, **kwargs: Any) -> Any:
            original(optimizer, *args, **kwargs)
            if len(self.optimizers) < MAX_EVENTS:
                self.optimizers.append(optimizer)
                self.optimizer_lines.append(self.line())

        return made

    def _step_starts(self, optimizer: Any, args: Any, kwargs: Any) -> None:
        self.busy = True
        try:
            self.steps += 1
            line = self.line()
            last = self.step_calls.get(id(optimizer), 0)
            self.step_calls[id(optimizer)] = self.calls
            if self.calls == last:
                return
            for group in optimizer.param_groups:
                for tensor in group["params"]:
                    param = self.params.get(id(tensor))
                    if param is None or param.grad_after is None or all_zero(param.grad_after):
                        continue
                    if all_zero(grad_of(tensor)):
                        self.cleared.append((line, id(tensor), self.last_clear))
        except Exception:  # noqa: BLE001 - watching must never break the snippet
            self.busy = False

    def _step_ends(self, optimizer: Any, args: Any, kwargs: Any) -> None:
        self.busy = False

    def _zero_grad(self, original: Any) -> Any:
        @functools.wraps(original)
        def cleared(*args: Any, **kwargs: Any) -> Any:
            if self.busy:
                return original(*args, **kwargs)
            self.last_clear = self.line()
            self.busy = True
            try:
                return original(*args, **kwargs)
            finally:
                self.busy = False

        return cleared

    # --- on and off -----------------------------------------------------------------------------
    def install(self) -> None:
        targets = [
            (torch.Tensor, "backward", self.wrap_backward(torch.Tensor.backward, tensor_roots)),
            (
                torch.autograd,
                "backward",
                self.wrap_backward(torch.autograd.backward, autograd_roots),
            ),
            (
                torch.optim.Optimizer,
                "__init__",
                self._optimizer_made(torch.optim.Optimizer.__init__),
            ),
            (torch.optim.Optimizer, "zero_grad", self._zero_grad(torch.optim.Optimizer.zero_grad)),
            (torch.nn.Module, "zero_grad", self._zero_grad(torch.nn.Module.zero_grad)),
        ]
        for owner, attr, replacement in targets:
            self.originals.append((owner, attr, getattr(owner, attr)))
            setattr(owner, attr, replacement)
        self.handles = [
            optim_hooks.register_optimizer_step_pre_hook(self._step_starts),
            optim_hooks.register_optimizer_step_post_hook(self._step_ends),
        ]
        self.__enter__()

    def finish(self) -> None:
        """Everything off again, in the reverse order (a process may run more snippets)."""
        self.busy = True
        with contextlib.suppress(Exception):  # the snippet left a mode of its own on the stack
            self.__exit__(None, None, None)
        for handle in self.handles:
            handle.remove()
        for owner, attr, original in reversed(self.originals):
            setattr(owner, attr, original)
        self.originals.clear()
        with contextlib.suppress(Exception):  # a hostile snippet's objects may raise anywhere
            self._discover()
