"""Every page in every state a learner can reach.

A learner walks every bundled lesson through the HTTP API, doing everything the lesson offers,
in the order a learner would: opens it, picks a mode, commits the first step, then every step
(some right, some wrong, each with a confidence), types the values, answers the myths and the
drills, rates the cards, checks a fix for each pitfall, names the capstone's bug and writes each
exercise (wrong, then right), keeps an edited snippet, shares it. After each kind of action,
every page of the lesson (its own address and every mode), the catalog, review, progress, the
playground and the share page are read, and each must answer 200. A second learner reads each
lesson ahead before answering anything, and at the end both answer a sitting of review. The real
curriculum and the real sandbox, on SQLite and PostgreSQL (the second learner on SQLite).

Parts are tested alone elsewhere; this test is the seams between them: a page that renders in
the state its own test creates can fail in the state another feature leaves behind."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.learning.kinds import KINDS
from app.learning.pages.registry import MODES
from app.lessons.format import Lesson
from app.lessons.variants import instances
from app.modes.drills import lesson_drills
from app.modes.flashcards import lesson_flashcards
from tests.catalogs import BUNDLED
from tests.clock import time_passes
from tests.conftest import curriculum_with_sandbox

pytestmark = pytest.mark.slow

LESSONS = list(BUNDLED.lessons)  # in learning-path order


def _offers(lesson: Lesson) -> set[str]:
    """What a lesson gives a walk to do: its kinds of question, and a diagnosis to name."""
    found = {kind.name for kind in KINDS if kind.count_in(lesson)}
    return found | ({"diagnosis"} if any(e.diagnosis for e in lesson.exercises) else set())


def _covering(lessons: list[Lesson]) -> list[Lesson]:
    """Fewest lessons, taken greedily, that between them offer everything any lesson offers;
    in learning-path order."""
    wanted, chosen = set().union(*(_offers(lesson) for lesson in lessons)), []
    while wanted:
        best = max(lessons, key=lambda lesson: len(_offers(lesson) & wanted))
        chosen.append(best)
        wanted -= _offers(best)
    return [lesson for lesson in lessons if lesson in chosen]


# Which page renders in which state does not depend on the database, and PostgreSQL runs the
# same queries for every lesson: its walk takes the lessons that between them offer every kind
# of question (each query of the walk, on PostgreSQL), where SQLite walks them all.
ON_POSTGRESQL = _covering(LESSONS)
CONFIDENCES = ("guess", "fairly_sure", "certain")
RATINGS = ("again", "good", "hard", "easy")
RECALL_ITEM = re.compile(r'<li class="recall-item" data-step="(\d+)" data-form="(\d+)"')


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def journey(request: pytest.FixtureRequest) -> Iterator[Journey]:
    """The real curriculum and the real sandbox, once on each database. The test client raises
    a server-side exception as it happens, so a page that fails names its traceback."""
    for client in curriculum_with_sandbox(request):
        # Which page renders in which state does not depend on the database: SQLite reads
        # every page after every kind of action; PostgreSQL, the same walk, reads them after
        # each lesson (its queries are the same; rendering them again would only cost time).
        on_sqlite = request.param == "sqlite"
        yield Journey(client, every_kind=on_sqlite, lessons=LESSONS if on_sqlite else ON_POSTGRESQL)


@dataclass
class Journey:
    client: TestClient
    every_kind: bool
    lessons: list[Lesson]


def pages_of(lesson: Lesson) -> list[str]:
    own = f"/lessons/{lesson.slug}"
    return [own, *(f"{own}/{mode.slug}" for mode in MODES)]


class Walk:
    """One learner's walk, reading every page after each kind of action."""

    def __init__(
        self, client: TestClient, *, after_each_kind: bool = True, lessons: list[Lesson]
    ) -> None:
        self.client = client
        self.shares: list[str] = []
        self.after_each_kind = after_each_kind
        self.lessons = lessons

    def every_page_answers(self, lesson: Lesson, after: str, *, always: bool = False) -> None:
        if not (always or self.after_each_kind):
            return
        shared = [f"/s/{share}" for share in self.shares]
        playground = [f"/playground?share={share}" for share in self.shares]
        for path in [*pages_of(lesson), "/", "/review", "/progress", "/playground"]:
            answer = self.client.get(path)
            assert answer.status_code == 200, f"GET {path} after {after}: {answer.status_code}"
        for path in [*shared, *playground]:
            answer = self.client.get(path)
            assert answer.status_code == 200, f"GET {path} after {after}: {answer.status_code}"

    def post(self, path: str, body: object, *allowed: int) -> dict[str, object]:
        answer = self.client.post(path, json=body)
        assert answer.status_code in (allowed or (200,)), f"POST {path}: {answer.text}"
        return answer.json() if answer.content else {}

    def lesson(self, lesson: Lesson, *, read_ahead: bool) -> None:
        api = f"/api/lessons/{lesson.slug}"
        self.every_page_answers(lesson, "nothing yet (a first visit)")
        if read_ahead:
            reading = self.client.post(f"/lessons/{lesson.slug}/read-ahead")
            assert reading.status_code in (200, 303)
            self.every_page_answers(lesson, "reading ahead", always=True)
        self.post(f"{api}/mode", {"mode": MODES[1].slug}, 204)
        self.every_page_answers(lesson, "opening a mode")
        asking = [n for n, step in enumerate(lesson.steps, 1) if step.prediction is not None]
        for done, number in enumerate(asking):
            prediction = lesson.steps[number - 1].prediction
            assert prediction is not None
            wrong = [text for text in prediction.texts if text != prediction.answer]
            choice = wrong[0] if number % 2 and wrong else prediction.answer
            body = {"choice": choice, "confidence": CONFIDENCES[number % 3]}
            self.post(f"{api}/steps/{number}/prediction", body)
            if done == 0:
                self.every_page_answers(lesson, "committing the first step")
        for number, step in enumerate(lesson.steps, 1):
            if step.ordering is not None:  # lines to put in order: reversed, then (on an
                lines = list(step.ordering.lines)  # even step) right; a miss left comes back
                for order in (lines[::-1], lines) if number % 2 == 0 else (lines[::-1],):
                    body = {"order": order, "confidence": CONFIDENCES[number % 3]}
                    self.post(f"{api}/steps/{number}/ordering", body)
            if step.select_all is not None:  # select all: nothing ticked (a miss), then (on an
                tries = [[], step.select_all.right] if number % 2 == 0 else [[]]  # even step) right
                for picked in tries:
                    body = {"picked": picked, "confidence": CONFIDENCES[number % 3]}
                    self.post(f"{api}/steps/{number}/select-all", body)
        self.every_page_answers(lesson, "committing every step")
        self.values(lesson)
        self.recall(lesson)
        self.practice(lesson)
        self.exercises(lesson)
        self.keep_and_share(lesson, asking[0] if asking else 1)
        self.every_page_answers(lesson, "everything the lesson offers", always=True)

    def practice(self, lesson: Lesson) -> None:
        """The myths, the drills, the cards and the pitfalls, each kind followed by the pages."""
        api = f"/api/lessons/{lesson.slug}"
        for number, myth in enumerate(lesson.myths, 1):
            answer = myth.answer if number % 2 else ("no" if myth.answer == "yes" else "yes")
            self.post(f"{api}/myths/{number}/answer", {"answer": answer})
        if lesson.myths:
            self.every_page_answers(lesson, "answering the myths")
        drills = lesson_drills(lesson)
        for drill in drills:
            self.post(f"{api}/drills/{drill.id}/answer", {"value": "0"})
        if drills:
            self.every_page_answers(lesson, "answering the drills")
        cards = lesson_flashcards(lesson)
        for number, card in enumerate(cards):
            rating = RATINGS[number % len(RATINGS)]
            assert self.client.get(f"{api}/flashcards/{card.id}").status_code == 200
            self.post(f"{api}/flashcards/{card.id}/rating", {"rating": rating})
        if cards:
            self.every_page_answers(lesson, "rating cards")
        for number, pitfall in enumerate(lesson.pitfalls, 1):
            assert self.client.get(f"{api}/pitfalls/{number}/hints/1").status_code == 200
            self.post(f"{api}/pitfalls/{number}/check", {"code": pitfall.correct.code})
        if lesson.pitfalls:
            self.every_page_answers(lesson, "checking pitfall fixes")

    def recall(self, lesson: Lesson) -> None:
        """The recall that ends the build-up (every step is committed now): each question
        answered as its page draws it, the last of its choices, then the pages."""
        page = self.client.get(f"/lessons/{lesson.slug}/deep-dive").text
        items = RECALL_ITEM.findall(page)
        assert items, f"{lesson.slug}: no recall once every step is committed"
        for step, form in items:
            start = page.index(f'<li class="recall-item" data-step="{step}"')
            item = page[start : page.index("</li>", start)]
            choices = re.findall(r'data-choice="([^"]*)"', item)
            boxes = re.findall(r'class="select-all-box" value="([^"]*)"', item)
            body: dict[str, object] = {"confidence": "fairly_sure"}
            if choices:
                body["choice"] = html.unescape(choices[-1])
            else:  # a select-all: the last statement ticked
                body["picked"] = [html.unescape(boxes[-1])]
            self.post(f"/api/lessons/{lesson.slug}/recall/{step}?form={form}", body)
        self.every_page_answers(lesson, "answering the recall")

    def values(self, lesson: Lesson) -> None:
        api = f"/api/lessons/{lesson.slug}"
        asked = [n for n, step in enumerate(lesson.steps, 1) if step.value_prediction is not None]
        for number in asked:
            self.post(f"{api}/steps/{number}/value", {"value": "0"})
            self.post(f"{api}/steps/{number}/value", {"value": "0", "reveal": True})
        if asked:
            self.every_page_answers(lesson, "typing the values")

    def exercises(self, lesson: Lesson) -> None:
        api = f"/api/lessons/{lesson.slug}/exercises"
        for number, exercise in enumerate(lesson.exercises, 1):
            if exercise.diagnosis is not None:
                wrong = [t for t in exercise.diagnosis.texts if t != exercise.diagnosis.answer]
                self.post(
                    f"{api}/{number}/diagnosis", {"choice": wrong[0], "confidence": "certain"}
                )
                self.every_page_answers(lesson, f"naming the bug of exercise {number}")
            blanks = ["pass"] * len(exercise.solution)
            assert self.post(f"{api}/{number}", {"lines": blanks})["passed"] is False
            self.every_page_answers(lesson, f"missing exercise {number}")
            assert self.post(f"{api}/{number}", {"lines": exercise.solution})["passed"] is True
            self.every_page_answers(lesson, f"solving exercise {number}")

    def keep_and_share(self, lesson: Lesson, number: int) -> None:
        api = f"/api/lessons/{lesson.slug}/steps/{number}/code"
        kept = self.client.put(api, json={"code": "print('my own version')"})
        assert kept.status_code == 204
        self.every_page_answers(lesson, "keeping an edited snippet")
        made = self.post("/api/shares", {"code": "print(1)", "lesson": lesson.slug}, 201)
        self.shares[:] = [str(made["id"])]  # read with every page from now on
        assert self.client.delete(api).status_code == 204

    def graded_by_a_run(self, item: dict[str, Any]) -> bool:
        """Lines to order and code to write are answered in review as on their pages: sent to
        their own routes, whose run answers the due item. Was `item` one of them?"""
        if item["kind"] not in ("ordering", "exercise"):
            return False
        lesson = BUNDLED.get(item["lesson"])
        assert lesson is not None
        api, number = f"/api/lessons/{lesson.slug}", int(item["key"])  # a step's, an exercise's
        step = lesson.steps[number - 1]
        if item["kind"] == "ordering" and step.ordering is not None:
            # On an instance (`form`), its own lines, sent back with the form, as the page does.
            form = item["form"]
            lines = step.ordering.lines if form is None else instances(step)[form].lines
            body = {"order": list(lines), "confidence": "guess"}
            asked = "" if form is None else f"?form={form}"
            reveal = self.post(f"{api}/steps/{number}/ordering{asked}", body)
            assert reveal["correct"], f"{lesson.slug} step {number} form {form}: {reveal}"
            return True
        if item["kind"] == "exercise":
            exercise = lesson.exercises[number - 1]
            self.post(f"{api}/exercises/{number}", {"lines": exercise.solution})
            return True
        return False

    def review(self, after: str) -> None:
        """Answer sittings of whatever is due, the way each item asks, until nothing is, then
        read every page."""
        time_passes(self.client)
        queue = self.client.get("/api/review").json()
        assert queue["due"], "a walk that missed answers has items due"
        asked: set[tuple[str, bool]] = set()
        for _ in range(30):  # a sitting asks at most 20; each answer reschedules its item
            if not queue["due"]:
                break
            for item in queue["due"]:
                asked.add((item["kind"], item["form"] is not None))
                self.answer(item)
            queue = self.client.get("/api/review").json()
        assert not queue["due"], "every item due was answered and rescheduled"
        # Orders missed on the lesson pages came back on instances with other right orders.
        assert ("ordering", True) in asked, asked
        for lesson in self.lessons:
            self.every_page_answers(lesson, after, always=True)

    def answer(self, item: dict[str, Any]) -> None:
        if self.graded_by_a_run(item):
            return
        body: dict[str, object] = {"confidence": "guess"}
        if item["kind"] == "select_all":
            body["picked"] = item["choices"][:1]
        elif item["choices"]:
            body["choice"] = item["choices"][0]
        elif item["tensor"]:
            body["value"] = "0"
        elif item["kind"] == "myth":
            body["answer"] = "yes"
        else:
            body["rating"] = "good"
        self.post(f"/api/review/{item['id']}/answer", body)


def test_every_page_answers_after_everything_a_lesson_offers(journey: Journey) -> None:
    walk = Walk(journey.client, after_each_kind=journey.every_kind, lessons=journey.lessons)
    for lesson in journey.lessons:
        walk.lesson(lesson, read_ahead=False)
    walk.review("a sitting of review")


@pytest.mark.parametrize("journey", ["sqlite"], indirect=True)
def test_every_page_answers_for_a_learner_who_reads_ahead(journey: Journey) -> None:
    """The same actions after reading ahead: pages are read once ahead and once at the end
    (every kind of action in between was read by the walk above). On SQLite: the pages a
    reader-ahead reaches issue the queries the first walk already ran on PostgreSQL, where
    this walk took a minute of its own for nothing new."""
    journey.client.cookies.clear()  # another learner
    walk = Walk(journey.client, after_each_kind=False, lessons=journey.lessons)
    for lesson in journey.lessons:
        walk.lesson(lesson, read_ahead=True)
    walk.review("a sitting of review, having read ahead")
