"""An ordering asked in review on a variant instance, end to end on the real curriculum with the
real sandbox, on SQLite and PostgreSQL: the return sends the instance's lines in an order of
its own and the instance's output (never its author's order, nor its code), the order is run in
the instance's code and graded against the instance's output, the due item is answered and
asks another instance next time, and the lesson page's committed answer stays as it was."""

from __future__ import annotations

import html
import re
from datetime import timedelta

import pytest
from fastapi.testclient import TestClient

from app import rendering
from app.lessons.format import Step
from app.lessons.variants import Instance, instances
from tests.catalogs import BUNDLED
from tests.clock import time_passes

SLUG = "gradients-accumulate"


def ordering_step() -> tuple[int, Step]:
    lesson = BUNDLED.get(SLUG)
    assert lesson is not None
    return next((n, s) for n, s in enumerate(lesson.steps, 1) if s.ordering is not None)


def url(form: int | None = None) -> str:
    number, _ = ordering_step()
    asked = "" if form is None else f"?form={form}"
    return f"/api/lessons/{SLUG}/steps/{number}/ordering{asked}"


def another_order_that_works(lines: list[str]) -> list[str]:
    """Another right order of an instance of the step: two calls side by side swapped, or else
    a call that no read sees (just before the clearing, after a read) moved to the end."""
    for at in range(len(lines) - 1):
        if all(line.endswith(".backward()") for line in lines[at : at + 2]):
            return [*lines[:at], lines[at + 1], lines[at], *lines[at + 2 :]]
    call = lines.index("x.grad.zero_()") - 1
    assert lines[call].endswith(".backward()") and lines[call - 1].startswith("print(")
    return [*lines[:call], *lines[call + 1 :], lines[call]]


def miss_and_wait(curriculum_learner: TestClient) -> dict[str, object]:
    """A wrong order on the lesson page, then time for its review item to fall due."""
    _, step = ordering_step()
    assert step.ordering is not None
    first, second, summed, clear, third, fresh = step.ordering.texts
    wrong = [first, clear, second, summed, third, fresh]  # clears before anything is there
    missed = curriculum_learner.post(
        url(), json={"order": wrong, "confidence": "fairly_sure"}
    ).json()
    assert missed["correct"] is False
    time_passes(curriculum_learner)
    due = curriculum_learner.get("/api/review").json()["due"]
    assert len(due) == 1 and due[0]["kind"] == "ordering"
    item: dict[str, object] = due[0]
    return item


def asked(item: dict[str, object]) -> Instance:
    _, step = ordering_step()
    form = item["form"]
    assert isinstance(form, int)
    return instances(step)[form]


def drawn_lines(curriculum_learner: TestClient) -> tuple[str, list[str], str]:
    """The review item as the page draws it: its markup, its lines in order, its output."""
    drawn = curriculum_learner.get("/review").text.split('class="review-item"', 1)[1]
    lines = [html.unescape(line) for line in re.findall(r'data-line="([^"]*)"', drawn)]
    output = re.search(r'class="stdout ordering-output"[^>]*><code>(.*?)</code>', drawn, re.S)
    assert output is not None
    return drawn, lines, html.unescape(output.group(1))


def test_each_instance_asks_lines_and_an_output_of_its_own() -> None:
    """Each bundled ordering with variants: every instance's lines are the last lines of its
    code, as many as the step's, and no two instances print the same."""
    with_variants = [
        (lesson.slug, step)
        for lesson in BUNDLED.lessons
        for step in lesson.steps
        if step.ordering is not None and step.variants is not None
    ]
    assert len(with_variants) >= 4
    for slug, step in with_variants:
        found = instances(step)
        assert len(found) >= 2, slug
        for instance in found:
            assert len(instance.lines) == len(step.ordering.lines if step.ordering else [])
            assert instance.code.endswith("\n".join(instance.lines) + "\n")
        assert len({instance.output for instance in found}) == len(found), slug


def test_review_asks_an_instance_without_sending_its_order(curriculum_learner: TestClient) -> None:
    _, step = ordering_step()
    item = miss_and_wait(curriculum_learner)
    assert isinstance(item["form"], int)
    instance = asked(item)
    assert step.snippet is not None and instance.code.strip() != step.snippet.code.strip()
    assert item["code"] is None and item["choices"] == []  # the JSON sends no code, no lines
    drawn, lines, output = drawn_lines(curriculum_learner)
    assert f'data-form="{item["form"]}"' in drawn
    assert sorted(lines) == sorted(instance.lines) and lines != list(instance.lines)
    assert output == instance.output
    assert html.escape(instance.lines[-2]) in drawn  # the instance's own numbers
    page_and_json = drawn + curriculum_learner.get("/api/review").text
    assert "\n".join(instance.lines) not in html.unescape(page_and_json)
    assert instance.explanation.strip()[:50] not in html.unescape(page_and_json)


