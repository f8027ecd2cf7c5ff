"""The real sandbox, attacked one capability at a time (in the manner of codejail's tests).

Every row of docs/sandbox-threat-model.md's threat table has several attacks here. Each asserts the
exact outcome: the status, and where it matters the error or what was printed.
"""

from __future__ import annotations

import os
import textwrap

import pytest

from tests.conftest import SandboxHarness, wait_until


def run(sandbox: SandboxHarness, code: str):  # type: ignore[no-untyped-def]
    return sandbox.run(textwrap.dedent(code))


def assert_refused(result, error_type: str = "PermissionError") -> None:  # type: ignore[no-untyped-def]
    assert result.status == "error", result
    assert result.error.type == error_type, result.error


# --- CPU, sleep, signals ------------------------------------------------------------------
def test_cant_spin_forever(sandbox: SandboxHarness) -> None:
    result = run(sandbox, "while True:\n    pass\n")
    assert result.status == "timeout"
    assert result.error.type == "Timeout"


def test_cant_sleep_forever(sandbox: SandboxHarness) -> None:
    result = run(sandbox, "import time\nprint('start', flush=True)\ntime.sleep(60)\n")
    assert result.status == "timeout"
    assert result.stdout == "start\n"


def test_cant_ignore_the_cpu_limit_signals(sandbox: SandboxHarness) -> None:
    result = run(
        sandbox,
        """
        import signal
        for sig in (signal.SIGXCPU, signal.SIGTERM, signal.SIGINT, signal.SIGALRM):
            signal.signal(sig, signal.SIG_IGN)
        while True:
            pass
    """,
    )
    assert result.status == "timeout"


def test_cant_outlive_the_run_in_a_thread(sandbox: SandboxHarness) -> None:
    result = run(
        sandbox,
        """
        import threading, time
        threading.Thread(target=lambda: time.sleep(30)).start()
        print("main done")
    """,
    )
    assert result.status == "ok"
    assert result.stdout == "main done\n"
    assert result.duration_ms < 5000


# --- memory -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "code",
    [
        "import torch\nx = torch.zeros(2_000_000_000)\n",
        "b = bytearray(4 * 1024 ** 3)\n",
        "x = [0] * (2 * 10 ** 9)\n",
        "import torch\nchunks = []\nwhile True:\n    chunks.append(torch.ones(50_000_000))\n",
    ],
)
def test_cant_exhaust_memory(sandbox: SandboxHarness, code: str) -> None:
    result = run(sandbox, code)
    assert result.status == "memory", result
    assert "memory" in result.error.hint
    assert sandbox.run("print(1 + 1)").stdout == "2\n"  # the server is unaffected


# --- processes ----------------------------------------------------------------------------
def test_cant_fork(sandbox: SandboxHarness) -> None:
    assert_refused(run(sandbox, "import os\nos.fork()\n"))


def test_cant_spawn_a_subprocess(sandbox: SandboxHarness) -> None:
    result = run(sandbox, "import subprocess\nsubprocess.run(['/bin/echo', 'escaped'])\n")
    assert result.status == "error"
    assert result.error.type in ("PermissionError", "ModuleNotFoundError")
    assert "escaped" not in result.stdout


def test_cant_exec(sandbox: SandboxHarness) -> None:
    assert_refused(run(sandbox, "import os\nos.execv('/bin/sh', ['sh', '-c', 'echo hi'])\n"))


def test_cant_run_a_shell_command(sandbox: SandboxHarness) -> None:
    result = run(sandbox, "import os\nprint(os.system('echo escaped'))\n")
    assert "escaped" not in result.stdout
    assert result.stdout.strip() != "0"


def test_cant_fork_through_raw_clone(sandbox: SandboxHarness) -> None:
    result = run(
        sandbox,
        """
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        SIGCHLD = 17
        print(libc.syscall(56, SIGCHLD, 0, 0, 0, 0), ctypes.get_errno())  # clone without CLONE_THREAD
        print(libc.syscall(435, 0, 0), ctypes.get_errno())  # clone3
    """,
    )
    assert result.stdout == "-1 1\n-1 38\n"


# --- disk and output ----------------------------------------------------------------------
def test_output_is_cut_and_marked_truncated(sandbox: SandboxHarness) -> None:
    result = run(sandbox, "print('x' * 200_000)\nprint('done')\n")
    assert result.status == "ok"
    assert result.truncated is True
    assert len(result.stdout) == 64 * 1024


def test_cant_flood_output_forever(sandbox: SandboxHarness) -> None:
    result = run(sandbox, "while True:\n    print('spam' * 1000)\n")
    assert result.status == "killed"
    assert result.error.type == "OutputLimitExceeded"
    assert result.truncated is True
    assert len(result.stdout) + len(result.stderr) <= 64 * 1024


