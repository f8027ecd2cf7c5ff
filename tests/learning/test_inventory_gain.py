"""The concept inventory end to end, on SQLite and PostgreSQL: simulated learners in a class,
their answers planted so that the gain is known; the dashboard, the API, the CSV and
`gradlab inventory stats` all find it, each gain with its n, and "too few to say" for a small
class. The tests ask for no answer they then see, and inventory answers stay out of review,
calibration, item statistics and grades."""

from __future__ import annotations

import csv
import io
import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.cli import main as gradlab
from app.config.paths import BUNDLED_LESSONS
from app.learning.inventory.learner import forms_for
from app.lessons.inventory import Inventory
from app.lessons.loader import load_catalog
from app.main import create_app
from tests.conftest import make_settings
from tests.learning.test_store_off_the_loop import calls_on_loop, writes_on_loop
from tests.statements import statements_sent

CATALOG = load_catalog(BUNDLED_LESSONS)
INVENTORY: Inventory = CATALOG.inventory  # type: ignore[assignment]
__all__ = ["calls_on_loop", "writes_on_loop"]  # fixtures, used by name
# Twelve learners with both tests: three of each of four patterns (averages, and so every gain,
# as for the four), items right in the form's file order (2 per concept). Twelve is enough for
# a class's gain (5) and a concept's (10).
PRE_RIGHT = [4, 6, 8, 10] * 3  # of 20: 20, 30, 40, 50 %  -> average 35 %
POST_RIGHT = [12, 14, 16, 20] * 3  # 60, 70, 80, 100 %      -> average 77.5 %
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
    join: str


def take(client: TestClient, phase: str, right: int, sure: bool = False) -> dict[str, object]:
    learner = client_learner(client)
    response = client.post(
        f"/api/inventory/{phase}", json={"answers": answers(learner, phase, right, sure)}
    )
    assert response.status_code == 200, response.text
    result: dict[str, object] = response.json()
    return result


