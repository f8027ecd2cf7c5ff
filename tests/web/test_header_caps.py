"""Request heads over the caps (app/web/header_caps.py), sent over raw sockets to a real uvicorn
server on loopback running the protocol `gradlab serve` runs: 431, before the app sees them."""

from __future__ import annotations

import argparse
import json
import socket
import threading
import time
from collections.abc import Iterator

import pytest
import uvicorn

from app.cli import _uvicorn_options
from app.main import create_app
from app.web.header_caps import MAX_HEAD_BYTES, MAX_HEADERS, CappedHeadersProtocol
from tests.conftest import make_settings
from tests.live import free_port


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    settings = make_settings()
    chosen = free_port()
    config = uvicorn.Config(
        create_app(settings),
        host="127.0.0.1",
        port=chosen,
        http=CappedHeadersProtocol,
        log_config=None,
        lifespan="on",
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started
    yield chosen
    server.should_exit = True
    thread.join(10)


def exchange(port: int, head: bytes, chunk: int = 65536) -> tuple[bytes, int]:
    """Send `head` (a whole request head) while reading; returns what came back and how many
    bytes of the head the server took before it closed the connection."""
    answer = b""
    sent = 0
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.setblocking(False)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                if sent < len(head):
                    sent += sock.send(head[sent : sent + chunk])
            except BlockingIOError:
                pass
            except (BrokenPipeError, ConnectionResetError):
                break
            try:
                data = sock.recv(65536)
            except BlockingIOError:
                time.sleep(0.001)
                continue
            except ConnectionResetError:
                break
            if not data:
                break
            answer += data
            if answer.startswith(b"HTTP/1.1 200") and answer.endswith(b"}"):
                break
    return answer, sent


def problem(answer: bytes) -> dict[str, object]:
    head, body = answer.split(b"\r\n\r\n", 1)
    assert b"content-type: application/problem+json" in head.lower()
    assert b"connection: close" in head.lower()
    parsed: dict[str, object] = json.loads(body)
    return parsed


def request(*headers: bytes) -> bytes:
    return b"GET /healthz HTTP/1.1\r\nHost: gradlab\r\n" + b"".join(headers) + b"\r\n"


@pytest.mark.parametrize("size", [1 << 20, 32 << 20])
def test_a_huge_header_is_refused_with_431(port: int, size: int) -> None:
    answer, sent = exchange(port, request(b"X-Big: " + b"a" * size + b"\r\n"))
    assert answer.startswith(b"HTTP/1.1 431 "), answer[:200]
    assert problem(answer)["type"] == "/problems/headers-too-large"
    assert str(MAX_HEAD_BYTES) in str(problem(answer)["detail"])
    # The server stopped reading long before the end (what the kernels buffered aside).
    assert sent < size


def test_a_huge_request_target_is_refused_too(port: int) -> None:
    head = b"GET /healthz?q=" + b"a" * (1 << 20) + b" HTTP/1.1\r\nHost: gradlab\r\n\r\n"
    answer, _ = exchange(port, head)
    assert answer.startswith(b"HTTP/1.1 431 "), answer[:200]


def test_too_many_headers_are_refused(port: int) -> None:
    many = [b"X-H%d: 1\r\n" % n for n in range(MAX_HEADERS + 1)]
    answer, _ = exchange(port, request(*many))
    assert answer.startswith(b"HTTP/1.1 431 "), answer[:200]
    assert str(MAX_HEADERS) in str(problem(answer)["detail"])


def test_heads_within_the_caps_are_served(port: int) -> None:
    cookie = b"Cookie: c=" + b"x" * (MAX_HEAD_BYTES - 1024) + b"\r\n"
    answer, _ = exchange(port, request(cookie))
    assert answer.startswith(b"HTTP/1.1 200 "), answer[:200]
    many = [b"X-H%d: 1\r\n" % n for n in range(MAX_HEADERS - 1)]  # and Host
    answer, _ = exchange(port, request(*many))
    assert answer.startswith(b"HTTP/1.1 200 "), answer[:200]


def test_the_count_starts_again_with_each_request_on_a_connection(port: int) -> None:
    """Three requests of 20 KiB heads on one kept-alive connection: each under the cap, the
    three together over it."""
    half = request(b"X-Pad: " + b"p" * (20 * 1024) + b"\r\n")
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        for _ in range(3):
            sock.sendall(half)
            data = b""
            while b"\r\n\r\n" not in data:
                data += sock.recv(65536)
            assert data.startswith(b"HTTP/1.1 200 "), data[:200]
            head, body = data.split(b"\r\n\r\n", 1)
            length = int(
                next(
                    line
                    for line in head.split(b"\r\n")
                    if line.lower().startswith(b"content-length:")
                ).split(b":")[1]
            )
            while len(body) < length:
                body += sock.recv(65536)


def test_gradlab_serve_runs_the_capped_protocol() -> None:
    args = argparse.Namespace(host="127.0.0.1", port=0)
    assert _uvicorn_options(args, make_settings())["http"] is CappedHeadersProtocol
