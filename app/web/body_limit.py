"""Bound every request's body, whatever its method and route: refuse one above a size before
reading it (413, chunked uploads included), and one that takes too long to arrive (408), so
that a client sending its body a byte at a time cannot hold a connection and a request open.
(The headers' time is bounded by app/web/slow_clients.py.)"""

from __future__ import annotations

import asyncio

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.errors import BodyTooLarge, BodyTooSlow, Problem
from app.web import problems


class BodyLimitMiddleware:
    def __init__(self, app: ASGIApp, max_bytes: int, timeout_s: float) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.timeout_s = timeout_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if _declared_length(scope) > self.max_bytes:
            await _refuse(
                send, BodyTooLarge(f"The request body is larger than {self.max_bytes} bytes.")
            )
            return
        body = _BoundedBody(receive, send, self.max_bytes, self.timeout_s)
        await self.app(scope, body.receive, body.send)


class _BoundedBody:
    """One request's receive and send, the body counted and timed. Past a bound it answers
    413 or 408 itself, and tells the app the client left: the app cannot turn that into another
    answer (FastAPI makes any error while reading a body a 400), and what it sends is dropped."""

    def __init__(self, receive: Receive, send: Send, max_bytes: int, timeout_s: float) -> None:
        self._receive, self._send = receive, send
        self.max_bytes, self.timeout_s = max_bytes, timeout_s
        self.deadline = asyncio.get_running_loop().time() + timeout_s
        self.received = 0
        self.complete = False
        self.refused = False
        self.response_started = False

    async def receive(self) -> Message:
        if self.complete or self.refused:  # receive() now waits for the client to leave
            return await self._receive()
        left = self.deadline - asyncio.get_running_loop().time()
        try:
            message = await asyncio.wait_for(self._receive(), max(left, 0.0))
        except TimeoutError:
            return await self._refuse(
                BodyTooSlow(f"The request body took longer than {self.timeout_s:g} s to arrive.")
            )
        if message["type"] == "http.request":
            self.complete = not message.get("more_body", False)
            self.received += len(message.get("body", b""))
            if self.received > self.max_bytes:
                return await self._refuse(
                    BodyTooLarge(f"The request body is larger than {self.max_bytes} bytes.")
                )
        return message

    async def send(self, message: Message) -> None:
        if self.refused:
            return
        self.response_started |= message["type"] == "http.response.start"
        await self._send(message)

    async def _refuse(self, problem: Problem) -> Message:
        if not self.response_started:
            await _refuse(self._send, problem)
        self.refused = True
        return {"type": "http.disconnect"}


def _declared_length(scope: Scope) -> int:
    """The Content-Length (0 when absent or unreadable: that is left to the server)."""
    for name, value in scope["headers"]:
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return 0
    return 0


async def _refuse(send: Send, problem: Problem) -> None:
    """The refusal as Problem Details, sent before any route runs."""
    body = problems.refusal_body(problem)
    await send(
        {
            "type": "http.response.start",
            "status": problem.status,
            "headers": [
                (b"content-type", problems.MEDIA_TYPE.encode()),
                (b"content-length", str(len(body)).encode()),
                # The rest of the body may still be on its way: not this connection again.
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
