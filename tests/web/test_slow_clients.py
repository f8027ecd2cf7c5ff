"""Slow clients against a live `gradlab serve`, over real sockets: headers and bodies that
trickle in are cut off, and X-Forwarded-For from a direct client is not believed."""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import httpx
import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from tests.conftest import FIXTURE_LESSONS, make_settings
from tests.live import LiveServer

# Far longer than the server's limits below: a connection still open by then was not cut off.
PATIENCE_S = 15.0


# Each waits out a server's time limit for a slow client: seconds, by design.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    live = LiveServer(
        FIXTURE_LESSONS,
        header_timeout_s="1",
        body_timeout_s="1",
        new_learners_per_minute="2",
        keep_alive_s="60",
    )
    yield live
    live.stop()


def _connect(server: LiveServer) -> socket.socket:
    return socket.create_connection(("127.0.0.1", server.port), timeout=PATIENCE_S)


def _trickle(sock: socket.socket, data: bytes, every_s: float = 0.2) -> bool:
    """Send `data` a byte at a time; False once the server has closed the connection."""
    deadline = time.monotonic() + PATIENCE_S
    for byte in data:
        if time.monotonic() > deadline:
            return True
        try:
            sock.sendall(bytes([byte]))
        except (BrokenPipeError, ConnectionResetError):
            return False
        time.sleep(every_s)
    return True


def _read_all(sock: socket.socket) -> bytes:
    chunks = []
    while chunk := sock.recv(65536):
        chunks.append(chunk)
    return b"".join(chunks)


def test_a_connection_that_sends_nothing_is_closed(server: LiveServer) -> None:
    with _connect(server) as sock:
        assert _read_all(sock) == b""  # closed, not timed out (that would raise)


def test_headers_sent_a_byte_at_a_time_are_cut_off(server: LiveServer) -> None:
    headers = b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + b"X-Slow: " + b"a" * 200 + b"\r\n\r\n"
    with _connect(server) as sock:
        still_open = _trickle(sock, headers)
        answer = b"" if not still_open else _read_all(sock)
    assert not still_open or not answer.startswith(b"HTTP/1.1 200"), answer[:100]


def _one_answer(sock: socket.socket) -> bytes:
    """Read one answer to a GET /healthz: its head, then as many bytes as it says."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, data  # the server closed the connection before answering
        data += chunk
    head, body = data.split(b"\r\n\r\n", 1)
    length = int(
        next(
            line for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")
        ).split(b":")[1]
    )
    while len(body) < length:
        body += sock.recv(65536)
    return head


HEALTHZ = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"


def test_a_connection_idle_between_requests_is_kept_past_the_header_limit(
    server: LiveServer,
) -> None:
    # A learner reading a page for longer than the header limit: their next click comes on the
    # same connection (the keep-alive limit, 60 s here, closes an idle one), not a new one.
    with _connect(server) as sock:
        sock.sendall(HEALTHZ)
        assert _one_answer(sock).startswith(b"HTTP/1.1 200")
        time.sleep(3)  # three times the header limit
        sock.sendall(HEALTHZ)
        assert _one_answer(sock).startswith(b"HTTP/1.1 200")


def test_a_later_request_whose_headers_trickle_in_is_cut_off(server: LiveServer) -> None:
    headers = b"GET /healthz HTTP/1.1\r\nHost: x\r\n" + b"X-Slow: " + b"a" * 200 + b"\r\n\r\n"
    with _connect(server) as sock:
        sock.sendall(HEALTHZ)
        assert _one_answer(sock).startswith(b"HTTP/1.1 200")
        still_open = _trickle(sock, headers)
        answer = b"" if not still_open else _read_all(sock)
    assert not still_open or not answer.startswith(b"HTTP/1.1 200"), answer[:100]


def test_a_body_sent_a_byte_at_a_time_gets_408_and_the_connection_closes(
    server: LiveServer,
) -> None:
    body = b'{"code": "print(1)"}' + b" " * 200
    head = (
        b"POST /api/run HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n"
    )
    with _connect(server) as sock:
        sock.sendall(head)
        _trickle(sock, body)
        answer = _read_all(sock)
    assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
    assert b"took longer than 1 s" in answer


def test_a_quick_client_is_served_on_the_same_server(server: LiveServer) -> None:
    answer = httpx.post(f"{server.url}/api/run", json={"code": "print(3)"}, timeout=30)
    assert answer.json()["stdout"] == "3\n"


def test_a_direct_client_cannot_choose_its_address_with_x_forwarded_for(
    server: LiveServer,
) -> None:
    # No proxy is trusted: every new learner below is 127.0.0.1's, whatever the header says.
    statuses = [
        httpx.get(
            f"{server.url}/api/lessons",
            headers={"X-Forwarded-For": f"203.0.113.{n}"},
            timeout=10,
        ).status_code
        for n in range(1)
    ]
    statuses += [
        httpx.get(
            f"{server.url}/api/lessons/first-steps",
            headers={"X-Forwarded-For": f"203.0.113.{n}"},
            timeout=10,
        ).status_code
        for n in range(3)
    ]
    # Three "addresses" would each have a bucket of their own; one address's bucket of two
    # (already drawn on by the run above, which was given a learner too) runs out.
    assert statuses[0] == 200 and statuses[-1] == 429


def test_a_chunked_body_past_the_limit_is_413_wherever_a_body_is_read() -> None:
    def chunks() -> Iterator[bytes]:
        for _ in range(64):
            yield b"x" * 65536

    with TestClient(create_app(make_settings())) as client:
        for path in ["/api/run", "/api/lessons/first-steps/steps/1/prediction"]:
            answer = client.post(path, content=chunks())
            assert answer.status_code == 413, (path, answer.status_code)
            assert "larger than" in answer.json()["detail"]
