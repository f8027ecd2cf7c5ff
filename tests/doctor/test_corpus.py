"""Every program of the doctor's corpus, through the real sandbox and POST /api/doctor's
answer: exactly its expected findings, no more (a false alarm) and no fewer (a miss)."""

from __future__ import annotations

import typing

import pytest

from app.learning.running.doctor import answer
from app.sandbox.doctor_result import Kind
from tests.conftest import SandboxHarness
from tests.doctor.corpus import Program, programs, reported

CORPUS = programs()


def test_the_corpus_is_as_large_as_the_doctor_promises() -> None:
    buggy = [p for p in CORPUS if p.expected]
    correct = [p for p in CORPUS if not p.expected]
    assert len(buggy) >= 30
    assert len(correct) >= 15
    assert all(p.name.startswith("buggy/") for p in buggy)
    assert all(p.name.startswith("correct/") for p in correct)
    kinds = {kind for p in buggy for kind, _ in p.expected}
    assert kinds == set(typing.get_args(Kind))  # every kind the doctor has, in the corpus


@pytest.mark.slow
@pytest.mark.parametrize("program", CORPUS, ids=[p.name for p in CORPUS])
def test_the_doctor_finds_exactly_what_is_wrong(
    program: Program, default_sandbox: SandboxHarness
) -> None:
    result = default_sandbox.run(program.code, doctor=True)
    assert result.status in ("ok", "error"), result.error
    doctor = answer(result).model_dump()
    found = reported(doctor["findings"])
    assert found - program.expected == set(), f"false alarm: {doctor['findings']}"
    assert program.expected - found == set(), f"missed: {doctor['findings']}"
    for finding in doctor["findings"]:
        assert finding["lesson"] and "<script" not in finding["message_html"]
