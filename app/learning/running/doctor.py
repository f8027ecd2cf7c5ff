"""The gradient doctor's words: each finding the child reports (app/sandbox/doctor_findings.py)
said in plain words, with the lesson that teaches its cause (docs/doctor.md).

The child is untrusted and its tensor names are the learner's text: every piece of it is
escaped here, and the only markup is <code>.
"""

from __future__ import annotations

from collections.abc import Mapping
from html import escape

from app.learning.doctor_schemas import DoctorAnswer, DoctorFinding, DoctorParameter
from app.sandbox.backward_result import BackwardWalk
from app.sandbox.doctor_result import RawFinding
from app.sandbox.result import RunResult

# How a cut from the graph is written in code.
CUT_OPS = {
    "detach": ".detach()",
    "data": ".data",
    "item": ".item()",
    "numpy": ".numpy()",
    "tolist": ".tolist()",
    "tensor": "torch.tensor(...)",
}
OFF = {"no_grad": "torch.no_grad()", "inference_mode": "torch.inference_mode()"}
LESSONS = {
    ("no-grad", "cut"): "turning-gradients-off",
    ("no-grad", "no_grad"): "turning-gradients-off",
    ("no-grad", "inference_mode"): "turning-gradients-off",
    ("no-grad", "unused"): "debugging-gradients",
    ("no-grad", "frozen"): "requires-grad-and-leaves",
    ("no-grad", "non-leaf"): "retain-grad-and-hooks",
    ("no-graph", "frozen"): "requires-grad-and-leaves",
    ("accumulating", None): "gradients-accumulate",
    ("cleared-before-step", None): "grad-in-training-loops",
    ("not-in-optimizer", None): "grad-in-training-loops",
    ("no-update", None): "grad-in-training-loops",
    ("non-finite", None): "debugging-gradients",
    ("exploding", None): "mixed-precision-and-clipping",
    ("vanishing", None): "debugging-gradients",
    ("inplace", None): "in-place-and-versions",
    ("graph-freed", None): "graphs-used-twice",
    ("non-scalar", None): "non-scalar-backward",
    ("no-graph", None): "turning-gradients-off",
}


def lesson_for(kind: str, cause: str | None) -> str:
    return LESSONS.get((kind, cause)) or LESSONS.get((kind, None)) or "debugging-gradients"


def code(text: object) -> str:
    return f"<code>{escape(str(text))}</code>"


def _on(line: object) -> str:
    return f" on line {int(line)}" if isinstance(line, int) else ""


def _number(value: object) -> str:
    return f"{value:.3g}" if isinstance(value, int | float) else "?"


def _no_grad(t: str, f: RawFinding) -> str:
    cause, facts = f.cause, f.facts
    if cause == "cut":
        op = CUT_OPS.get(str(facts.get("op")), str(facts.get("op")))
        return (
            f"{t} never gets a gradient: {code(op)}{_on(f.line)} cuts it off from the loss, "
            "so backward() cannot reach it. Keep the computation on the graph (no "
            ".detach(), .data, .item() or NumPy on the way to the loss)."
        )
    if cause in OFF:
        return (
            f"{t} never gets a gradient: it is used only inside {code(OFF[cause])}"
            f"{_on(f.line)}, where nothing is recorded for backward()."
        )
    if cause == "frozen":
        return (
            f"{t} has no gradient{_on(f.line)}: it does not require grad "
            "(requires_grad=False), so backward() never fills its .grad. Create it with "
            "requires_grad=True."
        )
    if cause == "non-leaf":
        return (
            f"{t} has no .grad{_on(f.line)}: it is not a leaf (it was computed from other "
            "tensors), and backward() fills .grad only for leaves, unless you call "
            f"{code('.retain_grad()')} on it before backward()."
        )
    return (
        f"{t} never gets a gradient: the loss does not use it, so backward() never reaches "
        "it. Is a layer left out of forward()?"
    )


def _no_graph(t: str, f: RawFinding) -> str:
    start = f"{t} has no grad_fn, so backward(){_on(f.line)} has no graph to go through: "
    op_line = f.facts.get("op_line")
    if f.cause in OFF:
        return start + f"it was computed under {code(OFF[f.cause])}{_on(op_line)}."
    if f.cause == "cut":
        op = CUT_OPS.get(str(f.facts.get("op")), str(f.facts.get("op")))
        return (
            start + f"it was computed from a tensor cut off the graph by {code(op)}{_on(op_line)}."
        )
    return start + "none of the tensors it was computed from requires grad."


