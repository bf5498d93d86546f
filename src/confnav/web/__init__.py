"""The web app: FastAPI guard and serve, JSON API, server-rendered pages, per-thread state."""
