"""The select-all kind end to end on the real curriculum, on SQLite and PostgreSQL: a step asks
"tick every statement that holds", graded at once against what a run says (`gradlab check`
proves the step's own, `--update` keeps each instance's), kept as the step's committed answer
through the one step route, restored on reload, asked again in review on an instance, counted
in calibration; and nothing sent before the commit says which statements hold."""

from __future__ import annotations

import html
import re
from pathlib import Path

from fastapi.testclient import TestClient

from app.learning.kinds import SELECT_ALL
from app.lessons.format import Lesson, SelectAll, Step
from app.lessons.variants import instances
from tests.catalogs import BUNDLED
from tests.clock import time_passes

SLUG = "debugging-gradients"


def asking(slug: str = SLUG) -> tuple[Lesson, int, Step, SelectAll]:
    lesson = BUNDLED.get(slug)
    assert lesson is not None
    number, step = next((n, s) for n, s in enumerate(lesson.steps, 1) if s.select_all)
    assert step.select_all is not None
    return lesson, number, step, step.select_all


def url(slug: str = SLUG) -> str:
    _, number, _, _ = asking(slug)
    return f"/api/lessons/{slug}/steps/{number}/select-all"


def commit(client: TestClient, picked: list[str], confidence: str | None = "certain"):  # type: ignore[no-untyped-def]
    body: dict[str, object] = {"picked": picked}
    if confidence:
        body["confidence"] = confidence
    return client.post(url(), json=body)


def test_lessons_ask_select_all_with_instances_whose_answers_differ() -> None:
    found = [
        (lesson.slug, step)
        for lesson in BUNDLED.lessons
        for step in lesson.steps
        if step.select_all is not None
    ]
    # At least six lessons, and docs/learning.md says how many.
    words = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
    lessons = len({slug for slug, _ in found})
    assert lessons >= 6
    learning = (Path(__file__).parents[2] / "docs" / "learning.md").read_text()
    assert f"{words[lessons].capitalize()} lessons end their build-up on a **select all" in learning
    for slug, step in found:
        assert step.select_all is not None
        held = [tuple(step.select_all.holding(i.readings)) for i in instances(step)]
        assert len(held) >= 2, slug
        # Other code, other statements holding: an instance never repeats the step's answer.
        assert tuple(step.select_all.right) not in held, slug


def test_the_right_set_passes_and_is_restored(curriculum_learner: TestClient) -> None:
    _, number, _, question = asking()
    answer = commit(curriculum_learner, list(reversed(question.right)))
    assert answer.status_code == 200, answer.text
    reveal = answer.json()
    assert reveal["correct"] is True and reveal["attempt"] == 1
    assert [s["text"] for s in reveal["statements"] if s["holds"]] == question.right
    assert all(s["why_html"] is None for s in reveal["statements"])  # nothing got wrong
    assert reveal["step"]["insight_html"]
    saved = curriculum_learner.get(f"/api/lessons/{SLUG}/progress").json()["steps"][str(number)]
    assert saved["done"] is True
    assert saved["answer"]["kind"] == SELECT_ALL.name
    assert sorted(saved["answer"]["sent"]["picked"]) == sorted(question.right)
    assert saved["answer"]["reveal"]["statements"] == reveal["statements"]


def test_a_wrong_set_says_why_for_each_statement_it_got_wrong(
    curriculum_learner: TestClient,
) -> None:
    _, _, _, question = asking()
    wrong = [o.text for o in question.options if not o.applies][:1]  # one false, none true
    reveal = commit(curriculum_learner, wrong, "guess").json()
    assert reveal["correct"] is False
    off = {s["text"] for s in reveal["statements"] if s["why_html"]}
    assert off == set(wrong) | set(question.right)
    # Ticking nothing is an answer too, and wrong here.
    assert commit(curriculum_learner, []).json()["correct"] is False


def test_refusals_keep_nothing(curriculum_learner: TestClient) -> None:
    _, number, _, question = asking()
    assert commit(curriculum_learner, question.right, None).status_code == 422  # how sure?
    assert commit(curriculum_learner, ["`z.grad`"]).status_code == 422  # not a statement
    assert curriculum_learner.post(url(), json={"choice": "x"}).status_code == 422
    assert curriculum_learner.post(url(), json={"picked": "nope"}).status_code == 422
    assert curriculum_learner.post(url(), json=["x"]).status_code == 422
    # A review item's form is for a kind graded by a run; a select-all is reviewed on its page.
    sure = {"picked": question.right, "confidence": "guess"}
    assert curriculum_learner.post(url(), json=sure, params={"form": 0}).status_code == 422
    # Another step asks no select-all; a kind no step is answered through is 404.
    other = f"/api/lessons/{SLUG}/steps/1/select-all"
    assert (
        curriculum_learner.post(other, json={"picked": [], "confidence": "guess"}).status_code
        == 404
    )
    nothing = f"/api/lessons/{SLUG}/steps/{number}/myth"
    assert curriculum_learner.post(nothing, json={}).status_code == 404
    saved = curriculum_learner.get(f"/api/lessons/{SLUG}/progress").json()["steps"]
    assert str(number) not in saved


