"""uvicorn as `serve` runs it: request heads bounded by the HTTP parser itself, before the app could check them."""

from __future__ import annotations

import json
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from confnav.limits import MAX_HEADERS, MAX_URL

MAX_HEAD = MAX_URL + MAX_HEADERS + 4096  # request line and headers as sent, with room for their punctuation
REASONS = {400: b"Bad Request", 414: b"Request-URI Too Long", 431: b"Request Header Fields Too Large"}


class BoundedHttpTools(HttpToolsProtocol):
    """uvicorn's httptools protocol, answering 431 and closing once a request head passes MAX_HEAD bytes: httptools
    gathers each header whole, of any size (copying it again with every read), before the app sees any. Bytes are
    counted per read while a head is incomplete (a read that also ends a pipelined request counts whole)."""

    head_bytes = 0
    in_head = True

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self.in_head, self.head_bytes = True, 0

    def on_headers_complete(self) -> None:
        self.in_head = False
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
