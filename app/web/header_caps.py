"""Cap the size and the number of a request's headers, where they are read.

uvicorn's httptools protocol (the one `gradlab serve` runs) sets no limit of its own: httptools
gathers a header of any length in memory before the app hears of the request, so no check in
the app can help (one 32 MiB header held 40 MiB and was answered 200). This protocol counts a
request's head (its request line and headers) as it arrives and answers 431
`headers-too-large`, closing the connection, once the head is longer than `MAX_HEAD_BYTES` or
has more than `MAX_HEADERS` headers; the app never sees such a request. What a connection holds
meanwhile is bounded by the limit and one read (256 KiB).
"""

from __future__ import annotations

import asyncio

import httptools

from app.errors import HeadersTooLarge
from app.web.problems import MEDIA_TYPE, refusal_body
from app.web.slow_clients import HeaderDeadlineProtocol

# nginx's default buffers hold 4 x 8 KiB for a head, Node's and h11's limit is 16 KiB: 32 KiB
# leaves room for a proxy's own headers and a browser's cookies for this site.
MAX_HEAD_BYTES = 32 * 1024
MAX_HEADERS = 100  # as Apache's LimitRequestFields and Go's HTTP/2 server


class _Refused(Exception):
    """Raised from a parser callback to stop parsing a head that is over a limit."""


def refusal(problem: HeadersTooLarge) -> bytes:
    """The whole 431 answer, as bytes: it is sent before any app runs."""
    body = refusal_body(problem)
    head = (
        f"HTTP/1.1 {problem.status} Request Header Fields Too Large\r\n"
        f"content-type: {MEDIA_TYPE}\r\ncontent-length: {len(body)}\r\nconnection: close\r\n\r\n"
    )
    return head.encode("ascii") + body


# How long a refused connection's late bytes are read and dropped before it closes.
LINGER_S = 1.0


class CappedHeadersProtocol(HeaderDeadlineProtocol):
    """uvicorn's httptools protocol with the header deadline (slow_clients.py) and these caps."""

    _in_head = True  # the bytes arriving belong to a request's head
    _head_received = 0  # bytes received while in the head (an upper bound of its size)
    _head_bytes = 0  # the head's size as parsed: request target and headers
    _header_count = 0
    _refused = False

    def _start_head(self) -> None:
        self._in_head = True
        self._head_received = self._head_bytes = self._header_count = 0

    def data_received(self, data: bytes) -> None:
        if self._refused:
            return
        if self._in_head:
            self._head_received += len(data)
        self._unset_keepalive_if_required()
        try:
            self.parser.feed_data(data)
        except httptools.HttpParserUpgrade:
            if self._should_upgrade():
                self.handle_websocket_upgrade()
            else:
                self._unsupported_upgrade_warning()
        except httptools.HttpParserError:
            if not self._refused:  # not one of ours (a _Refused from a callback): as uvicorn
                self.send_400_response("Invalid HTTP request received.")
                return
        # Still in the head after all it was sent: every byte so far is the head's.
        if self._refused or (self._in_head and self._head_received > MAX_HEAD_BYTES):
            self._refuse()

    def _check(self) -> None:
        if self._head_bytes > MAX_HEAD_BYTES or self._header_count > MAX_HEADERS:
            self._refused = True
            raise _Refused

    def _refuse(self) -> None:
        self._refused = True
        if self._header_count > MAX_HEADERS:
            detail = f"The request has more than {MAX_HEADERS} headers."
        else:
            detail = f"The request's headers are longer than {MAX_HEAD_BYTES} bytes."
        if not self.transport.is_closing():
            self.transport.write(refusal(HeadersTooLarge(detail)))
            # A lingering close: the answer, then our end closed for writing, and what the
            # client still sends read and dropped for a moment before the socket closes.
            # Closed at once, the unread bytes make the kernel send a reset, which can throw
            # the 431 away on the client's side before it is read.
            if self.transport.can_write_eof():
                self.transport.write_eof()
            asyncio.get_running_loop().call_later(LINGER_S, self.transport.close)

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        self._start_head()
        super().connection_made(transport)

    def on_url(self, url: bytes) -> None:
        self._head_bytes += len(url)
        self._check()
        super().on_url(url)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._head_bytes += len(name) + len(value) + 4  # ": " and CRLF
        self._header_count += 1
        self._check()
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._in_head = False
        super().on_headers_complete()

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._start_head()