def test_nothing_sent_before_the_commit_says_what_holds(curriculum_learner: TestClient) -> None:
    _, number, step, question = asking()
    page = curriculum_learner.get(f"/lessons/{SLUG}").text
    public = curriculum_learner.get(f"/api/lessons/{SLUG}").text
    drawn = page.split(f'id="step-{number}"', 1)[1].split('class="step"', 1)[0]
    for sent in (drawn, public):
        for option in question.options:
            assert option.holds not in html.unescape(sent)
            assert option.why not in html.unescape(sent)
        assert question.explanation not in html.unescape(sent)
        assert step.concept not in html.unescape(sent)
    asked = curriculum_learner.get(f"/api/lessons/{SLUG}").json()["steps"][number - 1]
    assert set(asked["select_all"]["options"]) == set(question.texts)
    assert set(asked["select_all"]) == {"question", "options"}
    assert re.findall(r'class="select-all-box" value="([^"]*)"', drawn)


def test_a_miss_comes_back_in_review_on_an_instance(curriculum_learner: TestClient) -> None:
    _, _, step, question = asking()
    commit(curriculum_learner, [], "certain")
    # The first answer counts in calibration, with its confidence: a certain miss.
    calibration = curriculum_learner.get("/api/progress/calibration").json()
    assert calibration["based_on"] == 1
    assert [m["title"] for m in calibration["certain_misses"]] == [step.title]
    time_passes(curriculum_learner)
    due = curriculum_learner.get("/api/review").json()["due"]
    item = next(d for d in due if d["kind"] == SELECT_ALL.name)
    assert item["form"] is not None
    instance = instances(step)[item["form"]]
    assert item["code"] == instance.code != step.snippet.code  # type: ignore[union-attr]
    page = curriculum_learner.get("/review").text
    assert 'data-widget="select-all"' in page
    holding = question.holding(instance.readings)
    answer = curriculum_learner.post(
        f"/api/review/{item['id']}/answer?form={item['form']}",
        json={"picked": holding, "confidence": "certain"},
    )
    assert answer.status_code == 200, answer.text
    result = answer.json()
    assert result["correct"] is True
    shown = result["reveal"]
    assert [s["text"] for s in shown["statements"] if s["holds"]] == holding
    assert shown["output"] == instance.output


def test_the_class_dashboard_counts_each_set_ticked(curriculum_learner: TestClient) -> None:
    store = curriculum_learner.app.state.store  # type: ignore[attr-defined]
    links = store.create_class("Select all")
    _, number, _, question = asking()
    wrong = question.right[:1]
    for n, picked in enumerate([question.right, wrong, list(reversed(question.right))]):
        curriculum_learner.cookies.clear()
        joined = curriculum_learner.post(
            f"/api/join/{links.join_token}", json={"display_name": f"L{n}"}
        )
        assert joined.status_code == 200
        assert commit(curriculum_learner, picked).status_code == 200
        commit(curriculum_learner, question.right)  # a later attempt follows the reveal
    curriculum_learner.cookies.clear()
    curriculum_learner.get(f"/teach/{links.instructor_token}", follow_redirects=False)
    items = curriculum_learner.get(f"/api/classes/{links.info.id}/items").json()["items"]
    item = next(i for i in items if i["lesson"] == SLUG and i["number"] == number)
    assert item["kind"] == SELECT_ALL.name and item["answered"] == 3
    rows = {row["text"]: (row["picked"], row["correct"]) for row in item["choices"]}
    assert rows == {
        "ticked " + ", ".join(sorted(question.right)): (2, True),
        "ticked " + wrong[0]: (1, False),
    }
    # The wrong set states the beliefs of the statements it left though they hold.
    missed = [o.misconception for o in question.options if o.applies and o.text not in wrong]
    beliefs = {row["text"]: row["belief"] for row in item["choices"]}
    assert beliefs["ticked " + wrong[0]] == " ".join(m for m in missed if m)
    assert beliefs["ticked " + ", ".join(sorted(question.right))] is None
    page = curriculum_learner.get(f"/classes/{links.info.id}").text
    assert f'id="item-{SLUG}-{SELECT_ALL.name}-{number}"' in page


def test_a_select_all_can_be_reported_as_item_analysis_counts_it(
    curriculum_learner: TestClient,
) -> None:
    _, number, _, _ = asking()
    report = f"/api/lessons/{SLUG}/report"
    body = {"kind": SELECT_ALL.name, "number": number, "text": "Two statements say the same"}
    assert curriculum_learner.post(report, json=body).status_code == 204
    # A step that asks none: no such question to report.
    assert curriculum_learner.post(report, json=body | {"number": 1}).status_code == 404