def open_post_test(client: TestClient, class_id: str) -> None:
    """What the teacher's dashboard button does (the store's half of it)."""
    assert client.app.state.store.open_post_test(class_id)  # type: ignore[attr-defined]


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
        open_post_test(client, links.info.id)  # the class takes the post-test before the path's end
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
        yield ClassRun(
            client, links.info.id, links.instructor_token, migrated_url, links.join_token
        )


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
    assert (gain["learners"], gain["matched"], gain["pre_only"], gain["post_only"]) == (
        14,
        12,
        1,
        0,
    )
    assert (gain["pre"], gain["post"]) == (35.0, 77.5)
    assert gain["gain"]["value"] == pytest.approx(CLASS_GAIN, abs=1e-4)
    assert (gain["gain"]["n"], gain["gain"]["too_few"]) == (12, False)
    low, high = gain["interval"]
    assert low <= gain["gain"]["value"] <= high
    concepts = {c["concept"]: (c["pre"], c["post"], c["gain"]["value"]) for c in gain["concepts"]}
    for concept, expected in CONCEPT_GAINS.items():
        assert concepts[concept] == pytest.approx(expected), concept
    assert all(c["gain"]["n"] == 12 and not c["gain"]["too_few"] for c in gain["concepts"])
    individual = {b["label"]: b["learners"] for b in gain["bands"]}
    # Individual gains: 0.5, 0.571, 0.667, 1.0, three of each
    assert individual == {
        "below 0": 0,
        "low (0 to 0.3)": 0,
        "medium (0.3 to 0.7)": 9,
        "high (0.7 and up)": 3,
    }
    # Every wrong post-test answer was "certain": 3 x (8 + 6 + 4 + 0) misses, each still held.
    assert sum(h["learners"] for h in gain["held"]) == 54 and gain["held"][0]["why"]
    # Each stated as the belief behind it, for the teacher (the item's `misconception`).
    for held in gain["held"]:
        item = INVENTORY.item(held["item"])
        picked = item.prediction.choice(held["choice"]) if item else None
        assert picked is not None and held["belief"] == picked.misconception
    # The dashboard.
    page = client.get(f"/classes/{class_run.class_id}").text
    section = page.split('id="gain"')[1].split("</section>")[0]
    assert (
        f"{CLASS_GAIN:.2f}" in section
        and f"95&nbsp;% CI {low:.2f} to {high:.2f}, n = 12" in section
    )
    assert "35.0&nbsp;%" in section and "77.5&nbsp;%" in section
    # Each concept links the lessons that teach it, by title.
    taught = [CATALOG.get(slug) for slug in INVENTORY.concept("in-place-and-versions").lessons]
    links = ", ".join(
        f'<a href="http://testserver/lessons/{lesson.slug}">{lesson.title}</a>'
        for lesson in taught
        if lesson is not None
    )
    assert (
        taught
        and (
            f'<td>In-place changes and the version counter <span class="muted taught-in">(taught in '
            f'{links})</span></td><td class="num">0&nbsp;%</td>'
        )
        in section
    )
    assert (
        '<td class="num">75&nbsp;%</td><td class="num">0.75</td><td class="num">12</td>' in section
    )
    assert '<td class="num">too few to say</td>' not in section
    # The CSV.
    csv_text = client.get(f"/classes/{class_run.class_id}/gain.csv").text
    rows = {(r["scope"], r["name"]): r for r in csv.DictReader(io.StringIO(csv_text))}
    assert rows[("class", "")]["gain"] == f"{CLASS_GAIN:.4f}"
    assert rows[("class", "")]["learners"] == "12" and rows[("class", "")]["note"] == ""
    assert rows[("concept", "custom-functions")]["gain"] == "0.2500"
    assert rows[("concept", "what-grad-holds")]["gain"] == ""
    assert rows[("band", "medium (0.3 to 0.7)")]["learners"] == "9"
    assert rows[("count", "members")]["learners"] == "14"
    assert rows[("count", "pre-test only")]["learners"] == "1"
    _stats_agree(class_run, gain, monkeypatch, capsys)


