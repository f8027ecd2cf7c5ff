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
from typing import Any, BinaryIO

from app.sandbox.inspection import inspect_namespace

SNIPPET_FILENAME = "snippet.py"
MAX_MESSAGE_CHARS = 2000


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


def _without_runner_frames(exc: BaseException) -> TracebackType | None:
    """Drop this module's frames so the traceback starts in the snippet, as plain python's does."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != SNIPPET_FILENAME:
        tb = tb.tb_next
    return tb


def run_code(code: str) -> dict[str, Any]:
    """Execute `code` as a `__main__` module; return the error (if any), tensors and graph."""
    linecache.cache[SNIPPET_FILENAME] = (len(code), None, code.splitlines(True), SNIPPET_FILENAME)
    namespace: dict[str, Any] = {"__name__": "__main__", "__builtins__": builtins}
    error: dict[str, Any] | None = None
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
        exc.__traceback__ = _without_runner_frames(exc)
        traceback.print_exception(exc)
    elapsed_ms = (time.perf_counter() - started) * 1000
    for stream in (sys.stdout, sys.stderr):
        # The snippet may have closed or replaced its streams.
        with contextlib.suppress(Exception):
            stream.flush()
    tensors, graph = inspect_namespace(namespace)
    return {"error": error, "tensors": tensors, "graph": graph, "exec_ms": round(elapsed_ms, 3)}


def write_result(result: dict[str, Any], channel: BinaryIO) -> None:
    channel.write(json.dumps(result, allow_nan=False).encode())
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