def test_an_order_is_run_in_the_instance_and_answers_the_due_item(
    curriculum_learner: TestClient,
) -> None:
    number, step = ordering_step()
    item = miss_and_wait(curriculum_learner)
    instance = asked(item)
    form = item["form"]
    assert isinstance(form, int)
    before = curriculum_learner.get(f"/api/lessons/{SLUG}/progress").json()["steps"][str(number)]
    # The lesson page's lines are not this question's: refused, before any run.
    own = curriculum_learner.post(
        url(form), json={"order": step.ordering.texts if step.ordering else []}
    )
    assert own.status_code == 422
    wrong_form = next(i.index for i in instances(step) if i.index != form)
    body = {"order": list(instance.lines), "confidence": "certain"}
    refused = curriculum_learner.post(url(wrong_form), json=body)
    assert refused.status_code == 422 and refused.json()["type"].endswith("not-the-form-asked")
    # Any order that prints the output passes, not only the instance's own.
    lines = another_order_that_works(list(instance.lines))
    assert lines != list(instance.lines)
    swapped = {"order": lines, "confidence": "certain"}
    answered = curriculum_learner.post(url(form), json=swapped)
    assert answered.status_code == 200, answered.text
    reveal = answered.json()
    assert reveal["correct"] is True and reveal["output"] == reveal["expected"] == instance.output
    assert reveal["answer"] == list(instance.lines)
    assert reveal["comes_back"] and reveal["due_count"] == 0
    assert reveal["step"]["explanation_html"] == ""  # the step's own speaks of its numbers
    assert reveal["explanation_html"] == str(rendering.markdown(instance.explanation))
    # Answered: the item is not due now, and the step's committed answer is unchanged.
    assert curriculum_learner.post(url(form), json=swapped).status_code == 409
    after = curriculum_learner.get(f"/api/lessons/{SLUG}/progress").json()["steps"][str(number)]
    assert after["answer"] == before["answer"]
    # Its next return asks another instance.
    time_passes(curriculum_learner, timedelta(days=60))
    again = curriculum_learner.get("/api/review").json()["due"][0]
    assert again["kind"] == "ordering" and again["form"] != form


def test_a_wrong_order_of_the_instance_is_graded_by_what_it_prints(
    curriculum_learner: TestClient,
) -> None:
    item = miss_and_wait(curriculum_learner)
    instance = asked(item)
    clear = "x.grad.zero_()"
    late = [line for line in instance.lines if line != clear]
    late.insert(len(late) - 1, clear)  # the clearing just before the second read
    reveal = curriculum_learner.post(
        url(item["form"]), json={"order": late, "confidence": "certain"}
    ).json()  # type: ignore[arg-type]
    assert reveal["correct"] is False and reveal["error"] is None
    assert reveal["output"] != instance.output and reveal["output"].endswith("tensor(0.)\n")
    assert reveal["comes_back"]  # a miss: reviewed as `again`


def test_the_due_item_is_read_off_the_event_loop_on_postgresql(
    curriculum_learner: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before the run, the route reads which instance the due item asks: on PostgreSQL, a round
    trip to the server, in a thread (on SQLite a read stays in place)."""
    from app.progress.store import ProgressStore
    from tests.learning.test_store_off_the_loop import _watch

    item = miss_and_wait(curriculum_learner)
    instance = asked(item)
    seen: list[str] = []
    for name in dir(ProgressStore):
        method = getattr(ProgressStore, name)
        if not name.startswith("_") and callable(method):
            monkeypatch.setattr(ProgressStore, name, _watch(seen, name, method))
    body = {"order": list(instance.lines), "confidence": "certain"}
    answered = curriculum_learner.post(url(item["form"]), json=body)  # type: ignore[arg-type]
    assert answered.status_code == 200 and answered.json()["correct"] is True
    store = curriculum_learner.app.state.store  # type: ignore[attr-defined]
    if not store.reads_in_place:
        assert seen == []
    else:
        assert "review_card_of" in seen  # the watch sees the in-place read on SQLite
