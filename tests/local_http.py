"""One way to run a local HTTP server for a test: a handler class on a free loopback port, in a thread."""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class _Server(ThreadingHTTPServer):
    """A client that hung up (a timeout test's) is no error: its handler, still asleep after the test, must not
    print a traceback into a later test's captured output."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@contextmanager
def local_server(handler: Any) -> Iterator[str]:
    """Serve `handler` (a request handler class or factory) on 127.0.0.1; yields the base URL."""
    server = _Server(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def bound(handler: type[BaseHTTPRequestHandler], **state: Any) -> type[BaseHTTPRequestHandler]:
    """A subclass of `handler` carrying the server's state as class attributes."""
    return type(f"Bound{handler.__name__}", (handler,), state)
