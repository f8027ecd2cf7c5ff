"""The zygote protocol: every message survives a round trip, malformed packets are refused, and
the module docstring describes exactly the messages the classes define."""

from __future__ import annotations

import re
import typing

import pytest

from app.sandbox import protocol
from app.sandbox.protocol import (
    EVENTS,
    OPS,
    Exited,
    Failed,
    KillOp,
    ProtocolError,
    Ready,
    RunOp,
    Started,
    decode_event,
    decode_op,
    encode,
)

OP_SAMPLES: list[protocol.ToZygote] = [
    RunOp(op="run", id=1, code="print('é')\n", nice=0, doctor=False),
    KillOp(op="kill", id=1, reason="output"),
]
EVENT_SAMPLES: list[protocol.FromZygote] = [
    Ready(
        event="ready",
        ok=False,
        problem="seccomp: off: no libseccomp",
        layers={"rlimits": "on", "landlock": "on (ABI 6)"},
        pid=4242,
        threads=1,
    ),
    Ready(event="ready", ok=True, problem=None, layers={}, pid=1, threads=1),
    Started(
        event="started",
        id=7,
        pid=4243,
        scratch="/tmp/x/run-1",
        marks={"received": 1.5, "handed": 2},
    ),
    Exited(
        event="exited",
        id=7,
        pid=4243,
        status=9,
        reason=None,
        cpu_s=0.012,
        maxrss_kb=250_000,
    ),
    Exited(event="exited", id=8, pid=1, status=0, reason="timeout", cpu_s=5, maxrss_kb=1),
    Failed(event="failed", id=9, message="cannot fork: out of memory"),
]


def test_every_message_kind_has_a_sample() -> None:
    assert {sample["op"] for sample in OP_SAMPLES} == set(OPS)
    assert {sample["event"] for sample in EVENT_SAMPLES} == set(EVENTS)


@pytest.mark.parametrize("message", OP_SAMPLES, ids=lambda m: m["op"])
def test_operations_round_trip(message: protocol.ToZygote) -> None:
    assert decode_op(encode(message)) == message


@pytest.mark.parametrize("message", EVENT_SAMPLES, ids=lambda m: m["event"])
def test_events_round_trip(message: protocol.FromZygote) -> None:
    assert decode_event(encode(message)) == message


@pytest.mark.parametrize(
    ("packet", "decode"),
    [
        (b"", decode_event),
        (b"\xff\xfe", decode_event),
        (b"[1, 2]", decode_event),
        (b'{"event": "hello", "id": 1}', decode_event),
        (b'{"event": "failed", "id": 1}', decode_event),  # no message
        (b'{"event": "failed", "id": "1", "message": "x"}', decode_event),  # id not an int
        (b'{"event": "failed", "id": true, "message": "x"}', decode_event),  # a bool is no id
        (
            b'{"event": "started", "id": 1, "pid": 2, "scratch": "/x", "marks": {"a": "b"}}',
            decode_event,
        ),
        (
            b'{"event": "exited", "id": 1, "pid": 2, "status": 0, "cpu_s": 0, "maxrss_kb": 0}',
            decode_event,
        ),
        (b'{"op": "run", "id": 1}', decode_op),
        (b'{"op": "run", "id": 1, "code": null}', decode_op),
        (b'{"op": "exec", "id": 1, "code": ""}', decode_op),
        (b'{"event": "failed", "id": 1, "message": "x"}', decode_op),
    ],
)
def test_malformed_packets_are_refused(
    packet: bytes, decode: typing.Callable[[bytes], object]
) -> None:
    with pytest.raises(ProtocolError):
        decode(packet)


def _described(name: str) -> str:
    """The `{...}` the module docstring shows for message `name`."""
    doc = protocol.__doc__ or ""
    start = re.search(rf"^ +{name} +\{{", doc, re.M)
    assert start, f"{name} is not described in the module docstring"
    depth = 0
    for end in range(start.end() - 1, len(doc)):
        depth += {"{": 1, "}": -1}.get(doc[end], 0)
        if depth == 0:
            return doc[start.end() - 1 : end + 1]
    raise AssertionError(f"{name}: unbalanced braces in the docstring")


@pytest.mark.parametrize("kind", [*OPS.values(), *EVENTS.values()], ids=lambda k: k.__name__)
def test_the_docstring_lists_each_message_as_defined(kind: type) -> None:
    entry = _described(kind.__name__)
    described = re.findall(r'"(\w+)":', entry)
    fields = typing.get_type_hints(kind)
    assert described == list(fields), (
        f"{kind.__name__}: docstring {described}, class {list(fields)}"
    )
    tag = "op" if "op" in fields else "event"
    (value,) = typing.get_args(fields[tag])
    assert f'"{tag}": "{value}"' in entry
