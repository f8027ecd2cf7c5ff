"""Runs the learning core asks of the sandbox: the real `.grad` of a step's snippet (cached per
step, for grading typed values), a learner's order of an ordering's lines (cached per code) and
a learner's pitfall fix. A lesson's own code is answered from its first run
(app/learning/running/known_runs.py); any other code runs fresh, in the line of a `Who`: the
client's address and its learner (app/sandbox/fair.py), which the routes give."""

from __future__ import annotations

from app.errors import LearnerLimit, SandboxBusy, SandboxDisabled, SandboxUnavailable
from app.learning.running.known_runs import KnownRuns
from app.sandbox.fair import Who
from app.sandbox.result import RunResult
from app.sandbox.runner import SnippetRunner

ANSWER_RUNS_KEPT = 4096

# Why a run may not happen: a kind graded without its run when none can (a typed value, against
# the lesson's value) falls back on these, and only these.
NO_RUN = (SandboxDisabled, SandboxBusy, LearnerLimit, SandboxUnavailable)

__all__ = ["NO_RUN", "Runs", "Who"]  # Who: for the routes, which name no sandbox module


class Runs:
    def __init__(self, sandbox: SnippetRunner | None, known: KnownRuns | None = None) -> None:
        self.sandbox = sandbox
        self.known = known
        # The code an answer graded by a run makes: an ordering of n lines makes at most n!
        # programs, a typed value the step's own code, and every learner may send the same
        # ones: each is run once. Only complete runs are kept (not a timeout under load).
        self.answer_runs: dict[str, RunResult] = {}

    async def run(self, code: str, who: Who | None = None, doctor: bool = False) -> RunResult:
        """Run code in a fresh sandboxed process, in the line of `who` (a client's address and
        its learner; None for the server's own runs). SandboxBusy, LearnerLimit,
        SandboxUnavailable, SnippetTooLarge and SandboxDisabled say why not. A lesson's own
        code is answered from its first run, without a fork nor a place in a line; with
        `doctor`, never: the gradient doctor watches a run of its own (docs/doctor.md)."""
        sandbox = self.sandbox
        if sandbox is None:
            raise SandboxDisabled(
                "The sandbox is disabled on this server (GRADLAB_SANDBOX_ENABLED)."
            )
        if doctor:
            return await sandbox.run(code, who, doctor=True)
        if self.known is not None and self.known.knows(code):
            return await self.known.answer(code, lambda: sandbox.run(code, who))
        return await sandbox.run(code, who)

    async def run_answer(self, code: str, who: Who) -> RunResult:
        """The run of the code an answer graded by a run makes (a learner's order, a typed
        value's step code), run once per distinct code."""
        if (kept := self.answer_runs.get(code)) is not None:
            return kept
        result = await self.run(code, who)
        if result.status in ("ok", "error") and len(self.answer_runs) < ANSWER_RUNS_KEPT:
            self.answer_runs[code] = result
        return result
