"""`load_test.py --find-capacity`: the largest class that meets the targets, found by loading
the server with more and more learners.

The targets are docs/performance.md's: no error, under 0.5 % of requests refused (503 with
Retry-After), runs p95 at most 400 ms and every other request's p95 at most 250 ms. The search
doubles the class from --learners until a load misses a target, then halves the gap between the
last class that met them and the first that did not, until the two are within a tenth of each
other (or 10 learners). Each probe is one load test of --seconds on a fresh server, so noise can
make a probe miss that another would pass: the answer is a measurement, to be taken twice.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from benchmarks.bench_sandbox import percentile
from benchmarks.simulated_learner import RUN_EDITED, RUN_KNOWN, Tally

RUN_P95_MS = 400.0
PAGE_P95_MS = 250.0
MOST_REFUSED = 0.005  # a share of all requests


@dataclass(frozen=True)
class Probe:
    """One load test's figures against the targets."""

    learners: int
    run_p95: float
    page_p95: float  # the slowest of the other requests' p95
    refused: float  # share of requests answered 503 with Retry-After
    errors: int

    @property
    def misses(self) -> list[str]:
        """The targets this load missed, in words (none: it met them all)."""
        found = []
        if self.errors:
            found.append(f"{self.errors} errors")
        if self.refused >= MOST_REFUSED:
            found.append(f"{self.refused:.1%} refused")
        if self.run_p95 > RUN_P95_MS:
            found.append(f"runs p95 {self.run_p95:.0f} ms")
        if self.page_p95 > PAGE_P95_MS:
            found.append(f"a request's p95 {self.page_p95:.0f} ms")
        return found

    def line(self) -> str:
        verdict = "meets the targets" if not self.misses else "misses: " + ", ".join(self.misses)
        return (
            f"{self.learners:6d} learners: runs p95 {self.run_p95:7.0f} ms, slowest other p95 "
            f"{self.page_p95:6.0f} ms, refused {self.refused:6.2%}, errors {self.errors}: {verdict}"
        )


def probe(learners: int, tally: Tally) -> Probe:
    runs = [*tally.latencies.get(RUN_KNOWN, []), *tally.latencies.get(RUN_EDITED, [])]
    others = [
        percentile(times, 0.95)
        for name, times in tally.latencies.items()
        if name not in (RUN_KNOWN, RUN_EDITED) and times
    ]
    total = max(sum(len(times) for times in tally.latencies.values()), 1)
    return Probe(
        learners=learners,
        run_p95=percentile(runs, 0.95) if runs else 0.0,
        page_p95=max(others, default=0.0),
        refused=sum(tally.busy.values()) / total,
        errors=sum(tally.errors.values()),
    )


def largest_class(start: int, most: int, load: Callable[[int], Probe]) -> int:
    """The largest number of learners whose load meets the targets (0: not even `start`),
    loading at most up to `most`. `load(n)` runs one load test of n learners."""
    good, bad = 0, None
    learners = max(start, 1)
    while bad is None:
        if load(learners).misses:
            bad = learners
        else:
            good = learners
            if learners >= most:
                return good
            learners = min(learners * 2, most)
    while bad - good > max(10, good // 10):
        middle = (good + bad) // 2
        if load(middle).misses:
            bad = middle
        else:
            good = middle
    return good
