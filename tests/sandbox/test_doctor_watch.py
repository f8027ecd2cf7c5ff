"""The gradient doctor's watch against code that does not play along, through the real sandbox:
it leaves nothing behind, it changes nothing the code computes, it survives code that fights
it, and a report the code forges on the result channel is text, never markup."""

from __future__ import annotations

import json

from fastapi.testclient import TestClient

from tests.conftest import SandboxHarness
from tests.doctor.corpus import HERE

LEFT_BEHIND = (
    "import torch\nimport torch.optim.optimizer as o\n"
    "print(torch._C._len_torch_function_stack(), len(o._global_optimizer_pre_hooks),\n"
    "      len(o._global_optimizer_post_hooks), torch.optim.Optimizer.zero_grad.__qualname__,\n"
    "      torch.optim.Optimizer.__init__.__qualname__, torch.nn.Module.zero_grad.__qualname__)\n"
)


def test_a_plain_run_finds_nothing_of_the_watch(default_sandbox: SandboxHarness) -> None:
    # The zygote rehearsed a doctor run before forking (warmup.py): nothing of it may remain.
    default_sandbox.run((HERE / "buggy" / "no_zero_grad.py").read_text(), doctor=True)
    result = default_sandbox.run(LEFT_BEHIND)
    assert result.stdout == "0 0 0 Optimizer.zero_grad Optimizer.__init__ Module.zero_grad\n"
    assert result.doctor() is None


def test_the_doctor_changes_nothing_the_code_computes(default_sandbox: SandboxHarness) -> None:
    for name in ("buggy/learning_rate_too_high", "correct/clip_grad", "buggy/softmax_by_hand"):
        code = (HERE / f"{name}.py").read_text() + "\nprint(torch.get_rng_state().sum())\n"
        plain = default_sandbox.run(code)
        watched = default_sandbox.run(code, doctor=True)
        assert (watched.status, watched.stdout) == (plain.status, plain.stdout), name
        assert [t.grad for t in watched.tensors] == [t.grad for t in plain.tensors], name


FIGHTS = [
    # its own torch function mode, entered and never left
    "import torch\nfrom torch.overrides import TorchFunctionMode\n"
    "class M(TorchFunctionMode):\n"
    "    def __torch_function__(self, f, t, a=(), k=None):\n        return f(*a, **(k or {}))\n"
    "M().__enter__()\nw = torch.ones(2, requires_grad=True)\n(w * 2).sum().backward()\n",
    # backward replaced by the code
    "import torch\ntorch.Tensor.backward = lambda self, *a, **k: None\n"
    "w = torch.ones(2, requires_grad=True)\n(w * 2).sum().backward()\nprint(w.grad)\n",
    # a module whose parameters cannot be listed while backward runs (the watch looks then)
    "import torch\nBROKEN = False\nclass Bad(torch.nn.Module):\n"
    "    def named_parameters(self, *a, **k):\n"
    "        if BROKEN:\n            raise RuntimeError('no')\n"
    "        return super().named_parameters(*a, **k)\n"
    "bad = Bad()\nw = torch.ones(2, requires_grad=True)\nBROKEN = True\n"
    "(w * 2).sum().backward()\nBROKEN = False\n",
    # an optimizer step that raises
    "import torch\nw = torch.ones(2, requires_grad=True)\nopt = torch.optim.SGD([w], lr=0.1)\n"
    "(w * 2).sum().backward()\nopt.step(closure=42)\n",
    # the global optimizer hooks removed by the code
    "import torch\nimport torch.optim.optimizer as o\no._global_optimizer_pre_hooks.clear()\n"
    "w = torch.ones(2, requires_grad=True)\nopt = torch.optim.SGD([w], lr=0.1)\n"
    "for _ in range(3):\n    (w * 2).sum().backward()\n    opt.step()\n",
]


def test_code_that_fights_the_watch_still_gets_its_run(default_sandbox: SandboxHarness) -> None:
    for code in FIGHTS:
        result = default_sandbox.run(code, doctor=True)
        assert result.status in ("ok", "error"), (code, result.error)


def test_a_forged_report_is_text_never_markup(sandbox_client: TestClient) -> None:
    report = {
        "error": None,
        "tensors": [],
        "graph": {"nodes": [], "edges": []},
        "exec_ms": 1.0,
        "doctor": {
            "findings": [
                {
                    "kind": "no-grad",
                    "tensor": "<script>alert(1)</script>",
                    "line": 1,
                    "cause": "cut",
                    "facts": {"op": "<img src=x onerror=alert(2)>"},
                }
            ],
            "parameters": [{"name": "<b>w</b>", "shape": [1], "grad_norms": [1.0]}],
            "calls": 1,
        },
    }
    code = f"import os\nos.write(3, {json.dumps(report).encode()!r})\nos._exit(0)\n"
    body = sandbox_client.post("/api/doctor", json={"code": code}).json()
    [finding] = body["findings"]
    assert "<script" not in finding["message_html"] and "<img" not in finding["message_html"]
    assert "&lt;script&gt;" in finding["message_html"]
    assert "&lt;img src=x onerror=alert(2)&gt;" in finding["message_html"]
    assert body["parameters"][0]["name"] == "<b>w</b>"  # JSON text; the page sets it as text


def test_a_forged_kind_is_refused_with_the_report(sandbox_client: TestClient) -> None:
    report = {
        "error": None,
        "tensors": [],
        "graph": {"nodes": [], "edges": []},
        "exec_ms": 1.0,
        "doctor": {
            "findings": [{"kind": "<b>", "tensor": None, "line": None, "cause": None, "facts": {}}],
            "parameters": [],
            "calls": 0,
        },
    }
    code = f"import os\nos.write(3, {json.dumps(report).encode()!r})\nos._exit(0)\n"
    body = sandbox_client.post("/api/doctor", json={"code": code}).json()
    assert body["result"]["status"] == "killed"
    assert body["findings"] == []


def _forged(finding: dict[str, object]) -> str:
    report = {
        "error": None,
        "tensors": [],
        "graph": {"nodes": [], "edges": []},
        "exec_ms": 1.0,
        "doctor": {"findings": [finding], "parameters": [], "calls": 1},
    }
    return f"import os\nos.write(3, {json.dumps(report).encode()!r})\nos._exit(0)\n"


def test_a_forged_walk_node_is_dropped_or_refused(sandbox_client: TestClient) -> None:
    finding = {"kind": "non-finite", "tensor": "w", "line": 1, "cause": "backward", "facts": {}}
    # A node the run's backward record does not hold: the finding stays, without it.
    code = _forged(finding | {"call": 1, "node": "b0"})
    body = sandbox_client.post("/api/doctor", json={"code": code}).json()
    [kept] = body["findings"]
    assert (kept["kind"], kept["call"], kept["node"]) == ("non-finite", None, None)
    # A node id that is not one: the report is refused as any malformed report is.
    code = _forged(finding | {"call": 1, "node": "<b>x</b>"})
    body = sandbox_client.post("/api/doctor", json={"code": code}).json()
    assert body["result"]["status"] == "killed"
    assert body["findings"] == []
