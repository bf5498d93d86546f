"""Every file the web app offers for download goes out through `download`: one Content-Disposition header
(RFC 6266) that names the file in UTF-8 and in ASCII for older clients, for any name a user gave."""

from __future__ import annotations

import re
import unicodedata
from urllib.parse import quote

from fastapi.responses import Response


def content_disposition(filename: str) -> str:
    """`attachment` with an ASCII `filename` fallback and the UTF-8 `filename*` (RFC 5987 percent-encoding), so a
    name in any script is sent as Latin-1-safe bytes; path separators and control characters become `_`."""
    name = "".join(c if c.isprintable() and c not in "/\\" else "_" for c in filename).strip() or "download"
    stem, dot, extension = name.rpartition(".") if "." in name else (name, "", "")
    fallback = f"{_ascii(stem) or 'download'}{dot}{_ascii(extension)}"
    return f"attachment; filename=\"{fallback}\"; filename*=UTF-8''{quote(name, safe='')}"


def _ascii(text: str) -> str:
    """Text in ASCII letters, digits and `-`: accents dropped (`Ȫ` → `O`), every other run as one `_`."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^A-Za-z0-9-]+", "_", folded).strip("_")


def download(text: str, filename: str, media_type: str) -> Response:
    """A text file to save, in UTF-8, under this name."""
    headers = {"Content-Disposition": content_disposition(filename)}
    return Response(text.encode(), media_type=f"{media_type}; charset=utf-8", headers=headers)
