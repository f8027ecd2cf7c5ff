"""The backward walk's record at its limits: errors, bounds on nodes, calls and values,
hostile tensors, and the wrappers coming off; the run itself is never the price."""

from __future__ import annotations

import textwrap
from pathlib import Path

import torch
from fastapi.testclient import TestClient

from app.sandbox import backward_record, backward_types
from tests.conftest import SandboxHarness
from tests.sandbox.backward_checks import values
from tests.sandbox.plain import plain_python


def test_a_call_that_raises_is_recorded_and_the_error_unchanged(
    sandbox: SandboxHarness, tmp_path: Path
) -> None:
    code = "import torch\nx = torch.tensor(2.0, requires_grad=True)\ny = x.exp()\ny.backward()\ny.backward()\n"
    result = sandbox.run(code)
    reference = plain_python(code, tmp_path)
    assert result.status == "error" and result.error is not None and result.error.line == 5
    assert result.stderr.splitlines()[-1] == reference.stderr.splitlines()[-1]
    # torch's own frames only: Tensor.backward -> autograd.backward -> _engine_run_backward.
    assert "[3 frames inside torch or Python hidden]" in result.stderr
    first, second = result.backward.calls
    assert first.error is None and second.error == "RuntimeError"
    assert values(second.grads[0].before) == values(first.grads[0].after)


def test_a_huge_graph_is_cut_with_a_note(sandbox: SandboxHarness) -> None:
    result = sandbox.run(
        "import torch\nx = torch.tensor(1.0, requires_grad=True)\ny = x\n"
        "for _ in range(10_000):\n    y = y * 1.0001\ny.backward()\nprint(x.grad)\n"
    )
    assert result.status == "ok", result
    assert result.stdout.startswith("tensor(2.718")
    (call,) = result.backward.calls
    assert call.truncated and call.note and str(backward_types.MAX_NODES) in call.note
    assert len(call.nodes) == backward_types.MAX_NODES == len(call.order)
    assert call.unreached == []  # unknown when cut: not claimed


def test_calls_beyond_the_bound_run_unrecorded(sandbox: SandboxHarness) -> None:
    result = sandbox.run(
        "import torch\nx = torch.ones(3, requires_grad=True)\n"
        "for _ in range(20):\n    (x * 2).sum().backward()\nprint(x.grad)\n"
    )
    assert result.stdout == "tensor([40., 40., 40.])\n"
    walk = result.backward
    assert walk.total_calls == 20 and len(walk.calls) == backward_types.MAX_CALLS
    assert walk.truncated and walk.note and "20 backward calls" in walk.note


def test_values_per_tensor_are_bounded(sandbox: SandboxHarness) -> None:
    result = sandbox.run(
        "import torch\nx = torch.arange(1000.0, requires_grad=True)\n(x * 3).sum().backward()\n"
    )
    (call,) = result.backward.calls
    after = call.grads[0].after
    assert after is not None and after.cut and after.shape == [1000]
    assert after.values == [3.0] * backward_types.MAX_VALUES


def test_no_backward_no_record(sandbox: SandboxHarness) -> None:
    result = sandbox.run("import torch\nx = torch.ones(2, requires_grad=True)\nprint(x * 2)\n")
    assert result.backward.model_dump() == {
        "calls": [],
        "total_calls": 0,
        "truncated": False,
        "note": None,
    }


def test_the_wrappers_come_off_after_the_run() -> None:
    originals = (torch.Tensor.backward, torch.autograd.backward, torch.autograd.grad)
    recorder = backward_record.install({}, "snippet.py")
    assert torch.Tensor.backward is not originals[0]
    recorder.finish()
    assert (torch.Tensor.backward, torch.autograd.backward, torch.autograd.grad) == originals


def test_openapi_documents_the_backward_field(sqlite_client: TestClient) -> None:
    schemas = sqlite_client.get("/openapi.json").json()["components"]["schemas"]
    assert "backward" in schemas["RunResult"]["properties"]
    assert {"BackwardWalk", "BackwardCall", "BackwardNode", "GradChange"} <= set(schemas)


def test_wide_nodes_and_many_roots_are_cut_with_notes(sandbox: SandboxHarness) -> None:
    result = sandbox.run(
        "import torch\nparts = [torch.ones(1, requires_grad=True) for _ in range(300)]\n"
        "torch.cat(parts).sum().backward()\n"
        "outs = [p * 2 for p in parts]\n"
        "torch.autograd.backward(outs, [torch.ones(1)] * 300)\n"
        "print(parts[0].grad, parts[299].grad)\n"
    )
    assert result.status == "ok", result
    assert result.stdout == "tensor([3.]) tensor([3.])\n"
    wide, many = result.backward.calls
    cat = next(node for node in wide.nodes if node.label == "CatBackward0")
    assert len(cat.sent) == backward_types.MAX_SLOTS
    assert wide.truncated and wide.note and "more than 64 inputs" in wide.note
    assert len(many.roots) == backward_types.MAX_ROOTS and many.truncated
    assert many.note and "first 100 outputs" in many.note


def test_a_hostile_tensor_costs_the_record_not_the_run(
    sandbox: SandboxHarness, tmp_path: Path
) -> None:
    code = textwrap.dedent(
        """
        import torch
        class Evil(torch.Tensor):
            @property
            def grad_fn(self):
                raise RuntimeError("no grad_fn for you")
        evil = torch.ones(2).as_subclass(Evil)
        x = torch.ones(2, requires_grad=True)
        (x * 2).sum().backward()
        (x * 2).sum().backward()
        print(x.grad)
        """
    ).lstrip()
    result = sandbox.run(code)
    assert result.status == "ok", result
    assert result.stdout == plain_python(code, tmp_path).stdout == "tensor([4., 4.])\n"
    assert result.backward.total_calls == 2
