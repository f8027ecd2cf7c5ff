"""Confine the current process before it runs a snippet.

Called in the freshly forked child, while it is still single-threaded. Layers, in order:
rlimits, an unprivileged uid (when started as root), no_new_privs, Landlock, seccomp. Each layer
either applies or raises `LayerFailed`; the caller decides whether that layer may be relaxed.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import functools
import os
import resource
import socket
import struct
import sys
import sysconfig
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from app.sandbox import landlock

_PR_SET_NO_NEW_PRIVS = 38
_PR_SET_PDEATHSIG = 1
_CLONE_THREAD = 0x00010000

# Each of these answers EPERM: no new processes, no network, no looking at or signalling other
# processes, no kernel facilities a snippet has no business with. kill/tgkill are allowed only
# towards the process itself (see _own_process_rules).
_DENIED_SYSCALLS = (
    # new processes and programs
    "fork",
    "vfork",
    "execve",
    "execveat",
    # network and IPC endpoints
    "socket",
    "socketpair",
    "connect",
    "bind",
    "listen",
    "accept",
    "accept4",
    "msgget",
    "semget",
    "shmget",
    "shmat",
    "mq_open",
    # other processes
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "kcmp",
    "pidfd_open",
    "pidfd_getfd",
    "pidfd_send_signal",
    "tkill",
    "rt_sigqueueinfo",
    "rt_tgsigqueueinfo",
    "process_madvise",
    # namespaces, mounts and the kernel
    "unshare",
    "setns",
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "move_mount",
    "open_tree",
    "fsopen",
    "fsmount",
    "fsconfig",
    "fspick",
    "mount_setattr",
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    "keyctl",
    "add_key",
    "request_key",
    "init_module",
    "finit_module",
    "delete_module",
    "kexec_load",
    "kexec_file_load",
    "reboot",
    "swapon",
    "swapoff",
    "acct",
    "quotactl",
    "personality",
    "open_by_handle_at",
    "name_to_handle_at",
    "lookup_dcookie",
    "syslog",
    "vhangup",
    "setdomainname",
    "sethostname",
    "settimeofday",
    "clock_settime",
    "adjtimex",
    "clock_adjtime",
    "iopl",
    "ioperm",
)


class LayerFailed(Exception):
    """A confinement layer could not be applied; the message says why."""


@dataclass(frozen=True)
class ChildLimits:
    cpu_s: int
    memory_bytes: int  # added to the address space the child already has
    file_size_bytes: int
    open_files: int


def _address_space_now() -> int:
    with open("/proc/self/statm") as statm:
        pages = int(statm.read().split()[0])
    return pages * os.sysconf("SC_PAGE_SIZE")


def apply_rlimits(limits: ChildLimits) -> None:
    try:
        soft_cpu = limits.cpu_s
        # SIGXCPU at the soft limit, SIGKILL one second later if it is ignored.
        resource.setrlimit(resource.RLIMIT_CPU, (soft_cpu, soft_cpu + 1))
        address_space = _address_space_now() + limits.memory_bytes
        resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
        resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_size_bytes,) * 2)
        resource.setrlimit(resource.RLIMIT_NOFILE, (limits.open_files,) * 2)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_MEMLOCK, (0, 0))
    except (OSError, ValueError) as exc:
        raise LayerFailed(f"setrlimit failed: {exc}") from exc


def drop_privileges(uid: int, gid: int) -> None:
    """Become `uid`:`gid` with no supplementary groups (only meaningful when root)."""
    try:
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
    except OSError as exc:
        raise LayerFailed(f"cannot switch to uid {uid}: {exc.strerror}") from exc
    if os.getuid() != uid or os.geteuid() != uid:
        raise LayerFailed("the uid did not change")
    # Changing credentials clears the parent-death signal: set it again, so that a run
    # dies with the zygote that forked it.
    _prctl(_PR_SET_PDEATHSIG, 9)


_libc = ctypes.CDLL(None, use_errno=True)


def _prctl(option: int, value: int) -> None:
    if _libc.prctl(option, ctypes.c_ulong(value), 0, 0, 0) != 0:
        code = ctypes.get_errno()
        raise LayerFailed(f"prctl({option}) failed: {os.strerror(code)}")


def set_no_new_privs() -> None:
    _prctl(_PR_SET_NO_NEW_PRIVS, 1)


# gradlab's own package (its code, settings and the lessons with their answers): installed,
# it sits among the packages a run may read, and is cut out of them.
GRADLAB_PACKAGE = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))


@functools.cache
def readable_paths() -> tuple[str, ...]:
    """What Python and torch may read: the interpreter, stdlib and installed packages, and the
    system's shared libraries. Not gradlab's own package, /proc, /etc or anyone's home.
    Computed once, in the zygote (see `prepare_in_zygote`): sysconfig is slow to ask."""
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(sys.executable)}
    for key in ("stdlib", "platstdlib", "purelib", "platlib"):
        paths.add(sysconfig.get_paths()[key])
    for entry in sys.path:
        if entry and os.path.isdir(entry) and "site-packages" in entry:
            paths.add(entry)
    paths.update(("/usr/lib", "/lib", "/lib64", "/usr/lib64", "/usr/local/lib"))
    seen: set[str] = set()
    return tuple(sorted(set().union(*(_without(path, GRADLAB_PACKAGE, seen) for path in paths))))


def _without(path: str, hidden: str, seen: set[str]) -> set[str]:
    """`path`; or, when `hidden` is inside it, what it holds besides `hidden`, so that a rule
    (which grants a whole tree) grants everything but it. Compared as real paths: a rule
    follows symbolic links (a venv's lib64 is its lib)."""
    real = os.path.realpath(path)
    if real == hidden or real.startswith(hidden + "/") or real in seen:
        return set()
    if not hidden.startswith(real.rstrip("/") + "/"):
        return {path}
    seen.add(real)
    try:
        names = os.listdir(real)
    except OSError:
        return set()
    return set().union(*(_without(os.path.join(real, name), hidden, seen) for name in names))


# A stand-in for the child's pid in the precompiled filter, patched in each child: larger than
# any pid (pid_max is at most 2**22) and unlike any other constant in the program.
_PID_PLACEHOLDER = 0x5EC00DE5
_PR_SET_SECCOMP = 22
_SECCOMP_MODE_FILTER = 2
_BPF_INSTRUCTION = struct.Struct("=HBBI")  # struct sock_filter: code, jt, jf, k


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


@functools.cache
def _seccomp_program() -> bytes:
    """The filter as BPF, compiled once by libseccomp (in the zygote, before any fork), with a
    placeholder where the child's own pid goes."""
    import pyseccomp as seccomp

    deny = seccomp.ERRNO(errno.EPERM)
    rules = seccomp.SyscallFilter(seccomp.ALLOW)
    arch = seccomp.system_arch()
    for name in _DENIED_SYSCALLS:
        number = seccomp.resolve_syscall(arch, name)
        if isinstance(number, int) and number >= 0:  # negative: not a syscall here
            rules.add_rule(deny, number)
    # glibc tries clone3 first and falls back to clone when told ENOSYS: threads keep
    # working while clone's flags stay inspectable. A clone without CLONE_THREAD is a fork.
    rules.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    rules.add_rule(deny, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, _CLONE_THREAD, 0))
    # Signals only to itself (os.abort, threads): everyone else is refused.
    rules.add_rule(deny, "kill", seccomp.Arg(0, seccomp.NE, _PID_PLACEHOLDER))
    rules.add_rule(deny, "tgkill", seccomp.Arg(0, seccomp.NE, _PID_PLACEHOLDER))
    with tempfile.TemporaryFile() as exported:
        rules.export_bpf(exported)
        exported.seek(0)
        return exported.read()


