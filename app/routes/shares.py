"""Share links: make one, delete one (its author only), its page, and its view beacon."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse

from app.errors import STORE, SnippetTooLarge, UnknownLesson, UnknownStep
from app.learning import ShareNotFound, TooManyShares
from app.learning.schemas import ShareBody, ShareMade
from app.routes.deps import (
    AddressDep,
    LearnerDep,
    LearningDep,
    MaybeLearnerDep,
    VisitorDep,
    WriterDep,
    read,
    render_page,
)
from app.web.problems import responses

router = APIRouter()


@router.post(
    "/api/shares",
    status_code=201,
    tags=["shares"],
    responses=responses(UnknownLesson, UnknownStep, SnippetTooLarge, TooManyShares, *STORE),
)
async def make_share(
    body: ShareBody,
    request: Request,
    learning: LearningDep,
    learner: LearnerDep,
    address: AddressDep,
    write: WriterDep,
) -> ShareMade:
    """Keep the code as an immutable share; its id and link come back."""
    return await write(learning.make_share, learner, address, body, str(request.base_url))


@router.delete(
    "/api/shares/{share_id}",
    status_code=204,
    tags=["shares"],
    responses=responses(ShareNotFound, *STORE),
)
async def delete_share(
    share_id: str, learning: LearningDep, learner: MaybeLearnerDep, write: WriterDep
) -> Response:
    """Delete a share: only its author (the same cookie) can; to anyone else it is a 404."""
    await write(learning.shares.delete, share_id, learner)
    return Response(status_code=204)


@router.post(
    "/api/shares/{share_id}/views",
    status_code=204,
    tags=["shares"],
    responses=responses(ShareNotFound, *STORE),
)
async def share_viewed(share_id: str, learning: LearningDep, write: WriterDep) -> Response:
    """The share page's beacon once shown: keeps a share that people look at from expiring."""
    await write(learning.shares.seen, share_id)
    return Response(status_code=204)


@router.get("/s/{share_id}", response_class=HTMLResponse, include_in_schema=False)
async def share_page(
    request: Request, share_id: str, learning: LearningDep, learner: VisitorDep
) -> HTMLResponse:
    page = await read(learning, learning.share_page, share_id, learner)
    return render_page(request, page)
