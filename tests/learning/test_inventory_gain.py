"""The concept inventory end to end, on SQLite and PostgreSQL: simulated learners in a class,
their answers planted so that the gain is known; the dashboard, the API, the CSV and
`gradlab inventory stats` all find it. The tests ask for no answer they then see, and
inventory answers stay out of review, calibration, item statistics and grades."""

from __future__ import annotations

import csv
import io
import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.cli import main as gradlab
from app.config.paths import BUNDLED_LESSONS
from app.learning.inventory import forms_for
from app.lessons.inventory import Inventory
from app.lessons.loader import load_catalog
from app.main import create_app
from tests.conftest import make_settings
from tests.learning.test_store_off_the_loop import calls_on_loop, writes_on_loop

CATALOG = load_catalog(BUNDLED_LESSONS)
INVENTORY: Inventory = CATALOG.inventory  # type: ignore[assignment]
__all__ = ["calls_on_loop", "writes_on_loop"]  # fixtures, used by name
# Four learners with both tests: items right, in the form's file order (2 per concept).
PRE_RIGHT = [4, 6, 8, 10]  # of 20: 20, 30, 40, 50 %  -> average 35 %
POST_RIGHT = [12, 14, 16, 20]  # 60, 70, 80, 100 %      -> average 77.5 %
CLASS_GAIN = (77.5 - 35) / (100 - 35)  # 0.6538...
# Per concept (its two items at places 2k and 2k+1 of the form), worked out by hand:
CONCEPT_GAINS = {
    "what-grad-holds": (100.0, 100.0, None),  # everyone knew it: no gain to compute
    "accumulation-and-clearing": (75.0, 100.0, 1.0),  # pre 0, 100, 100, 100 %
    "in-place-and-versions": (0.0, 75.0, 0.75),  # post 0, 100, 100, 100 %
    "custom-functions": (0.0, 25.0, 0.25),  # post 0, 0, 0, 100 %
}


def answers(learner: str, phase: str, right: int, sure_when_wrong: bool) -> list[dict[str, str]]:
    """The first `right` items of the learner's form answered right, the rest wrong (the first
    wrong choice), "certain" when wrong and `sure_when_wrong`."""
    chosen = []
    for place, item in enumerate(INVENTORY.form(forms_for(learner)[phase])):
        ok = place < right
        wrong = next(t for t in item.prediction.texts if t != item.prediction.answer)
        chosen.append(
            {
                "item": item.id,
                "choice": item.prediction.answer if ok else wrong,
                "confidence": "guess" if ok or not sure_when_wrong else "certain",
            }
        )
    return chosen


@dataclass
class ClassRun:
    client: TestClient
    class_id: str
    instructor: str
    database_url: str


def take(client: TestClient, phase: str, right: int, sure: bool = False) -> dict[str, object]:
    learner = client_learner(client)
    response = client.post(
        f"/api/inventory/{phase}", json={"answers": answers(learner, phase, right, sure)}
    )
    assert response.status_code == 200, response.text
    result: dict[str, object] = response.json()
    return result


def client_learner(client: TestClient) -> str:
    """This client's learner id (a new visitor gets one from the first page that needs it)."""
    client.get("/api/inventory/pre")
    found: str = client.get("/api/progress/export").json()["learner"]
    assert found
    return found


