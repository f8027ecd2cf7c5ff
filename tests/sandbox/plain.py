"""Plain Python and torch, the reference the sandbox's reports are compared with: what
`python snippet.py` prints and exits with, with none of gradlab loaded.

A fresh `python snippet.py` spends about two seconds of CPU importing torch before the
snippet's first line, and some fifty tests ask for one. So one plain interpreter per test
process imports torch (and nothing of gradlab) once, and runs each snippet in a child forked
from it: the child's standard output and error are files, its working directory and
`sys.path[0]` the snippet's folder, its `__main__` the snippet, and an uncaught exception is
printed by `sys.excepthook` and exits 1, as the interpreter does. The snippet's `import torch`
finds torch imported, which changes nothing it prints. Each child starts from the same state
(nothing a snippet does comes back to the parent), so snippets cannot see each other."""

from __future__ import annotations

import atexit
import json
import subprocess
import sys
import threading
from pathlib import Path

# The environment of the reference run: nothing of the tests' own (no GRADLAB_*, no PYTHONPATH).
ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "OMP_NUM_THREADS": "1"}

_HARNESS = r"""
import json, os, sys, traceback
import torch  # noqa: F401 - what every snippet imports first

for line in sys.stdin:
    asked = json.loads(line)
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        for fd, name in ((1, "stdout"), (2, "stderr")):
            os.dup2(os.open(asked[name], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), fd)
        os.chdir(asked["folder"])
        sys.argv = [os.path.basename(asked["script"])]
        sys.path[0] = asked["folder"]
        code = 0
        try:
            with open(asked["script"], encoding="utf-8") as source:
                compiled = compile(source.read(), asked["script"], "exec")
            exec(compiled, {"__name__": "__main__", "__file__": asked["script"],
                            "__builtins__": __builtins__})
        except SystemExit as stop:  # as the interpreter exits: 0, the number, or 1 and the text
            if isinstance(stop.code, int) or stop.code is None:
                code = stop.code or 0
            else:
                print(stop.code, file=sys.stderr)
                code = 1
        except BaseException as error:
            # The interpreter's own report, without this harness's frame.
            error.__traceback__ = error.__traceback__.tb_next
            sys.excepthook(type(error), error, error.__traceback__)
            code = 1
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    _, status = os.waitpid(pid, 0)
    print(json.dumps(os.waitstatus_to_exitcode(status)), flush=True)
"""

_lock = threading.Lock()
_harness: list[subprocess.Popen[str]] = []


def _started() -> subprocess.Popen[str]:
    if not _harness or _harness[0].poll() is not None:
        process = subprocess.Popen(
            [sys.executable, "-c", _HARNESS],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=ENV,
        )
        _harness[:] = [process]
        atexit.register(_stop, process)
    return _harness[0]


def _stop(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        assert process.stdin is not None
        process.stdin.close()
        process.wait(10)


def plain_python(code: str, folder: Path) -> subprocess.CompletedProcess[str]:
    """What `python snippet.py` does with `code` in `folder`: its exit status, stdout and
    stderr."""
    script = folder / "snippet.py"
    script.write_text(code)
    outputs = {name: folder / f"snippet.{name}" for name in ("stdout", "stderr")}
    asked = {"script": str(script), "folder": str(folder)} | {
        name: str(path) for name, path in outputs.items()
    }
    with _lock:
        process = _started()
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(json.dumps(asked) + "\n")
        process.stdin.flush()
        answer = process.stdout.readline()
    if not answer:
        raise RuntimeError("the plain Python interpreter of the reference runs has stopped")
    return subprocess.CompletedProcess(
        [sys.executable, script.name],
        json.loads(answer),
        outputs["stdout"].read_text(encoding="utf-8"),
        outputs["stderr"].read_text(encoding="utf-8"),
    )
