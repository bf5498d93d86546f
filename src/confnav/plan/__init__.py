"""A conference plan: the venue's programme (sessions from schedule files and paper lists) and a person's
must-read papers arranged by day and session, with conflicts flagged and an ICS calendar to take along."""

from __future__ import annotations

from confnav.plan.ics import check_calendar, plan_calendar
from confnav.plan.planner import Plan, build_plan
from confnav.plan.schedule import ScheduleImport, import_schedule

__all__ = ["Plan", "ScheduleImport", "build_plan", "check_calendar", "import_schedule", "plan_calendar"]
