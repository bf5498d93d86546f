"""uvicorn as `serve` runs it: request heads bounded in size and time by the HTTP protocol itself, before the app
could check them; HEAD answered as GET is."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from starlette.types import Message, Scope, Send
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from confnav.limits import MAX_HEADERS, MAX_URL

MAX_HEAD = MAX_URL + MAX_HEADERS + 4096  # request line and headers as sent, with room for their punctuation
ABSOLUTE_TARGET = "confnav.absolute_target"  # scope extension: the request line named a full URL, not a path
HEAD_TIMEOUT = 10.0  # seconds a connection has to send a request's line and headers, from its first byte or opening
REASONS = {
    400: b"Bad Request",
    408: b"Request Timeout",
    414: b"Request-URI Too Long",
    431: b"Request Header Fields Too Large",
}


class BoundedHttpTools(HttpToolsProtocol):
    """uvicorn's httptools protocol, answering 431 and closing once a request head passes MAX_HEAD bytes: httptools
    gathers each header whole, of any size (copying it again with every read), before the app sees any. Bytes are
    counted per read while a head is incomplete (a read that also ends a pipelined request counts whole). A head not
    sent in full within HEAD_TIMEOUT (bytes trickling in, or none) is answered 408 and the connection closed."""

    head_bytes = 0
    in_head = True
    head_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._time_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_head_timer()
        super().connection_lost(exc)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self.in_head, self.head_bytes = True, 0
        self._time_head()

    def _time_head(self) -> None:
        """A connection sending only part of a head (or nothing) is answered 408 and closed after HEAD_TIMEOUT."""
        self._stop_head_timer()
        self.head_timer = self.loop.call_later(HEAD_TIMEOUT, self._head_too_slow)

    def _stop_head_timer(self) -> None:
        if self.head_timer is not None:
            self.head_timer.cancel()
            self.head_timer = None

    def _head_too_slow(self) -> None:
        self.head_timer = None
        if self.in_head and not self.transport.is_closing():
            self.refuse(408, f"request headers not sent within {HEAD_TIMEOUT:g} s")

    def on_headers_complete(self) -> None:
        self.in_head = False
        self._stop_head_timer()
        if self.url and not self.url.startswith((b"/", b"*")):  # httptools keeps only the path of `http://h/p`
            self.scope["extensions"] = {**self.scope.get("extensions", {}), ABSOLUTE_TARGET: {}}
        super().on_headers_complete()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if not self.in_head or self.transport.is_closing():
            return
        self.head_bytes += len(data)
        if self.head_bytes > MAX_HEAD:
            self.refuse(431, f"request headers over {MAX_HEADERS // 1024} KiB")

    def send_400_response(self, msg: str) -> None:
        """A request the parser refuses, answered as the app answers errors: a URL too long for it to read (over
        64 KiB arriving in one read) as the app's 414, anything else as 400, in JSON."""
        if len(self.url) > MAX_URL:
            self.refuse(414, "request URL too long")
        else:
            self.refuse(400, "invalid HTTP request")

    def refuse(self, status: int, message: str) -> None:
        """Answer `status` with the app's JSON error body and close the connection."""
        body = json.dumps({"error": message}).encode()
        self.transport.write(
            b"HTTP/1.1 %d %s\r\ncontent-type: application/json\r\ncontent-length: %d\r\nconnection: close\r\n\r\n%s"
            % (status, REASONS[status], len(body), body)
        )
        self.transport.close()


def server_settings(parser: str = "httptools") -> dict[str, Any]:
    """uvicorn settings bounding request heads with either HTTP parser (h11 refuses a longer one with 400)."""
    http = BoundedHttpTools if parser == "httptools" else parser
    return {"http": http, "h11_max_incomplete_event_size": MAX_HEAD, "log_level": "warning"}


def head_as_get(scope: Scope, send: Send) -> tuple[Scope, Send]:
    """A HEAD request as its GET, the answer's body left out (RFC 9110: a HEAD answers what GET would without a
    body), since routes declare GET alone. The scope is a copy: the server reads its own to know no body follows."""
    if scope["method"] != "HEAD":
        return scope, send

    async def without_body(message: Message) -> None:
        if message["type"] == "http.response.body":
            if message.get("more_body", False):
                return
            message = {"type": "http.response.body", "body": b"", "more_body": False}
        await send(message)

    return {**scope, "method": "GET"}, without_body
