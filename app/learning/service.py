"""The learning core's front door: one object the routes hold, one call per request.

Pages come back as a `Page` (a template and its context) and answers as the typed models of
app/learning/schemas.py. Reads never write: a learner's id may be new (a cookie without any
row yet); the first recorded answer creates the row.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass, field

from app.errors import NotReady, UnknownMode
from app.learning.answers.lesson_answers import LessonAnswers
from app.learning.answers.questions import disclosure_of, find_lesson
from app.learning.classes.teaching import Teaching
from app.learning.doctor_schemas import DoctorAnswer
from app.learning.inventory.inventory_tests import InventoryTests
from app.learning.lti.launch import LtiLaunches
from app.learning.pages.guided import GUIDED_MODE, first_visit, resume_at
from app.learning.pages.jargon import known_terms
from app.learning.pages.lesson_page import (
    catalog_progress,
    lesson_progress,
    lesson_summary,
    step_views,
)
from app.learning.pages.mode_pages import ModeRequest
from app.learning.pages.registry import DEFAULT_MODE, MODES, find_mode
from app.learning.practice.exercises import ExercisePractice
from app.learning.practice.practice import Practice, calibration_of, now, queue_items
from app.learning.practice.queue import QueueView
from app.learning.practice_schemas import CalibrationOut
from app.learning.readiness import DatabaseProbe, DatabaseState
from app.learning.running.doctor import answer as doctor_answer
from app.learning.running.known_runs import KnownRuns, KnownRunsMeter
from app.learning.running.runs import NO_RUN, Runs, Who
from app.learning.schemas import (
    CatalogProgress,
    DatabaseReport,
    Health,
    LessonProgress,
    ModeBody,
    SandboxReport,
    ShareBody,
    ShareMade,
    StepQuestionReveal,
    ValueFeedback,
)
from app.learning.shares import Shares
from app.lessons.disclosure import REFERENCE_NOTICE
from app.lessons.format import Lesson
from app.lessons.loader import Catalog
from app.lessons.public import PublicLesson, public_lesson
from app.modes.drills import lesson_drills
from app.progress.records import LessonRecords
from app.progress.store import ProgressStore

# The one way the core's writes leave the event loop; the routes' WriterDep hands it to them.
from app.progress.writer import Writer
from app.sandbox.result import RunResult
from app.sandbox.runner import SnippetRunner

PLAYGROUND_CODE = """import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = (x ** 2).sum()
y.backward()
print(x.grad)
"""

__all__ = ["Learning", "Page", "Writer"]


@dataclass(frozen=True)
class Page:
    template: str
    context: dict[str, object] = field(default_factory=dict)


class Learning:
    def __init__(
        self,
        catalog: Catalog,
        store: ProgressStore,
        sandbox: SnippetRunner | None,
        shares: Shares,
        public_url: str,
        secret: str,
        sitting_size: int = 20,
        public_url_set: bool = True,
        known_meter: KnownRunsMeter | None = None,
        database: DatabaseProbe | None = None,
    ) -> None:
        self.catalog = catalog
        self.store = store
        # Made once per app, like `shares`: a catalog reload keeps what it knows.
        self.database = database or DatabaseProbe(store.ping)
        # A lesson's own code is answered from its first run; kept per catalog, so a reload's
        # new core starts without the old lessons' answers.
        self.runs = Runs(sandbox, KnownRuns(catalog, known_meter))
        self.shares = shares  # made once per app: its hourly counts outlive a catalog reload
        self.teaching = Teaching(catalog, store)
        self.inventory = InventoryTests(catalog, store)
        self.lti = LtiLaunches(catalog, store, public_url, secret, public_url_set)
        self.sitting_size = sitting_size  # the most items one review sitting asks

    @property
    def writer(self) -> Writer:
        """Where a write of the core goes: off the event loop, to the store's one writer."""
        return self.store.writer

    # --- per learner ----------------------------------------------------------------------------
    def answers(self, learner: str) -> LessonAnswers:
        return LessonAnswers(self.catalog, self.store, learner)

    def practice(self, learner: str) -> Practice:
        return Practice(self.catalog, self.store, self.runs, learner, self.sitting_size)

    def exercises(self, learner: str) -> ExercisePractice:
        return ExercisePractice(self.catalog, self.store, self.runs, learner)

    # --- pages ----------------------------------------------------------------------------------
    def catalog_page(self, learner: str | None, inventory_flag: object = None) -> Page:
        """The catalog; `inventory_flag` is what the cookie says of the pre-test's offer."""
        progress = catalog_progress(self.catalog, self.store, learner)
        due = self.practice(learner).due_total() if learner else 0
        done = {slug: summary.steps_done for slug, summary in progress.lessons.items()}
        inventory = self.inventory.catalog_view(learner, inventory_flag, done, now().date())
        return Page(
            "catalog.html",
            {
                "lessons": self.catalog.lessons,
                "progress": progress.lessons,
                "due": due,
                "broken": self.catalog.broken,  # empty unless `gradlab serve --reload`
                "inventory_offer": inventory.offer,
                "inventory_guide": inventory.guide,  # the pre-test's marks and start
            },
        )

    def mode_page(
        self,
        slug: str,
        mode_slug: str,
        learner: str,
        request: ModeRequest | None = None,
        guided: bool = False,
        resume: int = 0,
    ) -> Page:
        """A mode's page; with `request`, the lesson address's own (what it read to decide a
        first visit is not read again)."""
        broken = self.catalog.get_broken(slug)  # only under `gradlab serve --reload`
        if broken is not None:
            return Page("lesson_broken.html", {"broken": [broken]})
        lesson = find_lesson(self.catalog, slug)
        mode = find_mode(mode_slug)
        if mode is None:
            names = ", ".join(m.slug for m in MODES)
            raise UnknownMode(f"There is no “{mode_slug}” mode. The modes are: {names}.")
        previous, following = self.catalog.neighbours(slug)
        request = request or ModeRequest(lesson, self.store, learner)
        context: dict[str, object] = {
            "lesson": lesson,
            "mode": mode.slug,
            "mode_info": mode,
            "previous": previous,
            "following": following,
            "titles": {other.slug: other.title for other in self.catalog.lessons},
            "progress": lesson_summary(lesson, request.records),
            "switcher": {"modes": list(MODES), "last": request.modes.get(slug)},
            "steps": step_views(lesson, learner, request.disclosure),
            "disclosure": request.disclosure,
            "reference_notice": REFERENCE_NOTICE,
            # the lesson's address as the guided path (app/learning/pages/guided.py)
            "guided": guided,
            "resume": resume,  # on a return to a begun lesson: the first unanswered step
            "known_terms": known_terms(self.catalog, lesson, request.disclosure),
        }
        context.update(mode.context(request))
        return Page(mode.template, context)

    def lesson_page(self, slug: str, learner: str) -> Page:
        """The lesson's own address: the guided path on a first visit and, on a return, at the
        first unanswered step; the deep dive once all are answered or once it was chosen."""
        if self.catalog.get_broken(slug) is not None:
            return self.mode_page(slug, DEFAULT_MODE, learner)
        # An unknown lesson is refused before any read.
        lesson = find_lesson(self.catalog, slug)
        request = ModeRequest(lesson, self.store, learner)
        if first_visit(request.records, request.modes, slug):
            return self.mode_page(slug, GUIDED_MODE, learner, request, guided=True)
        if step := resume_at(request.records, request.modes, slug, len(lesson.steps)):
            return self.mode_page(slug, GUIDED_MODE, learner, request, guided=True, resume=step)
        return self.mode_page(slug, DEFAULT_MODE, learner, request)

    def review_page(self, learner: str | None) -> Page:
        view = self.practice(learner).view() if learner else QueueView()
        context = {
            "view": view,
            "items": queue_items(view),
            "now": now(),
            "sitting": self.sitting_size,
        }
        return Page("modes/review.html", context)

    def progress_page(self, learner: str | None) -> Page:
        practice = self.practice(learner) if learner else None
        lessons = self.catalog.lessons
        context = {
            "calibration": self.calibration(learner),
            "lessons": lessons,
            "progress": catalog_progress(self.catalog, self.store, learner).lessons,
            "modes_used": self.store.lesson_modes(learner) if learner else {},
            "mode_names": {m.slug: m.name for m in MODES},
            "extra": self.store.mode_summary(learner) if learner else {},
            "drills_total": {lesson.slug: len(lesson_drills(lesson)) for lesson in lessons},
            "view": practice.view() if practice else QueueView(),
            "reviewed_today": practice.reviewed_today() if practice else 0,
            "now": now(),
            "classes": self.teaching.memberships(learner),
            "inventory": self.inventory.mine(learner) if self.catalog.inventory else None,
        }
        return Page("modes/progress.html", context)

    def playground_page(self, share_id: str | None) -> Page:
        """The playground, with the starter code or an editable copy of a share."""
        code = self.shares.live(share_id).code if share_id is not None else PLAYGROUND_CODE
        return Page("playground.html", {"code": code, "share_id": share_id})

    def share_page(self, share_id: str, learner: str | None) -> Page:
        """A share's page; its author (by cookie) may delete it from there."""
        return Page("share.html", {"share": self.shares.view(self.catalog, share_id, learner)})

    # --- reads ----------------------------------------------------------------------------------
    def lesson(self, slug: str) -> Lesson:
        return find_lesson(self.catalog, slug)

    def health(self) -> Health:
        """What /healthz says: the database as last checked, the sandbox as it is."""
        return self._health(self.database.last)

    async def readiness(self) -> Health:
        """What /readyz says: the database checked now (or a second ago), the sandbox; NotReady
        naming what is not."""
        health = self._health(await self.database.probe())
        if not health.ready:
            reasons = [f"database: {health.database.problem}"] if not health.database.ready else []
            if not health.sandbox.ready and self.runs.sandbox is not None:
                reasons.append(f"sandbox: {health.sandbox.problem or 'not ready'}")
            raise NotReady("; ".join(reasons))
        return health

    def _health(self, database: DatabaseState) -> Health:
        sandbox = self.runs.sandbox
        report = (
            SandboxReport.model_validate(sandbox.health())
            if sandbox is not None
            else SandboxReport(
                ready=False, workers=0, busy=0, queued=0, isolation={}, problem="disabled"
            )
        )
        # A server whose sandbox is switched off serves its pages: that is ready for it.
        ready = database.ready and (report.ready or sandbox is None)
        return Health(
            status="ok",
            ready=ready,
            lessons=len(self.catalog),
            database=DatabaseReport(ready=database.ready, problem=database.problem),
            sandbox=report,
        )

    def public_lesson(self, slug: str, learner: str) -> PublicLesson:
        """The lesson without its answers nor what explains them, each prediction's choices
        in this learner's order (the order of the pages), and the reference only where this
        learner's disclosure opens it."""
        lesson = find_lesson(self.catalog, slug)
        orders = [view.choices for view in step_views(lesson, learner)]
        disclosure = disclosure_of(lesson, self.store.lesson_state(learner, slug))
        return public_lesson(lesson, orders, disclosure)

    def lesson_progress(self, slug: str, learner: str | None) -> LessonProgress:
        lesson = find_lesson(self.catalog, slug)
        records = self.store.lesson_state(learner, slug) if learner else LessonRecords()
        return lesson_progress(lesson, records, learner)

    def catalog_progress(self, learner: str | None) -> CatalogProgress:
        return catalog_progress(self.catalog, self.store, learner)

    def calibration(self, learner: str | None) -> CalibrationOut:
        return calibration_of(self.catalog, self.store, learner)

    # --- writes that are not answers ------------------------------------------------------------
    def remember_mode(self, learner: str, slug: str, body: ModeBody) -> None:
        """The mode a learner last used for a lesson (the page posts it once shown)."""
        find_lesson(self.catalog, slug)
        if find_mode(body.mode) is None:
            raise UnknownMode(f"There is no “{body.mode}” mode.")
        self.store.set_lesson_mode(learner, slug, body.mode)

    def make_share(self, learner: str, address: str, body: ShareBody, base_url: str) -> ShareMade:
        return self.shares.make(self.catalog, learner, address, body, base_url)

    def read_ahead(self, learner: str, slug: str, mode: str) -> str:
        """Open the whole lesson for this learner (their later answers there count as seen);
        returns the page to go back to."""
        self.answers(learner).read_ahead(slug)
        back = mode if find_mode(mode) is not None else DEFAULT_MODE
        return f"/lessons/{slug}" if back == DEFAULT_MODE else f"/lessons/{slug}/{back}"

    def reset(self, learner: str | None) -> None:
        if learner is not None:
            self.store.reset(learner)

    async def answer_step(
        self,
        learner: str,
        address: str,
        slug: str,
        number: int,
        path: str,
        body: Mapping[str, object],
        form: int | None = None,
    ) -> StepQuestionReveal | ValueFeedback:
        """Commit an answer to the step's question answered at `path`, graded as its kind
        declares: at once, or by running the code the answer makes (an order: any order that
        prints the step's output without raising is right; a typed value: the step's own
        code, whose `.grad` it is checked against), in the line of `learner` at the client
        `address`. With `form`, an answer to the variant instance the step's due review item
        asks (a kind graded by a run), which answers that item."""
        answers = self.answers(learner)
        read = answers.answering
        if form is None or self.store.reads_in_place:  # no read, or a read that never waits
            asked = read(slug, number, path, body, form)
        else:  # the due item is read in a thread, as a route's read is
            asked = await asyncio.to_thread(read, slug, number, path, body, form)
        program, who = asked.program, Who(address, learner)
        result = None
        try:
            result = await self.runs.run_answer(program, who) if program is not None else None
        except NO_RUN:
            if not asked.side.without_sandbox:
                raise
        # The store is synchronous: its writer runs the write off the event loop, so that a
        # write waiting for the database never holds up other requests and the runs in flight.
        return await self.store.writer(answers.commit_step, asked, result, form)

    async def run(
        self, code: str, learner: str | None, slug: str | None, step: int | None, who: Who
    ) -> RunResult:
        """Run a snippet in the line of `who` (the client's address and the learner who came
        with the request, if any); with a lesson and step, a step that asks nothing counts as
        done."""
        result = await self.runs.run(code, who)
        answers = self.answers(learner) if learner is not None else None
        # Most runs complete nothing (their step asks for a prediction): no hop to the writer
        # for them. The write is off the event loop, as in answer_step.
        if answers is not None and answers.completed_by_running(slug, step):
            await self.store.writer(answers.mark_run, slug, step)
        return result

    async def doctor(self, code: str, who: Who) -> DoctorAnswer:
        """Run training code with the gradient doctor watching, in the line of `who`, under
        the same limits as any run; its findings in plain words (docs/doctor.md)."""
        result = await self.runs.run(code, who, doctor=True)
        return doctor_answer(result, {lesson.slug: lesson.title for lesson in self.catalog.lessons})
