"""The pre-test guides, on SQLite and PostgreSQL with the real curriculum: the catalog marks
each lesson whose concepts the learner answered all right (both items of each), suggests the
first lesson on the path not so marked and not finished, and /progress links each concept
missed to its lessons by title. No mark for a learner without a pre-test; no lesson named by
its slug anywhere the inventory names one; and reading it all writes nothing."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.config.paths import BUNDLED_LESSONS
from app.learning.inventory.learner import forms_for
from app.lessons.inventory import Inventory
from app.lessons.loader import load_catalog
from app.main import create_app
from tests.conftest import make_settings
from tests.learning.test_inventory_gain import client_learner
from tests.routes.test_reads_are_reads import _snapshot

CATALOG = load_catalog(BUNDLED_LESSONS)
INVENTORY: Inventory = CATALOG.inventory  # type: ignore[assignment]
TITLE = {lesson.slug: lesson.title for lesson in CATALOG.lessons}
BOTH = "You answered both pre-test questions on this lesson's idea right"
FOUR = "You answered all 4 pre-test questions on this lesson's 2 ideas right (two per idea)"


@pytest.fixture
def both(migrated_url: str) -> Iterator[TestClient]:
    """The bundled curriculum (with its inventory), once on SQLite and once on PostgreSQL."""
    settings = make_settings(lessons_dir=BUNDLED_LESSONS, database_url=migrated_url)
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def take_pre(
    client: TestClient, right: set[str], half: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """The pre-test with both items of the concepts in `right` right, the first item of those
    in `half`, every other item wrong."""
    learner = client_learner(client)
    seen: set[str] = set()
    answers = []
    for item in INVENTORY.form(forms_for(learner)["pre"]):
        ok = item.concept in right or (item.concept in half and item.concept not in seen)
        seen.add(item.concept)
        wrong = next(t for t in item.prediction.texts if t != item.prediction.answer)
        choice = item.prediction.answer if ok else wrong
        answers.append({"item": item.id, "choice": choice, "confidence": "fairly_sure"})
    response = client.post("/api/inventory/pre", json={"answers": answers})
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


def cards(page: str) -> dict[str, str]:
    """The catalog's lesson cards by slug."""
    found = re.findall(r'<li class="lesson-card">(.*?)</li>', page, flags=re.S)
    return {re.search(r'href="[^"]*?/lessons/([^"#]+)', card).group(1): card for card in found}  # type: ignore[union-attr]


def marked(page: str) -> dict[str, str]:
    """The lessons marked known, with the mark's words."""
    return {
        slug: re.search(r'<span class="lesson-known">(?:<svg .*?</svg> )?(.*?)</span>', card).group(
            1
        )  # type: ignore[union-attr]
        for slug, card in cards(page).items()
        if "lesson-known" in card
    }


def weak_links(page: str) -> dict[str, list[tuple[str, str]]]:
    """/progress's ideas to work on: per concept, its links (address, text)."""
    found = re.findall(r'<li data-concept="([^"]+)">(.*?)</li>', page, flags=re.S)
    return {
        c: re.findall(r'<a href="[^"]*?(/lessons/[^"]+)">([^<]+)</a>', body) for c, body in found
    }


def no_slug_for_a_title(page: str) -> None:
    """Every link to a lesson reads its title (or the catalog's own words), never its slug."""
    for slug, text in re.findall(r'<a href="[^"]*?/lessons/([^"#]+)[^"]*">([^<]+)</a>', page):
        assert text.strip() != slug, slug


