"""Speed, memory and safety of the snippet sandbox, measured end to end in one run.

Starts `gradlab serve` on a free loopback port and prints, side by side:
  - p50/p90 latency of POST /api/run over HTTP for a lesson snippet,
  - the same snippet as a cold `python snippet.py` subprocess, and the ratio,
  - throughput with 4 concurrent clients,
  - memory (PSS) of the server, the zygote and the idle spare child,
  - the isolation layers in force and a few attacks, each of which must be refused.

Usage: python benchmarks/bench_sandbox.py [--runs 300] [--seconds 10]
Numbers, not assertions: compare them with the targets in the README.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
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


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def start_server(port: int) -> subprocess.Popen[bytes]:
    """`gradlab serve` on `port` with a throwaway database (the learners it makes are fake)."""
    database = Path(tempfile.mkdtemp(prefix="gradlab-bench-")) / "bench.db"
    server = subprocess.Popen(
        [sys.executable, "-m", "app.cli", "serve", "--port", str(port), "--log-level", "warning"],
        cwd=ROOT,
        env={**os.environ, "GRADLAB_DATABASE_URL": f"sqlite:///{database}"},
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
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--cold", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--clients", type=int, default=4)
    args = parser.parse_args()

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = start_server(port)
    try:
        with httpx.Client(base_url=base, timeout=30) as client:
            health = client.get("/healthz").json()["sandbox"]
            for _ in range(20):
                client.post("/api/run", json={"code": SNIPPET})
            warm = []
            for _ in range(args.runs):
                started = time.perf_counter()
                answer = client.post("/api/run", json={"code": SNIPPET}).json()
                warm.append((time.perf_counter() - started) * 1000)
                assert answer["stdout"] == "tensor([4., 6.])\n", answer
            time.sleep(0.5)  # let the spare settle
            zygotes = children(server.pid)
            spares = [pid for zygote in zygotes for pid in children(zygote)]
            memory = {
                "server": pss_kib(server.pid),
                "zygote": sum(pss_kib(pid) for pid in zygotes),
                "idle spare": sum(pss_kib(pid) for pid in spares),
            }
            attacks = {
                name: client.post("/api/run", json={"code": code}).json()
                for name, code in ATTACKS.items()
            }
        rate, completed, failed = throughput(base, args.clients, args.seconds)
    finally:
        server.terminate()
        server.wait(10)
    cold = cold_runs(args.cold)

    warm_p50, warm_p90 = statistics.median(warm), percentile(warm, 0.9)
    cold_p50 = statistics.median(cold)
    print(f"machine: {os.cpu_count()} CPUs, python {sys.version.split()[0]}")
    print(f"isolation: {health['isolation']} (workers: {health['workers']})")
    print()
    print(f"{'measure':44} {'value':>12}  target")
    print(f"{'POST /api/run p50 over HTTP (ms)':44} {warm_p50:12.1f}  <= 15")
    print(f"{'POST /api/run p90 over HTTP (ms)':44} {warm_p90:12.1f}")
    print(f"{'cold python snippet.py p50 (ms)':44} {cold_p50:12.1f}")
    print(f"{'speed-up (cold p50 / warm p50)':44} {cold_p50 / warm_p50:12.1f}  >= 80")
    print(
        f"{f'throughput, {args.clients} clients (runs/s)':44} {rate:12.1f}  >= 100"
        f"   ({completed} ok, {failed} not ok in {args.seconds:g} s)"
    )
    total = sum(memory.values()) / 1024
    parts = ", ".join(f"{name} {kib / 1024:.0f}" for name, kib in memory.items())
    print(f"{'PSS server + zygote + idle spare (MiB)':44} {total:12.0f}  <= 600   ({parts})")
    print()
    for name, result in attacks.items():
        verdict = "refused" if result["status"] != "ok" else "NOT REFUSED"
        error_type = (result["error"] or {}).get("type", "")
        print(f"attack: {name:24} -> {result['status']:8} {error_type:18} {verdict}")


if __name__ == "__main__":
    main()
