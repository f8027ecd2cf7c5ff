"""What the gradient doctor concludes from its watch (doctor_watch.py), inside the child.

Each finding is plain data: its kind, the tensor as the snippet names it, the snippet's line,
a cause and a few facts (lines, op names, norms). The server validates them and writes the
words (app/learning/running/doctor.py); nothing here is shown as markup. The thresholds are
documented in docs/doctor.md.
"""

from __future__ import annotations

from typing import Any, TypedDict

import torch

from app.sandbox.doctor_state import MAX_CALLS, Event, Param
from app.sandbox.doctor_watch import Watch

MAX_FINDINGS = 50
EXPLODING_NORM = 1e3  # a gradient norm at least this large ...
EXPLODING_GROWTH = 1e3  # ... and at least this many times its first norm
VANISHING_RATIO = 1e-5  # a weight's gradient norm below this fraction of the largest one's

Fact = str | int | float | None


class RawFinding(TypedDict):
    kind: str
    tensor: str | None
    line: int | None
    cause: str | None
    facts: dict[str, Fact]
    call: int | None  # the backward call (its number in the run's backward record) ...
    node: str | None  # ... and the id of the node in it the finding is about


class ParameterTrace(TypedDict):
    name: str
    shape: list[int]
    grad_norms: list[float | None]


class DoctorRecord(TypedDict):
    findings: list[RawFinding]
    parameters: list[ParameterTrace]
    calls: int


def _finding(
    kind: str, tensor: str | None, line: int | None, cause: str | None = None, **facts: Fact
) -> RawFinding:
    return {
        "kind": kind,
        "tensor": tensor,
        "line": line,
        "cause": cause,
        "facts": facts,
        "call": None,
        "node": None,
    }


def _at(finding: RawFinding, where: tuple[int, str] | None) -> RawFinding:
    """`finding` about the backward walk's node `where` (call number, node id), if known."""
    if where is not None:
        finding["call"], finding["node"] = where
    return finding


def diagnose(watch: Watch, failed: bool) -> DoctorRecord:
    """The findings, with `failed` when the snippet ended in an exception (its loop did not
    run to the end, so that parameters not moving is no finding)."""
    found = [*_errors(watch), *_no_grad(watch), *_accumulating(watch)]
    cleared = _cleared(watch)
    found += cleared
    found += _not_in_optimizer(watch)
    if not cleared and not failed:
        found += _no_update(watch)
    found += [*_non_finite(watch), *_exploding(watch), *_vanishing(watch)]
    parameters: list[ParameterTrace] = [
        {"name": p.name, "shape": list(p.tensor.shape), "grad_norms": p.norms}
        for p in watch.params.values()
    ]
    return {"findings": found[:MAX_FINDINGS], "parameters": parameters, "calls": watch.calls}


def _last(events: list[Event]) -> Event | None:
    return events[-1] if events else None


def _errors(watch: Watch) -> list[RawFinding]:
    found: list[RawFinding] = []
    seen: set[str] = set()
    for kind, line, root, _, where in watch.errors:
        if kind in seen:
            continue
        seen.add(kind)
        if kind == "inplace":
            modified = watch.modified
            if modified is None:
                found.append(_at(_finding(kind, root, line, backward_line=line), where))
            else:
                op_line, name, op = modified
                found.append(_at(_finding(kind, name, op_line, op=op, backward_line=line), where))
        elif kind == "no-graph":
            found.append(_no_graph(watch, root, line))
        else:
            found.append(_at(_finding(kind, root, line), where))
    return found


def _no_graph(watch: Watch, root: str | None, line: int | None) -> RawFinding:
    off = _last(list(watch.no_grad_ops.values()))
    if off is not None:
        return _finding("no-graph", root, line, off.op, op_line=off.line)
    cut = _last(list(watch.cuts.values()))
    if cut is not None:
        return _finding("no-graph", root, line, "cut", op=cut.op, op_line=cut.line)
    return _finding("no-graph", root, line, "frozen")


def _no_grad(watch: Watch) -> list[RawFinding]:
    if watch.calls == 0:
        return []
    found: list[RawFinding] = []
    cuts = list(watch.cuts.values())
    offs = list(watch.no_grad_ops.values())
    for param in watch.params.values():
        if param.got_grad or not param.tensor.requires_grad:
            continue
        key = id(param.tensor)
        cut = next((e for e in reversed(cuts) if key in e.leaves), None)
        off = next((e for e in reversed(offs) if key in e.leaves), None)
        if cut is not None:
            found.append(_finding("no-grad", param.name, cut.line, "cut", op=cut.op))
        elif off is not None:
            found.append(_finding("no-grad", param.name, off.line, off.op))
        else:
            found.append(_finding("no-grad", param.name, None, "unused"))
    named: set[str | None] = set()
    for event, cause in [(e, "non-leaf") for e in watch.nonleaf_reads] + [
        (e, "frozen") for e in watch.frozen_reads
    ]:
        target = event.target() if event.target is not None else None
        if event.name in named or target is None or target.grad is not None:
            continue
        named.add(event.name)
        found.append(_finding("no-grad", event.name, event.line, cause))
    return found


