"""The phase marks behind the benchmark's table: recorded by the server, the zygote and the
child on one clock, in order, written only where GRADLAB_SANDBOX_PHASES says, never in the
payload."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.sandbox.timeline import ORDER, PHASES_ENV
from tests.conftest import SandboxHarness, make_settings

SNIPPET = (
    "import torch\nx = torch.ones(2, requires_grad=True)\n(x * x).sum().backward()\nprint(x.grad)\n"
)


@pytest.mark.slow  # a sandbox of its own: several seconds
def test_each_run_writes_its_marks_in_critical_path_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    phases = tmp_path / "phases.jsonl"
    monkeypatch.setenv(PHASES_ENV, str(phases))
    harness = SandboxHarness(make_settings(sandbox_enabled=True))
    try:
        results = [harness.run(SNIPPET) for _ in range(3)]
    finally:
        harness.close()
    assert [result.stdout for result in results] == ["tensor([2., 2.])\n"] * 3
    for result in results:
        assert "marks" not in result.model_dump_json()
    lines = phases.read_text().splitlines()
    assert len(lines) == 3
    for line in lines:
        marks = json.loads(line)
        # One clock across three processes: every mark follows the one before it.
        assert [marks[name] for name in ORDER] == sorted(marks[name] for name in ORDER)
        assert marks["waiting"] <= marks["code"]


@pytest.mark.slow  # a sandbox of its own: several seconds
def test_without_the_variable_nothing_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(PHASES_ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    harness = SandboxHarness(make_settings(sandbox_enabled=True))
    try:
        assert harness.run("print(1)").stdout == "1\n"
        assert not harness.sandbox._phases.enabled
    finally:
        harness.close()
    assert list(tmp_path.iterdir()) == []