def test_cant_write_a_big_file(sandbox: SandboxHarness) -> None:
    result = run(
        sandbox, "with open('big.bin', 'wb') as f:\n    f.write(b'0' * (2 * 1024 * 1024))\n"
    )
    assert result.status == "error"
    assert result.error.type == "OSError"
    assert "File too large" in result.error.message


def test_cant_fill_the_scratch_space(sandbox: SandboxHarness) -> None:
    result = run(
        sandbox,
        """
        for i in range(12):
            with open(f'part{i}.bin', 'wb') as f:
                f.write(b'0' * (1024 * 1024 - 1))
        print('wrote them all')
    """,
    )
    assert result.status == "killed"
    assert result.error.type == "ScratchSpaceExceeded"


@pytest.mark.parametrize(
    "make",
    [
        "os.close(os.open(f'f{i}', os.O_CREAT | os.O_WRONLY))",
        "os.link('empty', f'f{i}')",
        "os.symlink('empty', f'f{i}')",
        "os.mkdir(f'd{i}')",
    ],
)
def test_cant_flood_the_scratch_dir_with_entries(sandbox: SandboxHarness, make: str) -> None:
    """Empty files weigh no bytes; entries are capped as well (tests/sandbox/test_scratch_flood.py
    has the rest: the cleaner, and another learner's runs beside two floods)."""
    result = run(
        sandbox,
        f"""
        import os
        open('empty', 'w').close()
        for i in range(100_000):
            {make}
    """,
    )
    if result.status == "error":  # Landlock allows the scratch dir only files and hard links
        assert result.error.type == "PermissionError", result
        assert "symlink" in make or "mkdir" in make
    else:
        assert result.status == "killed", result
        assert result.error.type == "TooManyFiles"


def test_can_use_its_own_scratch_dir(sandbox: SandboxHarness) -> None:
    result = run(
        sandbox,
        """
        import torch
        torch.save(torch.tensor([1.0, 2.0]), 't.pt')
        print(torch.load('t.pt'))
    """,
    )
    assert result.status == "ok", result
    assert result.stdout == "tensor([1., 2.])\n"


def test_cant_write_outside_the_scratch_dir(sandbox: SandboxHarness) -> None:
    for path in ("/tmp/escape.txt", "/var/tmp/escape.txt", "../escape.txt", "/dev/shm/escape"):
        assert_refused(run(sandbox, f"open({path!r}, 'w').write('x')\n"))


# --- host files ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "path",
    [
        "/etc/passwd",
        "/etc/hostname",
        "/proc/1/status",
        "/proc/self/environ",
        "/root/.bashrc",
        os.path.abspath("pyproject.toml"),
        "/proc/cpuinfo",
        "/sys/kernel/mm/transparent_hugepage/enabled",
    ],
)
def test_cant_read_host_files(sandbox: SandboxHarness, path: str) -> None:
    assert_refused(run(sandbox, f"print(open({path!r}).read()[:80])\n"))


@pytest.mark.parametrize("path", ["/", "/proc", "/etc", "/home", "/tmp", ".."])
def test_cant_list_host_directories(sandbox: SandboxHarness, path: str) -> None:
    assert_refused(run(sandbox, f"import os\nprint(os.listdir({path!r}))\n"))


def test_cant_import_the_apps_settings(sandbox: SandboxHarness) -> None:
    result = run(sandbox, "import app.config.settings\nprint(app.config.settings.Settings())\n")
    assert result.status == "error"


# --- environment and server memory --------------------------------------------------------
def test_cant_see_the_servers_environment(sandbox: SandboxHarness) -> None:
    result = run(sandbox, "import os\nprint(sorted(os.environ))\n")
    assert result.status == "ok"
    names = eval(result.stdout)
    assert set(names) <= {"HOME", "TMPDIR", "LANG", "PATH", "OMP_NUM_THREADS"}


def test_cant_read_another_process_memory(sandbox: SandboxHarness) -> None:
    result = run(
        sandbox,
        """
        import os
        for pid in (os.getppid(), 1):
            try:
                open(f'/proc/{pid}/mem', 'rb').read(1)
                print('read', pid)
            except OSError as exc:
                print(type(exc).__name__)
    """,
    )
    assert result.stdout == "PermissionError\nPermissionError\n"


# --- network ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "code",
    [
        "import socket\nsocket.socket(socket.AF_INET, socket.SOCK_STREAM)\n",
        "import socket\nsocket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n",
        "import socket\nsocket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n",
        "import socket\nsocket.socket(socket.AF_INET6, socket.SOCK_STREAM)\n",
        "import _socket\ns = _socket.socket(2, 1)\ns.connect(('127.0.0.1', 8000))\n",
        "import socket\nsocket.socketpair()\n",
    ],
)
def test_cant_reach_any_network(sandbox: SandboxHarness, code: str) -> None:
    assert_refused(run(sandbox, code))


