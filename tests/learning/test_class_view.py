"""The class view finds what a teacher must act on: 40 simulated learners on the real
curriculum, with one misconception planted (most pick one wrong choice while certain) and one
bad question planted (the strongest learners get it wrong). Figures agree with scipy."""

from __future__ import annotations

import csv
import io
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from fastapi.testclient import TestClient
from scipy.stats import pointbiserialr

from app.config.paths import BUNDLED_LESSONS
from app.lessons.loader import load_catalog
from app.main import create_app
from tests.conftest import make_settings

CATALOG = load_catalog(BUNDLED_LESSONS)
LEARNERS = 40


@dataclass(frozen=True)
class Item:
    slug: str
    step: int
    right: str
    wrong: tuple[str, ...]


def _items() -> list[Item]:
    items = []
    for lesson in CATALOG.lessons[:3]:
        for number, step in enumerate(lesson.steps, start=1):
            if step.prediction is not None:
                p = step.prediction
                items.append(
                    Item(lesson.slug, number, p.answer, tuple(t for t in p.texts if t != p.answer))
                )
    return items


ITEMS = _items()
PLANTED = ITEMS[1]  # most learners pick its first wrong choice, certain
BAD = ITEMS[4]  # the strongest learners get it wrong, the weakest right


@dataclass
class ClassRun:
    client: TestClient
    class_id: str
    join: str
    instructor: str
    chosen: dict[tuple[int, Item], tuple[str, bool]]  # (learner, item) -> (choice, right)


def _join_links(client: TestClient) -> tuple[str, str, str]:
    store = client.app.state.store  # type: ignore[attr-defined]
    links = store.create_class("Autograd, section B")
    return links.info.id, links.join_token, links.instructor_token


@pytest.fixture(scope="module")
def class_run() -> Iterator[ClassRun]:
    settings = make_settings(lessons_dir=BUNDLED_LESSONS)
    with TestClient(create_app(settings)) as client:
        class_id, join, instructor = _join_links(client)
        rng = random.Random(7)  # noqa: S311 - a simulated class, not a secret
        chosen: dict[tuple[int, Item], tuple[str, bool]] = {}
        for n in range(LEARNERS):
            client.cookies.clear()  # a new learner
            ability = (n + 0.5) / LEARNERS
            name = "<img src=x onerror=alert(1)>" if n == 0 else f"Learner {n:02d}"
            assert client.post(f"/api/join/{join}", json={"display_name": name}).status_code == 200
            for item in ITEMS:
                confidence = "fairly_sure"
                if item is PLANTED and n % 10 < 8:
                    choice, confidence = item.wrong[0], "certain"
                elif item is BAD:
                    choice = item.wrong[-1] if ability > 0.5 else item.right
                else:
                    choice = item.right if rng.random() < ability else rng.choice(item.wrong)
                url = f"/api/lessons/{item.slug}/steps/{item.step}/prediction"
                response = client.post(url, json={"choice": choice, "confidence": confidence})
                assert response.status_code == 200, response.text
                chosen[(n, item)] = (choice, choice == item.right)
                # A second attempt follows the reveal: never counted.
                client.post(url, json={"choice": item.right, "confidence": "certain"})
        client.cookies.clear()
        yield ClassRun(client, class_id, join, instructor, chosen)


def _as_instructor(run: ClassRun) -> TestClient:
    run.client.cookies.clear()
    opened = run.client.get(f"/teach/{run.instructor}", follow_redirects=False)
    assert opened.status_code == 303 and opened.headers["location"] == f"/classes/{run.class_id}"
    return run.client


def test_the_planted_misconception_tops_the_dashboard(class_run: ClassRun) -> None:
    client = _as_instructor(class_run)
    board = client.get(f"/api/classes/{class_run.class_id}").json()
    top = board["misconceptions"][0]
    assert (top["lesson"], top["number"], top["choice"]) == (
        PLANTED.slug,
        PLANTED.step,
        PLANTED.wrong[0],
    )
    assert top["why"]  # the misconception the wrong choice stands for
    assert len(board["roster"]) == LEARNERS
    page = client.get(f"/classes/{class_run.class_id}").text
    section = page.split('id="misconceptions"')[1].split("</tr>")[1]  # the first data row
    assert f"{PLANTED.slug}-prediction-{PLANTED.step}" in section


