"""What the sandbox reports is what plain Python and torch produce.

stdout is compared byte for byte with `python snippet.py` (`tests/sandbox/plain.py`); tensors and `.grad` values with the
same snippet executed in this test process by plain torch.
"""

from __future__ import annotations

import contextlib
import io
import textwrap
import warnings
from pathlib import Path
from typing import Any

import pytest
import torch

from tests.conftest import SandboxHarness
from tests.sandbox.plain import plain_python

SNIPPETS = {
    "accumulation": """
        import torch
        w = torch.tensor([1.0, -2.0], requires_grad=True)
        for _ in range(3):
            (w * w).sum().backward()
        print(w.grad)
    """,
    "non-scalar backward with a gradient argument": """
        import torch
        x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x ** 2
        y.backward(gradient=torch.tensor([1.0, 0.5, 0.0]))
        print(x.grad)
    """,
    "retain_grad": """
        import torch
        a = torch.tensor(3.0, requires_grad=True)
        b = a * a
        b.retain_grad()
        c = 2 * b + 1
        c.backward()
        print(a.grad, b.grad)
    """,
    "hooks": """
        import torch
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        seen = []
        handle = x.register_hook(lambda g: seen.append(g.clone()) or g * 10)
        (x * 3).sum().backward()
        handle.remove()
        print(seen, x.grad)
    """,
    "no_grad": """
        import torch
        p = torch.tensor([0.5, 1.5], requires_grad=True)
        with torch.no_grad():
            q = p * 2
        print(q.requires_grad, q.grad_fn)
    """,
    "autograd.grad with create_graph": """
        import torch
        t = torch.tensor(2.0, requires_grad=True)
        f = t ** 3
        (first,) = torch.autograd.grad(f, t, create_graph=True)
        (second,) = torch.autograd.grad(first, t)
        print(first.item(), second.item(), t.grad)
    """,
    "optimizer step": """
        import torch
        w = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
        opt = torch.optim.SGD([w], lr=0.1)
        loss = ((w - 3) ** 2).sum()
        loss.backward()
        opt.step()
        opt.zero_grad()
        print(w.data, w.grad)
    """,
    "module parameters": """
        import torch
        torch.manual_seed(0)
        model = torch.nn.Linear(2, 1)
        out = model(torch.tensor([[1.0, 2.0]])).sum()
        out.backward()
        print(model.weight.grad)
    """,
    "big tensor preview": """
        import torch
        big = torch.arange(1000.0, requires_grad=True)
        (big * 2).sum().backward()
        print(big.grad[:3])
    """,
    "integer, bool, nan and inf values": """
        import torch
        ints = torch.tensor([1, 2, 3])
        flags = torch.tensor([True, False])
        odd = torch.tensor([float('nan'), float('inf'), -float('inf')])
        print(ints, flags, odd)
    """,
    "unicode output": """
        print("∇ gradients — naïve café ✓")
    """,
}

ERRORS = {
    "backward on a non-scalar": (
        """
        import torch
        x = torch.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.backward()
    """,
        "RuntimeError",
        4,
        "non-scalar-backward",
    ),
    "in-place op on a leaf": (
        """
        import torch
        x = torch.tensor(2.0, requires_grad=True)
        x += 1
    """,
        "RuntimeError",
        3,
        "in-place-and-versions",
    ),
    "backward through a freed graph": (
        """
        import torch
        x = torch.tensor(2.0, requires_grad=True)
        y = x.exp()
        y.backward()
        y.backward()
    """,
        "RuntimeError",
        5,
        "autograd-grad",
    ),
    "a tensor that does not require grad": (
        """
        import torch
        x = torch.tensor(2.0)
        (x * 3).backward()
    """,
        "RuntimeError",
        3,
        "requires-grad-and-leaves",
    ),
    "integer tensor with requires_grad": (
        """
        import torch
        x = torch.tensor([1, 2], requires_grad=True)
    """,
        "RuntimeError",
        2,
        "requires-grad-and-leaves",
    ),
    "in-place change of a saved tensor": (
        """
        import torch
        a = torch.tensor([1.0, 2.0], requires_grad=True)
        b = a.sigmoid()
        b.mul_(2)
        b.sum().backward()
    """,
        "RuntimeError",
        5,
        "in-place-and-versions",
    ),
    "reading .grad of a non-leaf": (
        """
        import torch
        x = torch.tensor(2.0, requires_grad=True)
        y = x * 3
        y.backward()
        print(y.grad * 2)
    """,
        "TypeError",
        5,
        "retain-grad-and-hooks",
    ),
    "syntax error": (
        """
        import torch
        x = torch.tensor(1.0
        print(x)
    """,
        "SyntaxError",
        2,
        None,
    ),
    "name error on a later line": (
        """
        import torch

        z = undefined_name + 1
    """,
        "NameError",
        3,
        None,
    ),
}


def plain_torch_grads(code: str) -> dict[str, Any]:
    namespace: dict[str, Any] = {"__name__": "__main__"}
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exec(compile(code, "snippet.py", "exec"), namespace)
        grads = {}
        for name, value in namespace.items():
            if isinstance(value, torch.Tensor):
                grads[name] = value.grad
            elif isinstance(value, torch.nn.Module):
                for param_name, param in value.named_parameters():
                    grads[f"{name}.{param_name}"] = param.grad
    return grads