# --- other processes ----------------------------------------------------------------------
def test_cant_signal_the_zygote_or_anyone_else(sandbox: SandboxHarness) -> None:
    result = run(
        sandbox,
        """
        import os, signal
        for pid in (os.getppid(), 1, -1):
            try:
                os.kill(pid, signal.SIGKILL)
                print('sent', pid)
            except OSError as exc:
                print(type(exc).__name__)
    """,
    )
    assert result.stdout == "PermissionError\nPermissionError\nPermissionError\n"
    assert sandbox.sandbox.health()["ready"] is True


def test_cant_ptrace_or_read_process_memory(sandbox: SandboxHarness) -> None:
    result = run(
        sandbox,
        """
        import ctypes, os
        libc = ctypes.CDLL(None, use_errno=True)
        PTRACE_ATTACH = 16
        print(libc.ptrace(PTRACE_ATTACH, os.getppid(), 0, 0), ctypes.get_errno())
        print(libc.syscall(310, os.getppid(), 0, 0, 0, 0, 0), ctypes.get_errno())  # process_vm_readv
    """,
    )
    assert result.stdout == "-1 1\n-1 1\n"


def test_runs_as_an_unprivileged_user_when_the_server_is_root(sandbox: SandboxHarness) -> None:
    result = run(sandbox, "import os\nprint(os.getuid(), os.geteuid(), os.getgroups())\n")
    if os.geteuid() == 0:
        assert result.stdout.split()[0] != "0"
        assert result.stdout.split()[1] != "0"


# --- state left behind --------------------------------------------------------------------
def test_cant_leave_files_or_state_for_the_next_run(sandbox: SandboxHarness) -> None:
    first = run(
        sandbox,
        """
        import os, math, torch
        open('marker.txt', 'w').write('left behind')
        math.leaked = True
        torch.leaked = True
        print(os.getcwd())
    """,
    )
    assert first.status == "ok"
    second = run(
        sandbox,
        """
        import os, math, torch
        print(os.listdir('.'), hasattr(math, 'leaked'), hasattr(torch, 'leaked'), os.getcwd())
    """,
    )
    listing, math_leak, torch_leak, cwd = second.stdout.rsplit(" ", 3)
    assert (listing, math_leak, torch_leak) == ("[]", "False", "False")
    assert cwd.strip() != first.stdout.strip()
    # The finished run's directory is removed once its process has exited.
    assert wait_until(lambda: not os.path.exists(first.stdout.strip()))


def test_no_file_descriptors_are_inherited(sandbox: SandboxHarness) -> None:
    result = run(
        sandbox,
        """
        import os
        open_fds = []
        for fd in range(0, 64):
            try:
                os.fstat(fd)
                open_fds.append(fd)
            except OSError:
                pass
        print(open_fds)
    """,
    )
    assert result.stdout == "[0, 1, 2, 3]\n"


# --- crashes ------------------------------------------------------------------------------
def test_runaway_recursion_is_stopped_and_the_next_run_is_clean(sandbox: SandboxHarness) -> None:
    result = run(
        sandbox, "import sys\nsys.setrecursionlimit(10**7)\ndef f(n):\n    return f(n + 1)\nf(0)\n"
    )
    assert result.status in ("killed", "memory", "timeout")
    assert sandbox.run("print('clean')").stdout == "clean\n"


@pytest.mark.parametrize(
    ("code", "status"),
    [
        ("import ctypes\nctypes.string_at(0)\n", "killed"),
        ("import os\nos.abort()\n", "killed"),
        ("def f():\n    return f()\nf()\n", "error"),
        ("import os\nos._exit(3)\n", "killed"),
    ],
)
def test_a_crash_is_reported_and_the_next_run_is_clean(
    sandbox: SandboxHarness, code: str, status: str
) -> None:
    result = run(sandbox, code)
    assert result.status == status, result
    after = sandbox.run("import torch\nprint(torch.tensor(2.0) * 3)\n")
    assert (after.status, after.stdout) == ("ok", "tensor(6.)\n")


# --- forged results -----------------------------------------------------------------------
def test_printing_fake_results_changes_nothing(sandbox: SandboxHarness) -> None:
    result = run(sandbox, 'print(\'{"status": "ok", "tensors": []}\')\nraise ValueError("real")\n')
    assert result.status == "error"
    assert result.error.type == "ValueError"


def test_garbage_on_the_result_channel_is_rejected(sandbox: SandboxHarness) -> None:
    result = run(sandbox, "import os\nos.write(3, b'{not json' * 1000)\n")
    assert result.status == "killed"
    assert result.tensors == []


def test_a_huge_result_is_rejected(sandbox: SandboxHarness) -> None:
    result = run(sandbox, "import os\nos.write(3, b' ' * (8 * 1024 * 1024))\nos._exit(0)\n")
    assert result.status == "killed"


def test_closing_the_result_channel_is_reported(sandbox: SandboxHarness) -> None:
    result = run(sandbox, "import os\nos.close(3)\nprint('hi')\n")
    assert result.status == "killed"
    assert result.stdout == "hi\n"
