"""Cut off clients that send a request's headers too slowly (a slow-loris).

uvicorn closes a keep-alive connection that stays idle for `timeout_keep_alive` seconds
(GRADLAB_KEEP_ALIVE_S), but it has no limit on the time a request's headers take: a client that
connects and sends nothing, or a header byte every few seconds, holds its connection (and a file
descriptor) for as long as it likes, and enough of them exhaust the server. This HTTP protocol
(uvicorn's httptools one, given as `http=`) closes a connection whose request headers are not
complete within GRADLAB_HEADER_TIMEOUT_S of its opening, or of the first byte of a later request
on it; between requests the connection is idle, and the keep-alive limit closes it. The body's
time is bounded by `BodyLimitMiddleware` (app/web/body_limit.py), which can answer 408.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.config import Config
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.server import ServerState

DEFAULT_HEADER_TIMEOUT_S = 10.0


class HeaderDeadlineProtocol(HttpToolsProtocol):
    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        # The app's own settings (uvicorn loads the app before it makes a protocol).
        settings = getattr(getattr(self.app, "state", None), "settings", None)
        self.header_timeout_s = float(
            getattr(settings, "header_timeout_s", DEFAULT_HEADER_TIMEOUT_S)
        )
        self._header_deadline: asyncio.TimerHandle | None = None

    def _arm(self) -> None:
        self._disarm()
        self._header_deadline = self.loop.call_later(self.header_timeout_s, self._too_slow)

    def _disarm(self) -> None:
        if self._header_deadline is not None:
            self._header_deadline.cancel()
            self._header_deadline = None

    def _too_slow(self) -> None:
        self._header_deadline = None
        if not self.transport.is_closing():
            self.transport.close()

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self._header_deadline is None:  # a later request's first byte: its headers' turn
            self._arm()

    def on_headers_complete(self) -> None:
        self._disarm()
        super().on_headers_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)
