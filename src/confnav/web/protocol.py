"""uvicorn as `serve` runs it: request heads bounded by the HTTP parser itself, before the app could check them."""

from __future__ import annotations

import json
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from confnav.limits import MAX_HEADERS, MAX_URL

MAX_HEAD = MAX_URL + MAX_HEADERS + 4096  # request line and headers as sent, with room for their punctuation
HEAD_TOO_LARGE = json.dumps({"error": f"request headers over {MAX_HEADERS // 1024} KiB"}).encode()
ABSOLUTE_TARGET = "confnav.absolute_target"  # scope extension: the request line named a full URL, not a path


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
        if self.url and not self.url.startswith((b"/", b"*")):  # httptools keeps only the path of `http://h/p`
            self.scope["extensions"] = {**self.scope.get("extensions", {}), ABSOLUTE_TARGET: {}}
        super().on_headers_complete()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if not self.in_head or self.transport.is_closing():
            return
        self.head_bytes += len(data)
        if self.head_bytes > MAX_HEAD:
            self.transport.write(
                b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-type: application/json\r\n"
                b"content-length: %d\r\nconnection: close\r\n\r\n%s" % (len(HEAD_TOO_LARGE), HEAD_TOO_LARGE)
            )
            self.transport.close()


def server_settings(parser: str = "httptools") -> dict[str, Any]:
    """uvicorn settings bounding request heads with either HTTP parser (h11 refuses a longer one with 400)."""
    http = BoundedHttpTools if parser == "httptools" else parser
    return {"http": http, "h11_max_incomplete_event_size": MAX_HEAD, "log_level": "warning"}
