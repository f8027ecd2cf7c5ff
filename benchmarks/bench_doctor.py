"""The gradient doctor's precision and recall on its corpus, and what it costs a run, measured
over HTTP against `gradlab serve`.

First every program of tests/doctor/corpus goes to POST /api/doctor once: a reported
(kind, tensor) the program does not expect is a false alarm, an expected one not reported a
miss; precision and recall are counted over the whole corpus. Then a two-layer MLP trained for
20 steps goes to POST /api/run and to POST /api/doctor in turn (interleaved, so that a load
change on a shared machine hits both alike): p50/p90 of each, and their ratio. The figures are
kept in docs/doctor.md.

Usage: python benchmarks/bench_doctor.py [--runs 40]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import httpx

# Run as a script (`python benchmarks/bench_doctor.py`): the project root on the path.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_sandbox import free_port, percentile, start_server
from tests.doctor.corpus import programs, reported

MLP = """\
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 1))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
x = torch.randn(64, 8)
y = x.sum(dim=1, keepdim=True)
for step in range(20):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    optimizer.step()
print(loss.item())
"""


def corpus_scores(client: httpx.Client) -> None:
    true, false_alarms, misses = 0, 0, 0
    for program in programs():
        body = client.post("/api/doctor", json={"code": program.code}).json()
        found = reported(body["findings"])
        true += len(found & program.expected)
        extra, missed = found - program.expected, program.expected - found
        false_alarms += len(extra)
        misses += len(missed)
        if extra or missed:
            print(f"  {program.name}: false alarms {sorted(extra)}, missed {sorted(missed)}")
    count = len(programs())
    precision = true / (true + false_alarms) if true + false_alarms else 1.0
    recall = true / (true + misses) if true + misses else 1.0
    print(f"corpus: {count} programs, {true + misses} expected findings")
    print(f"precision {precision:.3f} ({false_alarms} false alarms)")
    print(f"recall    {recall:.3f} ({misses} missed)")


def cost(client: httpx.Client, runs: int) -> None:
    timings: dict[str, list[float]] = {"/api/run": [], "/api/doctor": []}
    for path in list(timings) * 3:  # warm up
        client.post(path, json={"code": MLP})
    for _ in range(runs):
        for path in timings:
            started = time.perf_counter()
            answer = client.post(path, json={"code": MLP}).json()
            timings[path].append((time.perf_counter() - started) * 1000)
            result = answer.get("result", answer)
            assert result["status"] == "ok", result
    print(f"two-layer MLP, 20 steps, {runs} runs each, interleaved")
    print(f"{'':14} {'p50 ms':>8} {'p90 ms':>8}")
    for path, values in timings.items():
        print(f"{path:14} {statistics.median(values):8.1f} {percentile(values, 0.9):8.1f}")
    ratio = statistics.median(timings["/api/doctor"]) / statistics.median(timings["/api/run"])
    print(f"doctor / run (p50): {ratio:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=40)
    args = parser.parse_args()
    port = free_port()
    server = start_server(port)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
            print(f"machine: {os.cpu_count()} CPUs, python {sys.version.split()[0]}")
            corpus_scores(client)
            cost(client, args.runs)
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    main()
