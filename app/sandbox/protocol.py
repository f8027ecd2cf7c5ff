"""The messages between the server and the zygote, one JSON object per SOCK_SEQPACKET packet.

  server → zygote
    RunOp     {"op": "run", "id": int, "code": str, "nice": int, "doctor": bool}
    KillOp    {"op": "kill", "id": int, "reason": str}
  zygote → server
    Ready     {"event": "ready", "ok": bool, "problem": str | None, "layers": {str: str},
               "pid": int, "threads": int}
    Started   {"event": "started", "id": int, "pid": int, "scratch": str, "marks": {str: float}}
              + three file descriptors: the read ends of stdout, stderr and the result channel
    Exited    {"event": "exited", "id": int, "pid": int, "status": int, "reason": str | None,
               "cpu_s": float, "maxrss_kb": int}
    Failed    {"event": "failed", "id": int, "message": str}

`status` is the wait status from wait4(); `reason` says why the zygote killed the child
(timeout, scratch, scratch_entries, output, killed, shutdown) or is None. `marks` are
CLOCK_MONOTONIC readings (see timeline.py). An exit is reported once the run's scratch dir is
removed. `doctor` asks for the gradient doctor's watch over the run: the zygote writes
`RUN_DOCTOR` (else `RUN_PLAIN`) on the child's code pipe before the code. The zygote's limits
(`ZygoteConfig`) travel once, as JSON in its argv. A child's first byte on its result channel is
`CODE_RECEIVED`; it exits with `SANDBOX_FAILED_EXIT` when it could not confine itself. Both
sides import these from here, so neither imports the other's modules. Every packet is checked
against these shapes when it is read: a malformed one raises `ProtocolError`.
tests/sandbox/test_protocol.py keeps this docstring and the classes below in step.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from typing import Literal, TypedDict, Union

MAX_PACKET = 1 << 20
# A child's exit status when a layer of its confinement failed: it ran nothing.
SANDBOX_FAILED_EXIT = 121
# The child's first byte on the result channel, written once it has its code and before it runs
# anything: a child that dies without it never started the run (a spare killed from outside).
CODE_RECEIVED = b"\x06"
# The first byte on a child's code pipe: run the code that follows plainly, or with the gradient
# doctor watching (app/sandbox/doctor_watch.py).
RUN_PLAIN = b"r"
RUN_DOCTOR = b"d"


# What the server tells the zygote at start (JSON in its argv): the limits of every run.
@dataclasses.dataclass(frozen=True)
class ZygoteConfig:
    wall_time_s: float
    cpu_s: int
    memory_bytes: int
    file_size_bytes: int
    scratch_bytes: int
    scratch_entries: int
    open_files: int
    scratch_root: str
    user: str | None  # drop to this user when root
    spares: int = 1  # children kept ready ahead of demand
    relaxed: list[str] = dataclasses.field(default_factory=list)


class RunOp(TypedDict):
    op: Literal["run"]
    id: int
    code: str
    nice: int  # added to the child's CPU niceness (app/sandbox/fair.py: a heavy user's runs yield)
    doctor: bool  # the gradient doctor watches the run (docs/doctor.md)


class KillOp(TypedDict):
    op: Literal["kill"]
    id: int
    reason: str


class Ready(TypedDict):
    event: Literal["ready"]
    ok: bool
    problem: str | None
    layers: dict[str, str]
    pid: int
    threads: int


class Started(TypedDict):
    event: Literal["started"]
    id: int
    pid: int
    scratch: str
    marks: dict[str, float]


class Exited(TypedDict):
    event: Literal["exited"]
    id: int
    pid: int
    status: int
    reason: str | None
    cpu_s: float
    maxrss_kb: int


class Failed(TypedDict):
    event: Literal["failed"]
    id: int
    message: str


ToZygote = RunOp | KillOp
FromZygote = Ready | Started | Exited | Failed
OPS: dict[str, type] = {"run": RunOp, "kill": KillOp}
EVENTS: dict[str, type] = {"ready": Ready, "started": Started, "exited": Exited, "failed": Failed}


# Each message's fields and their types, read once from the classes above.
_FIELDS = {kind: typing.get_type_hints(kind) for kind in (*OPS.values(), *EVENTS.values())}


class ProtocolError(ValueError):
    """A packet that is not one of the messages above."""


def encode(message: ToZygote | FromZygote) -> bytes:
    return json.dumps(message, allow_nan=False).encode()


def _matches(value: object, expected: object) -> bool:
    """Does a decoded JSON value have the annotated type? (The few types used above.)"""
    origin = typing.get_origin(expected)
    if origin is Literal:
        return value in typing.get_args(expected)
    if origin in (Union, types.UnionType):
        return any(_matches(value, option) for option in typing.get_args(expected))
    if origin is dict:
        key_type, value_type = typing.get_args(expected)
        return isinstance(value, dict) and all(
            _matches(k, key_type) and _matches(v, value_type) for k, v in value.items()
        )
    if expected is type(None):
        return value is None
    if expected is float:
        return type(value) in (int, float)
    if expected is int:
        return type(value) is int
    return type(value) is expected


def _check(data: bytes, tag: str, kinds: dict[str, type]) -> dict[str, object]:
    try:
        message = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ProtocolError(f"not JSON: {exc}") from exc
    if not isinstance(message, dict) or message.get(tag) not in kinds:
        raise ProtocolError(f"no known {tag!r} in {data[:200]!r}")
    kind = kinds[message[tag]]
    for field, expected in _FIELDS[kind].items():
        if field not in message or not _matches(message[field], expected):
            raise ProtocolError(f"{kind.__name__}: bad or missing {field!r}")
    return message


def decode_op(data: bytes) -> ToZygote:
    # The shape was checked field by field against the TypedDict just now.
    return typing.cast(ToZygote, _check(data, "op", OPS))


def decode_event(data: bytes) -> FromZygote:
    return typing.cast(FromZygote, _check(data, "event", EVENTS))