@pytest.fixture
def class_run(migrated_url: str) -> Iterator[ClassRun]:
    settings = make_settings(lessons_dir=BUNDLED_LESSONS, database_url=migrated_url)
    with TestClient(create_app(settings)) as client:
        store = client.app.state.store  # type: ignore[attr-defined]
        links = store.create_class("Autograd, evening")
        for n, (pre, post) in enumerate(zip(PRE_RIGHT, POST_RIGHT, strict=True)):
            client.cookies.clear()
            joined = client.post(f"/api/join/{links.join_token}", json={"display_name": f"L{n}"})
            assert joined.status_code == 200
            take(client, "pre", pre)
            take(client, "post", post, sure=True)
        client.cookies.clear()  # a member who took only the pre-test
        client.post(f"/api/join/{links.join_token}", json={"display_name": "Only before"})
        take(client, "pre", 3)
        client.cookies.clear()  # a member who took neither
        client.post(f"/api/join/{links.join_token}", json={"display_name": "Nothing yet"})
        client.cookies.clear()  # not a member: never counted for the class
        take(client, "pre", 20)
        client.cookies.clear()
        yield ClassRun(client, links.info.id, links.instructor_token, migrated_url)


def as_instructor(run: ClassRun) -> TestClient:
    run.client.cookies.clear()
    assert run.client.get(f"/teach/{run.instructor}", follow_redirects=False).status_code == 303
    return run.client