def test_known_concepts_mark_their_lessons_and_the_start_follows(both: TestClient) -> None:
    client = both
    right = {"what-grad-holds", "leaves-and-requires-grad", "accumulation-and-clearing"}
    result = take_pre(client, right, half=frozenset({"recording-off"}))
    skip = ["what-is-grad", "requires-grad-and-leaves", "reading-leaf-gradients"]
    skip += ["gradients-accumulate", "grad-in-training-loops"]  # path order, by title
    assert result["skip"] == [{"slug": s, "title": TITLE[s]} for s in skip]
    assert result["start"] == {
        "slug": "turning-gradients-off",
        "title": TITLE["turning-gradients-off"],
    }
    before = _snapshot(client)
    page = client.get("/").text
    marks = marked(page)
    assert list(marks) == skip
    assert marks["reading-leaf-gradients"] == FOUR  # two concepts name it
    assert {marks[s] for s in skip if s != "reading-leaf-gradients"} == {BOTH}
    # Half right is not known: turning-gradients-off is the start, and the only one.
    starts = [slug for slug, card in cards(page).items() if "Start here" in card]
    assert starts == ["turning-gradients-off"]
    assert re.search(
        r'Start with <a href="[^"]*/lessons/turning-gradients-off">Turning gradients', page
    )
    assert "Two questions per idea are a hint, not proof" in page
    progress = client.get("/progress").text
    weak = weak_links(progress)
    assert "what-grad-holds" not in weak and "accumulation-and-clearing" not in weak
    assert weak["recording-off"] == [
        ("/lessons/turning-gradients-off", TITLE["turning-gradients-off"])
    ]
    assert weak["custom-functions"] == [
        ("/lessons/custom-autograd-function", TITLE["custom-autograd-function"])
    ]
    assert len(weak) == 7  # ten concepts, three known
    assert "(1 of 2 right)" in progress
    for path in ("/", "/progress", "/inventory/pre"):
        no_slug_for_a_title(client.get(path).text)
    assert client.get("/api/progress/inventory").json()["revisit"][0]["lessons"][0]["title"]
    assert _snapshot(client) == before  # the marks are a read: a GET never writes


def test_a_concept_missed_is_linked_on_progress_and_its_lessons_unmarked(
    both: TestClient,
) -> None:
    client = both
    take_pre(client, right={"leaves-and-requires-grad"}, half=frozenset({"what-grad-holds"}))
    page = client.get("/").text
    # requires-grad-and-leaves is known; reading-leaf-gradients also asks what-grad-holds.
    assert list(marked(page)) == ["requires-grad-and-leaves"]
    assert [s for s, card in cards(page).items() if "Start here" in card] == ["what-is-grad"]
    weak = weak_links(client.get("/progress").text)
    assert weak["what-grad-holds"] == [
        ("/lessons/what-is-grad", "What is .grad?"),
        ("/lessons/reading-leaf-gradients", "Reading gradients of leaf tensors"),
    ]
    assert "leaves-and-requires-grad" not in weak


def test_the_start_passes_lessons_finished_and_lessons_no_concept_names(
    both: TestClient,
) -> None:
    """All right: every lesson some concept names is marked; the start is the first lesson
    the pre-test asked nothing about. A lesson finished is no start either."""
    client = both
    take_pre(client, right={concept.id for concept in INVENTORY.concepts})
    page = client.get("/").text
    named = {slug for concept in INVENTORY.concepts for slug in concept.lessons}
    assert set(marked(page)) == named
    first_unnamed = next(lesson for lesson in CATALOG.lessons if lesson.slug not in named)
    assert [s for s, card in cards(page).items() if "Start here" in card] == [first_unnamed.slug]
    assert "Your pre-test found every idea known" in client.get("/progress").text
    assert weak_links(client.get("/progress").text) == {}
    learner = client_learner(client)
    store = client.app.state.store  # type: ignore[attr-defined]
    for step in range(1, len(first_unnamed.steps) + 1):
        store.mark_done(learner, first_unnamed.slug, step)
    page = client.get("/").text
    after = next(
        lesson
        for lesson in CATALOG.lessons
        if lesson.slug not in named and lesson.slug != first_unnamed.slug
    )
    assert [s for s, card in cards(page).items() if "Start here" in card] == [after.slug]


def test_no_mark_without_a_pre_test(both: TestClient) -> None:
    client = both
    client_learner(client)
    client.post("/api/lessons/what-is-grad/mode", json={"mode": "deep-dive"})  # a row, no test
    for _ in range(2):  # undecided, then "not now"
        page = client.get("/").text
        assert marked(page) == {} and "Start here" not in page
        assert "inventory-guide" not in page
        assert "inventory-weak" not in client.get("/progress").text
        client.post("/inventory/skip")
    client.cookies.clear()  # a first visit: no learner at all
    page = client.get("/").text
    assert marked(page) == {} and "Start here" not in page
