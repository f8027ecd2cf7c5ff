"""Speed, memory and safety of the snippet sandbox, measured end to end in one run.

Starts `gradlab serve` on a free loopback port and prints, side by side:
  - p50/p90 latency of POST /api/run over HTTP for a lesson snippet, and of the same snippet in
    a warm Jupyter kernel (an `execute` round trip through jupyter_client), run for run in turn,
    each timed call starting on a settled machine (--settle ms after the previous one: a run
    leaves work behind it, a new spare to fork and warm, that would otherwise land in the
    kernel's time),
  - where a run's time goes: the p50 of each phase of its critical path, from the timestamps
    the server, the zygote and the child record (app/sandbox/timeline.py),
  - the same snippet as a cold `python snippet.py` subprocess, and the ratio,
  - throughput with 4 concurrent clients,
  - memory (PSS) of the server, the zygote and the idle spare child,
  - the isolation layers in force and a few attacks, each of which must be refused.

Usage: python benchmarks/bench_sandbox.py [--runs 300] [--seconds 10]
Numbers, not assertions: compare them with the targets in docs/performance.md.
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

# Run as a script (`python benchmarks/bench_sandbox.py`): the project root on the path.
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from app.processes import (  # noqa: E402
    child_pids,
    descendants,
    is_zygote,
    parent_pid,
    sandbox_children,
)
from app.sandbox.timeline import ORDER, PHASES_ENV  # noqa: E402

PHASE_NAMES = {
    "sent": "queue for a worker, send the code to the zygote",
    "received": "zygote wakes up, reads the message",
    "handed": "zygote takes a spare child",
    "code": "code written to the spare, which wakes up",
    "ran": "the snippet runs (compile, exec, flush)",
    "inspected": "inspection: tensors and graph",
    "output": "child writes its report, server reads the pipes",
    "parsed": "server validates the report",
    "answered": "verdict: the RunResult is built",
}
SNIPPET = """import torch
x = torch.tensor([2.0, 3.0], requires_grad=True)
y = x.pow(2).sum()
y.backward()
print(x.grad)
"""
ATTACKS = {
    "open a TCP socket": "import socket\nsocket.socket()\n",
    "fork": "import os\nos.fork()\n",
    "read /etc/passwd": "open('/etc/passwd').read()\n",
    "signal the zygote": "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\n",
    "spin forever": "while True:\n    pass\n",
    "flood the scratch dir": "import os\nopen('e', 'w').close()\n"
    "for i in range(100_000):\n    os.link('e', f'f{i}')\n",
}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def pss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("Pss:"):
            return int(line.split()[1])
    return 0


# Every client of a benchmark comes from 127.0.0.1, and the throughput clients send runs
# without a cookie: as one client address they would share one learner's limits. A benchmark
# measures the server's capacity, not those limits (benchmarks/fairness.py measures them).
ONE_ADDRESS = {"GRADLAB_RUNS_PER_LEARNER": "64", "GRADLAB_NEW_LEARNERS_PER_MINUTE": "1000000"}


def start_server(
    port: int,
    phases: Path | None = None,
    processes: int = 1,
    settings: dict[str, str] = ONE_ADDRESS,
    root: Path = ROOT,
) -> subprocess.Popen[bytes]:
    """`gradlab serve` on `port` with a throwaway database (the learners it makes are fake),
    in `processes` server processes, writing each run's timestamps to `phases` when given,
    with `settings` (GRADLAB_* variables) on top of the environment; the gradlab of the tree
    at `root` (another revision's checkout: benchmarks/revision.py), by default this one."""
    database = Path(tempfile.mkdtemp(prefix="gradlab-bench-")) / "bench.db"
    command = [sys.executable, "-m", "app.cli", "serve", "--port", str(port)]
    server = subprocess.Popen(
        [*command, "--log-level", "warning", "--processes", str(processes)],
        cwd=root,
        env={
            **os.environ,
            "GRADLAB_DATABASE_URL": f"sqlite:///{database}",
            **settings,
            **({PHASES_ENV: str(phases)} if phases is not None else {}),
        },
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            health = httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).json()
            if health["sandbox"]["ready"]:
                return server
        except (httpx.HTTPError, KeyError, ValueError):
            pass
        time.sleep(0.2)
    server.kill()
    raise SystemExit("the server did not become ready")


class Kernel:
    """A warm Jupyter kernel (ipykernel), what a learner would use instead: one long-lived
    process with torch imported, no isolation at all."""

    def __init__(self) -> None:
        from jupyter_client.manager import start_new_kernel

        self.manager, self.client = start_new_kernel(kernel_name="python3")

    def run(self, code: str) -> str:
        """Execute `code` and wait for its reply and all its output; return its stdout."""
        stdout: list[str] = []

        def collect(message: dict[str, object]) -> None:
            content = message["content"]
            is_stream = message["msg_type"] == "stream" and isinstance(content, dict)
            if is_stream and content.get("name") == "stdout":
                stdout.append(str(content["text"]))

        reply = self.client.execute_interactive(code, output_hook=collect, timeout=60)
        if reply["content"]["status"] != "ok":
            raise RuntimeError(f"the kernel failed: {reply['content']}")
        return "".join(stdout)

    def close(self) -> None:
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=True)


