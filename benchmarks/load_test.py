"""A bounded load test on loopback: simulated learners (benchmarks/simulated_learner.py)
load the server as the lesson pages do.

A learner's round is what the browser sends on a lesson: the catalog, a lesson's page (any
lesson, drawn anew each round), a committed prediction, the run the page makes of that step's
code, the progress read, a myth's answer. In a share of rounds (`--edited`, one in three by
default) the run is the learner's edit of the step's code, code the server has never seen and
must run in a fresh process; the others run the step's own code, which the server answers
from its first run (app/learning/running/known_runs.py). `--edited 1` makes every run new code: the
worst case, where every run forks (what the earlier round, one fixed snippet in no lesson,
measured).

Starts `gradlab serve` on a free loopback port (or uses --url, which must be a loopback
address), runs --learners concurrent learners for --seconds, then prints per endpoint the
request count, p50/p95 latency and errors, the overall throughput and error rate, and the peak
memory (PSS) of the server, its zygote and their children. Under overload the only acceptable
failure is 503 with Retry-After; anything else counts as an error.

After the CPU per request it prints what a round (the six requests of one learner) costs and
how many rounds a second the machine's cores could serve at that cost, beside how many the
learners would ask for if every answer were instant: when they ask for more than the cores
serve, the test is a closed loop at saturation, and waiting is conserved, only moved between
requests (docs/performance.md).

With `--against REV` it also serves REV, checked out into a temporary git worktree
(benchmarks/revision.py, as bench_endpoints.py does), and loads the two in turn, A B A B ...
(`--repeat` passes each), each pass a fresh server and the same learners; it prints each pass's
figures, then each side's range and the ratio now / REV of their medians, the CPU of a round
first (what a busy host's drift leaves comparable).

With `--find-capacity` it loads the server with more and more learners, from --learners, each
load a fresh server for --seconds, and prints the largest class that meets the targets and
that class per core (benchmarks/_capacity_search.py).

Usage: python benchmarks/load_test.py [--learners 50] [--seconds 60] [--pause 0.2 1.0]
                                      [--edited 0.333] [--against REV [--repeat 2]]
                                      [--find-capacity [--most 4000]]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.processes import descendants
from benchmarks._capacity_search import Probe, largest_class, probe
from benchmarks.bench_sandbox import (
    ROOT,
    cold_runs,
    cpu_ms,
    free_port,
    machine_line,
    own_usage,
    percentile,
    pss_kib,
    start_server,
)
from benchmarks.revision import add_against_arguments, checked_against, checked_out, compared
from benchmarks.simulated_learner import (
    ROUND_REQUESTS,
    RUN_EDITED,
    RUN_KNOWN,
    Tally,
    curriculum,
    learner,
    on_loopback,
)


@dataclass(frozen=True)
class Capacity:
    """What one round cost in CPU, and the rounds a second the cores serve at that cost."""

    round_ms: float  # CPU of a round in the processes measured, the load generator's included
    served: float  # rounds/s that all the cores could serve at that cost
    asked: float  # rounds/s the learners would send if every answer took no time


def capacity(
    spent_ms: float, requests: int, cores: int, learners: int, pause: tuple[float, float]
) -> Capacity:
    """From the CPU all processes spent (ms) over `requests` requests, on `cores` cores, with
    `learners` pausing uniformly within `pause` seconds after each round."""
    round_ms = spent_ms / max(requests, 1) * ROUND_REQUESTS
    return Capacity(
        round_ms=round_ms,
        served=cores * 1000 / round_ms if round_ms else float("inf"),
        asked=learners / (sum(pause) / 2),
    )


def watch_memory(pid: int, stop: threading.Event, peak: list[int]) -> None:
    while not stop.is_set():
        total = 0
        for member in {pid} | descendants(pid):
            with contextlib.suppress(OSError):
                total += pss_kib(member)
        peak[0] = max(peak[0], total)
        stop.wait(1.0)


@dataclass
class Outcome:
    """One load test: what the learners saw and what the processes spent."""

    tally: Tally
    elapsed: float  # seconds
    own_ms: float  # the load generator's CPU
    server_ms: list[float] | None  # server, zygote, sandboxed runs (None with --url)
    peak_kib: int

    @property
    def requests(self) -> int:
        return sum(len(v) for v in self.tally.latencies.values())

    def parts(self) -> list[tuple[str, float]]:
        parts = [("load generator (this script)", self.own_ms)]
        if self.server_ms is not None:
            names = ("server", "zygote", "sandboxed runs")
            parts = [*zip(names, self.server_ms, strict=True), *parts]
        return parts

    def figures(self) -> dict[str, float]:
        """What --against compares: CPU a round (all processes, and the server's), the
        throughput, the refusals, and p95 of the catalog, the lesson page and the runs."""
        total = max(self.requests, 1)
        rounds = total / ROUND_REQUESTS
        figures = {
            "CPU a round, all processes (ms)": sum(ms for _, ms in self.parts()) / rounds,
            "server CPU a round (ms)": (self.server_ms or [0.0])[0] / rounds,
            "requests/s": self.requests / self.elapsed,
            "503 with Retry-After (%)": 100 * sum(self.tally.busy.values()) / total,
            "errors (%)": 100 * sum(self.tally.errors.values()) / total,
        }
        lines = self.tally.latencies
        for name in ("GET /", "GET /lessons/{slug}"):
            figures[f"{name} p95 (ms)"] = percentile(lines.get(name) or [0.0], 0.95)
        runs = [*lines.get(RUN_KNOWN, []), *lines.get(RUN_EDITED, [])]
        figures["POST /api/run p95 (ms)"] = percentile(runs or [0.0], 0.95)
        return figures


async def run_once(
    args: argparse.Namespace, pause: tuple[float, float], arrive: float, root: Path = ROOT
) -> Outcome:
    """One load test against `args.url`, or against a fresh `gradlab serve` of the tree at
    `root` (another revision's checkout with --against: benchmarks/revision.py)."""
    server = None
    base = args.url
    if base is None:
        port = free_port()
        base = f"http://127.0.0.1:{port}"
        server = start_server(port, processes=args.processes, root=root)
    peak = [0]
    stop = threading.Event()
    if server is not None:
        threading.Thread(target=watch_memory, args=(server.pid, stop, peak), daemon=True).start()
    try:
        lessons = curriculum(base)
        tally = Tally()
        server_before = cpu_ms(server.pid) if server is not None else None
        own_before = own_usage()[0]
        started = time.monotonic()
        deadline = started + args.seconds
        await asyncio.gather(
            *(
                learner(base, deadline, tally, lessons, pause, arrive, args.edited)
                for _ in range(args.learners)
            )
        )
        elapsed = time.monotonic() - started
        own = own_usage()[0] - own_before
        server_cpu = (
            [b - a for a, b in zip(server_before, cpu_ms(server.pid), strict=True)]
            if server is not None and server_before is not None
            else None
        )
    finally:
        stop.set()
        if server is not None:
            server.terminate()
            server.wait(10)
    return Outcome(tally, elapsed, own, server_cpu, peak[0])


def report(
    args: argparse.Namespace, pause: tuple[float, float], arrive: float, outcome: Outcome
) -> None:
    tally, elapsed, total = outcome.tally, outcome.elapsed, outcome.requests
    errors = sum(tally.errors.values())
    busy = sum(tally.busy.values())
    print(
        f"{args.learners} learners arriving over {arrive:g} s, "
        f"{args.edited:.0%} of runs edited code, "
        f"pausing {pause[0]:g} - {pause[1]:g} s, "
        f"{args.processes} server process(es), for {elapsed:.0f} s: "
        f"{total} requests, "
        f"{total / elapsed:.1f} requests/s, error rate {errors / max(total, 1):.2%}, "
        f"503 with Retry-After {busy / max(total, 1):.2%}"
    )
    # Where the machine's CPU went: the learners here are simulated on the same cores as the
    # server, which real learners' browsers are not.
    cores = (os.cpu_count() or 1) * elapsed * 1000
    parts = outcome.parts()
    print(
        "CPU per request: "
        + ", ".join(f"{name} {ms / max(total, 1):.2f} ms" for name, ms in parts)
        + f"; {sum(ms for _, ms in parts) / cores:.0%} of the machine's {os.cpu_count()} cores"
    )
    if outcome.server_ms is not None:
        cores_n = os.cpu_count() or 1
        cost = capacity(sum(ms for _, ms in parts), total, cores_n, args.learners, pause)
        saturated = " (saturated: waiting only moves between requests)"
        print(
            f"a round of {ROUND_REQUESTS} requests cost {cost.round_ms:.1f} ms of CPU: "
            f"the {cores_n} cores serve at most {cost.served:.0f} rounds/s at that cost; "
            f"{args.learners} learners pausing {pause[0]:g} - {pause[1]:g} s would ask for "
            f"{cost.asked:.0f} rounds/s if every answer were instant"
            + (saturated if cost.asked > cost.served else "")
        )
    if outcome.peak_kib:
        print(f"peak memory (PSS) of server + zygote + children: {outcome.peak_kib / 1024:.0f} MiB")
    print("\n".join(tally.table()))
    if tally.connects:
        print("requests that opened a new connection, and the time the connection took (ms):")
        for name, connects in tally.connects.items():
            print(
                f"{name:26} {len(connects):9d} {statistics.median(connects):8.1f} "
                f"{percentile(connects, 0.95):8.1f}"
            )


def cold_line(runs: int) -> str:
    """How loaded the machine is: a cold `python snippet.py` took 1.39 - 1.49 s on the idle
    2-core box of docs/performance.md's figures."""
    cold = statistics.median(cold_runs(runs))
    return (
        f"cold python snippet.py p50: {cold / 1000:.2f} s "
        f"(1.39 - 1.49 s on an idle 2-core machine); {machine_line()}"
    )


def against(args: argparse.Namespace, pause: tuple[float, float], arrive: float, rev: str) -> None:
    """This tree and REV's, served in turn (A B A B ...), the same learners against each;
    each pass's figures, then each side's range and the ratio now / REV of their medians."""
    with checked_out(rev) as folder:
        passes = []
        for number in range(args.repeat):
            for side, root in (("now", ROOT), (rev, folder)):
                outcome = asyncio.run(run_once(args, pause, arrive, root))
                print(f"\n--- pass {number + 1}/{args.repeat}, {side} ---")
                report(args, pause, arrive, outcome)
                passes.append((side, outcome.figures()))
    print(f"\n{cold_line(args.cold)}")
    print(
        f"{args.learners} learners, {args.edited:.0%} of runs edited, "
        f"{args.repeat} passes a side, interleaved"
    )
    print(f"  {'measure':38} {'now':>15} {rev[:15]:>15} {'ratio':>7}")
    for name, figures in compared(passes, "now").items():
        print(figures.line(name))


def find_capacity(args: argparse.Namespace, pause: tuple[float, float], arrive: float) -> None:
    """The largest class meeting the targets, each probe a fresh server and load test."""
    probes: list[Probe] = []

    def load(learners: int) -> Probe:
        outcome = asyncio.run(
            run_once(argparse.Namespace(**{**vars(args), "learners": learners}), pause, arrive)
        )
        probes.append(probe(learners, outcome.tally))
        print(probes[-1].line(), flush=True)
        return probes[-1]

    found = largest_class(args.learners, args.most, load)
    cores = os.cpu_count() or 1
    print(
        f"largest class meeting the targets: {found} learners, {found / cores:.0f} per core "
        f"({cores} cores, load generator included), {args.edited:.0%} of runs edited, pausing "
        f"{pause[0]:g} - {pause[1]:g} s, {args.seconds:g} s a probe"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--learners", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument(
        "--pause",
        type=float,
        nargs=2,
        default=(0.2, 1.0),
        metavar=("MIN", "MAX"),
        help="seconds a learner pauses after each round, uniformly between MIN and MAX",
    )
    parser.add_argument(
        "--arrive",
        type=float,
        metavar="SECONDS",
        help="learners arrive uniformly over the first SECONDS (default: the longest pause)",
    )
    parser.add_argument(
        "--edited",
        type=float,
        default=1 / 3,
        metavar="SHARE",
        help="the share of rounds whose run is the learner's edit of the step's code, code the "
        "server has never seen (default: one in three; 1: every run forks, the worst case)",
    )
    parser.add_argument("--url", help="an already running gradlab on loopback")
    parser.add_argument(
        "--cold",
        type=int,
        default=3,
        help="cold `python snippet.py` runs before and after, to say how loaded the machine is",
    )
    parser.add_argument(
        "--processes", type=int, default=1, help="server processes (gradlab serve --processes)"
    )
    parser.add_argument(
        "--find-capacity",
        action="store_true",
        help="find the largest class that meets the targets (docs/performance.md), from "
        "--learners up, each load a fresh server",
    )
    parser.add_argument(
        "--most", type=int, default=4000, help="with --find-capacity: the largest class to try"
    )
    add_against_arguments(parser, repeat=2)
    args = parser.parse_args()
    pause = (min(args.pause), max(args.pause))
    if pause[0] < 0 or pause[1] <= 0:
        parser.error("--pause takes two seconds, MIN >= 0 and MAX > 0")
    if args.arrive is not None and not 0 <= args.arrive < args.seconds:
        parser.error("--arrive takes seconds >= 0 and shorter than --seconds")
    if not 0 <= args.edited <= 1:
        parser.error("--edited takes a share between 0 and 1")
    if args.cold < 1:
        parser.error("--cold takes at least one run")
    if args.url is not None and not on_loopback(args.url):
        parser.error("--url: load tests only target loopback addresses")
    arrive = pause[1] if args.arrive is None else args.arrive
    if args.find_capacity:
        if args.against is not None or args.url is not None:
            parser.error("--find-capacity starts its own servers: leave out --against and --url")
        print(cold_line(args.cold))
        find_capacity(args, pause, arrive)
        print(cold_line(args.cold))
        return
    if args.against is not None:
        if args.url is not None:
            parser.error("--against starts both servers itself: leave out --url")
        rev = checked_against(parser, args)
        print(cold_line(args.cold))
        against(args, pause, arrive, rev)
        return
    print(cold_line(args.cold))
    outcome = asyncio.run(run_once(args, pause, arrive))
    report(args, pause, arrive, outcome)
    print(cold_line(args.cold))


if __name__ == "__main__":
    main()
