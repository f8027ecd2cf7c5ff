"""A snippet that writes its own report: what it can shape and what it cannot.

The report is written by the child process that ran the snippet, and the snippet runs in that
same interpreter, so it can write the report itself or rewrite the code that describes its
tensors: docs/sandbox-threat-model.md ("forge its own result") says so, and what a result from
gradlab is worth (its own word about the learner's own run; the LMS grade does not rest on it).
What holds: the report's shape and size, the statuses that come from the zygote (timeout, memory,
killed), and a run that has reported is over.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import SandboxHarness, make_settings, wait_until


def forged_report(name: str = "w", grad: float = 42.0, **extra: object) -> str:
    """A well-formed report (ChildReport) claiming a leaf `name` with `.grad` = `grad`."""
    tensor = {
        "name": name,
        "shape": [],
        "dtype": "torch.float32",
        "requires_grad": True,
        "is_leaf": True,
        "grad_fn": None,
        "value": 2.0,
        "grad": grad,
    }
    report = {
        "error": None,
        "tensors": [tensor],
        "graph": {"nodes": [], "edges": []},
        "exec_ms": 0.1,
        "marks": {},
        **extra,
    }
    return json.dumps(report)


def run(sandbox: SandboxHarness, code: str):  # type: ignore[no-untyped-def]
    return sandbox.run(textwrap.dedent(code))


def test_a_report_written_on_the_channel_is_taken_as_the_runs_word(
    sandbox: SandboxHarness,
) -> None:
    """Accepted (the threat model says so): no torch, no backward, yet `w.grad` is 42."""
    code = f"import os\nos.write(3, {forged_report()!r}.encode())\nos._exit(0)\n"
    result = run(sandbox, code)
    assert result.status == "ok", result
    assert [(t.name, t.grad) for t in result.tensors] == [("w", 42.0)]


def test_closing_the_channel_would_not_help_the_describing_code_is_the_snippets_too(
    sandbox: SandboxHarness,
) -> None:
    """Accepted: without touching fd 3, the snippet replaces the function that describes its
    tensors, and the child's own honest path sends the invention. Why no fd trick or secret
    in the child can make the report trustworthy."""
    result = run(
        sandbox,
        """
        import sys
        runner = sys.modules["app.sandbox.execute"]
        real = runner.inspect_namespace
        def invent(namespace):
            tensors, graph = real(namespace)
            return [dict(t, grad=42.0) for t in tensors], graph
        runner.inspect_namespace = invent
        import torch
        w = torch.tensor(2.0, requires_grad=True)
        (w * 3).backward()
        """,
    )
    assert result.status == "ok", result
    assert [(t.name, t.grad) for t in result.tensors] == [("w", 42.0)]


def test_a_forged_report_cannot_hide_a_timeout(sandbox: SandboxHarness) -> None:
    code = f"import os, time\nos.write(3, {forged_report()!r}.encode())\ntime.sleep(60)\n"
    result = run(sandbox, code)
    assert result.status == "timeout", result
    assert result.error.type == "Timeout"


def test_a_forged_report_cannot_name_its_own_status(sandbox: SandboxHarness) -> None:
    """The status is the server's judgement, never a field of the report: a report that
    carries one is not a report."""
    report = forged_report(status="ok")
    code = f"import os\nos.write(3, {report!r}.encode())\nos._exit(0)\n"
    result = run(sandbox, code)
    assert result.status == "killed", result
    assert result.tensors == []


@pytest.fixture(scope="module")
def long_wall_sandbox() -> Iterator[SandboxHarness]:
    """A wall clock far longer than the wait below, so that only the server's stop can end the
    run in time (the default sandbox's 2 s would end it anyway)."""
    harness = SandboxHarness(
        make_settings(sandbox_enabled=True, wall_time_s=60, cpu_time_s=60, memory_mib=512)
    )
    yield harness
    harness.close()


def test_a_run_that_has_reported_is_over(long_wall_sandbox: SandboxHarness) -> None:
    """A snippet that sends a report, closes its output and keeps computing is answered at
    once (the answer frees its worker) and stopped then, not at its wall clock: else every
    such run would burn a core for a minute outside the count of workers."""
    result = run(
        long_wall_sandbox,
        f"""
        import json, os
        report = json.loads({forged_report()!r})
        report["tensors"][0]["name"] = str(os.getpid())
        os.close(1)
        os.close(2)
        os.write(3, json.dumps(report).encode())
        os.close(3)
        while True:
            pass
        """,
    )
    assert result.status == "ok", result
    pid = int(result.tensors[0].name)
    assert wait_until(lambda: not Path(f"/proc/{pid}").exists(), timeout=20)