def test_the_planted_misconception_is_the_first_card_and_the_bad_question_the_next_flag(
    class_run: ClassRun,
) -> None:
    """A belief held with confidence ranks above every other flag; a backwards question comes
    next; each flag is shown with its n."""
    client = _as_instructor(class_run)
    items = client.get(f"/api/classes/{class_run.class_id}/items").json()["items"]
    first = items[0]
    assert (first["lesson"], first["number"]) == (PLANTED.slug, PLANTED.step)
    assert "misconception held with confidence" in first["flags"]
    assert first["held_share"] >= 0.8  # 32 planted, and some of the rest picked it sure
    bad = items[1]  # its stronger half is sure of one wrong choice too: 50 %, below 83 %
    assert (bad["lesson"], bad["number"]) == (BAD.slug, BAD.step)
    assert "negative discrimination" in bad["flags"]
    assert bad["discrimination"] < -0.5
    assert not any(i["too_few_for_flags"] for i in items)  # 40 answers each: enough
    page = client.get(f"/classes/{class_run.class_id}").text
    articles = re.findall(r'<article class="item" id="item-([^"]+)"', page)
    assert articles[0] == f"{PLANTED.slug}-prediction-{PLANTED.step}"
    assert f'negative discrimination <span class="flag-n">(n = {LEARNERS})</span>' in page


def test_a_handful_of_answers_raises_no_flag(class_run: ClassRun) -> None:
    """Five learners of another class, the bad question planted as above: too few to say."""
    client = class_run.client
    store = client.app.state.store  # type: ignore[attr-defined]
    links = store.create_class("Five learners")
    for n in range(5):
        client.cookies.clear()
        client.post(f"/api/join/{links.join_token}", json={"display_name": f"S{n}"})
        for item in ITEMS[:6]:
            choice = item.wrong[-1] if (item is BAD) == (n >= 3) else item.right
            url = f"/api/lessons/{item.slug}/steps/{item.step}/prediction"
            client.post(url, json={"choice": choice, "confidence": "certain"})
    client.cookies.clear()
    client.get(f"/teach/{links.instructor_token}")
    items = client.get(f"/api/classes/{links.info.id}/items").json()["items"]
    assert items and all(i["flags"] == [] and i["too_few_for_flags"] for i in items)
    page = client.get(f"/classes/{links.info.id}").text
    assert "Flags: too few to say (n = 5, fewer than 20)." in page
    assert 'class="flag"' not in page


def test_difficulty_and_discrimination_agree_with_scipy(class_run: ClassRun) -> None:
    client = _as_instructor(class_run)
    items = client.get(f"/api/classes/{class_run.class_id}/items").json()["items"]
    totals = {
        n: sum(class_run.chosen[(n, item)][1] for item in ITEMS) / len(ITEMS)
        for n in range(LEARNERS)
    }
    for got in items:
        item = next(i for i in ITEMS if (i.slug, i.step) == (got["lesson"], got["number"]))
        right = [class_run.chosen[(n, item)][1] for n in range(LEARNERS)]
        assert got["answered"] == LEARNERS
        assert got["difficulty"] == pytest.approx(sum(right) / LEARNERS)
        if len(set(right)) > 1:
            reference = pointbiserialr(right, [totals[n] for n in range(LEARNERS)]).statistic
            assert got["discrimination"] == pytest.approx(reference, abs=1e-9)
        picked = {c["text"]: c["picked"] for c in got["choices"]}
        for text in [item.right, *item.wrong]:
            expected = sum(1 for n in range(LEARNERS) if class_run.chosen[(n, item)][0] == text)
            assert picked[text] == expected


