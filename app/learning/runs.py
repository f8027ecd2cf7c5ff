"""Runs the learning core asks of the sandbox: the real `.grad` of a step's snippet (cached per
step, for grading typed values), a learner's order of an ordering's lines (cached per code) and
a learner's pitfall fix. A lesson's own code is answered from its first run
(app/learning/known_runs.py); any other code runs fresh."""

from __future__ import annotations

from app.errors import LearnerLimit, SandboxBusy, SandboxDisabled, SandboxUnavailable
from app.learning.known_runs import KnownRuns
from app.lessons.format import Snippet, ValuePrediction
from app.sandbox.result import RunResult
from app.sandbox.service import Sandbox

ORDERS_KEPT = 4096


class Runs:
    def __init__(self, sandbox: Sandbox | None, known: KnownRuns | None = None) -> None:
        self.sandbox = sandbox
        self.known = known
        self.real_grads: dict[tuple[str, int], object] = {}
        # An ordering of n lines makes at most n! programs, and every learner may send the same
        # ones: each is run once. Only complete runs are kept (not a timeout under load).
        self.orders: dict[str, RunResult] = {}

    async def run(self, code: str, who: str | None = None) -> RunResult:
        """Run code in a fresh sandboxed process, in the line of `who` (a learner's id, or a
        client's address; None for the server's own runs). SandboxBusy, LearnerLimit,
        SandboxUnavailable, SnippetTooLarge and SandboxDisabled say why not. A lesson's own
        code is answered from its first run, without a fork nor a place in a line."""
        sandbox = self.sandbox
        if sandbox is None:
            raise SandboxDisabled(
                "The sandbox is disabled on this server (GRADLAB_SANDBOX_ENABLED)."
            )
        if self.known is not None and self.known.knows(code):
            return await self.known.answer(code, lambda: sandbox.run(code, who))
        return await sandbox.run(code, who)

    async def run_order(self, code: str, who: str) -> RunResult:
        """The run of the code a learner's order makes, run once per distinct code."""
        if (kept := self.orders.get(code)) is not None:
            return kept
        result = await self.run(code, who)
        if result.status in ("ok", "error") and len(self.orders) < ORDERS_KEPT:
            self.orders[code] = result
        return result

    async def real_grad(
        self, key: tuple[str, int], snippet: Snippet, guess: ValuePrediction, who: str
    ) -> object:
        """The `.grad` the step's own snippet really produces, run once and cached. Falls back
        to the lesson's value (verified by `gradlab check`) when no sandbox runs."""
        if key in self.real_grads:
            return self.real_grads[key]
        try:
            result = await self.run(snippet.code, who)
        except (SandboxDisabled, SandboxBusy, LearnerLimit, SandboxUnavailable):
            return guess.expected
        found = next((t for t in result.tensors if t.name == guess.tensor), None)
        if found is None:
            return guess.expected
        self.real_grads[key] = found.grad
        return found.grad
