"""Run one snippet in the current process and report what happened.

This is the code of the confined child (and of `python -m app.sandbox.execute`, the same thing
without confinement, used to compare with plain Python). The snippet's stdout and stderr are the
process's own fds 1 and 2, so what it prints is byte for byte what plain `python` prints; the
result goes as JSON to a separate file descriptor the snippet is not meant to touch.
"""

from __future__ import annotations

import builtins
import contextlib
import json
import linecache
import os
import sys
import time
import traceback
from types import TracebackType
from typing import Any, BinaryIO, TypedDict

from app.sandbox import backward_call, backward_record, doctor_findings, doctor_watch
from app.sandbox.backward_types import BackwardRecord
from app.sandbox.doctor_findings import DoctorRecord
from app.sandbox.inspection import GraphDescription, TensorDescription, inspect_namespace

SNIPPET_FILENAME = "snippet.py"
# The backward walk's modules: their frames in a traceback are ours, not torch's.
_RECORDER_FILES = (backward_record.__file__, backward_call.__file__, doctor_watch.__file__)
MAX_MESSAGE_CHARS = 2000


class ErrorDescription(TypedDict):
    type: str
    message: str
    line: int | None  # in the snippet, 1-based


class Report(TypedDict):
    """What the child sends on its result channel (the server validates it as ChildReport)."""

    error: ErrorDescription | None
    tensors: list[TensorDescription]
    graph: GraphDescription
    backward: BackwardRecord  # every backward call, node by node (backward_record.py)
    doctor: DoctorRecord | None  # the gradient doctor's findings, when asked (doctor_watch.py)
    exec_ms: float
    marks: dict[str, float]  # CLOCK_MONOTONIC readings, see timeline.py


def _snippet_line(exc: BaseException) -> int | None:
    """The line of the learner's code where `exc` was raised (the innermost snippet frame)."""
    if isinstance(exc, SyntaxError) and exc.filename == SNIPPET_FILENAME:
        return exc.lineno
    line = None
    tb: TracebackType | None = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == SNIPPET_FILENAME:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _only_snippet_frames(report: traceback.TracebackException) -> None:
    """Keep the learner's own frames: library frames are noise to a learner and would show
    the server's file paths. Says how many were hidden, in place of them."""
    seen: set[int] = set()
    current: traceback.TracebackException | None = report
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        frames = list(current.stack)
        # Frames before the snippet's first are this runner's: plain python has none.
        first = next((i for i, f in enumerate(frames) if f.filename == SNIPPET_FILENAME), 0)
        mine = [frame for frame in frames if frame.filename == SNIPPET_FILENAME]
        # The backward walk's wrappers are not torch's: plain python has no such frames.
        ours = sum(frame.filename in _RECORDER_FILES for frame in frames[first:])
        hidden = len(frames) - first - len(mine) - ours
        if hidden and mine:
            last = mine[-1]
            note = f"[{hidden} frame{'s' * (hidden != 1)} inside torch or Python hidden]"
            mine.append(traceback.FrameSummary(note, last.lineno, "<hidden>", line=""))
        current.stack = traceback.StackSummary.from_list(mine)
        current = current.__cause__ or current.__context__


def _print_traceback(exc: BaseException) -> None:
    report = traceback.TracebackException.from_exception(exc)
    _only_snippet_frames(report)
    lines = []
    for line in report.format():
        if "<hidden>" in line:  # render the note as a line of its own
            note = line.split('"')[1]
            line = f"  {note}\n"
        lines.append(line)
    sys.stderr.write("".join(lines))


def run_code(code: str, doctor: bool = False) -> Report:
    """Execute `code` as a `__main__` module; return the error (if any), tensors and graph,
    and with `doctor` what the gradient doctor found."""
    linecache.cache[SNIPPET_FILENAME] = (len(code), None, code.splitlines(True), SNIPPET_FILENAME)
    namespace: dict[str, Any] = {"__name__": "__main__", "__builtins__": builtins}
    error: ErrorDescription | None = None
    code_at = time.monotonic()
    recorder = backward_record.install(namespace, SNIPPET_FILENAME)  # the backward walk
    watch = doctor_watch.Watch(namespace, SNIPPET_FILENAME, recorder.where) if doctor else None
    if watch is not None:
        watch.install()
    started = time.perf_counter()
    try:
        compiled = compile(code, SNIPPET_FILENAME, "exec", dont_inherit=True)
        exec(compiled, namespace)  # noqa: S102 - running the learner's code is the point
    except SystemExit as exc:
        if exc.code not in (None, 0):
            error = {"type": "SystemExit", "message": str(exc.code), "line": _snippet_line(exc)}
    except BaseException as exc:  # noqa: BLE001 - every failure of the snippet is reported
        error = {
            "type": type(exc).__name__,
            "message": str(exc)[:MAX_MESSAGE_CHARS],
            "line": _snippet_line(exc),
        }
        _print_traceback(exc)
    elapsed_ms = (time.perf_counter() - started) * 1000
    for stream in (sys.stdout, sys.stderr):
        # The snippet may have closed or replaced its streams.
        with contextlib.suppress(Exception):
            stream.flush()
    ran_at = time.monotonic()
    diagnosis = None
    if watch is not None:
        watch.finish()
        with contextlib.suppress(Exception):  # a hostile snippet may break what was watched
            diagnosis = doctor_findings.diagnose(watch, failed=error is not None)
    backward = recorder.finish()  # the backward walk
    tensors, graph = inspect_namespace(namespace)
    marks = {"code": code_at, "ran": ran_at, "inspected": time.monotonic()}
    return {
        "error": error,
        "tensors": tensors,
        "graph": graph,
        "backward": backward,
        "doctor": diagnosis,
        "exec_ms": round(elapsed_ms, 3),
        "marks": marks,
    }


def encode_result(result: Report) -> bytes:
    return json.dumps(result, allow_nan=False).encode()


def write_result(result: Report, channel: BinaryIO) -> None:
    channel.write(encode_result(result))
    channel.flush()


def main() -> None:
    """`python -m app.sandbox.execute < snippet.py`: run without confinement, result on fd 3
    when it is open, else on stderr after a marker line (for debugging only)."""
    code = sys.stdin.read()
    result = run_code(code)
    try:
        channel = os.fdopen(3, "wb")
    except OSError:
        sys.stderr.write("\n--- result ---\n" + json.dumps(result, indent=2) + "\n")
        return
    write_result(result, channel)


if __name__ == "__main__":
    main()
