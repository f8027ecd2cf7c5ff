"""FastAPI dependencies shared by the routes: the learning core and the learner.

Not a route module: the routes import this, never each other."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Annotated, ParamSpec, TypeVar

from fastapi import Depends, Request
from fastapi.responses import HTMLResponse
from starlette.concurrency import run_in_threadpool

from app.errors import TooManyNewLearners, raises
from app.learning import ExercisePractice, Learning, LessonAnswers, Page, Practice, Who, Writer
from app.web.client_address import NewLearnerLimit, counted_as
from app.web.templates import templates

LEARNER_KEY = "learner"
INSTRUCTOR_KEY = "teach"  # class id -> the instructor key its link had (app/learning/teaching)
INVENTORY_KEY = (
    "inventory"  # the pre-test taken, or skipped on a date (app/learning/inventory_tests)
)
P = ParamSpec("P")
T = TypeVar("T")


def get_learning(request: Request) -> Learning:
    learning: Learning = request.app.state.learning
    return learning


def current_learner(request: Request) -> str | None:
    """The learner named by the signed cookie, if any."""
    learner = request.session.get(LEARNER_KEY)
    return learner if isinstance(learner, str) else None


def client_host(request: Request) -> str:
    """The client's address as the limits and shares per address count it (behind a trusted
    proxy, the one it forwarded; an IPv6 client's /64: see app/web/client_address.py)."""
    return counted_as(request.client.host) if request.client else "unknown"


def _new_learners(request: Request) -> NewLearnerLimit:
    limit: NewLearnerLimit = request.app.state.new_learners
    return limit


def _give_learner(request: Request) -> str:
    """A new learner's id, in the signed cookie only (nothing in the database)."""
    learner = str(uuid.uuid4())
    request.session[LEARNER_KEY] = learner
    return learner


def learner_id(request: Request) -> str:
    """The learner behind this request. A new visitor gets an id in the signed cookie and
    nothing in the database: the first answer they record creates their row. A client address
    creates only so many (TooManyNewLearners)."""
    learner = current_learner(request)
    if learner is None:
        _new_learners(request).take(client_host(request))
        learner = _give_learner(request)
    return learner


def visitor(request: Request) -> str | None:
    """The learner who came with this request, or None for a newcomer; a newcomer is given a
    learner in the signed cookie as well, when their address may still create one (the same
    limit as `learner_id`), so that what they run next waits in a line of their own rather
    than their address's. Past the limit the page is still served, without a cookie, as it
    was before. The page reads as for the learner who came (a new one has nothing to read),
    so the cookie costs no query."""
    learner = current_learner(request)
    if learner is None and _new_learners(request).try_take(client_host(request)):
        _give_learner(request)
    return learner


def run_line(request: Request, learner: str | None) -> Who:
    """Whose line a run waits in: the learner's at the client's address, or for a request
    without a learner the address's own, so that dropping the cookie never buys a fresh line.
    The sandbox shares its workers between addresses first (app/sandbox/fair.py)."""
    return Who(client_host(request), learner)


# Coroutines, so FastAPI resolves them on the event loop: a plain function would cost every
# request (every run among them) a hop to the thread pool and back.
async def _learning(request: Request) -> Learning:
    return get_learning(request)


@raises(TooManyNewLearners)
async def _learner(request: Request) -> str:
    return learner_id(request)


async def _maybe_learner(request: Request) -> str | None:
    return current_learner(request)


async def _visitor(request: Request) -> str | None:
    return visitor(request)


async def _address(request: Request) -> str:
    return client_host(request)


async def _instructor_keys(request: Request) -> dict[str, str]:
    keys = request.session.get(INSTRUCTOR_KEY)
    if not isinstance(keys, dict):
        return {}
    return {k: v for k, v in keys.items() if isinstance(k, str) and isinstance(v, str)}


LearningDep = Annotated[Learning, Depends(_learning)]
InstructorKeysDep = Annotated[dict[str, str], Depends(_instructor_keys)]
LearnerDep = Annotated[str, Depends(_learner)]
# The client's address, for the line a run waits in (with the learner's).
AddressDep = Annotated[str, Depends(_address)]
MaybeLearnerDep = Annotated[str | None, Depends(_maybe_learner)]
# The pages a learner runs, shares or answers from without being a lesson's (the playground,
# a share, review, progress) and the run itself: a newcomer leaves with a learner's cookie.
VisitorDep = Annotated[str | None, Depends(_visitor)]


# The learning core as one learner's: a lesson's answers, and the modes and review queue.
async def _answers(learning: LearningDep, learner: LearnerDep) -> LessonAnswers:
    return learning.answers(learner)


async def _practice(learning: LearningDep, learner: LearnerDep) -> Practice:
    return learning.practice(learner)


async def _exercises(learning: LearningDep, learner: LearnerDep) -> ExercisePractice:
    return learning.exercises(learner)


AnswersDep = Annotated[LessonAnswers, Depends(_answers)]
ExercisesDep = Annotated[ExercisePractice, Depends(_exercises)]
PracticeDep = Annotated[Practice, Depends(_practice)]


# The learning core is synchronous. A route is a coroutine that calls it through `read`, or the
# store's writer (`WriterDep`, below), rather than a plain function that FastAPI would run in
# its thread pool: that costs two hops to a thread and back when the route returns a model (the
# call, then the model's validation), and under load every hop waits for the GIL
# (docs/performance.md).
async def read(learning: Learning, call: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """A call of the learning core that only reads: in place when the store reads in place
    (SQLite), else in a thread, so that a database round trip never holds up the event loop."""
    if learning.store.reads_in_place:
        return call(*args, **kwargs)
    return await run_in_threadpool(call, *args, **kwargs)


# A call of the learning core that writes goes to the store's writer: never on the event loop,
# since it may wait for the database's one writer, and on SQLite in the one thread that takes
# the writes in turn (app/progress/writer.py).
async def _writer(learning: LearningDep) -> Writer:
    return learning.writer


WriterDep = Annotated[Writer, Depends(_writer)]


def render_page(request: Request, page: Page) -> HTMLResponse:
    """A page the learning core assembled, drawn with its template."""
    return templates.TemplateResponse(request, page.template, page.context)
