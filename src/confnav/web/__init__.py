"""The web app: FastAPI guard and serve, JSON API, server-rendered pages, per-thread state."""

import confnav.web.segments  # noqa: F401  (registers the `text` path convertors before any route is declared)
