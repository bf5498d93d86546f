"""The CLI's progress: the library's Progress as a rich bar on a terminal, as plain lines in a log, and the themes
a verb needs built with it."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import click
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from confnav.cli.common import err
from confnav.errors import ConfnavError


class RichProgress:
    """The library's Progress drawn as a rich bar on stderr; silent with --quiet. Given `every` (seconds), a run
    whose stderr is not a terminal (a log, a pipe, a job scheduler) gets plain lines instead: done, rate and time
    left, every `every` seconds and at each tenth of the stage."""

    def __init__(self, quiet: bool, every: float | None = None) -> None:
        self.bar = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=err,
            transient=True,
            disable=quiet or not err.is_terminal,
        )
        self.task: Any = None
        self.lines = ProgressLines(every) if every is not None and not quiet and not err.is_terminal else None

    def __enter__(self) -> RichProgress:
        self.bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.bar.stop()

    def start(self, description: str, total: int | None) -> None:
        if self.task is not None:
            self.bar.remove_task(self.task)
        self.task = self.bar.add_task(description, total=total)
        if self.lines:
            self.lines.start(description, total)

    def advance(self, amount: int = 1) -> None:
        self.bar.advance(self.task, amount)
        if self.lines:
            self.lines.advance(amount)


class ProgressLines:
    """Progress as plain lines on stderr: how much is done, the rate and the time left, every `every` seconds,
    at each tenth of a stage when a tenth of that time has passed since the last line, and at the end of a stage
    that showed any."""

    def __init__(self, every: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.every, self.clock = every, clock
        self.description, self.total, self.done, self.shown = "", 0, 0, 0
        self.began = self.last = clock()

    def start(self, description: str, total: int | None) -> None:
        self.description, self.total, self.done, self.shown = description, total or 0, 0, 0
        self.began = self.last = self.clock()

    def advance(self, amount: int = 1) -> None:
        before, self.done = self.done, self.done + amount
        now = self.clock()
        since = now - self.last
        tenth = self.total and self.done * 10 // self.total > before * 10 // self.total
        finished = self.shown and self.total and before < self.total <= self.done
        if since >= self.every or (tenth and since >= self.every / 10) or finished:
            self.last, self.shown = now, self.shown + 1
            click.echo(self.line(now - self.began), err=True)

    def line(self, seconds: float) -> str:
        """`description: done/total (share), rate per second, about the time left`."""
        rate = self.done / seconds if seconds > 0 else 0.0
        if not self.total:
            return f"{self.description}: {self.done:,} done, {rate:,.1f}/s"
        left = (self.total - self.done) / rate if rate else None
        when = "done" if self.done >= self.total else f"about {_duration(left)} left" if left is not None else ""
        return f"{self.description}: {self.done:,}/{self.total:,} ({self.done / self.total:.0%}), {rate:,.1f}/s" + (
            f", {when}" if when else ""
        )


def _duration(seconds: float) -> str:
    """Seconds as `42 s`, `7 min 5 s` or `2 h 3 min`."""
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60} s"
    return f"{whole // 3600} h {whole % 3600 // 60} min"


def themes_with_progress(store: Any, venue: str, required: bool = True) -> None:
    """Build a venue's themes when they are missing, showing a progress bar (ranking and reports need them);
    with `required=False` a venue that cannot have themes (no index) is left for the caller to explain."""
    from confnav.topics import ensure_topics

    with RichProgress(quiet=False) as progress:
        try:
            ensure_topics(store, venue, progress=progress)
        except ConfnavError:
            if required:
                raise
