"""The JSON API of background jobs: start one (a venue's themes), see how one or all went."""

from __future__ import annotations

from fastapi import APIRouter, Body, Request

from confnav.errors import ConfnavError, excerpt
from confnav.web.answers import WRITE, answers
from confnav.web.bodies import Job
from confnav.web.state import state_of

router = APIRouter(prefix="/api")


@router.post("/jobs", **answers(Job, 400, 404, *WRITE, status=202))
def start_job(
    request: Request,
    kind: str = Body(..., embed=True, max_length=20),
    venue: str = Body(..., embed=True, max_length=100),
    rebuild: bool = Body(False, embed=True),
) -> dict[str, str]:
    """Start a background job (`topics`: build a venue's themes); its status is at /api/jobs/{id}."""
    if kind != "topics":
        raise ConfnavError(f"unknown job kind {excerpt(kind)} (known: topics)")
    state = state_of(request)
    with state.writing(request):
        return state.start_topics_job(venue, rebuild)


@router.get("/jobs/{job_id}", **answers(Job, 404))
def job_status(request: Request, job_id: str) -> dict[str, str]:
    return state_of(request).store.job(job_id)


@router.get("/jobs", **answers(list[Job]))
def job_list(request: Request) -> list[dict[str, str]]:
    return state_of(request).store.jobs()
