"""What a run of a lesson's own code costs once its answer is known: the server's CPU for each,
and the forks it makes (none), beside a learner's edit of the same code, which forks.

Starts `gradlab serve` on a free loopback port, runs a step's code of the bundled lessons once
(the run that fills its answer), then sends it --runs times more, one after another over one
connection, and reads:
  - the CPU the server process spent (ms a run; /proc, whatever else loads the machine),
  - the runs that reached the sandbox (the phase log writes one line for each, and each
    forks a child: "sandbox runs" is the forks),
  - whether the zygote's children are the same pids before and after (a run takes a spare and
    forks another: the same spares mean no fork), and /metrics' hits and misses;
then the same for --edited runs of the code with a unique comment added (code the server has
never seen), whose server, zygote and child CPU are what a fork costs.

Usage: python benchmarks/bench_known_runs.py [--runs 1000] [--edited 100]
Numbers, not assertions: the machine may be shared, so read the load beside them.
"""

from __future__ import annotations

import argparse
import secrets
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.config.paths import BUNDLED_LESSONS
from app.lessons.loader import load_catalog
from app.processes import child_pids
from benchmarks.bench_sandbox import ONE_ADDRESS, cpu_ms, free_port, machine_line, start_server


def step_code() -> tuple[dict[str, object], str]:
    """The first step's code of the first lesson as the lesson page sends it (without its
    final newline: static/js/runnable.js), and the lesson and step it sends with it."""
    lesson = load_catalog(BUNDLED_LESSONS).lessons[0]
    number, code = next(
        (number, step.snippet.code)
        for number, step in enumerate(lesson.steps, 1)
        if step.snippet is not None
    )
    return {"lesson": lesson.slug, "step": number}, code.removesuffix("\n")


def metric(text: str, name: str) -> float:
    line = next(line for line in text.splitlines() if line.startswith(name + " "))
    return float(line.rsplit(" ", 1)[1])


@dataclass(frozen=True)
class Reading:
    cpu: tuple[float, float, float]  # server, zygote, children (ms so far)
    runs: int  # runs that reached the sandbox so far
    children: frozenset[int]  # the zygote's children now
    hit: float
    miss: float


class Probe:
    """The server's CPU, the sandbox's runs and the zygote's children, read between batches."""

    def __init__(self, server: int, phases: Path, client: httpx.Client, token: str) -> None:
        self.server, self.phases, self.client = server, phases, client
        self.auth = {"Authorization": f"Bearer {token}"}

    def reading(self) -> Reading:
        scraped = self.client.get("/metrics", headers=self.auth).text
        return Reading(
            cpu_ms(self.server),
            len(self.phases.read_text().splitlines()) if self.phases.exists() else 0,
            frozenset(pid for zygote in child_pids(self.server) for pid in child_pids(zygote)),
            metric(scraped, 'gradlab_known_runs_total{outcome="hit"}'),
            metric(scraped, 'gradlab_known_runs_total{outcome="miss"}'),
        )


def batch(client: httpx.Client, where: dict[str, object], codes: list[str]) -> float:
    """Run each of `codes` in turn; the wall time a run (ms)."""
    started = time.perf_counter()
    for code in codes:
        answer = client.post("/api/run", json={"code": code, **where})
        if answer.status_code != 200 or answer.json()["status"] not in ("ok", "error"):
            raise SystemExit(f"a run failed: {answer.status_code} {answer.text[:200]}")
    return (time.perf_counter() - started) * 1000 / len(codes)


def report(name: str, count: int, before: Reading, after: Reading) -> None:
    cpu = [(b - a) / count for a, b in zip(before.cpu, after.cpu, strict=True)]
    same = "yes" if after.children == before.children else "no"
    print(
        f"{name:34} {count:6d} {cpu[0]:9.2f} {cpu[1] + cpu[2]:15.2f} "
        f"{after.runs - before.runs:8d} {same:>9} "
        f"{after.hit - before.hit:6.0f} {after.miss - before.miss:6.0f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000, help="runs of the known code, timed")
    parser.add_argument("--edited", type=int, default=100, help="runs of edited code, timed")
    args = parser.parse_args()
    if args.runs < 1 or args.edited < 1:
        parser.error("--runs and --edited take at least one run")
    token = secrets.token_urlsafe(16)
    port = free_port()
    phases = Path(tempfile.mkdtemp(prefix="gradlab-phases-")) / "phases.jsonl"
    settings = {**ONE_ADDRESS, "GRADLAB_METRICS_TOKEN": token}
    server = start_server(port, phases, settings=settings)
    where, code = step_code()
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            probe = Probe(server.pid, phases, client, token)
            batch(client, where, [code])  # the run that fills the answer
            time.sleep(0.5)  # the spare it used is replaced
            before = probe.reading()
            known_ms = batch(client, where, [code] * args.runs)
            after = probe.reading()
            edits = [f"{code}\n# edit {secrets.token_hex(8)}" for _ in range(args.edited)]
            edited_ms = batch(client, where, edits)
            time.sleep(0.5)
            edited = probe.reading()
    finally:
        server.terminate()
        server.wait(10)
    print(machine_line())
    print("a shared machine: other work lands in the wall times, not in the CPU per run")
    print(
        f"{'runs of':34} {'count':>6} {'server':>9} {'zygote+children':>15} "
        f"{'sandbox':>8} {'same':>9} {'hits':>6} {'misses':>6}"
    )
    print(f"{'':34} {'':>6} {'CPU ms':>9} {'CPU ms a run':>15} {'runs':>8} {'spares':>9}")
    report("the step's code (known)", args.runs, before, after)
    report("the step's code, edited (new)", args.edited, after, edited)
    print(f"wall time a run, one after another: known {known_ms:.2f} ms, edited {edited_ms:.2f} ms")


if __name__ == "__main__":
    main()
