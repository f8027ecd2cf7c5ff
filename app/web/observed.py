"""A request as the middlewares around the app see it: the status it was answered with and how
long it took (the access log and the latency histogram both need them)."""

from __future__ import annotations

import time
from collections.abc import Callable

from starlette.types import ASGIApp, Message, Receive, Scope, Send


def _leave(_: Message) -> None:
    pass


class Observed:
    """The status is 500 until the app starts a response, and again if the app raises after
    starting one (the client gets a broken answer, not the status it began with), so that a
    request the app failed is counted and logged as a 500."""

    def __init__(self) -> None:
        self.status = 500
        self._started = time.perf_counter()

    def seconds(self) -> float:
        return time.perf_counter() - self._started


async def call_observed(
    app: ASGIApp,
    scope: Scope,
    receive: Receive,
    send: Send,
    observed: Observed,
    on_start: Callable[[Message], None] = _leave,
) -> None:
    """Call `app`, noting its status in `observed`; `on_start` may change the response's
    headers before they are sent."""

    async def observing_send(message: Message) -> None:
        if message["type"] == "http.response.start":
            observed.status = message["status"]
            on_start(message)
        await send(message)

    try:
        await app(scope, receive, observing_send)
    except Exception:
        observed.status = 500
        raise
