"""A small JSON-over-HTTP client for the live sources: timeouts, retries with back-off, HTTP 429 with
`Retry-After`, and errors that name the host and what to do. Standard library only.

Secrets (tokens, API keys, a login's password) travel in headers, query parameters or a request body, and never
appear in an error message: every text quoted from a service passes through `redact`, which removes each secret
the request carried, in every form a service may echo it.
"""

from __future__ import annotations

import http.client
import json
import re
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any

from confnav.errors import ConfnavError, argument

USER_AGENT = "confnav (https://github.com/confnav/confnav)"
REDACTED = "[redacted]"
_SECRET_NAME = re.compile(r"pass|secret|token|key|auth|cookie|session", re.IGNORECASE)  # headers, params, fields


def secrets_of(headers: Mapping[str, str], params: Mapping[str, Any] | None = None, body: Any = None) -> list[str]:
    """The secret values a request carries: headers, query parameters and body fields named like one (a token,
    a key, a password), the bare token of an `Authorization: Bearer …` too; longest first."""
    found = [str(v) for k, v in headers.items() if _SECRET_NAME.search(k)]
    found += [str(v) for k, v in (params or {}).items() if _SECRET_NAME.search(k) and v is not None]
    found += [value.rsplit(" ", 1)[-1] for value in found if " " in value]

    def walk(value: Any, secret: bool) -> None:
        if isinstance(value, dict):
            for name, item in value.items():
                walk(item, secret or bool(_SECRET_NAME.search(str(name))))
        elif isinstance(value, list):
            for item in value:
                walk(item, secret)
        elif secret and isinstance(value, str | int | float) and not isinstance(value, bool):
            found.append(str(value))

    walk(body, False)
    return sorted({s for s in found if s.strip()}, key=len, reverse=True)


def redact(value: Any, secrets: list[str]) -> Any:
    """`value` (a text, or JSON lists and objects of them) with each secret replaced by REDACTED, whether a
    service echoes it as sent, JSON-escaped or URL-encoded."""
    if isinstance(value, str):
        for secret in secrets:
            forms = {
                secret,
                json.dumps(secret)[1:-1],
                json.dumps(secret, ensure_ascii=False)[1:-1],
                urllib.parse.quote(secret, safe=""),
                urllib.parse.quote_plus(secret),
            }
            for form in sorted(forms, key=len, reverse=True):
                value = value.replace(form, REDACTED)
        return value
    if isinstance(value, dict):
        return {redact(k, secrets): redact(v, secrets) for k, v in value.items()}
    if isinstance(value, list):
        return [redact(item, secrets) for item in value]
    return value


class FetchError(ConfnavError):
    """A live source could not be reached or refused a request; the message says which host and what to do."""

    def __init__(self, message: str, status: int | None = None, body: Any = None) -> None:
        super().__init__(message)
        self.status = status
        self.body = body


@dataclass
class HttpClient:
    """GET/POST JSON against one base URL, retrying what a retry can mend (timeouts, 429, 5xx)."""

    base_url: str
    headers: dict[str, str] = field(default_factory=dict)
    timeout: float = 30.0
    retries: int = 4
    backoff: float = 1.0
    max_wait: float = 120.0
    sleep: Callable[[float], None] = time.sleep
    requests: int = 0

    def __post_init__(self) -> None:
        parts = urllib.parse.urlsplit(self.base_url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise FetchError(
                f"base URL {self.base_url!r} is not a web address: give it whole, as https://host"
                f" ({argument('base_url')} or the CONFNAV_*_URL variable)"
            )

    @property
    def host(self) -> str:
        return urllib.parse.urlsplit(self.base_url).netloc or self.base_url

    def get(self, path: str, params: Mapping[str, Any] | None = None) -> Any:
        return self.request("GET", path, params=params)

    def post(self, path: str, body: Any, params: Mapping[str, Any] | None = None) -> Any:
        return self.request("POST", path, params=params, body=body)

    def request(self, method: str, path: str, *, params: Mapping[str, Any] | None = None, body: Any = None) -> Any:
        """The decoded JSON answer; FetchError after the retries are spent or on an answer no retry mends."""
        query = urllib.parse.urlencode({k: v for k, v in (params or {}).items() if v is not None}, doseq=True)
        url = self.base_url.rstrip("/") + path + (f"?{query}" if query else "")
        data = json.dumps(body).encode() if body is not None else None
        headers = {"User-Agent": USER_AGENT, "Accept": "application/json", **self.headers}
        if data is not None:
            headers["Content-Type"] = "application/json"
        secrets = secrets_of(headers, params, body)
        for attempt in range(self.retries + 1):
            last = attempt == self.retries
            try:
                self.requests += 1
                request = urllib.request.Request(url, data=data, headers=headers, method=method)
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    return self._decode(response.read(), path)
            except urllib.error.HTTPError as exc:
                payload = redact(self._error_body(exc), secrets)  # what a service says may echo the request
                if exc.code == 429 or exc.code >= 500:
                    if last:
                        raise FetchError(self._said(exc.code, payload, path), exc.code, payload) from None
                    self.sleep(self._wait(exc, attempt))
                    continue
                raise FetchError(self._said(exc.code, payload, path), exc.code, payload) from None
            except (urllib.error.URLError, TimeoutError, ConnectionError, http.client.HTTPException) as exc:
                reason = redact(str(getattr(exc, "reason", exc)), secrets)
                if last:
                    raise FetchError(
                        f"cannot reach {self.host} ({reason}); check the network or the base URL"
                        f" ({argument('base_url')} or the CONFNAV_*_URL variable)"
                    ) from None
                self.sleep(min(self.max_wait, self.backoff * 2**attempt))
        raise AssertionError("unreachable")

    def _decode(self, raw: bytes, path: str) -> Any:
        try:
            return json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise FetchError(f"{self.host} answered {path} with something that is not JSON") from None

    @staticmethod
    def _error_body(exc: urllib.error.HTTPError) -> Any:
        try:
            return json.loads(exc.read() or b"null")
        except (json.JSONDecodeError, UnicodeDecodeError, OSError):
            return None

    def _said(self, status: int, payload: Any, path: str) -> str:
        detail = ""
        if isinstance(payload, dict):
            detail = str(payload.get("message") or payload.get("error") or payload.get("name") or "")
        return f"{self.host} answered {path} with HTTP {status}" + (f": {detail}" if detail else "")

    def _wait(self, exc: urllib.error.HTTPError, attempt: int) -> float:
        """Seconds to wait before the next try: the server's `Retry-After` (seconds or a date), else back-off."""
        header = exc.headers.get("Retry-After") if exc.headers else None
        if header:
            try:
                return min(self.max_wait, max(0.0, float(header)))
            except ValueError:
                try:
                    return min(self.max_wait, max(0.0, parsedate_to_datetime(header).timestamp() - time.time()))
                except (TypeError, ValueError):
                    pass
        return min(self.max_wait, self.backoff * 2**attempt)
