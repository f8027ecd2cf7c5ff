"""Where a sandboxed run's CPU goes: fork, each phase of the child, and its exit.

Sets a process up exactly as the zygote does (app/sandbox/zygote.py `load_and_settle`: torch and
the preloaded modules, frozen objects, huge pages), then forks children one at a time that go
through the real phases of app/sandbox/child.py: taking the process over, every confinement
layer, the rehearsal, the benchmark's snippet, its report. Each child reads its own CPU time
and minor page faults (getrusage) between phases; the parent times its fork and reads the
child's total at the reap, so the exit is the rest. Prints the p50 of each, and how much of
the parent's anonymous memory is mapped in huge pages before and after the forks (each fork
copies one entry per 4 KiB page).

With `--parts` the child does the rehearsal twice, step by step (compiling it, its forward
lines, `backward()`, printing a tensor, the inspection, the report), so the first pass shows
what a rehearsal costs and the second what the same work costs once its pages are copied and
its lazy starts made: the difference is what the rehearsal moves off the learner's path, the
second pass what it costs on top. It also forks children that exit at once, for the exit's
floor (unmapping what every child inherits) beside what a run's child leaves to unmap.

Usage: python benchmarks/bench_child_cpu.py [--runs 60] [--no-rehearsal | --parts]
Numbers, not assertions: compare them with docs/performance.md.
"""

from __future__ import annotations

import argparse
import builtins
import json
import os
import shutil
import statistics
import sys
import time
from pathlib import Path
from typing import Any

# Run as a script (`python benchmarks/bench_child_cpu.py`): the project root on the path.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.sandbox.isolation import Confinement
from app.sandbox.zygote import confinement_for, make_scratch
from benchmarks.bench_sandbox import SNIPPET, machine_line, own_usage

PHASES = {
    "fork": "fork, in the parent",
    "start": "child: from fork's return to its first line",
    "take_over": "child: session, fds, scratch dir, environment",
    "confine": "child: every confinement layer",
    "rehearse": "child: the rehearsal (warm_up_child)",
    "run": "child: the snippet, inspection",
    "report": "child: the report encoded",
    "exit": "child: exit (the rest of its CPU, read at the reap)",
}


def anonymous_memory() -> tuple[int, int]:
    """(anonymous KiB, of which in huge pages) of this process."""
    fields = {}
    for line in Path("/proc/self/smaps_rollup").read_text().splitlines():
        name, _, rest = line.partition(":")
        if rest.strip().endswith("kB"):
            fields[name] = int(rest.split()[0])
    return fields.get("Anonymous", 0), fields.get("AnonHugePages", 0)


# The rehearsal (app/sandbox/warmup.py REHEARSAL) cut at its steps, for --parts.
REHEARSAL_STEPS = {
    "forward": "import torch\nw = torch.tensor([1.0, 2.0], requires_grad=True)\n"
    "loss = (w * w + 1).sum()\n",
    "backward": "loss.backward()\n",
    "print": "text = str(w.grad)\n",
}
PART_LABELS = {
    "install": "record installed, code compiled",
    "forward": "its forward lines (tensors, arithmetic, sum)",
    "backward": "loss.backward() (the autograd engine)",
    "print": "str(w.grad) (tensor printing)",
    "inspect": "backward record, inspection of the namespace",
    "encode": "the report encoded",
}


def rehearse_in_parts(marks: list[list[Any]], label: str) -> None:
    """The rehearsal's work, step by step, a mark after each (what run_code does, cut up)."""
    from app.sandbox import backward_record, execute
    from app.sandbox.inspection import inspect_namespace

    namespace: dict[str, Any] = {"__name__": "__main__", "__builtins__": builtins}
    recorder = backward_record.install(namespace, execute.SNIPPET_FILENAME)
    compiled = {
        step: compile(code, execute.SNIPPET_FILENAME, "exec", dont_inherit=True)
        for step, code in REHEARSAL_STEPS.items()
    }
    marks.append([f"{label}:install", *own_usage()])
    for step, code in compiled.items():
        exec(code, namespace)  # noqa: S102 - the rehearsal's own, fixed code
        marks.append([f"{label}:{step}", *own_usage()])
    record = recorder.finish()
    tensors, graph = inspect_namespace(namespace)
    marks.append([f"{label}:inspect", *own_usage()])
    report = {"error": None, "tensors": tensors, "graph": graph, "backward": record}
    execute.encode_result(report)  # type: ignore[arg-type]
    marks.append([f"{label}:encode", *own_usage()])


def child(
    confinement: Confinement,
    scratch: Path,
    pipes: tuple[int, int, int, int],
    rehearse: bool,
    parts: bool = False,
) -> None:
    """The forked child: the phases of app/sandbox/child.py run_child, marks on fd 3."""
    from app.sandbox import execute
    from app.sandbox.child import take_over
    from app.sandbox.warmup import warm_up_child

    marks: list[list[Any]] = [["start", *own_usage()]]
    take_over(scratch, pipes)
    marks.append(["take_over", *own_usage()])
    confinement.apply(scratch)
    marks.append(["confine", *own_usage()])
    if parts:
        rehearse_in_parts(marks, "first")
        rehearse_in_parts(marks, "second")
    elif rehearse:
        warm_up_child()
        marks.append(["rehearse", *own_usage()])
    else:
        marks.append(["rehearse", *own_usage()])
    result = execute.run_code(os.read(0, 1 << 20).decode())
    marks.append(["run", *own_usage()])
    execute.encode_result(result)
    marks.append(["report", *own_usage()])
    os.write(3, json.dumps(marks).encode())