def test_the_export_has_one_row_per_learner_and_question(class_run: ClassRun) -> None:
    client = _as_instructor(class_run)
    response = client.get(f"/api/classes/{class_run.class_id}/export.csv")
    assert response.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert len(rows) == LEARNERS * len(ITEMS)
    assert {row["correct"] for row in rows} == {"right", "wrong"}
    # Learner text is data, never a formula or markup.
    names = {row["learner"] for row in rows}
    assert "<img src=x onerror=alert(1)>" in names


def test_display_names_are_text_not_markup(class_run: ClassRun) -> None:
    page = _as_instructor(class_run).get(f"/classes/{class_run.class_id}").text
    assert "<img src=x onerror" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page


def _class_urls(class_id: str) -> list[str]:
    return [
        f"/classes/{class_id}",
        f"/api/classes/{class_id}",
        f"/api/classes/{class_id}/items",
        f"/api/classes/{class_id}/export.csv",
    ]


def test_no_cookie_a_learner_and_another_instructor_get_404(class_run: ClassRun) -> None:
    client = class_run.client
    client.cookies.clear()
    for url in _class_urls(class_run.class_id):
        assert client.get(url).status_code == 404, url
    # A learner of the class.
    client.post(f"/api/join/{class_run.join}", json={"display_name": "Curious"})
    for url in _class_urls(class_run.class_id):
        assert client.get(url).status_code == 404, url
    # The instructor of another class.
    client.cookies.clear()
    _, _, other = _join_links(client)
    assert client.get(f"/teach/{other}", follow_redirects=False).status_code == 303
    for url in _class_urls(class_run.class_id):
        assert client.get(url).status_code == 404, url
    # A made-up instructor key in a forged session is refused by the cookie's signature.
    client.cookies.clear()
    client.cookies.set("gradlab_learner", "eyJ0ZWFjaCI6IHt9fQ==.forged.sig")
    for url in _class_urls(class_run.class_id):
        assert client.get(url).status_code == 404, url


def test_rotated_links_stop_working_and_so_do_their_cookies() -> None:
    with TestClient(create_app(make_settings())) as client:
        class_id, join, instructor = _join_links(client)
        assert client.get(f"/teach/{instructor}", follow_redirects=False).status_code == 303
        assert client.get(f"/classes/{class_id}").status_code == 200
        store = client.app.state.store  # type: ignore[attr-defined]
        fresh = store.rotate_links(class_id)
        assert client.get(f"/classes/{class_id}").status_code == 404  # the old cookie
        assert client.get(f"/teach/{instructor}").status_code == 404
        assert client.get(f"/join/{join}").status_code == 404
        bad = client.post(f"/api/join/{join}", json={"display_name": "Late"})
        assert bad.status_code == 404
        assert client.get(f"/join/{fresh.join_token}").status_code == 200
        assert client.get(f"/teach/{fresh.instructor_token}").status_code == 200


def test_joining_asks_for_a_name_and_says_what_the_teacher_sees() -> None:
    with TestClient(create_app(make_settings())) as client:
        class_id, join, _ = _join_links(client)
        page = client.get(f"/join/{join}").text
        assert "Display name" in page and "first answer" in page
        assert client.get("/join/not-a-token").status_code == 404
        assert "no longer valid" in client.get("/join/not-a-token").text
        for name in ("", "   ", "x" * 61, "tab\x00null"):
            response = client.post(f"/api/join/{join}", json={"display_name": name})
            assert response.status_code == 422, name
        joined = client.post(f"/api/join/{join}", json={"display_name": "  Ada   L. "})
        assert joined.json()["display_name"] == "Ada L."
        assert client.post(f"/api/classes/{class_id}/leave").status_code == 204
        assert client.post(f"/api/classes/{class_id}/leave").status_code == 404


