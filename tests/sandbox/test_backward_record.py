"""The backward walk's record, on known graphs, against gradients by hand and plain torch.

Every snippet also runs as plain `python`: recording must not change what it prints, nor the
`.grad` it leaves behind.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from app.sandbox import backward_record
from tests.conftest import SandboxHarness
from tests.sandbox.backward_checks import by_name, ran, run, values


def test_linear_sum(sandbox: SandboxHarness, tmp_path: Path) -> None:
    result = run(
        sandbox,
        """
        import torch
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        x = torch.tensor([3.0, 4.0])
        b = torch.tensor(0.5, requires_grad=True)
        y = (w * x + b).sum()
        y.backward()
        print(w.grad, b.grad)
        """,
        tmp_path,
    )
    (call,) = result.backward.calls
    assert (call.number, call.api, call.line) == (1, "Tensor.backward", 6)
    assert result.backward.total_calls == 1 and not result.backward.truncated
    (root,) = call.roots
    assert (root.name, root.implicit, root.gradient, root.shape) == ("y", True, None, [])
    # The engine runs a node once all its inputs are in, newest first: by hand for this graph.
    assert ran(call) == [
        "SumBackward0(y)",
        "AddBackward0",
        "AccumulateGrad(b)",
        "MulBackward0",
        "AccumulateGrad(w)",
    ]
    nodes = {node.label: node for node in call.nodes if node.kind == "function"}
    assert values(nodes["SumBackward0"].received[0]) == 1.0
    assert values(nodes["SumBackward0"].sent[0]) == [1.0, 1.0]
    # d/d(wx) = 1 per element; d/db = 2 (b was broadcast over two elements).
    assert [values(g) for g in nodes["AddBackward0"].sent] == [[1.0, 1.0], 2.0]
    # d/dw (w * x) = x; x does not require grad, so nothing is sent its way.
    assert [values(g) for g in nodes["MulBackward0"].sent] == [[3.0, 4.0], None]
    assert [(s.attr, s.name, s.shape) for s in nodes["MulBackward0"].saved] == [
        ("_saved_other", "x", [2])
    ]
    grads = {change.name: change for change in call.grads}
    assert grads["w"].before is None and values(grads["w"].after) == [3.0, 4.0]
    assert grads["b"].before is None and values(grads["b"].after) == 2.0
    edges = {(e.source, e.target, e.slot) for e in call.edges}
    add, mul = nodes["AddBackward0"].id, nodes["MulBackward0"].id
    assert (add, mul, 0) in edges and (add, by_name(call, "b").id, 1) in edges
    assert (mul, by_name(call, "w").id, 0) in edges


def test_two_calls_accumulate(sandbox: SandboxHarness, tmp_path: Path) -> None:
    result = run(
        sandbox,
        """
        import torch
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        for _ in range(2):
            (x * x).sum().backward()
        print(x.grad)
        """,
        tmp_path,
    )
    first, second = result.backward.calls
    assert (first.number, second.number, first.line, second.line) == (1, 2, 4, 4)
    for call in (first, second):
        assert ran(call) == ["SumBackward0", "MulBackward0", "AccumulateGrad(x)"]
        mul = next(node for node in call.nodes if node.label == "MulBackward0")
        # x * x sends x's value along both of its edges; AccumulateGrad receives their sum.
        assert [values(g) for g in mul.sent] == [[1.0, 2.0], [1.0, 2.0]]
        assert values(by_name(call, "x").received[0]) == [2.0, 4.0]
    (before_1,) = first.grads
    (before_2,) = second.grads
    assert before_1.before is None and values(before_1.after) == [2.0, 4.0]
    assert values(before_2.before) == [2.0, 4.0] and values(before_2.after) == [4.0, 8.0]


def test_non_scalar_backward_with_a_gradient(sandbox: SandboxHarness, tmp_path: Path) -> None:
    result = run(
        sandbox,
        """
        import torch
        x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        v = torch.tensor([1.0, 0.5, 0.0])
        y = x ** 2
        y.backward(gradient=v)
        """,
        tmp_path,
    )
    (call,) = result.backward.calls
    (root,) = call.roots
    assert root.name == "y" and not root.implicit and values(root.gradient) == [1.0, 0.5, 0.0]
    assert ran(call) == ["PowBackward0(y)", "AccumulateGrad(x)"]
    pow_node = by_name(call, "y")
    assert values(pow_node.received[0]) == [1.0, 0.5, 0.0]
    assert values(pow_node.sent[0]) == [2.0, 2.0, 0.0]  # v * 2x
    assert [s.name for s in pow_node.saved] == ["x"]


def test_retain_grad_on_an_intermediate(sandbox: SandboxHarness, tmp_path: Path) -> None:
    result = run(
        sandbox,
        """
        import torch
        a = torch.tensor(3.0, requires_grad=True)
        b = a * a
        b.retain_grad()
        c = 2 * b + 1
        c.backward()
        print(a.grad, b.grad)
        """,
        tmp_path,
    )
    (call,) = result.backward.calls
    grads = {change.name: change for change in call.grads}
    assert not grads["b"].is_leaf and grads["b"].before is None
    assert values(grads["b"].after) == 2.0
    assert values(grads["a"].after) == 12.0  # 2 * 2a
    assert values(by_name(call, "b").received[0]) == 2.0


def test_a_hook_that_doubles(sandbox: SandboxHarness, tmp_path: Path) -> None:
    result = run(
        sandbox,
        """
        import torch
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        y.register_hook(lambda g: g * 2)
        y.sum().backward()
        print(x.grad)
        """,
        tmp_path,
    )
    (call,) = result.backward.calls
    # The node receives the gradient after the tensor's hook doubled it.
    assert values(by_name(call, "y").received[0]) == [2.0, 2.0]
    assert values(by_name(call, "y").sent[0]) == [6.0, 6.0]
    assert values(call.grads[0].after) == [6.0, 6.0]


def test_detach_cuts_the_graph(sandbox: SandboxHarness, tmp_path: Path) -> None:
    result = run(
        sandbox,
        """
        import torch
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        x = torch.tensor([3.0, 4.0], requires_grad=True)
        y = (w.detach() * x).sum()
        y.backward()
        print(w.grad, x.grad)
        """,
        tmp_path,
    )
    (call,) = result.backward.calls
    assert call.unreached == ["w"]
    assert [change.name for change in call.grads] == ["x"]
    assert not any("w" in node.names for node in call.nodes)
    assert values(call.grads[0].after) == [1.0, 2.0]


def test_create_graph_then_a_second_order_call(sandbox: SandboxHarness, tmp_path: Path) -> None:
    result = run(
        sandbox,
        """
        import torch
        t = torch.tensor(2.0, requires_grad=True)
        f = t ** 3
        (first,) = torch.autograd.grad(f, t, create_graph=True)
        first.backward()
        print(first.item(), t.grad)
        """,
        tmp_path,
    )
    one, two = result.backward.calls
    assert (one.api, one.create_graph, one.retain_graph) == ("torch.autograd.grad", True, True)
    assert values(one.inputs[0].result) == 12.0  # 3t²
    assert one.grads[0].before is None and one.grads[0].after is None  # grad() leaves .grad
    assert by_name(one, "t").step is None  # AccumulateGrad does not run under grad()
    assert (two.api, two.create_graph, two.roots[0].name) == ("Tensor.backward", False, "first")
    assert values(two.grads[0].after) == 12.0  # 6t
    assert two.order[-1] == by_name(two, "t").id
    assert len(two.nodes) > len(one.nodes)  # the backward of the backward


def test_autograd_grad(sandbox: SandboxHarness, tmp_path: Path) -> None:
    result = run(
        sandbox,
        """
        import torch
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        x = torch.tensor([3.0, 4.0])
        (g,) = torch.autograd.grad((w * x).sum(), w)
        print(g, w.grad)
        """,
        tmp_path,
    )
    (call,) = result.backward.calls
    assert (call.api, call.retain_graph, call.create_graph) == ("torch.autograd.grad", False, False)
    (item,) = call.inputs
    assert item.name == "w" and values(item.result) == [3.0, 4.0]
    assert ran(call) == ["SumBackward0", "MulBackward0"]
    assert call.grads[0].before is None and call.grads[0].after is None


@pytest.mark.parametrize("names", [["w"], []])
def test_unnamed_tensors_get_no_name(sandbox: SandboxHarness, names: list[str]) -> None:
    bind = "w = " if names else ""
    result = sandbox.run(
        f"import torch\n{bind}torch.ones(2, requires_grad=True)\n"
        "z = torch.ones(2, requires_grad=True)\n(z * 2).sum().backward()\n"
    )
    (call,) = result.backward.calls
    assert call.unreached == names
    assert [change.name for change in call.grads] == ["z"]


def test_iterators_reach_torch_whole(sandbox: SandboxHarness, tmp_path: Path) -> None:
    """The record reads `inputs`; a generator like model.parameters() must still reach torch."""
    result = run(
        sandbox,
        """
        import torch
        torch.manual_seed(0)
        model = torch.nn.Linear(2, 1)
        loss = model(torch.tensor([[1.0, 2.0]])).sum()
        grads = torch.autograd.grad(loss, model.parameters(), retain_graph=True)
        print([g.tolist() for g in grads])
        torch.autograd.backward(iter([loss]), inputs=(p for p in model.parameters()))
        print(model.weight.grad, model.bias.grad)
        """,
        tmp_path,
    )
    one, two = result.backward.calls
    assert [item.name for item in one.inputs] == ["model.weight", "model.bias"]
    assert [values(item.result) for item in one.inputs] == [[[1.0, 2.0]], [1.0]]
    assert [item.name for item in two.inputs] == ["model.weight", "model.bias"]
    assert {change.name: values(change.after) for change in two.grads} == {
        "model.weight": [[1.0, 2.0]],
        "model.bias": [1.0],
    }


def test_a_custom_function(sandbox: SandboxHarness, tmp_path: Path) -> None:
    result = run(
        sandbox,
        """
        import torch
        class Cube(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x ** 3
            @staticmethod
            def backward(ctx, grad_out):
                (x,) = ctx.saved_tensors
                return 3 * x ** 2 * grad_out
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = Cube.apply(x)
        y.sum().backward()
        print(x.grad)
        """,
        tmp_path,
    )
    (call,) = result.backward.calls
    assert ran(call) == ["SumBackward0", "CubeBackward(y)", "AccumulateGrad(x)"]
    cube = by_name(call, "y")
    assert [(s.attr, s.name) for s in cube.saved] == [("saved_tensors[0]", "x")]
    assert values(cube.received[0]) == [1.0, 1.0]
    assert values(cube.sent[0]) == [3.0, 12.0]  # 3x² · grad_out


def test_a_checkpointed_block_is_not_recomputed_by_the_recording(
    sandbox: SandboxHarness, tmp_path: Path
) -> None:
    """Reading a tensor that checkpoint packed would run its forward again: the record leaves
    it unread, so the block runs exactly as often as without recording."""
    result = run(
        sandbox,
        """
        import torch
        from torch.utils.checkpoint import checkpoint

        calls = 0

        def block(t):
            global calls
            calls += 1
            return torch.tanh(t) * 2

        x = torch.tensor([0.5, 1.0], requires_grad=True)
        checkpoint(block, x, use_reentrant=False).sum().backward()
        print(calls)
        """,
        tmp_path,
    )
    assert result.stdout == "2\n"
    (call,) = result.backward.calls
    saved = [s for node in call.nodes for s in node.saved]
    assert any(s.dtype == backward_record.PACKED for s in saved)