def _name(watch: Watch, tensor_id: int) -> str | None:
    param = watch.params.get(tensor_id)
    return param.name if param is not None else None


def _accumulating(watch: Watch) -> list[RawFinding]:
    if not watch.accumulating:
        return []
    line, first = watch.accumulating[0]
    count = len({tensor_id for _, tensor_id in watch.accumulating})
    return [_finding("accumulating", _name(watch, first), line, count=count)]


def _cleared(watch: Watch) -> list[RawFinding]:
    if not watch.cleared:
        return []
    line, first, clear_line = watch.cleared[0]
    return [_finding("cleared-before-step", _name(watch, first), line, clear_line=clear_line)]


def _moved(param: Param) -> bool:
    return param.start is not None and not torch.equal(param.start, param.tensor)


def _optimized(watch: Watch) -> set[int]:
    return {id(t) for o in watch.optimizers for g in o.param_groups for t in g["params"]}


def _not_in_optimizer(watch: Watch) -> list[RawFinding]:
    if not watch.optimizers:
        return []
    applied = _optimized(watch)
    line = watch.optimizer_lines[0]
    return [
        _finding("not-in-optimizer", p.name, line)
        for key, p in watch.params.items()
        if p.got_grad and p.tensor.requires_grad and key not in applied and not _moved(p)
        if key not in watch.manual_updates and p.start is not None
    ]


def _no_update(watch: Watch) -> list[RawFinding]:
    """Nothing moved though the code means to train: it made an optimizer, or updates a
    parameter by hand. (Code that only calls backward, as a lesson's snippet may, is not
    training code: its parameters are meant to stay.)"""
    if not watch.optimizers and not watch.manual_updates:
        return []
    trained = [p for p in watch.params.values() if p.got_grad and p.start is not None]
    if not trained or any(_moved(p) for p in trained):
        return []
    lrs = [g.get("lr") for o in watch.optimizers for g in o.param_groups]
    if watch.steps and lrs and all(_is_zero(lr) for lr in lrs):
        return [_finding("no-update", trained[0].name, watch.optimizer_lines[0], "lr-zero")]
    if not watch.steps and not watch.manual_updates:
        return [_finding("no-update", trained[0].name, None, "no-step")]
    return [_finding("no-update", trained[0].name, None, "unchanged")]


def _is_zero(value: Any) -> bool:
    try:
        return float(value) == 0.0
    except (TypeError, ValueError):
        return False


def _non_finite(watch: Watch) -> list[RawFinding]:
    bad = [p for p in watch.params.values() if p.nonfinite_call is not None]
    if not bad:
        return []
    first = min(bad, key=lambda p: p.nonfinite_call or 0)
    node, node_line = watch.node_nonfinite or (None, None)
    forward = watch.forward_nonfinite
    if forward is not None:
        found = _finding(
            "non-finite",
            first.name,
            forward.line,
            "forward",
            op=forward.op,
            node=node,
            call=first.nonfinite_call,
        )
    else:
        found = _finding(
            "non-finite", first.name, node_line, "backward", node=node, call=first.nonfinite_call
        )
    return [_at(found, watch.nonfinite_at)]


def _exploding(watch: Watch) -> list[RawFinding]:
    worst: tuple[float, Param, float, float] | None = None
    for param in watch.params.values():
        norms = [n for n in param.norms if n is not None and n > 0]
        if len(norms) < 2:
            continue
        peak = max(norms)
        growth = peak / norms[0]
        exploded = peak >= EXPLODING_NORM and growth >= EXPLODING_GROWTH
        if exploded and (worst is None or growth > worst[0]):
            worst = (growth, param, norms[0], peak)
    if worst is None:
        return []
    _, param, first, peak = worst
    return [_finding("exploding", param.name, None, "steps", first=first, peak=peak)]


def _vanishing(watch: Watch) -> list[RawFinding]:
    """In some backward call, one weight's gradient norm is a tiny fraction of another's."""
    weights = [p for p in watch.params.values() if p.tensor.dim() >= 2]
    worst: tuple[float, Param, float, Param, float] | None = None
    for call in range(min(watch.calls, MAX_CALLS)):
        norms = [(p.norms[call], p) for p in weights if len(p.norms) > call and p.norms[call]]
        if len(norms) < 2:
            continue
        low, param = min(norms, key=lambda n: n[0] or 0.0)
        high, top = max(norms, key=lambda n: n[0] or 0.0)
        if low is None or high is None:
            continue
        if low < VANISHING_RATIO * high and (worst is None or low / high < worst[0]):
            worst = (low / high, param, low, top, high)
    if worst is None:
        return []
    _, param, low, top, high = worst
    return [
        _finding(
            "vanishing", param.name, None, "layers", norm=low, largest=high, largest_tensor=top.name
        )
    ]