def _steps(t: str, f: RawFinding) -> str:
    facts = f.facts
    if f.kind == "accumulating":
        return (
            f"The gradients of successive steps add up: nothing clears .grad between one "
            f"backward(){_on(f.line)} and the next, so each update uses the sum of every "
            f"gradient so far ({facts.get('count')} parameters, {t} first). Call "
            f"{code('optimizer.zero_grad()')} once per step."
        )
    if f.kind == "cleared-before-step":
        return (
            f"The gradients are cleared{_on(facts.get('clear_line'))} between backward() and "
            f"the update{_on(f.line)}: the update sees no gradient and moves nothing ({t} "
            "first). Clear them before backward() or after the step."
        )
    if f.kind == "not-in-optimizer":
        return (
            f"{t} gets a gradient, but no optimizer applies it: the optimizer made"
            f"{_on(f.line)} was not given it, so it never changes."
        )
    if f.cause == "lr-zero":
        return (
            f"The parameters do not change across the loop ({t} first): the optimizer made"
            f"{_on(f.line)} has a learning rate of 0."
        )
    if f.cause == "no-step":
        return (
            f"The parameters do not change across the loop ({t} first): nothing applies the "
            f"gradients, no {code('optimizer.step()')} and no update by hand."
        )
    return f"The parameters do not change across the loop ({t} first): every update was zero."


def _values(t: str, f: RawFinding) -> str:
    facts = f.facts
    if f.kind == "non-finite":
        node = facts.get("node")
        where = f" The backward node {code(node)} is where it first appeared." if node else ""
        if f.cause == "forward":
            return (
                f"{t} gets a NaN or infinite gradient. It starts in the forward pass: "
                f"{code(facts.get('op'))}{_on(f.line)} made a NaN or infinite value.{where}"
            )
        return (
            f"{t} gets a NaN or infinite gradient, though the forward values were finite: the "
            f"backward of the op{_on(f.line)} made it (sqrt or log at 0, a division by 0).{where}"
        )
    if f.kind == "exploding":
        return (
            f"The gradient of {t} grows from {_number(facts.get('first'))} to "
            f"{_number(facts.get('peak'))} across the steps: each update makes the next "
            "gradient larger. Lower the learning rate, or clip the gradient norm."
        )
    return (
        f"The gradient of {t} is {_number(facts.get('norm'))}, less than 1/100000 of "
        f"{code(facts.get('largest_tensor'))}'s ({_number(facts.get('largest'))}) in the same "
        "backward call: it barely learns. Deep stacks of sigmoid or tanh shrink the gradient "
        "at every layer; try ReLU or another initialisation."
    )


def _errors(t: str, f: RawFinding) -> str:
    if f.kind == "inplace":
        op = f.facts.get("op")
        return (
            f"{code(op) if op else 'An in-place op'}{_on(f.line)} changes {t} in place, but "
            f"backward(){_on(f.facts.get('backward_line'))} needs the value the graph saved "
            "before: the version counter says it changed. Write it out of place "
            f"({code('h = h + 1')}, not {code('h += 1')}), or clone it first."
        )
    if f.kind == "graph-freed":
        return (
            f"backward(){_on(f.line)} goes through a graph that an earlier backward() already "
            f"freed ({t}). Run the forward pass inside the loop so that each step builds its "
            f"own graph, or pass {code('retain_graph=True')} to the first backward()."
        )
    return (
        f"{t} is not a single number, and backward(){_on(f.line)} without a gradient "
        f"argument needs one: reduce it ({code('.mean()')} or {code('.sum()')}) or pass "
        f"{code('gradient=')} a tensor of its shape."
    )


WORDS = {
    "no-grad": _no_grad,
    "no-graph": _no_graph,
    "accumulating": _steps,
    "cleared-before-step": _steps,
    "not-in-optimizer": _steps,
    "no-update": _steps,
    "non-finite": _values,
    "exploding": _values,
    "vanishing": _values,
    "inplace": _errors,
    "graph-freed": _errors,
    "non-scalar": _errors,
}


def walk_node(raw: RawFinding, backward: BackwardWalk) -> tuple[int | None, str | None]:
    """The finding's backward call and node, when the run's backward record has that node
    (the child is untrusted: a node it names must be one the walk can open at)."""
    call = next((c for c in backward.calls if c.number == raw.call), None)
    if call is None or not any(node.id == raw.node for node in call.nodes):
        return None, None
    return raw.call, raw.node


def finding(
    raw: RawFinding, backward: BackwardWalk | None = None, titles: Mapping[str, str] | None = None
) -> DoctorFinding:
    tensor = code(raw.tensor) if raw.tensor else "A tensor"
    call, node = walk_node(raw, backward) if backward is not None else (None, None)
    lesson = lesson_for(raw.kind, raw.cause)
    return DoctorFinding(
        kind=raw.kind,
        tensor=raw.tensor,
        line=raw.line,
        message_html=WORDS[raw.kind](tensor, raw),
        lesson=lesson,
        lesson_title=(titles or {}).get(lesson),
        call=call,
        node=node,
    )


def answer(result: RunResult, titles: Mapping[str, str] | None = None) -> DoctorAnswer:
    """POST /api/doctor's answer for a run the doctor watched; `titles`: each lesson's title
    by its slug, so that a page names a finding's lesson as the catalog does."""
    record = result.doctor()
    findings = [finding(raw, result.backward, titles) for raw in record.findings] if record else []
    parameters = [
        DoctorParameter(name=p.name, shape=p.shape, grad_norms=p.grad_norms)
        for p in (record.parameters if record else [])
    ]
    return DoctorAnswer(findings=findings, parameters=parameters, result=result)
