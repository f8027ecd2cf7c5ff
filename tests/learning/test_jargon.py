"""Autograd's terms reach the inspector once taught: each term's home is the first step of
the path whose concept names it; a lesson's pages name the terms its learner knows."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from app.learning.pages.jargon import TERMS, known_terms, term_homes
from app.lessons.disclosure import Disclosure
from tests.catalogs import BUNDLED


def _lesson(slug: str):  # type: ignore[no-untyped-def]
    lesson = BUNDLED.get(slug)
    assert lesson is not None
    return lesson


def test_every_term_has_a_home_in_the_bundled_path() -> None:
    homes = term_homes(BUNDLED)
    assert set(homes) == set(TERMS)
    leaves = _lesson("requires-grad-and-leaves")
    assert homes["is_leaf"].lesson == leaves.slug
    assert "is_leaf" in leaves.steps[homes["is_leaf"].step - 1].concept
    assert homes["retain_grad"].lesson == "retain-grad-and-hooks"
    assert homes["retain_graph"].lesson == "graphs-used-twice"


def test_the_first_lesson_knows_no_term_and_a_later_one_knows_the_earlier_ones() -> None:
    first = _lesson("what-is-grad")
    assert known_terms(BUNDLED, first, Disclosure(first, frozenset())) == []
    hooks = _lesson("retain-grad-and-hooks")
    fresh = known_terms(BUNDLED, hooks, Disclosure(hooks, frozenset()))
    assert fresh == ["is_leaf", "grad_fn"]  # taught in lesson 2; retain_grad in this one


def test_a_term_of_this_lesson_is_known_once_its_step_is_behind_the_learner() -> None:
    leaves = _lesson("requires-grad-and-leaves")
    home = term_homes(BUNDLED)["is_leaf"].step
    before = Disclosure(leaves, frozenset(range(1, home - 1)))
    assert "is_leaf" not in known_terms(BUNDLED, leaves, before)
    past = Disclosure(leaves, frozenset(range(1, home + 1)))
    assert "is_leaf" in known_terms(BUNDLED, leaves, past)
    assert known_terms(BUNDLED, leaves, Disclosure.everything(leaves))[:2] == ["is_leaf", "grad_fn"]


def _known(html: str) -> list[str]:
    match = re.search(r'data-known-terms="([^"]*)"', html)
    assert match is not None
    return match.group(1).split()


def test_the_page_tells_the_inspector_which_terms_are_known(bundled: TestClient) -> None:
    assert _known(bundled.get("/lessons/what-is-grad").text) == []
    assert _known(bundled.get("/lessons/what-is-grad/code-lab").text) == []
    assert _known(bundled.get("/lessons/torch-func/deep-dive").text) == list(TERMS)
    bundled.post("/lessons/requires-grad-and-leaves/read-ahead", follow_redirects=False)
    page = bundled.get("/lessons/requires-grad-and-leaves").text
    assert _known(page) == ["is_leaf", "grad_fn"]