@pytest.mark.parametrize("code", list(SNIPPETS.values()), ids=list(SNIPPETS))
def test_stdout_and_grads_match_plain_torch(
    sandbox: SandboxHarness, code: str, tmp_path: Path
) -> None:
    code = textwrap.dedent(code).lstrip()
    result = sandbox.run(code)
    assert result.status == "ok", result
    reference = plain_python(code, tmp_path)
    assert reference.returncode == 0, reference.stderr
    assert result.stdout == reference.stdout
    expected = plain_torch_grads(code)
    reported = {tensor.name: tensor for tensor in result.tensors}
    assert list(reported) == list(expected)  # every top-level tensor, in order of binding
    for name, grad in expected.items():
        tensor = reported[name]
        if grad is None:
            assert tensor.grad is None, name
        elif tensor.preview:
            assert tensor.numel == grad.numel()
            assert torch.allclose(torch.tensor(tensor.grad), grad.reshape(-1)[: len(tensor.grad)])
        else:
            assert torch.allclose(torch.tensor(tensor.grad), grad), name


@pytest.mark.parametrize(
    ("code", "error_type", "line", "lesson"), list(ERRORS.values()), ids=list(ERRORS)
)
def test_errors_carry_type_line_and_hint(
    sandbox: SandboxHarness,
    code: str,
    error_type: str,
    line: int,
    lesson: str | None,
    tmp_path: Path,
) -> None:
    code = textwrap.dedent(code).lstrip()
    result = sandbox.run(code)
    assert result.status == "error"
    assert result.error.type == error_type
    assert result.error.line == line
    assert result.error.lesson == lesson
    if lesson is not None:
        assert result.error.hint
    reference = plain_python(code, tmp_path)
    assert result.stdout == reference.stdout
    assert reference.stderr.rstrip().splitlines()[-1].startswith(error_type)
    assert result.stderr.rstrip().splitlines()[-1] == reference.stderr.rstrip().splitlines()[-1]


def test_tensor_record_has_the_documented_fields(sandbox: SandboxHarness) -> None:
    result = sandbox.run(
        "import torch\nx = torch.tensor([2.0, 3.0], requires_grad=True)\n"
        "y = x.pow(2).sum()\ny.backward()\n"
    )
    x, y = result.tensors
    assert x.model_dump() == {
        "name": "x",
        "shape": [2],
        "dtype": "torch.float32",
        "requires_grad": True,
        "is_leaf": True,
        "grad_fn": None,
        "value": [2.0, 3.0],
        "grad": [4.0, 6.0],
        "numel": None,
        "preview": None,
    }
    assert (x.name, x.shape, x.dtype, x.is_leaf, x.grad_fn, x.value, x.grad) == (
        "x",
        [2],
        "torch.float32",
        True,
        None,
        [2.0, 3.0],
        [4.0, 6.0],
    )
    assert (y.name, y.shape, y.is_leaf, y.grad_fn, y.value, y.grad) == (
        "y",
        [],
        False,
        "SumBackward0",
        13.0,
        None,
    )


def test_graph_links_outputs_functions_and_leaves(sandbox: SandboxHarness) -> None:
    result = sandbox.run(
        "import torch\nx = torch.tensor(2.0, requires_grad=True)\n"
        "w = torch.tensor(3.0, requires_grad=True)\ny = w * x + 1\ny.backward()\n"
    )
    nodes = {node.id: node for node in result.graph.nodes}
    labels = {(nodes[e.source].label, nodes[e.target].label) for e in result.graph.edges}
    assert ("y", "AddBackward0") in labels
    assert ("AddBackward0", "MulBackward0") in labels
    assert ("MulBackward0", "AccumulateGrad") in labels
    assert ("AccumulateGrad", "x") in labels and ("AccumulateGrad", "w") in labels
    leaves = {node.label: node for node in nodes.values() if node.kind == "leaf"}
    assert leaves["x"].grad == 3.0 and leaves["w"].grad == 2.0


def test_big_tensors_are_previewed(sandbox: SandboxHarness) -> None:
    result = sandbox.run("import torch\nbig = torch.zeros(100, 100)\n")
    (big,) = result.tensors
    assert big.preview is True and big.numel == 10_000
    assert isinstance(big.value, list) and len(big.value) == 64


def test_tracebacks_show_the_learners_frames_and_no_server_paths(sandbox: SandboxHarness) -> None:
    result = sandbox.run(
        "import torch\nx = torch.tensor([1.0, 2.0], requires_grad=True)\n(x * 2).backward()\n"
    )
    assert result.stderr.startswith("Traceback (most recent call last):\n")
    assert '  File "snippet.py", line 3, in <module>\n' in result.stderr
    assert "frames inside torch or Python hidden" in result.stderr
    assert "site-packages" not in result.stderr and "/root" not in result.stderr


def test_a_module_that_cannot_list_its_parameters_leaves_the_rest_of_the_report(
    sandbox: SandboxHarness,
) -> None:
    # The learner's own module may break named_parameters(); the run is still reported, with
    # every other tensor, and never as a sandbox that could not confine it.
    code = (
        "import torch\n"
        "class Broken(torch.nn.Module):\n"
        "    def named_parameters(self, *args, **kwargs):\n"
        "        raise RuntimeError('no parameters today')\n"
        "model = Broken()\n"
        "w = torch.tensor(2.0, requires_grad=True)\n"
        "(w * w).backward()\n"
        "print('ran')\n"
    )
    result = sandbox.run(code)
    assert result.status == "ok", result
    assert result.stdout == "ran\n"
    assert [tensor.name for tensor in result.tensors] == ["w"]