def test_the_gain_is_the_same_on_the_dashboard_in_the_api_the_csv_and_the_stats(
    class_run: ClassRun, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    client = as_instructor(class_run)
    # The API.
    gain = client.get(f"/api/classes/{class_run.class_id}/gain").json()
    assert (gain["learners"], gain["matched"], gain["pre_only"], gain["post_only"]) == (6, 4, 1, 0)
    assert (gain["pre"], gain["post"]) == (35.0, 77.5)
    assert gain["gain"] == pytest.approx(CLASS_GAIN, abs=1e-4)
    low, high = gain["interval"]
    assert low <= gain["gain"] <= high
    concepts = {c["concept"]: (c["pre"], c["post"], c["gain"]) for c in gain["concepts"]}
    for concept, expected in CONCEPT_GAINS.items():
        assert concepts[concept] == pytest.approx(expected), concept
    individual = {b["label"]: b["learners"] for b in gain["bands"]}
    # Individual gains: 0.5, 0.571, 0.667, 1.0
    assert individual == {
        "below 0": 0,
        "low (0 to 0.3)": 0,
        "medium (0.3 to 0.7)": 3,
        "high (0.7 and up)": 1,
    }
    # Every wrong post-test answer was "certain": 8 + 6 + 4 + 0 misses, each still held.
    assert sum(h["learners"] for h in gain["held"]) == 18 and gain["held"][0]["why"]
    # The dashboard.
    page = client.get(f"/classes/{class_run.class_id}").text
    section = page.split('id="gain"')[1].split("</section>")[0]
    assert (
        f"{CLASS_GAIN:.2f}" in section and f"95&nbsp;% CI {low:.2f} to {high:.2f}, n = 4" in section
    )
    assert "35.0&nbsp;%" in section and "77.5&nbsp;%" in section
    assert (
        '<td>In-place changes and the version counter</td><td class="num">0&nbsp;%</td>' in section
    )
    assert '<td class="num">75&nbsp;%</td><td class="num">0.75</td>' in section
    # The CSV.
    csv_text = client.get(f"/classes/{class_run.class_id}/gain.csv").text
    rows = {(r["scope"], r["name"]): r for r in csv.DictReader(io.StringIO(csv_text))}
    assert rows[("class", "")]["gain"] == f"{CLASS_GAIN:.4f}"
    assert rows[("class", "")]["learners"] == "4"
    assert rows[("concept", "custom-functions")]["gain"] == "0.2500"
    assert rows[("concept", "what-grad-holds")]["gain"] == ""
    assert rows[("band", "medium (0.3 to 0.7)")]["learners"] == "3"
    assert rows[("count", "members")]["learners"] == "6"
    assert rows[("count", "pre-test only")]["learners"] == "1"
    # `gradlab inventory stats`, for the class.
    monkeypatch.setenv("GRADLAB_DATABASE_URL", class_run.database_url)
    monkeypatch.setenv("GRADLAB_LESSONS_DIR", str(BUNDLED_LESSONS))
    capsys.readouterr()
    argv = ["inventory", "stats", "--format", "json", "--class", class_run.class_id]
    assert gradlab(argv) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["gain"]["gain"] == pytest.approx(CLASS_GAIN, abs=1e-4)
    assert stats["gain"]["interval"] == pytest.approx(gain["interval"], abs=1e-4)
    by_concept = {c["concept"]: c for c in stats["gain"]["concepts"]}
    assert by_concept["in-place-and-versions"]["gain"] == pytest.approx(0.75)
    assert len(stats["items"]) == 40 and {f["form"] for f in stats["forms"]} == {"A", "B"}
    assert gradlab(["inventory", "stats", "--format", "csv", "--class", class_run.class_id]) == 0
    lines = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    overall = next(r for r in lines if r["section"] == "gain")
    assert float(overall["gain_or_disc"]) == pytest.approx(CLASS_GAIN, abs=1e-4)
    assert overall["n"] == "4" and sum(r["section"] == "item" for r in lines) == 40
    assert gradlab(["inventory", "stats", "--class", class_run.class_id]) == 0
    table = capsys.readouterr().out
    assert f"class-average normalized gain {CLASS_GAIN:.2f}" in table
    assert "discrimination: point-biserial" in table


def test_inventory_answers_stay_out_of_review_calibration_items_and_the_export(
    class_run: ClassRun,
) -> None:
    client = class_run.client
    client.cookies.clear()
    take(client, "pre", 2, sure=True)
    review = client.get("/api/review").json()
    assert (review["due_count"], review["scheduled"]) == (0, 0)
    assert client.get("/api/progress/calibration").json()["based_on"] == 0
    teacher = as_instructor(class_run)
    assert teacher.get(f"/api/classes/{class_run.class_id}/items").json()["items"] == []
    export = teacher.get(f"/api/classes/{class_run.class_id}/export.csv").text
    assert export.count("\n") == 1  # the header only


def test_a_pre_test_response_carries_no_answer(sqlite_bundled: TestClient) -> None:
    client = sqlite_bundled
    body = client.get("/api/inventory/pre").text
    test = json.loads(body)
    assert {"id", "concept", "concept_name", "code", "question", "choices"} == set(test["items"][0])
    page = client.get("/inventory/pre").text
    for item in INVENTORY.form(test["form"]):
        whys = [c.why for c in item.prediction.choices if c.why]
        for hidden in [item.prediction.explanation, *whys]:
            assert hidden not in body and json.dumps(hidden)[1:-1] not in body
            assert hidden.split("`")[0] not in page or len(hidden.split("`")[0]) < 12
    result = take(client, "pre", 5)
    assert result["items"] is None  # no answer after the pre-test either
    assert "explanation" not in json.dumps(result)
    post = take(client, "post", 7)
    assert isinstance(post["items"], list) and len(post["items"]) == 20
    assert all(item["answer"] and item["explanation_html"] for item in post["items"])


@pytest.fixture
def sqlite_bundled() -> Iterator[TestClient]:
    with TestClient(create_app(make_settings(lessons_dir=BUNDLED_LESSONS))) as client:
        yield client


def test_refusals_are_problem_details_and_keep_nothing(sqlite_bundled: TestClient) -> None:
    client = sqlite_bundled
    learner = client_learner(client)
    early = client.post("/api/inventory/post", json={"answers": answers(learner, "post", 1, False)})
    assert early.status_code == 409 and early.json()["type"] == "/problems/inventory-out-of-order"
    assert client.get("/api/inventory/post").status_code == 409
    other = answers(learner, "post", 1, False)[:1]  # an item of the other form
    wrong_form = client.post("/api/inventory/pre", json={"answers": other})
    assert wrong_form.status_code == 422
    assert wrong_form.json()["type"] == "/problems/not-in-this-form"
    mine = answers(learner, "pre", 1, False)
    bad_choice = [{**mine[0], "choice": "tensor(42.)"}]
    refused = client.post("/api/inventory/pre", json={"answers": bad_choice})
    assert refused.status_code == 422 and refused.json()["type"] == "/problems/not-a-choice"
    twice = client.post("/api/inventory/pre", json={"answers": [mine[0], mine[0]]})
    assert twice.status_code == 422
    unsure = client.post("/api/inventory/pre", json={"answers": [{**mine[0], "confidence": None}]})
    assert unsure.status_code == 422 and unsure.json()["type"] == "/problems/invalid-request"
    assert client.get("/api/progress/inventory").json()["next"] == "pre"  # nothing kept
    take(client, "pre", 4)
    again = client.post("/api/inventory/pre", json={"answers": mine})
    assert again.status_code == 409 and again.json()["type"] == "/problems/inventory-taken"
    mine_now = client.get("/api/progress/inventory").json()
    assert mine_now["pre"]["right"] == 4 and mine_now["next"] == "post"
    assert client.get("/api/classes/nope/gain").status_code == 404


def test_a_class_where_nobody_took_both_says_so(sqlite_bundled: TestClient) -> None:
    client = sqlite_bundled
    links = client.app.state.store.create_class("Just started")  # type: ignore[attr-defined]
    client.post(f"/api/join/{links.join_token}", json={"display_name": "A"})
    take(client, "pre", 3)
    client.cookies.clear()
    client.post(f"/api/join/{links.join_token}", json={"display_name": "B"})
    client.cookies.clear()
    client.get(f"/teach/{links.instructor_token}")
    gain = client.get(f"/api/classes/{links.info.id}/gain").json()
    assert (gain["matched"], gain["pre_only"], gain["gain"], gain["concepts"]) == (0, 1, None, [])
    page = client.get(f"/classes/{links.info.id}").text
    assert "Nobody has taken both tests yet: 1 of 2 learners took only the pre-test" in page


def test_the_catalog_offers_the_pre_test_until_decided(sqlite_bundled: TestClient) -> None:
    client = sqlite_bundled
    assert "Take the pre-test" in client.get("/").text  # a new visitor
    skipped = client.post("/inventory/skip", follow_redirects=False)
    assert skipped.status_code == 303
    assert "Take the pre-test" not in client.get("/").text
    assert "Take the pre-test" in client.get("/progress").text  # still offered there
    client.cookies.clear()
    take(client, "pre", 2)
    assert "Take the pre-test" not in client.get("/").text
    progress = client.get("/progress").text
    assert "Pre-test: <strong>10&nbsp;%</strong>" in progress and "take it now" in progress


def test_forms_are_counterbalanced_and_fixed_per_learner() -> None:
    ids = [f"learner-{n}" for n in range(2000)]
    firsts = [forms_for(i)["pre"] for i in ids]
    assert 900 < firsts.count("A") < 1100
    assert all(forms_for(i)["pre"] != forms_for(i)["post"] for i in ids[:50])
    assert [forms_for(i) for i in ids[:50]] == [forms_for(i) for i in ids[:50]]


def test_reading_the_inventory_writes_nothing(class_run: ClassRun) -> None:
    from tests.routes.test_reads_are_reads import _snapshot

    client = class_run.client
    client.cookies.clear()
    take(client, "pre", 6)
    before = _snapshot(client)
    for path in ["/", "/progress", "/inventory/pre", "/inventory/post", "/api/inventory/pre"]:
        assert client.get(path).status_code == 200, path
    assert client.get("/api/inventory/post").status_code == 200
    assert client.get("/api/progress/inventory").status_code == 200
    teacher = as_instructor(class_run)
    for path in ["/classes/{}", "/api/classes/{}/gain", "/classes/{}/gain.csv"]:
        assert teacher.get(path.format(class_run.class_id)).status_code == 200, path
    assert _snapshot(client) == before


def _queries_of_catalog(client: TestClient) -> int:
    """How many SQL statements `GET /` runs for this client's learner."""
    from sqlalchemy import event

    engine = client.app.state.store.engine  # type: ignore[attr-defined]
    seen: list[str] = []

    def count(*args: object) -> None:
        seen.append(str(args[2]))

    event.listen(engine, "before_cursor_execute", count)
    try:
        assert client.get("/").status_code == 200
    finally:
        event.remove(engine, "before_cursor_execute", count)
    return len(seen)


def test_the_offer_costs_no_query_once_decided(tmp_path: Path) -> None:
    without = tmp_path / "lessons"
    shutil.copytree(BUNDLED_LESSONS, without, ignore=shutil.ignore_patterns("inventory.yaml"))
    with TestClient(create_app(make_settings(lessons_dir=without))) as plain:
        client_learner(plain)
        plain.post("/api/lessons/what-is-grad/mode", json={"mode": "deep-dive"})
        baseline = _queries_of_catalog(plain)
    with TestClient(create_app(make_settings(lessons_dir=BUNDLED_LESSONS))) as client:
        take(client, "pre", 3)  # decided: the cookie says so
        client.post("/api/lessons/what-is-grad/mode", json={"mode": "deep-dive"})
        assert _queries_of_catalog(client) == baseline
        client.cookies.clear()  # undecided, with a row: one query of their phases
        client_learner(client)
        client.post("/api/lessons/what-is-grad/mode", json={"mode": "deep-dive"})
        assert _queries_of_catalog(client) == baseline + 1
        client.post("/inventory/skip")  # "not now": decided again
        assert _queries_of_catalog(client) == baseline


def test_the_catalog_offers_the_post_test_once_the_path_is_finished(
    sqlite_bundled: TestClient,
) -> None:
    client = sqlite_bundled
    take(client, "pre", 5)
    assert "Take the post-test" not in client.get("/").text
    learner = client_learner(client)
    store = client.app.state.store  # type: ignore[attr-defined]
    for lesson in CATALOG.lessons:  # every step of every lesson done: the path is finished
        for step in range(1, len(lesson.steps) + 1):
            store.mark_done(learner, lesson.slug, step)
    assert "You have finished the path: take the post-test" in client.get("/").text
    assert "You have finished the path" in client.get("/progress").text
    page = client.get("/inventory/post").text
    assert "not finished every lesson" not in page
    take(client, "post", 9)
    assert "Take the post-test" not in client.get("/").text


def test_a_reset_forgets_the_tests_and_offers_the_pre_test_again(
    sqlite_bundled: TestClient,
) -> None:
    client = sqlite_bundled
    take(client, "pre", 4)
    assert "Take the pre-test" not in client.get("/").text
    assert client.post("/progress/reset", follow_redirects=False).status_code == 303
    assert client.get("/api/progress/inventory").json()["next"] == "pre"
    assert "Take the pre-test" in client.get("/").text


def test_no_inventory_request_writes_on_the_loop(
    class_run: ClassRun, calls_on_loop: list[str], writes_on_loop: list[str]
) -> None:
    client = class_run.client
    client.cookies.clear()
    for path in ["/", "/inventory/pre", "/api/inventory/pre", "/api/progress/inventory"]:
        assert client.get(path).status_code == 200, path
    take(client, "pre", 5)
    take(client, "post", 8)
    for path in ["/progress", "/inventory/post", "/api/progress/inventory"]:
        assert client.get(path).status_code == 200, path
    teacher = as_instructor(class_run)
    for path in ["/classes/{}", "/api/classes/{}/gain", "/classes/{}/gain.csv"]:
        assert teacher.get(path.format(class_run.class_id)).status_code == 200, path
    assert writes_on_loop == []
    if not client.app.state.store.reads_in_place:  # type: ignore[attr-defined]
        assert calls_on_loop == []  # PostgreSQL: not a single call on the loop
    else:
        assert "inventory_answers_of" in calls_on_loop  # SQLite reads in place
