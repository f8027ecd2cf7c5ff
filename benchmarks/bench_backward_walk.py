"""What recording backward calls costs a run, measured over HTTP against `gradlab serve`.

Prints p50/p90 latency of POST /api/run for a snippet without any backward call, the benchmark's
usual one-backward snippet, and a snippet with two backward calls, the snippets interleaved so
that a load change on a shared machine hits all of them alike; and a cold `python -c pass` line
that shows how loaded the machine was. Run it before and after a change and compare the columns.

Usage: python benchmarks/bench_backward_walk.py [--runs 300]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

# Run as a script (`python benchmarks/bench_backward_walk.py`): the project root on the path.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_sandbox import SNIPPET, free_port, percentile, start_server

SNIPPETS = {
    "no backward": (
        "import torch\nx = torch.tensor([2.0, 3.0], requires_grad=True)\n"
        "y = x.pow(2).sum()\nprint(y)\n"
    ),
    "one backward (bench_sandbox's snippet)": SNIPPET,
    "two backward calls": (
        "import torch\nx = torch.tensor([2.0, 3.0], requires_grad=True)\n"
        "for _ in range(2):\n    (x * x).sum().backward()\nprint(x.grad)\n"
    ),
}


def cold_python_ms(count: int = 10) -> float:
    timings = []
    for _ in range(count):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        timings.append((time.perf_counter() - started) * 1000)
    return statistics.median(timings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=300)
    args = parser.parse_args()
    port = free_port()
    server = start_server(port)
    timings: dict[str, list[float]] = {name: [] for name in SNIPPETS}
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            for code in list(SNIPPETS.values()) * 10:
                client.post("/api/run", json={"code": code})
            for _ in range(args.runs):
                for name, code in SNIPPETS.items():
                    started = time.perf_counter()
                    answer = client.post("/api/run", json={"code": code}).json()
                    timings[name].append((time.perf_counter() - started) * 1000)
                    assert answer["status"] == "ok", answer
    finally:
        server.terminate()
        server.wait(10)
    print(f"machine: {os.cpu_count()} CPUs, python {sys.version.split()[0]}")
    print(f"cold `python -c pass` p50 (ms), shows the load: {cold_python_ms():.1f}")
    print(f"{'POST /api/run':44} {'p50 ms':>8} {'p90 ms':>8}")
    for name, values in timings.items():
        print(f"{name:44} {statistics.median(values):8.2f} {percentile(values, 0.9):8.2f}")


if __name__ == "__main__":
    main()
