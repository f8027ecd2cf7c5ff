"""Classes: joining by link, the instructor's link and dashboard, its JSON and export, and
"report a problem with this question". Each route parses, calls the core once, renders."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse, RedirectResponse

from app.errors import STORE, InvalidText, NotFound, UnknownLesson
from app.learning.class_schemas import DashboardOut, ItemsOut, JoinBody, Joined, ReportBody
from app.routes.deps import (
    INSTRUCTOR_KEY,
    InstructorKeysDep,
    LearnerDep,
    LearningDep,
    MaybeLearnerDep,
    WriterDep,
    read,
)
from app.web.problems import responses
from app.web.templates import render

router = APIRouter(tags=["classes"])


@router.get("/join/{token}", response_class=HTMLResponse, include_in_schema=False)
async def join_page(request: Request, token: str, learning: LearningDep) -> HTMLResponse:
    info = await read(learning, learning.teaching.class_to_join, token)
    return render(request, "classes/join.html", info=info, token=token)


@router.post("/api/join/{token}", responses=responses(NotFound, InvalidText, *STORE))
async def join_class(
    token: str, body: JoinBody, learning: LearningDep, learner: LearnerDep, write: WriterDep
) -> Joined:
    """Join a class under a display name (again: change the name)."""
    return await write(learning.teaching.join, token, learner, body)


@router.post(
    "/api/classes/{class_id}/leave", status_code=204, responses=responses(NotFound, *STORE)
)
async def leave_class(
    class_id: str, learning: LearningDep, learner: MaybeLearnerDep, write: WriterDep
) -> Response:
    """Leave a class: the teacher no longer sees this learner; their progress stays."""
    await write(learning.teaching.leave, class_id, learner or "")
    return Response(status_code=204)


@router.get("/teach/{token}", include_in_schema=False)
async def instructor_link(request: Request, token: str, learning: LearningDep) -> Response:
    """The instructor link: a cookie for this class only, then its dashboard."""
    class_id, key = await read(learning, learning.teaching.instructor_login, token)
    keys = dict(request.session.get(INSTRUCTOR_KEY) or {})
    request.session[INSTRUCTOR_KEY] = {**keys, class_id: key}
    return RedirectResponse(f"/classes/{class_id}", status_code=303)


@router.get("/classes/{class_id}", response_class=HTMLResponse, include_in_schema=False)
async def dashboard_page(
    request: Request, class_id: str, learning: LearningDep, keys: InstructorKeysDep
) -> HTMLResponse:
    board = await read(learning, learning.teaching.dashboard, class_id, keys)
    return render(request, "classes/dashboard.html", board=board)


@router.get("/stats", response_class=HTMLResponse, include_in_schema=False)
async def instance_stats_page(
    request: Request, learning: LearningDep, keys: InstructorKeysDep
) -> HTMLResponse:
    """The item analysis over every learner of this instance, for its teachers and authors."""
    stats = await read(learning, learning.teaching.instance_stats, keys)
    return render(request, "classes/stats.html", stats=stats)


@router.get("/api/classes/{class_id}", responses=responses(NotFound, *STORE))
async def dashboard_json(
    class_id: str, learning: LearningDep, keys: InstructorKeysDep
) -> DashboardOut:
    """The class's roster, funnels, misconceptions and calibration (instructors only)."""
    return await read(learning, learning.teaching.dashboard_json, class_id, keys)


@router.get("/api/classes/{class_id}/items", responses=responses(NotFound, *STORE))
async def class_items(class_id: str, learning: LearningDep, keys: InstructorKeysDep) -> ItemsOut:
    """Per question, from first attempts: difficulty, discrimination, every choice's count."""
    return await read(learning, learning.teaching.items, class_id, keys)


@router.get(
    "/api/classes/{class_id}/export.csv",
    response_class=Response,
    responses={200: {"content": {"text/csv": {}}}, **responses(NotFound, *STORE)},
)
async def class_export(class_id: str, learning: LearningDep, keys: InstructorKeysDep) -> Response:
    """One row per learner and question: their first attempt."""
    text = await read(learning, learning.teaching.export, class_id, keys)
    disposition = f'attachment; filename="class-{class_id}.csv"'
    return Response(text, media_type="text/csv", headers={"Content-Disposition": disposition})


@router.post(
    "/api/lessons/{slug}/report",
    status_code=204,
    responses=responses(UnknownLesson, NotFound, InvalidText, *STORE),
)
async def report_question(
    slug: str, body: ReportBody, learning: LearningDep, learner: LearnerDep, write: WriterDep
) -> Response:
    """Report a problem with a question: kept with the question's version, for its authors
    and the instructors of the reporter's classes."""
    await write(learning.teaching.report, learner, slug, body)
    return Response(status_code=204)


@router.get(
    "/api/progress/export",
    response_class=Response,
    responses={200: {"content": {"application/json": {}}}, **responses(*STORE)},
)
async def export_my_data(learning: LearningDep, learner: MaybeLearnerDep) -> Response:
    """Everything gradlab keeps about this learner, as a JSON download."""
    data = await read(learning, learning.teaching.my_data, learner)
    disposition = 'attachment; filename="gradlab-my-data.json"'
    return Response(
        data.model_dump_json(indent=2),
        media_type="application/json",
        headers={"Content-Disposition": disposition},
    )


@router.post("/progress/delete", include_in_schema=False)
async def delete_my_data(
    request: Request, learning: LearningDep, learner: MaybeLearnerDep, write: WriterDep
) -> RedirectResponse:
    """Delete everything gradlab keeps about this learner, and forget their cookie."""
    await write(learning.teaching.forget, learner)
    request.session.clear()
    return RedirectResponse("/", status_code=303)


@router.post("/progress/classes/{class_id}/leave", include_in_schema=False)
async def leave_class_form(
    class_id: str, learning: LearningDep, learner: MaybeLearnerDep, write: WriterDep
) -> RedirectResponse:
    """The progress page's "Leave" button: works without JavaScript."""
    await write(learning.teaching.leave, class_id, learner or "")
    return RedirectResponse("/progress", status_code=303)