def _stats_agree(
    class_run: ClassRun,
    gain: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`gradlab inventory stats`, for the class: the API's figures, n and all."""
    monkeypatch.setenv("GRADLAB_DATABASE_URL", class_run.database_url)
    monkeypatch.setenv("GRADLAB_LESSONS_DIR", str(BUNDLED_LESSONS))
    capsys.readouterr()
    argv = ["inventory", "stats", "--format", "json", "--class", class_run.class_id]
    assert gradlab(argv) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["gain"]["gain"]["value"] == pytest.approx(CLASS_GAIN, abs=1e-4)
    assert stats["gain"]["gain"] == gain["gain"]  # the same figure, n and all
    assert stats["gain"]["concepts"] == gain["concepts"]
    assert stats["gain"]["interval"] == pytest.approx(gain["interval"], abs=1e-4)
    by_concept = {c["concept"]: c for c in stats["gain"]["concepts"]}
    assert by_concept["in-place-and-versions"]["gain"]["value"] == pytest.approx(0.75)
    assert len(stats["items"]) == 40 and {f["form"] for f in stats["forms"]} == {"A", "B"}
    assert gradlab(["inventory", "stats", "--format", "csv", "--class", class_run.class_id]) == 0
    lines = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    overall = next(r for r in lines if r["section"] == "gain")
    assert float(overall["gain_or_disc"]) == pytest.approx(CLASS_GAIN, abs=1e-4)
    assert overall["n"] == "12" and sum(r["section"] == "item" for r in lines) == 40
    assert gradlab(["inventory", "stats", "--class", class_run.class_id]) == 0
    table = capsys.readouterr().out
    assert f"class-average normalized gain {CLASS_GAIN:.2f} (n = 12, 95% CI" in table
    assert "discrimination: point-biserial" in table


def test_three_learners_are_too_few_to_say_everywhere(
    both: TestClient, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A tiny class: every concept gain, and the class's, says "too few to say" with its n,
    on the dashboard, in its JSON and CSV, and in `gradlab inventory stats`; so does each
    learner's concept gain (two items), while their gain over the whole test is stated."""
    client = both
    store = client.app.state.store  # type: ignore[attr-defined]
    links = store.create_class("Three")
    open_post_test(client, links.info.id)
    for n, (before, after) in enumerate([(2, 8), (4, 16), (6, 14)]):
        client.cookies.clear()
        client.post(f"/api/join/{links.join_token}", json={"display_name": f"T{n}"})
        take(client, "pre", before)
        take(client, "post", after)
    mine = client.get("/api/progress/inventory").json()
    assert mine["gain"]["value"] == pytest.approx((70 - 30) / 70, abs=1e-4)
    assert mine["gain"]["n"] == 20
    assert all(c["gain"]["too_few"] and c["gain"]["n"] == 2 for c in mine["concepts"])
    assert all(c["gain"]["value"] is None for c in mine["concepts"])
    progress = client.get("/progress").text
    cell = 'too few to say <span class="muted">(n = 2)</span>'
    assert progress.count(cell) == len(INVENTORY.concepts)
    client.get(f"/teach/{links.instructor_token}")
    gain = client.get(f"/api/classes/{links.info.id}/gain").json()
    assert gain["matched"] == 3 and gain["interval"] is None
    assert gain["gain"] == {
        "value": None,
        "n": 3,
        "minimum": 5,
        "too_few": True,
        "shown": "too few to say",
    }
    assert all(c["gain"]["too_few"] and c["gain"]["value"] is None for c in gain["concepts"])
    section = client.get(f"/classes/{links.info.id}").text.split('id="gain"')[1]
    section = section.split("</section>")[0]
    concepts = section.split('class="data-table gain-concepts"')[1].split("</table>")[0]
    assert concepts.count('<td class="num">too few to say</td>') == len(INVENTORY.concepts)
    before = section.split('class="data-table gain-before"')[1].split("</table>")[0]
    assert before.count('<td class="num">too few to say</td>') == len(INVENTORY.concepts)
    assert "n = 3: a class gain needs 5 learners with both tests" in section
    rows = list(csv.DictReader(io.StringIO(client.get(f"/classes/{links.info.id}/gain.csv").text)))
    for row in rows:
        if row["scope"] in {"class", "concept"}:
            assert row["gain"] == "" and row["learners"] == "3"
            assert row["note"] == "too few to say (n = 3, fewer than " + (
                "5)" if row["scope"] == "class" else "10)"
            )
    monkeypatch.setenv("GRADLAB_DATABASE_URL", store.engine.url.render_as_string(False))
    monkeypatch.setenv("GRADLAB_LESSONS_DIR", str(BUNDLED_LESSONS))
    capsys.readouterr()
    argv = ["inventory", "stats", "--class", links.info.id]
    assert gradlab([*argv, "--format", "json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["gain"]["gain"] == gain["gain"] and stats["gain"]["concepts"] == gain["concepts"]
    assert all(i["too_few"] and i["discrimination"] is None for i in stats["items"])
    assert gradlab([*argv, "--format", "csv"]) == 0
    lines = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    said = [r["gain_or_disc"] for r in lines if r["section"] in {"gain", "concept", "item"}]
    assert said and set(said) == {"too few to say"}
    assert gradlab(argv) == 0
    table = capsys.readouterr().out
    assert "class-average normalized gain too few to say (n = 3)" in table
    assert table.count("gain too few to say (n = 3)") == len(INVENTORY.concepts) + 1


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


def _secrets() -> list[str]:
    """What would give an item's key away: every explanation, every wrong choice's why, and
    every answer longer than one word (a bare `None` or `True` is also plain page text)."""
    found = []
    for item in INVENTORY.items:
        found.append(item.prediction.explanation)
        found += [c.why for c in item.prediction.choices if c.why]
        if len(item.prediction.answer.split()) > 1 or "(" in item.prediction.answer:
            found.append(item.prediction.answer)
    return found


def _carries_no_key(body: str, *, test: bool) -> None:
    """A response carries no answer: no explanation or why in any form (raw or as JSON or HTML
    escapes it), and no answer at all unless it is a test, whose choices hold the answer among
    the others, without saying which."""
    import html

    for secret in _secrets():
        if test and secret in {i.prediction.answer for i in INVENTORY.items}:
            continue
        for form in {secret, json.dumps(secret)[1:-1], html.escape(secret)}:
            assert form not in body, secret
    if test:
        for field in ('"answer"', '"correct"', '"explanation', '"why'):
            assert field not in body


def test_no_inventory_response_carries_a_right_answer(both: TestClient) -> None:
    """Every phase, before and after, on both databases: the tests, the results, the
    learner's progress and the pages."""
    client = both
    links = client.app.state.store.create_class("Keys")  # type: ignore[attr-defined]
    client.post(f"/api/join/{links.join_token}", json={"display_name": "K"})
    scanned = {"/api/inventory/pre": True, "/inventory/pre": True, "/": False}
    scanned |= {"/api/progress/inventory": False, "/progress": False}
    for path, test in scanned.items():  # before anything
        _carries_no_key(client.get(path).text, test=test)
    pre = client.post(
        "/api/inventory/pre", json={"answers": answers(client_learner(client), "pre", 7, True)}
    )
    assert pre.status_code == 200
    _carries_no_key(pre.text, test=False)
    assert {c["name"] for c in pre.json()["revisit"]} and all(
        c["explanation_html"] and c["lessons"][0]["title"] for c in pre.json()["revisit"]
    )
    for path, test in scanned.items():  # between the tests
        _carries_no_key(client.get(path).text, test=test)
    open_post_test(client, links.info.id)
    scanned |= {"/api/inventory/post": True, "/inventory/post": True}
    _carries_no_key(client.get("/api/inventory/post").text, test=True)
    post = client.post(
        "/api/inventory/post", json={"answers": answers(client_learner(client), "post", 20, True)}
    )
    assert post.status_code == 200
    _carries_no_key(post.text, test=False)
    assert post.json()["revisit"] == []  # all right: nothing to revisit
    for path, test in scanned.items():  # after both
        _carries_no_key(client.get(path).text, test=test)
    # The taken tests' pages show the results, still without a key.
    assert "Ideas to revisit" in client.get("/inventory/pre").text


def test_a_reset_keeps_the_tests_and_the_gain(both: TestClient) -> None:
    """A learner who saw both tests cannot take them again: after a reset (the API's and the
    catalog's button) both are refused, and the learner's and the class's gain stay."""
    client = both
    links = client.app.state.store.create_class("Reset")  # type: ignore[attr-defined]
    open_post_test(client, links.info.id)
    for n, (before, after) in enumerate([(2, 6), (4, 10), (6, 9), (3, 12), (5, 5)]):
        client.cookies.clear()
        client.post(f"/api/join/{links.join_token}", json={"display_name": f"R{n}"})
        take(client, "pre", before)
        take(client, "post", after)
    learner = client_learner(client)  # the last one, R4, who got 25 % each time
    mine = client.get("/api/progress/inventory").json()
    client.get(f"/teach/{links.instructor_token}")  # R4's browser is the teacher's too
    gain = client.get(f"/api/classes/{links.info.id}/gain").json()
    assert gain["gain"]["value"] is not None and gain["gain"]["n"] == 5
    assert client.post("/api/progress/reset").status_code == 204
    assert client.post("/progress/reset", follow_redirects=False).status_code == 303
    assert client.get("/api/progress/inventory").json() == mine
    assert "Take the pre-test" not in client.get("/").text
    for phase in ("pre", "post"):  # all right, this time
        again = client.post(
            f"/api/inventory/{phase}", json={"answers": answers(learner, phase, 20, False)}
        )
        assert again.status_code == 409 and again.json()["type"] == "/problems/inventory-taken"
    assert client.get("/api/progress/inventory").json() == mine
    assert client.get(f"/api/classes/{links.info.id}/gain").json() == gain


def test_the_post_test_is_closed_until_the_path_is_done_or_the_teacher_opens_it(
    both: TestClient, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    client = both
    store = client.app.state.store  # type: ignore[attr-defined]
    links = store.create_class("Closed")
    client.post(f"/api/join/{links.join_token}", json={"display_name": "C"})
    learner = client_learner(client)
    take(client, "pre", 5)

    def closed() -> None:
        for response in (
            client.get("/api/inventory/post"),
            client.get("/inventory/post"),
            client.post(
                "/api/inventory/post", json={"answers": answers(learner, "post", 20, False)}
            ),
        ):
            assert response.status_code == 409
        problem = client.get("/api/inventory/post").json()
        assert problem["type"] == "/problems/post-test-closed"
        assert client.get("/api/progress/inventory").json()["post_open"] is False
        assert "The post-test is open" not in client.get("/").text

    closed()
    # Another cookie (another learner) is no way in either.
    client.cookies.clear()
    take(client, "pre", 3)
    assert client.get("/api/inventory/post").status_code == 409
    # The teacher opens it from the dashboard: a POST, with the instructor's cookie only.
    client.cookies.clear()
    refused = client.post(f"/classes/{links.info.id}/post-test/open", follow_redirects=False)
    assert refused.status_code == 404
    client.get(f"/teach/{links.instructor_token}")
    assert "Open the post-test for the class now" in client.get(f"/classes/{links.info.id}").text
    opened = client.post(f"/classes/{links.info.id}/post-test/open", follow_redirects=False)
    assert opened.status_code == 303
    assert "The post-test is <strong>open</strong>" in client.get(f"/classes/{links.info.id}").text
    client.cookies.clear()
    client.post(f"/api/join/{links.join_token}", json={"display_name": "C"})  # C's new cookie
    learner = client_learner(client)
    take(client, "pre", 4)
    assert client.get("/api/progress/inventory").json()["post_open"] is True
    assert "The post-test is open: take it" in client.get("/").text
    assert client.get("/api/inventory/post").status_code == 200
    # Closed again, with `gradlab class close-post-test`: closed for a member who has not
    # finished the path, until they do.
    monkeypatch.setenv(
        "GRADLAB_DATABASE_URL", store.engine.url.render_as_string(hide_password=False)
    )
    capsys.readouterr()
    assert gradlab(["class", "close-post-test", links.info.id]) == 0
    assert "closed" in capsys.readouterr().out
    assert gradlab(["class", "open-post-test", "no-such-class"]) == 1
    closed()
    for lesson in CATALOG.lessons:  # every step of every lesson done: the path is finished
        for step in range(1, len(lesson.steps) + 1):
            store.mark_done(learner, lesson.slug, step)
    assert client.get("/api/progress/inventory").json()["post_open"] is True
    take(client, "post", 9)
    assert client.get("/api/progress/inventory").json()["next"] == "done"


@pytest.fixture
def both(migrated_url: str) -> Iterator[TestClient]:
    """The bundled curriculum (with its inventory), once on SQLite and once on PostgreSQL."""
    settings = make_settings(lessons_dir=BUNDLED_LESSONS, database_url=migrated_url)
    with TestClient(create_app(settings)) as test_client:
        yield test_client


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
    assert (gain["matched"], gain["pre_only"], gain["concepts"]) == (0, 1, [])
    assert (gain["gain"]["value"], gain["gain"]["n"], gain["gain"]["too_few"]) == (None, 0, True)
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
    assert "Pre-test: <strong>10&nbsp;%</strong>" in progress
    assert "The post-test opens when you have finished every lesson" in progress


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
    for path in ["/", "/progress", "/inventory/pre", "/api/inventory/pre"]:
        assert client.get(path).status_code == 200, path
    for path in ["/inventory/post", "/api/inventory/post"]:  # not open to this learner yet
        assert client.get(path).status_code == 409, path
    assert client.get("/api/progress/inventory").status_code == 200
    teacher = as_instructor(class_run)
    for path in ["/classes/{}", "/api/classes/{}/gain", "/classes/{}/gain.csv"]:
        assert teacher.get(path.format(class_run.class_id)).status_code == 200, path
    assert _snapshot(client) == before


def _queries_of_catalog(client: TestClient) -> int:
    """How many SQL statements `GET /` runs for this client's learner."""
    engine = client.app.state.store.engine  # type: ignore[attr-defined]
    return len(statements_sent(engine, lambda: client.get("/")))


def test_the_offer_and_the_marks_cost_one_query_or_two(tmp_path: Path) -> None:
    without = tmp_path / "lessons"
    shutil.copytree(BUNDLED_LESSONS, without, ignore=shutil.ignore_patterns("inventory.yaml"))
    with TestClient(create_app(make_settings(lessons_dir=without))) as plain:
        client_learner(plain)
        plain.post("/api/lessons/what-is-grad/mode", json={"mode": "deep-dive"})
        baseline = _queries_of_catalog(plain)
    with TestClient(create_app(make_settings(lessons_dir=BUNDLED_LESSONS))) as client:
        take(client, "pre", 3)  # their answers (the marks), and has a teacher opened the post-test?
        client.post("/api/lessons/what-is-grad/mode", json={"mode": "deep-dive"})
        assert _queries_of_catalog(client) == baseline + 2
        client.cookies.clear()  # undecided, with a row: one query of their answers
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
    assert "The post-test is open: take it" in client.get("/").text
    assert "You have finished the path" in client.get("/progress").text
    assert client.get("/inventory/post").status_code == 200
    take(client, "post", 9)
    assert "The post-test is open" not in client.get("/").text


def test_no_inventory_request_writes_on_the_loop(
    class_run: ClassRun, calls_on_loop: list[str], writes_on_loop: list[str]
) -> None:
    client = class_run.client
    client.cookies.clear()
    client.post(f"/api/join/{class_run.join}", json={"display_name": "Loop"})  # post-test open
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


def test_the_dashboard_says_what_the_class_knew_before_the_path(both: TestClient) -> None:
    """The pre-test, concept by concept: of the members who took it, the share who answered
    both of a concept's questions right, with its n; "too few to say" below the minimum."""
    client = both
    store = client.app.state.store  # type: ignore[attr-defined]
    links = store.create_class("Before")
    for n in range(12):  # half knew everything, half nothing; nobody took the post-test yet
        client.cookies.clear()
        client.post(f"/api/join/{links.join_token}", json={"display_name": f"B{n}"})
        take(client, "pre", 20 if n % 2 else 0)
        if n == 2:  # three learners: too few to say
            client.cookies.clear()
            client.get(f"/teach/{links.instructor_token}")
            few = client.get(f"/api/classes/{links.info.id}/gain").json()["before"]
            assert [c["known"]["shown"] for c in few] == ["too few to say"] * len(few)
            assert {c["known"]["n"] for c in few} == {3}
    client.cookies.clear()
    client.get(f"/teach/{links.instructor_token}")
    before = client.get(f"/api/classes/{links.info.id}/gain").json()["before"]
    assert [c["concept"] for c in before] == [c.id for c in INVENTORY.concepts]
    assert all(c["known"]["value"] == 0.5 and c["known"]["n"] == 12 for c in before)
    page = client.get(f"/classes/{links.info.id}").text
    table = page.split('class="data-table gain-before"')[1].split("</table>")[0]
    assert table.count("50&nbsp;%") == len(INVENTORY.concepts)
    assert "of the 12 learners who took the pre-test" in page
    assert "Nobody has taken both tests yet" in page
