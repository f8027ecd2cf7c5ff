"""The gradient doctor's words (app/learning/running/doctor.py): every kind has them, every lesson a
finding links to is a bundled lesson, and the learner's text in them is escaped."""

from __future__ import annotations

import typing

from app.config.paths import BUNDLED_LESSONS
from app.learning.running.doctor import LESSONS, WORDS, finding
from app.lessons.loader import load_catalog
from app.sandbox.backward_result import BackwardWalk
from app.sandbox.doctor_result import Kind, RawFinding

HOSTILE = "<img src=x onerror=alert(1)>"


def test_every_kind_has_words_and_every_lesson_exists() -> None:
    assert set(WORDS) == set(typing.get_args(Kind))
    slugs = {lesson.slug for lesson in load_catalog(BUNDLED_LESSONS).lessons}
    assert set(LESSONS.values()) <= slugs


def test_a_finding_names_its_lesson_by_title_where_the_catalog_has_it() -> None:
    titles = {lesson.slug: lesson.title for lesson in load_catalog(BUNDLED_LESSONS).lessons}
    for kind in typing.get_args(Kind):
        said = finding(
            RawFinding(kind=kind, tensor="w", line=1, cause=None, facts={}), None, titles
        )
        assert said.lesson_title == titles[said.lesson], kind
    unknown = RawFinding(kind="no-graph", tensor="w", line=1, cause=None, facts={})
    assert finding(unknown, None, {}).lesson_title is None


def test_every_kind_and_cause_escapes_the_learner_s_text() -> None:
    causes = [None, "cut", "no_grad", "inference_mode", "frozen", "non-leaf", "unused"]
    causes += ["lr-zero", "no-step", "unchanged", "forward", "backward", "layers", "steps"]
    for kind in typing.get_args(Kind):
        for cause in causes:
            raw = RawFinding(
                kind=kind,
                tensor=HOSTILE,
                line=3,
                cause=cause,
                facts={"op": HOSTILE, "node": HOSTILE, "largest_tensor": HOSTILE, "count": 2},
            )
            said = finding(raw)
            assert "<img" not in said.message_html, (kind, cause)
            assert "&lt;img" in said.message_html, (kind, cause)
            assert said.message_html.count("<") == said.message_html.count("<code>") * 2


def test_a_walk_node_is_kept_only_when_the_run_s_backward_record_has_it() -> None:
    node = {"id": "b0", "label": "SqrtBackward0", "kind": "function", "names": [], "saved": []}
    node |= {"step": 0, "received": [], "sent": [], "hooks": []}
    call = {"number": 1, "api": "Tensor.backward", "line": 4, "roots": [], "inputs": []}
    call |= {"retain_graph": False, "create_graph": False, "nodes": [node], "edges": []}
    call |= {"order": ["b0"], "grads": [], "unreached": [], "error": None, "truncated": False}
    backward = BackwardWalk.model_validate({"calls": [call | {"note": None}], "total_calls": 1})
    raw = {"kind": "non-finite", "tensor": "w", "line": 4, "cause": "backward", "facts": {}}
    for claimed, kept in [
        ((1, "b0"), (1, "b0")),
        ((1, "b7"), (None, None)),
        ((2, "b0"), (None, None)),
    ]:
        said = finding(
            RawFinding.model_validate(raw | dict(zip(("call", "node"), claimed, strict=True))),
            backward,
        )
        assert (said.call, said.node) == kept
    assert (finding(RawFinding.model_validate(raw)).node) is None
