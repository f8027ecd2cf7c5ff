"""Helpers of the backward-record tests: run a snippet and check it against plain Python and
torch; find nodes and the order they ran in."""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Any

import torch

from app.sandbox.backward_result import BackwardCall, BackwardNode, TensorPreview
from app.sandbox.result import RunResult
from tests.conftest import SandboxHarness
from tests.sandbox.plain import plain_python
from tests.sandbox.test_payload import plain_torch_grads


def run(sandbox: SandboxHarness, code: str, tmp_path: Path) -> RunResult:
    """Run in the sandbox; check stdout and every named `.grad` against plain Python/torch."""
    code = textwrap.dedent(code).lstrip()
    result = sandbox.run(code)
    assert result.status == "ok", result
    reference = plain_python(code, tmp_path)
    assert result.stdout == reference.stdout
    expected = plain_torch_grads(code)
    for tensor in result.tensors:
        grad = expected[tensor.name]
        assert (tensor.grad is None) == (grad is None), tensor.name
        if grad is not None:
            assert torch.allclose(torch.tensor(tensor.grad), grad), tensor.name
    return result


def values(preview: TensorPreview | None) -> Any:
    return None if preview is None else preview.values


def by_name(call: BackwardCall, name: str) -> BackwardNode:
    (node,) = [node for node in call.nodes if name in node.names]
    return node


def ran(call: BackwardCall) -> list[str]:
    """The labels of the nodes in execution order, each with its names."""
    nodes = {node.id: node for node in call.nodes}
    return [nodes[i].label + "".join(f"({name})" for name in nodes[i].names) for i in call.order]
