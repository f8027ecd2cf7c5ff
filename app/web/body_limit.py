"""Bound every request's body, whatever its method and route: refuse one above a size before
reading it (413, chunked uploads included), and one that takes too long to arrive (408), so
that a client sending its body a byte at a time cannot hold a connection and a request open.
(The headers' time is bounded by app/web/slow_clients.py.)"""

from __future__ import annotations

import asyncio
import json

from starlette.types import ASGIApp, Message, Receive, Scope, Send


class BodyLimitMiddleware:
    def __init__(self, app: ASGIApp, max_bytes: int, timeout_s: float) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.timeout_s = timeout_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self._declared_too_big(scope):
            await self._refuse(send, 413, f"The request body is larger than {self.max_bytes} bytes.")
            return
        received = 0
        body_complete = False
        refused = False  # answered here: what the app sends after that is dropped
        response_started = False
        deadline = asyncio.get_running_loop().time() + self.timeout_s

        async def refuse(status: int, detail: str) -> Message:
            # Answered now, and the app told the client left: the app cannot turn it into
            # another answer (FastAPI makes any error while reading a body a 400).
            nonlocal refused
            if not response_started:
                await self._refuse(send, status, detail)
            refused = True
            return {"type": "http.disconnect"}

        async def limited_receive() -> Message:
            nonlocal received, body_complete
            if body_complete or refused:  # receive() waits for the client to leave
                return await receive()
            left = deadline - asyncio.get_running_loop().time()
            try:
                message = await asyncio.wait_for(receive(), max(left, 0.0))
            except TimeoutError:
                return await refuse(
                    408, f"The request body took longer than {self.timeout_s:g} s to arrive."
                )
            if message["type"] == "http.request":
                body_complete = not message.get("more_body", False)
                received += len(message.get("body", b""))
                if received > self.max_bytes:
                    return await refuse(
                        413, f"The request body is larger than {self.max_bytes} bytes."
                    )
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal response_started
            if refused:
                return
            response_started = response_started or message["type"] == "http.response.start"
            await send(message)

        await self.app(scope, limited_receive, tracking_send)

    def _declared_too_big(self, scope: Scope) -> bool:
        """A Content-Length above the limit (an unreadable one is left to the server)."""
        for name, value in scope["headers"]:
            if name == b"content-length":
                try:
                    return int(value) > self.max_bytes
                except ValueError:
                    return False
        return False

    async def _refuse(self, send: Send, status: int, detail: str) -> None:
        body = json.dumps({"detail": detail}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": status,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    # The rest of the body may still be on its way: not this connection again.
                    (b"connection", b"close"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
