"""HEAD on every GET route: answered as the GET would be, headers only.

FastAPI's routes accept only the methods they declare, so `HEAD /` was a 405, which uptime and
link checkers read as "down". A GET never writes, so running it for a HEAD is safe.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send


class HeadMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "HEAD":
            await self.app(scope, receive, send)
            return
        body_sent = False

        async def without_body(message: Message) -> None:
            nonlocal body_sent
            if message["type"] != "http.response.body":
                await send(message)
            elif not message.get("more_body", False) and not body_sent:
                body_sent = True
                await send({"type": "http.response.body", "body": b"", "more_body": False})

        await self.app({**scope, "method": "GET"}, receive, without_body)