@functools.cache
def _pid_offsets() -> tuple[int, ...]:
    """Where in the compiled filter the pid placeholder sits, found once in the zygote."""
    program = _seccomp_program()
    return tuple(
        offset
        for offset in range(0, len(program), _BPF_INSTRUCTION.size)
        if _BPF_INSTRUCTION.unpack_from(program, offset)[3] == _PID_PLACEHOLDER
    )


def prepare_in_zygote() -> None:
    """Do the confinement work that is the same for every child once, before any fork."""
    readable_paths()
    with contextlib.suppress(ImportError, OSError):
        _pid_offsets()


def prepare_landlock(scratch_dir: Path) -> tuple[int, int]:
    rules = [(path, landlock.READ_ONLY) for path in readable_paths()]
    rules += [
        ("/dev/null", landlock.READ_FILE | landlock.WRITE_FILE),
        ("/dev/urandom", landlock.READ_FILE),
        (str(scratch_dir), landlock.SCRATCH),
    ]
    try:
        return landlock.prepare(rules)
    except OSError as exc:
        raise LayerFailed(str(exc)) from exc


def enforce_landlock(ruleset: tuple[int, int]) -> int:
    try:
        landlock.enforce(ruleset[0])
    except OSError as exc:
        raise LayerFailed(str(exc)) from exc
    return ruleset[1]