def one_run(
    confinement: Confinement, root: str, rehearse: bool, parts: bool = False
) -> dict[str, tuple[float, int]]:
    scratch = make_scratch(root, confinement)
    code_r, code_w = os.pipe()
    os.write(code_w, SNIPPET.encode())
    os.close(code_w)
    marks_r, marks_w = os.pipe()
    null = os.open(os.devnull, os.O_WRONLY)
    before = time.process_time()
    pid = os.fork()
    if pid == 0:
        status = 1
        try:
            child(confinement, scratch, (code_r, null, null, marks_w), rehearse, parts)
            status = 0
        finally:
            os._exit(status)
    fork_ms = (time.process_time() - before) * 1000
    for fd in (code_r, marks_w, null):
        os.close(fd)
    with os.fdopen(marks_r, "rb") as reader:
        raw = reader.read()
    _, status, reaped = os.wait4(pid, 0)
    shutil.rmtree(scratch, ignore_errors=True)
    if status != 0 or not raw:
        raise SystemExit(f"the child failed (status {status})")
    marks = json.loads(raw)
    phases: dict[str, tuple[float, int]] = {"fork": (fork_ms, 0)}
    previous_cpu, previous_faults = 0.0, 0
    for name, cpu, faults in marks:
        phases[name] = (cpu - previous_cpu, faults - previous_faults)
        previous_cpu, previous_faults = cpu, faults
    total = (reaped.ru_utime + reaped.ru_stime) * 1000
    phases["exit"] = (total - previous_cpu, reaped.ru_minflt - previous_faults)
    return phases


def bare_exit() -> tuple[float, float, int]:
    """A child that exits at once: (fork ms in the parent, the child's CPU ms, its faults),
    the floor of every child's exit (unmapping what it inherited)."""
    before = time.process_time()
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    fork_ms = (time.process_time() - before) * 1000
    _, _, reaped = os.wait4(pid, 0)
    return fork_ms, (reaped.ru_utime + reaped.ru_stime) * 1000, reaped.ru_minflt


def print_parts(
    runs: list[dict[str, tuple[float, int]]], bare: list[tuple[float, float, int]]
) -> None:
    print(f"{'the rehearsal, step by step (p50)':44} {'first':>16} {'second':>16}")
    print(f"{'':44} {'CPU ms':>8} {'faults':>7} {'CPU ms':>8} {'faults':>7}")
    sums = {"first": [0.0, 0.0], "second": [0.0, 0.0]}
    for step, label in PART_LABELS.items():
        cells = []
        for side in ("first", "second"):
            cpu = statistics.median(run[f"{side}:{step}"][0] for run in runs)
            faults = statistics.median(run[f"{side}:{step}"][1] for run in runs)
            sums[side][0] += cpu
            sums[side][1] += faults
            cells.append(f"{cpu:8.2f} {faults:7.0f}")
        print(f"  {label:42} {' '.join(cells)}")
    first, second = sums["first"], sums["second"]
    totals = f"{first[0]:8.2f} {first[1]:7.0f} {second[0]:8.2f} {second[1]:7.0f}"
    print(f"  {'sum of the steps':42} {totals}")
    for name in ("run", "exit"):
        cpu = statistics.median(run[name][0] for run in runs)
        faults = statistics.median(run[name][1] for run in runs)
        print(f"  {PHASES[name]:42} {cpu:8.2f} {faults:7.0f}")
    print(
        f"a child that exits at once: fork {statistics.median(b[0] for b in bare):.2f} ms, "
        f"its CPU {statistics.median(b[1] for b in bare):.2f} ms, "
        f"{statistics.median(b[2] for b in bare):.0f} faults"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=60)
    parser.add_argument("--no-rehearsal", action="store_true", help="children skip it")
    parser.add_argument(
        "--parts", action="store_true", help="the rehearsal twice, step by step, and a bare exit"
    )
    args = parser.parse_args()

    from app.config.settings import Settings
    from app.sandbox.launch import make_scratch_root, zygote_config
    from app.sandbox.warmup import load_and_settle

    # The zygote's own settings, confinement and scratch root (app/sandbox/launch.py, zygote.py).
    settings = Settings()
    root = make_scratch_root(settings.scratch_root)
    config = zygote_config(settings, root)
    confinement = confinement_for(config)
    collapsed = load_and_settle()
    settled = anonymous_memory()
    warm_up_runs = 5  # not counted
    runs = [
        one_run(confinement, config.scratch_root, not args.no_rehearsal, args.parts)
        for _ in range(args.runs + warm_up_runs)
    ][warm_up_runs:]
    bare = [bare_exit() for _ in range(args.runs)] if args.parts else []
    after = anonymous_memory()
    shutil.rmtree(root, ignore_errors=True)

    print(machine_line())
    print(f"collapsed into huge pages: {collapsed >> 20} MiB")
    for when, (anonymous, huge) in (("settled", settled), (f"after {len(runs)} forks", after)):
        print(
            f"parent's anonymous memory {when}: {anonymous >> 10} MiB, "
            f"{huge >> 10} MiB in huge pages, {(anonymous - huge) >> 10} MiB in 4 KiB pages"
        )
    print()
    if args.parts:
        print_parts(runs, bare)
        return
    print(f"{'phase (p50 over ' + str(len(runs)) + ' runs)':52} {'CPU ms':>8} {'faults':>8}")
    for name, label in PHASES.items():
        cpu = statistics.median(run[name][0] for run in runs)
        faults = statistics.median(run[name][1] for run in runs)
        print(f"  {label:50} {cpu:8.2f} {faults:8.0f}")
    totals = [sum(cpu for cpu, _ in run.values()) for run in runs]
    faults = [sum(count for _, count in run.values()) for run in runs]
    print(
        f"  {'total: fork + child':50} {statistics.median(totals):8.2f} "
        f"{statistics.median(faults):8.0f}"
    )


if __name__ == "__main__":
    main()
