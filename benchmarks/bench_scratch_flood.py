"""A learner's `print(1)` alone, then beside two learners who flood their scratch dirs.

Starts a real sandbox in this process (the default limits, from the environment's GRADLAB_*
settings). A quiet learner runs `print(1)` --runs times one after another; then two other
learners each keep two runs of --kind going (ask again as soon as they have an answer) while the
quiet learner runs --runs more. Prints the quiet learner's p50/p95 alone and beside them, and how
the neighbours' runs ended. --kind: `link` (hard links to an empty file: the fastest flood),
`files` (new empty files), and for comparison `spin` (a busy loop) and `short` (`x = 1`).

Usage: python benchmarks/bench_scratch_flood.py [--kind link] [--runs 30]
Numbers, not assertions; the quiet p95 beside a flood should stay within 3 times its p95 alone.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.config.settings import Settings
from app.sandbox.fair import Who
from app.sandbox.service import Sandbox

LOOP = "import os, time\n{setup}end = time.monotonic() + 4\ni = 0\nwhile time.monotonic() < end:\n"
KINDS = {
    "link": LOOP.format(setup="open('empty', 'w').close()\n") + "    os.link('empty', f'f{i}')\n"
    "    i += 1\n",
    "files": LOOP.format(setup="")
    + "    os.close(os.open(f'f{i}', os.O_CREAT | os.O_WRONLY, 0o600))\n    i += 1\n",
    "spin": LOOP.format(setup="") + "    pass\n",
    "short": "x = 1\n",
}


def p95(seconds: list[float]) -> float:
    return statistics.quantiles(seconds, n=20)[-1]


async def timed(sandbox: Sandbox, runs: int) -> list[float]:
    durations = []
    for _ in range(runs):
        started = time.perf_counter()
        result = await sandbox.run("print(1)\n", Who("127.0.0.1", "quiet"))
        durations.append(time.perf_counter() - started)
        assert result.stdout == "1\n", result
    return durations


async def neighbour(
    sandbox: Sandbox, key: str, code: str, stop: asyncio.Event, ends: Counter[str]
) -> None:
    while not stop.is_set():
        result = await sandbox.run(code, Who("127.0.0.1", key))
        ends[result.error.type if result.error else result.status] += 1


async def measure(kind: str, runs: int) -> None:
    sandbox = Sandbox(Settings())
    await sandbox.start()
    try:
        await timed(sandbox, 5)
        alone = await timed(sandbox, runs)
        stop, ends = asyncio.Event(), Counter[str]()
        tasks = [
            asyncio.ensure_future(neighbour(sandbox, f"n{n}", KINDS[kind], stop, ends))
            for n in range(2)
            for _ in range(2)
        ]
        await asyncio.sleep(1)
        beside = await timed(sandbox, runs)
        stop.set()
        await asyncio.gather(*tasks)
    finally:
        await sandbox.stop()
    ms = [1000 * statistics.median(alone), 1000 * p95(alone)]
    ms += [1000 * statistics.median(beside), 1000 * p95(beside)]
    print(
        f"{kind}: print(1) alone p50 {ms[0]:.0f} ms, p95 {ms[1]:.0f} ms; beside two learners "
        f"p50 {ms[2]:.0f} ms, p95 {ms[3]:.0f} ms (x{ms[3] / ms[1]:.1f}); their runs: {dict(ends)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kind", choices=sorted(KINDS), default="link")
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    asyncio.run(measure(args.kind, args.runs))


if __name__ == "__main__":
    main()