def test_a_report_is_kept_with_the_question_and_shown_to_the_class() -> None:
    with TestClient(create_app(make_settings())) as client:
        class_id, join, instructor = _join_links(client)
        client.post(f"/api/join/{join}", json={"display_name": "Ada"})
        body = {"kind": "prediction", "number": 1, "text": "<b>the key</b> looks wrong"}
        assert client.post("/api/lessons/first-steps/report", json=body).status_code == 204
        too_long = {**body, "text": "x" * 2001}
        assert client.post("/api/lessons/first-steps/report", json=too_long).status_code == 422
        nowhere = {**body, "number": 99}
        assert client.post("/api/lessons/first-steps/report", json=nowhere).status_code == 404
        client.get(f"/teach/{instructor}")
        page = client.get(f"/classes/{class_id}").text
        assert "&lt;b&gt;the key&lt;/b&gt; looks wrong" in page


def test_a_learner_downloads_and_deletes_everything_about_them() -> None:
    with TestClient(create_app(make_settings())) as client:
        class_id, join, instructor = _join_links(client)
        client.post(f"/api/join/{join}", json={"display_name": "Ada"})
        client.post(
            "/api/lessons/first-steps/steps/1/prediction",
            json={"choice": "None", "confidence": "fairly_sure"},
        )
        page = client.get("/progress").text
        assert "Autograd, section B" in page and "as Ada" in page
        data = client.get("/api/progress/export").json()
        learner = data["learner"]
        assert data["tables"]["class_members"][0]["display_name"] == "Ada"
        assert data["tables"]["step_answers"][0]["choice"] == "None"
        assert data["tables"]["learners"] == [{"id": learner, "created_at": ANY_TIME}]
        deleted = client.post("/progress/delete", data={"confirm": "on"}, follow_redirects=False)
        assert deleted.status_code == 303
        store = client.app.state.store  # type: ignore[attr-defined]
        assert all(rows == [] for rows in store.everything_about(learner).values())
        client.get(f"/teach/{instructor}")
        board = client.get(f"/api/classes/{class_id}").json()
        assert board["roster"] == [] and board["misconceptions"] == []


class _AnyTime:
    def __eq__(self, other: object) -> bool:
        return isinstance(other, str) and bool(re.match(r"\d{4}-\d\d-\d\dT", other))


ANY_TIME = _AnyTime()


def test_answers_after_reading_ahead_are_left_out_and_counted() -> None:
    with TestClient(create_app(make_settings())) as client:
        class_id, join, instructor = _join_links(client)
        client.post(f"/api/join/{join}", json={"display_name": "Reader"})
        assert (
            client.post("/lessons/first-steps/read-ahead", follow_redirects=False).status_code
            == 303
        )
        client.post(
            "/api/lessons/first-steps/steps/1/prediction",
            json={"choice": "None", "confidence": "fairly_sure"},
        )
        client.cookies.clear()
        client.post(f"/api/join/{join}", json={"display_name": "Honest"})
        client.post(
            "/api/lessons/first-steps/steps/1/prediction",
            json={"choice": "None", "confidence": "fairly_sure"},
        )
        client.cookies.clear()
        client.get(f"/teach/{instructor}")
        items = client.get(f"/api/classes/{class_id}/items").json()
        assert items["left_out"] == 1
        assert items["items"][0]["answered"] == 1  # the honest learner's only
        assert "reading a lesson ahead" in client.get(f"/classes/{class_id}").text


def test_the_authors_statistics_page_is_for_teachers_only(class_run: ClassRun) -> None:
    client = class_run.client
    client.cookies.clear()
    assert client.get("/stats").status_code == 404  # no cookie
    client.post(f"/api/join/{class_run.join}", json={"display_name": "Nosy"})
    assert client.get("/stats").status_code == 404  # a learner
    page = _as_instructor(class_run).get("/stats")
    assert page.status_code == 200
    articles = re.findall(r'<article class="item" id="item-([^"]+)"', page.text)
    # As in the class: the belief held with confidence first, the backwards question among
    # the other flags.
    assert articles[0] == f"{PLANTED.slug}-prediction-{PLANTED.step}"
    assert articles[1] == f"{BAD.slug}-prediction-{BAD.step}"
    assert f"{PLANTED.slug}-prediction-{PLANTED.step}" in page.text.split('id="questions"')[0]
