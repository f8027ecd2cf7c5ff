"""Known code, answered from what is known: a run of a lesson's own code (any snippet `gradlab
check` runs, or a stored variant instance's code) is answered from that code's first real run,
without a fork.

Every child of every zygote starts alike (app/sandbox/warmup.py seeds the generators, the
launcher fixes the hash seed), so a lesson's code gives every learner the same answer, and
`gradlab check` proves it stable. Such code is run for real the first time it is asked for, in
the asker's line as any run; its answer (one that ran to the end or raised: never a timeout or
a kill, which say how busy the machine was) is kept and given to whoever asks for the same
code, including those who asked while that first run was going. Any other code (a learner's
edit, a single character different) runs fresh in its own confined process, as always.

What is kept lives in the learning core (app/learning/running/runs.py), one per catalog: a lesson
reload builds a new core (app/main.py), so an answer never outlives the code it answered. The
key is the exact source: the run options (limits, wall time) are the sandbox's, one per
process. It is bounded (`KEPT_ENTRIES`, `KEPT_BYTES`; least recently used first out) and
counted on /metrics (app/web/metrics.py). docs/sandbox.md says what is answered this way.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Protocol, TypeGuard

from app.lessons.loader import Catalog
from app.lessons.variants import instances
from app.sandbox.result import RunResult

# The bundled lessons have 819 distinct pieces of code, each of which the page may send with
# or without its final newline: 1,638 answers, 4.7 KiB of JSON on average (30 KiB at most),
# 7.7 MiB in all. An answer is kept as the object it is sent from (a hit then costs no
# parsing), which takes about nine times its JSON in memory: about 70 MiB for all of them.
KEPT_ENTRIES = 4096
KEPT_BYTES = 16 << 20  # of JSON


class KnownRunsMeter(Protocol):
    """Where the hits and misses are counted (app/web/metrics.py's Metrics)."""

    def count_known(self, outcome: str) -> None: ...  # "hit" or "miss"

    def known_kept(self, entries: int, size: int) -> None: ...


def known_codes(catalog: Catalog) -> frozenset[str]:
    """Every piece of code of the catalog's lessons that `gradlab check` runs and verifies,
    each also without its final newline: the page's editor drops it (static/js/runnable.js).
    Each form is its own key, answered from its own first run."""
    codes: set[str] = set()
    for lesson in catalog.lessons:
        codes.update(snippet.code for _, snippet in lesson.snippets())
        for step in lesson.steps:
            codes.update(instance.code for instance in instances(step))
    return frozenset(codes | {code.removesuffix("\n") for code in codes})


def keepable(result: RunResult | None) -> TypeGuard[RunResult]:
    """Is this the code's own answer (it ran to the end, or raised), not the machine's state?"""
    return result is not None and result.status in ("ok", "error")


class KnownRuns:
    """The answers of a catalog's known code, filled by their first real run."""

    def __init__(
        self,
        catalog: Catalog,
        meter: KnownRunsMeter | None = None,
        entries: int = KEPT_ENTRIES,
        size: int = KEPT_BYTES,
    ) -> None:
        self.catalog = catalog
        self.meter = meter
        self.limits = (entries, size)
        self._codes: frozenset[str] | None = None  # computed on the first run asked for
        self._kept: OrderedDict[str, tuple[RunResult, int]] = OrderedDict()
        self._pending: dict[str, asyncio.Future[RunResult | None]] = {}
        self.size = 0  # bytes of the kept answers, as JSON
        self._report()

    def knows(self, code: str) -> bool:
        if self._codes is None:
            self._codes = known_codes(self.catalog)
        return code in self._codes

    @property
    def entries(self) -> int:
        return len(self._kept)

    async def answer(self, code: str, run: Callable[[], Awaitable[RunResult]]) -> RunResult:
        """The answer of known `code`: the kept one, the one being computed, or `run()`'s."""
        kept = self._kept.get(code)
        if kept is not None:
            self._kept.move_to_end(code)
            self._count("hit")
            return kept[0]
        pending = self._pending.get(code)
        if pending is not None:
            first = await asyncio.shield(pending)  # leaving early leaves the first run alone
            if keepable(first):
                self._count("hit")
                return first
            # The first was refused, cancelled or cut short: this one runs on its own.
        return await self._fill(code, run)

    async def _fill(self, code: str, run: Callable[[], Awaitable[RunResult]]) -> RunResult:
        self._count("miss")
        if code in self._pending:  # another asker is filling it already
            return await run()
        future: asyncio.Future[RunResult | None] = asyncio.get_running_loop().create_future()
        self._pending[code] = future
        try:
            result = await run()
        except BaseException:  # refused, or the asker left: those waiting run on their own
            future.set_result(None)
            raise
        finally:
            del self._pending[code]
        future.set_result(result)
        if keepable(result):
            self._keep(code, result)
        return result

    def _keep(self, code: str, result: RunResult) -> None:
        entries, size = self.limits
        cost = len(code) + len(result.model_dump_json())
        if cost > size:
            return
        self._kept[code] = (result, cost)
        self.size += cost
        while len(self._kept) > entries or self.size > size:
            _, (_, gone) = self._kept.popitem(last=False)
            self.size -= gone
        self._report()

    def _count(self, outcome: str) -> None:
        if self.meter is not None:
            self.meter.count_known(outcome)

    def _report(self) -> None:
        if self.meter is not None:
            self.meter.known_kept(len(self._kept), self.size)
