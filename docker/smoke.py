"""Smoke-test a running gradlab container over HTTP: `python3 docker/smoke.py URL`.

Standard library only, so it runs on the CI machine without the project installed. Checks
/healthz (ready, every isolation layer on), a lesson page, that POST /api/run returns the right
.grad, and that attacks from the sandbox suite are refused inside the container. Prints one line
per check; exits 1 if any failed.
"""

from __future__ import annotations

import json
import sys
import time
import urllib.error
import urllib.request
from typing import Any

LAYERS = ("rlimits", "no_new_privs", "landlock", "seccomp")

# (name, snippet, expected stdout or None, expected error type or None)
ATTACKS = [
    (
        "open a socket",
        "import socket\nsocket.socket(socket.AF_INET, socket.SOCK_STREAM)\n",
        None,
        "PermissionError",
    ),
    (
        "connect to the server",
        "import _socket\ns = _socket.socket(2, 1)\ns.connect(('127.0.0.1', 8000))\n",
        None,
        "PermissionError",
    ),
    ("fork", "import os\nos.fork()\n", None, "PermissionError"),
    (
        "exec a shell",
        "import os\nos.execv('/bin/sh', ['sh', '-c', 'id'])\n",
        None,
        "PermissionError",
    ),
    ("read /etc/passwd", "print(open('/etc/passwd').read()[:80])\n", None, "PermissionError"),
    (
        "read the server's environment",
        "print(open('/proc/1/environ').read()[:80])\n",
        None,
        "PermissionError",
    ),
    (
        "read the app's files",
        "import os, torch\n"
        "site = os.path.dirname(os.path.dirname(torch.__file__))\n"
        "print(open(os.path.join(site, 'app', 'config', 'settings.py')).read()[:80])\n",
        None,
        "PermissionError",
    ),
    (
        "signal the zygote and the server",
        "import os, signal\n"
        "for pid in (os.getppid(), 1, -1):\n"
        "    try:\n"
        "        os.kill(pid, signal.SIGKILL)\n"
        "        print('sent', pid)\n"
        "    except OSError as exc:\n"
        "        print(type(exc).__name__)\n",
        "PermissionError\nPermissionError\nPermissionError\n",
        None,
    ),
]


def request(base: str, path: str, body: dict[str, Any] | None = None) -> tuple[int, bytes]:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(  # noqa: S310 - http URL given on the command line
        base + path, data=data, method="POST" if data else "GET"
    )
    if data:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=30) as response:  # noqa: S310 - our own URL
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def run(base: str, code: str) -> dict[str, Any]:
    status, body = request(base, "/api/run", {"code": code})
    if status != 200:
        raise AssertionError(f"POST /api/run answered {status}: {body[:300]!r}")
    result: dict[str, Any] = json.loads(body)
    return result


def wait_ready(base: str, timeout_s: float) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    last: Any = None
    while time.monotonic() < deadline:
        try:
            status, body = request(base, "/healthz")
            last = body
            if status == 200:
                health: dict[str, Any] = json.loads(body)
                if health["sandbox"]["ready"]:
                    return health
                problem = health["sandbox"].get("problem")
                if problem and problem != "not started":
                    break  # the sandbox refused to start: waiting changes nothing
        except (OSError, ValueError) as exc:
            last = exc
        time.sleep(1)
    raise AssertionError(f"/healthz is not ready: {last!r}")


def main() -> int:
    base = sys.argv[1].rstrip("/")
    failures = 0

    def check(name: str, ok: bool, detail: object = "") -> None:
        nonlocal failures
        failures += not ok
        print(f"{'ok  ' if ok else 'FAIL'} {name}{'' if ok else f': {detail}'}")

    health = wait_ready(base, 120)
    print("/healthz:", json.dumps(health))
    layers = health["sandbox"]["isolation"]
    for layer in LAYERS:
        check(f"isolation layer {layer} is on", str(layers.get(layer, "")).startswith("on"), layers)
    check(
        "no isolation layer is off",
        all(str(v).startswith("on") for v in layers.values()),
        layers,
    )
    check("lessons loaded", health.get("lessons", 0) > 0, health)

    status, body = request(base, "/lessons/what-is-grad")
    check("GET /lessons/what-is-grad is 200", status == 200, status)
    check("the lesson page is HTML about .grad", b"<html" in body and b".grad" in body, body[:200])

    result = run(
        base,
        "import torch\n"
        "x = torch.tensor([2.0, 3.0], requires_grad=True)\n"
        "(x * x).sum().backward()\n"
        "print(x.grad)\n",
    )
    grads = {t["name"]: t["grad"] for t in result.get("tensors", [])}
    check("POST /api/run status ok", result.get("status") == "ok", result)
    check("x.grad is [4.0, 6.0]", grads.get("x") == [4.0, 6.0], grads)
    check("stdout shows x.grad", result.get("stdout") == "tensor([4., 6.])\n", result.get("stdout"))

    for name, code, stdout, error_type in ATTACKS:
        result = run(base, code)
        if error_type is not None:
            error = result.get("error") or {}
            ok = result.get("status") == "error" and error.get("type") == error_type
            check(f"refused: {name}", ok, {k: result.get(k) for k in ("status", "error", "stdout")})
        else:
            check(f"refused: {name}", result.get("stdout") == stdout, result)

    health = wait_ready(base, 30)
    check("the sandbox is still ready after the attacks", health["sandbox"]["ready"], health)
    print(f"{failures} failed" if failures else "all smoke checks passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
