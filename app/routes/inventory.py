"""The concept inventory: the pre-test and post-test pages and their API, a learner's gain,
and a class's gain for its instructors. Each route parses, calls the core once, renders."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Literal

from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse, RedirectResponse

from app.errors import (
    STORE,
    InventoryOutOfOrder,
    InventoryTaken,
    NoInventory,
    NotAChoice,
    NotFound,
    NotInThisForm,
    PostTestClosed,
)
from app.learning import SKIPPED
from app.learning.inventory_schemas import (
    ClassGainOut,
    InventoryBody,
    InventoryResultOut,
    InventoryTestOut,
    MyInventoryOut,
    Phase,
)
from app.routes.deps import (
    INVENTORY_KEY,
    InstructorKeysDep,
    LearnerDep,
    LearningDep,
    MaybeLearnerDep,
    WriterDep,
    read,
)
from app.web.problems import responses
from app.web.templates import render

router = APIRouter(tags=["inventory"])


@router.get(
    "/api/inventory/{phase}",
    responses=responses(NoInventory, InventoryOutOfOrder, PostTestClosed, *STORE),
)
async def inventory_test(
    phase: Phase, learning: LearningDep, learner: LearnerDep
) -> InventoryTestOut:
    """This learner's form of the pre- or post-test: items and choices, no answers."""
    return await read(learning, learning.inventory.test, learner, phase)


@router.post(
    "/api/inventory/{phase}",
    responses=responses(
        NoInventory,
        InventoryOutOfOrder,
        PostTestClosed,
        InventoryTaken,
        NotInThisForm,
        NotAChoice,
        *STORE,
    ),
)
async def answer_inventory(
    request: Request,
    phase: Phase,
    body: InventoryBody,
    learning: LearningDep,
    learner: LearnerDep,
    write: WriterDep,
) -> InventoryResultOut:
    """Record a test once for good: its result by concept, never an item's answer."""
    result = await write(learning.inventory.submit, learner, phase, body)
    request.session[INVENTORY_KEY] = phase  # what the cookie says was taken last
    return result


@router.get("/api/progress/inventory", responses=responses(NoInventory, *STORE))
async def my_inventory(learning: LearningDep, learner: MaybeLearnerDep) -> MyInventoryOut:
    """This learner's pre-test, post-test and gain, by concept."""
    return await read(learning, learning.inventory.mine, learner)


@router.get("/api/classes/{class_id}/gain", responses=responses(NotFound, NoInventory, *STORE))
async def class_gain(class_id: str, learning: LearningDep, keys: InstructorKeysDep) -> ClassGainOut:
    """The class's matched learning gain and its gain per concept (instructors only)."""
    return await read(learning, learning.teaching.gain, class_id, keys)


@router.get("/classes/{class_id}/gain.csv", include_in_schema=False)
async def class_gain_csv(class_id: str, learning: LearningDep, keys: InstructorKeysDep) -> Response:
    """The class's gain as CSV: the class, each concept, each band of individual gains."""
    text = await read(learning, learning.teaching.gain_csv, class_id, keys)
    disposition = f'attachment; filename="class-{class_id}-gain.csv"'
    return Response(text, media_type="text/csv", headers={"Content-Disposition": disposition})


@router.post("/classes/{class_id}/post-test/{action}", include_in_schema=False)
async def open_post_test(
    class_id: str,
    action: Literal["open", "close"],
    learning: LearningDep,
    keys: InstructorKeysDep,
    write: WriterDep,
) -> RedirectResponse:
    """The dashboard's button: open the post-test for the class now (or close it again)."""
    await write(learning.teaching.open_post_test, class_id, keys, action == "open")
    return RedirectResponse(f"/classes/{class_id}#gain", status_code=303)


@router.get("/inventory/{phase}", response_class=HTMLResponse, include_in_schema=False)
async def inventory_page(
    request: Request, phase: Phase, learning: LearningDep, learner: LearnerDep
) -> HTMLResponse:
    context = await read(learning, learning.inventory.page, learner, phase)
    return render(request, "inventory/test.html", 200, **context)


@router.post("/inventory/skip", include_in_schema=False)
async def skip_inventory(request: Request) -> RedirectResponse:
    """ "Not now": the catalog stops offering the pre-test for a while (/progress keeps it)."""
    request.session[INVENTORY_KEY] = f"{SKIPPED}{datetime.now(UTC).date().isoformat()}"
    return RedirectResponse("/", status_code=303)
