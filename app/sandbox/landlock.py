"""Landlock, the unprivileged Linux sandbox for file access, TCP and signals, through ctypes.

Three system calls, no library: create a ruleset that names what it governs, allow paths, then
restrict the calling process for good. See Documentation/userspace-api/landlock.rst in Linux.
"""

from __future__ import annotations

import ctypes
import os
import platform
import stat
from collections.abc import Iterable
from enum import IntFlag

# Same numbers on x86_64 and aarch64 (the generic syscall table).
_SYSCALLS = {"x86_64": (444, 445, 446), "aarch64": (444, 445, 446)}
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1

# Filesystem rights, in the kernel's bit order (linux/landlock.h): ABI 1 has the first 13,
# ABI 2 added REFER, ABI 3 TRUNCATE and ABI 5 IOCTL_DEV.
Fs = IntFlag(
    "Fs",
    "EXECUTE WRITE_FILE READ_FILE READ_DIR REMOVE_DIR REMOVE_FILE MAKE_CHAR MAKE_DIR MAKE_REG"
    " MAKE_SOCK MAKE_FIFO MAKE_BLOCK MAKE_SYM REFER TRUNCATE IOCTL_DEV",
)
# What the rest of this module uses are plain ints: every child computes with them while it
# confines itself, and IntFlag arithmetic would cost it time and copy-on-write faults.
READ_FILE, WRITE_FILE = int(Fs.READ_FILE), int(Fs.WRITE_FILE)
# Every right a ruleset of each ABI can handle: all those below the first one added after it.
_FS_BY_ABI = {1: Fs.REFER - 1, 2: Fs.TRUNCATE - 1, 3: Fs.IOCTL_DEV - 1, 5: 2 * Fs.IOCTL_DEV - 1}
# The rights a rule on a file (not a directory) may carry.
_FILE_RIGHTS = int(Fs.WRITE_FILE | Fs.READ_FILE | Fs.EXECUTE | Fs.TRUNCATE | Fs.IOCTL_DEV)
# Network (ABI 4) and scoping (ABI 6).
_NET_BIND_TCP = 1 << 0
_NET_CONNECT_TCP = 1 << 1
_SCOPE_ABSTRACT_UNIX_SOCKET = 1 << 0
_SCOPE_SIGNAL = 1 << 1

READ_ONLY = int(Fs.EXECUTE | Fs.READ_FILE | Fs.READ_DIR)
SCRATCH = int(
    Fs.READ_FILE | Fs.READ_DIR | Fs.WRITE_FILE | Fs.MAKE_REG | Fs.REMOVE_FILE | Fs.TRUNCATE
)


class LandlockUnavailable(OSError):
    pass


class _RulesetAttr(ctypes.Structure):
    _fields_ = [
        ("handled_access_fs", ctypes.c_uint64),
        ("handled_access_net", ctypes.c_uint64),
        ("scoped", ctypes.c_uint64),
    ]


class _PathBeneathAttr(ctypes.Structure):
    _pack_ = 1
    _fields_ = [
        ("allowed_access", ctypes.c_uint64),
        ("parent_fd", ctypes.c_int32),
    ]


_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def _syscall(number: int, *args: object) -> int:
    result = _libc.syscall(ctypes.c_long(number), *args)
    if result < 0:
        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno))
    return int(result)


def _numbers() -> tuple[int, int, int]:
    machine = platform.machine()
    if machine not in _SYSCALLS:
        raise LandlockUnavailable(f"Landlock syscalls unknown on {machine}")
    return _SYSCALLS[machine]


def abi_version() -> int:
    """The kernel's Landlock ABI version; raises LandlockUnavailable when there is none."""
    create, _, _ = _numbers()
    try:
        return _syscall(create, None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION))
    except OSError as exc:
        raise LandlockUnavailable(f"Landlock is not available: {exc.strerror}") from exc


def _handled_fs(abi: int) -> int:
    return _FS_BY_ABI[max(level for level in _FS_BY_ABI if level <= abi)]


def prepare(rules: Iterable[tuple[str, int]]) -> tuple[int, int]:
    """Build a ruleset allowing only `rules` ((path, rights) pairs); paths that do not exist
    are skipped. Opening the paths needs the caller's current rights, so call this before
    dropping privileges. Returns (ruleset fd, ABI version); `enforce` applies it."""
    abi = abi_version()
    create, add_rule, _ = _numbers()
    handled_fs = _handled_fs(abi)
    attr = _RulesetAttr(handled_fs, 0, 0)
    size = 8
    if abi >= 4:  # deny every TCP bind and connect
        attr.handled_access_net = _NET_BIND_TCP | _NET_CONNECT_TCP
        size = 16
    if abi >= 6:  # no signals to, no abstract sockets of, processes outside the sandbox
        attr.scoped = _SCOPE_ABSTRACT_UNIX_SOCKET | _SCOPE_SIGNAL
        size = 24
    ruleset = _syscall(create, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    try:
        for path, rights in rules:
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            except FileNotFoundError:
                continue
            try:
                if not stat.S_ISDIR(os.fstat(fd).st_mode):  # the open fd: no second lookup
                    # Directory-only rights are refused on a file.
                    rights &= _FILE_RIGHTS
                rule = _PathBeneathAttr(rights & handled_fs, fd)
                _syscall(
                    add_rule,
                    ctypes.c_int(ruleset),
                    ctypes.c_int(_RULE_PATH_BENEATH),
                    ctypes.byref(rule),
                    ctypes.c_uint32(0),
                )
            finally:
                os.close(fd)
    except BaseException:
        os.close(ruleset)
        raise
    return ruleset, abi


def enforce(ruleset: int) -> None:
    """Restrict this process to the ruleset for good (needs no_new_privs), and close it."""
    _, _, restrict = _numbers()
    try:
        _syscall(restrict, ctypes.c_int(ruleset), ctypes.c_uint32(0))
    finally:
        os.close(ruleset)