def apply_seccomp() -> None:
    """Load the precompiled filter with this process's pid patched in (see _seccomp_program)."""
    try:
        program = bytearray(_seccomp_program())
        offsets = _pid_offsets()
    except (ImportError, OSError) as exc:
        raise LayerFailed(f"libseccomp is not available: {exc}") from exc
    if not offsets:
        raise LayerFailed("the compiled filter has no place for the pid")
    pid = os.getpid()
    for offset in offsets:
        code, jump_true, jump_false, _ = _BPF_INSTRUCTION.unpack_from(program, offset)
        _BPF_INSTRUCTION.pack_into(program, offset, code, jump_true, jump_false, pid)
    buffer = (ctypes.c_char * len(program)).from_buffer(program)
    fprog = _SockFprog(len(program) // _BPF_INSTRUCTION.size, ctypes.addressof(buffer))
    if _libc.prctl(_PR_SET_SECCOMP, _SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        code = ctypes.get_errno()
        raise LayerFailed(f"seccomp filter not loaded: {os.strerror(code)}")


@dataclass(frozen=True)
class Confinement:
    """How to confine a child: which layers must hold and what the child may touch."""

    limits: ChildLimits
    uid: int | None  # None: keep the current uid (not root)
    gid: int | None
    relaxed: frozenset[str]

    def apply(self, scratch_dir: Path) -> dict[str, str]:
        """Apply every layer in order; a relaxed layer that fails is reported, not fatal.
        Landlock's rules are built first, while the paths can still be opened, and enforced
        after no_new_privs."""
        report: dict[str, str] = {}
        ruleset: tuple[int, int] | None = None

        def prepare() -> None:
            nonlocal ruleset
            ruleset = prepare_landlock(scratch_dir)

        def enforce() -> int:
            if ruleset is None:
                raise LayerFailed("the ruleset could not be built")
            return enforce_landlock(ruleset)

        steps: list[tuple[str, Callable[[], object]]] = [
            ("rlimits", lambda: apply_rlimits(self.limits)),
            ("landlock", prepare),
        ]
        # Without root there is no other uid to switch to: runs share the server's unprivileged
        # uid, and Landlock's scoping and seccomp keep them away from its processes.
        if self.uid is not None and self.gid is not None:
            uid, gid = self.uid, self.gid
            steps.append(("uid", lambda: drop_privileges(uid, gid)))
        steps += [
            ("no_new_privs", set_no_new_privs),
            ("landlock", enforce),
            ("seccomp", apply_seccomp),
        ]
        for layer, step in steps:
            if report.get(layer, "on").startswith("off"):
                continue
            try:
                outcome = step()
            except LayerFailed as exc:
                if layer not in self.relaxed:
                    raise LayerFailed(f"{layer}: {exc}") from exc
                report[layer] = f"off: {exc}"
                continue
            report[layer] = f"on (ABI {outcome})" if isinstance(outcome, int) else "on"
        return report


def check_doors_shut(report: dict[str, str]) -> None:
    """Inside the probe, after confinement: a layer reported on must really hold."""
    if report.get("seccomp", "").startswith("on"):
        try:
            socket.socket(socket.AF_INET, socket.SOCK_STREAM).close()
            report["seccomp"] = "off: socket() still works after the filter was loaded"
        except OSError:
            pass
    if report.get("landlock", "").startswith("on"):
        try:
            os.stat("/proc/1/status")
            with open("/proc/1/status", "rb"):
                report["landlock"] = "off: /proc/1/status is still readable"
        except OSError:
            pass