def side_by_side(
    client: httpx.Client, kernel: Kernel, runs: int, settle_s: float
) -> tuple[list[float], list[float]]:
    """The same snippet through gradlab and through the kernel, in turn, `runs` times each,
    each call `settle_s` after the previous one ended. Back to back, the kernel's execute ran
    while gradlab forked and warmed its next spare, and measured 8.7 ms against 6.6 ms when
    timed alone: a bias in gradlab's favour."""
    gradlab, jupyter = [], []
    for _ in range(runs):
        time.sleep(settle_s)
        started = time.perf_counter()
        answer = client.post("/api/run", json={"code": SNIPPET}).json()
        gradlab.append((time.perf_counter() - started) * 1000)
        assert answer["stdout"] == "tensor([4., 6.])\n", answer
        time.sleep(settle_s)
        started = time.perf_counter()
        printed = kernel.run(SNIPPET)
        jupyter.append((time.perf_counter() - started) * 1000)
        assert printed == "tensor([4., 6.])\n", printed
    return gradlab, jupyter


def phase_table(runs: list[dict[str, float]], http_ms: list[float]) -> list[tuple[str, float]]:
    """p50 of each gap between consecutive marks, for runs that recorded them all, and what
    HTTP, routing and JSON add around the sandbox (the client's time minus the server's)."""
    gaps: dict[str, list[float]] = {name: [] for name in ORDER[1:]}
    outside = []
    for marks, total in zip(runs, http_ms, strict=True):
        if not all(name in marks for name in ORDER):
            continue
        for before, after in itertools.pairwise(ORDER):
            gaps[after].append((marks[after] - marks[before]) * 1000)
        outside.append(total - (marks["answered"] - marks["enter"]) * 1000)
    rows = [(PHASE_NAMES[name], statistics.median(values)) for name, values in gaps.items()]
    rows.append(("HTTP, routing, validation, JSON (outside)", statistics.median(outside)))
    return rows


def spare_lead(runs: list[dict[str, float]]) -> tuple[float, int, int]:
    """How long before its code arrived the spare was ready (p50, ms), and in how many runs of
    how many it was not ready yet (still being forked, confined or warmed up)."""
    leads = [(marks["handed"] - marks["waiting"]) * 1000 for marks in runs if "waiting" in marks]
    if not leads:
        return float("nan"), 0, 0
    return statistics.median(leads), sum(lead < 0 for lead in leads), len(leads)


def cold_runs(count: int) -> list[float]:
    timings = []
    with tempfile.TemporaryDirectory() as folder:
        script = Path(folder) / "snippet.py"
        script.write_text(SNIPPET)
        for _ in range(count):
            started = time.perf_counter()
            subprocess.run([sys.executable, str(script)], check=True, capture_output=True)
            timings.append((time.perf_counter() - started) * 1000)
    return timings


def cpu_ticks(pid: int) -> list[int]:
    """utime, stime, cutime, cstime of a process so far, in clock ticks (stat(5) fields
    14-17, 12-15 after the command name)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return [int(value) for value in fields[11:15]]


TICK_MS = 1000 / os.sysconf("SC_CLK_TCK")


def own_usage() -> tuple[float, int]:
    """This process's CPU time (ms) and minor page faults so far."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    return (own.ru_utime + own.ru_stime) * 1000, own.ru_minflt


def cpu_ms(server: int) -> tuple[float, float, float]:
    """CPU time so far (ms) of the server's processes (with --processes, the parent and each
    server process), of their zygotes, and of the zygotes' children, reaped or alive (a spare
    alive at one reading and reaped by the next moves from one sum to the other, so a
    difference counts it once): what runs cost the machine, whatever else loads it."""
    tree = {server} | descendants(server)
    zygotes = {pid for pid in tree if is_zygote(pid)}
    servers, zygote, children = 0, 0, 0
    for pid in tree:
        with contextlib.suppress(OSError):
            ticks = cpu_ticks(pid)
            if pid in zygotes:
                zygote += ticks[0] + ticks[1]
                children += ticks[2] + ticks[3]
            elif parent_pid(pid) in zygotes:
                children += ticks[0] + ticks[1]
            else:
                servers += ticks[0] + ticks[1]
    return servers * TICK_MS, zygote * TICK_MS, children * TICK_MS


def machine_line() -> str:
    """The machine and its load right now: read it beside every figure."""
    load = " ".join(f"{value:.2f}" for value in os.getloadavg())
    return f"machine: {os.cpu_count()} CPUs, python {sys.version.split()[0]}, load {load}"


def throughput(base: str, clients: int, seconds: float) -> tuple[float, int, int]:
    done = [0] * clients
    errors = [0] * clients
    stop_at = time.monotonic() + seconds

    def worker(index: int) -> None:
        with httpx.Client(base_url=base, timeout=30) as client:
            while time.monotonic() < stop_at:
                answer = client.post("/api/run", json={"code": SNIPPET})
                if answer.status_code == 200 and answer.json()["status"] == "ok":
                    done[index] += 1
                else:
                    errors[index] += 1

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(clients)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started
    return sum(done) / elapsed, sum(done), sum(errors)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=300, help="runs of each, gradlab and kernel")
    parser.add_argument(
        "--settle", type=float, default=50, help="ms of quiet before each timed call"
    )
    parser.add_argument("--cold", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--clients", type=int, default=4)
    args = parser.parse_args()

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    phases = Path(tempfile.mkdtemp(prefix="gradlab-phases-")) / "phases.jsonl"
    server = start_server(port, phases)
    kernel = Kernel()
    try:
        with httpx.Client(base_url=base, timeout=30) as client:
            health = client.get("/healthz").json()["sandbox"]
            for _ in range(20):
                client.post("/api/run", json={"code": SNIPPET})
                kernel.run(SNIPPET)
            already = len(phases.read_text().splitlines())
            warm, jupyter = side_by_side(client, kernel, args.runs, args.settle / 1000)
            runs = [json.loads(line) for line in phases.read_text().splitlines()[already:]]
            phase_rows = phase_table(runs, warm)
            lead, late, counted = spare_lead(runs)
            time.sleep(0.5)  # let the spare settle
            zygotes = child_pids(server.pid)
            spares = [pid for zygote in zygotes for pid in sandbox_children(zygote)]
            memory = {
                "server": pss_kib(server.pid),
                "zygote": sum(pss_kib(pid) for pid in zygotes),
                "idle spare": sum(pss_kib(pid) for pid in spares),
            }
            attacks = {
                name: client.post("/api/run", json={"code": code}).json()
                for name, code in ATTACKS.items()
            }
        cpu_before = cpu_ms(server.pid)
        rate, completed, failed = throughput(base, args.clients, args.seconds)
        cpu_after = cpu_ms(server.pid)
        cpu = [(b - a) / max(completed, 1) for a, b in zip(cpu_before, cpu_after, strict=True)]
    finally:
        kernel.close()
        server.terminate()
        server.wait(10)
    cold = cold_runs(args.cold)

    warm_p50, warm_p90 = statistics.median(warm), percentile(warm, 0.9)
    kernel_p50, kernel_p90 = statistics.median(jupyter), percentile(jupyter, 0.9)
    cold_p50 = statistics.median(cold)
    print(machine_line())
    print(f"isolation: {health['isolation']} (workers: {health['workers']})")
    print()
    print(f"{'measure':48} {'value':>10}  target")
    print(f"each timed call below starts {args.settle:g} ms after the previous one ended")
    print(f"{'POST /api/run p50 over HTTP (ms)':48} {warm_p50:10.1f}  <= 5")
    print(f"{'POST /api/run p90 over HTTP (ms)':48} {warm_p90:10.1f}")
    print(f"{'warm Jupyter kernel execute p50 (ms)':48} {kernel_p50:10.1f}")
    print(f"{'warm Jupyter kernel execute p90 (ms)':48} {kernel_p90:10.1f}")
    print(f"{'ratio gradlab p50 / kernel p50':48} {warm_p50 / kernel_p50:10.2f}  <= 1.10")
    print(f"{'cold python snippet.py p50 (ms)':48} {cold_p50:10.1f}")
    print(f"{'speed-up (cold p50 / warm p50)':48} {cold_p50 / warm_p50:10.1f}")
    print(
        f"{f'throughput, {args.clients} clients (runs/s)':48} {rate:10.1f}  >= 150"
        f"   ({completed} ok, {failed} not ok in {args.seconds:g} s)"
    )
    print(
        f"{'CPU per run: server + zygote + child (ms)':48} {sum(cpu):10.1f}  <= 13"
        f"   ({cpu[0]:.1f} + {cpu[1]:.1f} + {cpu[2]:.1f}; 13 ms = 2 cores / 150 runs/s)"
    )
    total = sum(memory.values()) / 1024
    parts = ", ".join(f"{name} {kib / 1024:.0f}" for name, kib in memory.items())
    print(f"{'PSS server + zygote + idle spares (MiB)':48} {total:10.0f}  <= 450   ({parts})")
    print()
    print(f"{'phase of one run (critical path)':52} {'p50 ms':>8}")
    for name, median in phase_rows:
        print(f"  {name:50} {median:8.3f}")
    print(f"  {'sum of the p50s':50} {sum(m for _, m in phase_rows):8.3f}")
    if counted:
        print(
            f"  the spare was ready {lead:.1f} ms before its code (p50); "
            f"not ready yet in {late} of {counted} runs"
        )
    print()
    for name, result in attacks.items():
        verdict = "refused" if result["status"] != "ok" else "NOT REFUSED"
        error_type = (result["error"] or {}).get("type", "")
        print(f"attack: {name:24} -> {result['status']:8} {error_type:18} {verdict}")


if __name__ == "__main__":
    main()
