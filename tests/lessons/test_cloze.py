"""Where a recall card's blank goes (app/lessons/cloze.py): on the idea, never on a name every
lesson repeats, never on an answer the rest of the card shows."""

from __future__ import annotations

import pytest

from app.lessons.cloze import Blank, blank, common, shows_elsewhere, states_answer


@pytest.mark.parametrize("name", ["`.grad`", "`x.grad`", "`None`", "`backward()`", "`y`", "`w1`"])
def test_names_every_lesson_repeats_are_common(name: str) -> None:
    assert common(name)


@pytest.mark.parametrize("name", ["`retain_grad()`", "`no_grad`", "`grad_fn`", "`1`"])
def test_an_api_name_is_not_common(name: str) -> None:
    assert not common(name)


def test_the_blank_is_the_last_telling_code_span() -> None:
    text = "Read gradients with `.item()` and compare them with `torch.allclose`."
    assert blank(text) == Blank(
        "Read gradients with `.item()` and compare them with ", "`torch.allclose`", "."
    )


def test_a_span_whose_name_shows_elsewhere_is_not_blanked() -> None:
    # `requires_grad_()` would be read off `requires_grad` earlier in the sentence.
    text = "`requires_grad` is off by default; switch it on with `requires_grad_()`."
    hole = blank(text)
    assert hole is not None and "requires_grad_()" not in hole.answer.split("`")[0:1]
    assert hole.before == "`requires_grad` is " and hole.after == ""
    assert hole.answer == "off by default; switch it on with `requires_grad_()`."


def test_without_a_telling_span_the_sentence_is_cut_after_a_clause() -> None:
    text = "It is intended, or no path reached `.grad`; check `None` first."
    hole = blank(text)
    assert hole == Blank("It is ", "intended, or no path reached `.grad`; check `None` first.", "")


def test_a_sentence_with_nowhere_to_cut_has_no_blank() -> None:
    assert blank("Gradients accumulate.") is None
    assert blank("Fresh `.grad` is `None`.") is None  # "is" leaves one word to complete


def test_shows_elsewhere_matches_the_name_not_a_longer_one() -> None:
    assert shows_elsewhere("`zero_grad()`", "call zero_grad before")
    assert not shows_elsewhere("`grad`", "call zero_grad before")


def test_a_question_that_repeats_its_answer_states_it() -> None:
    assert states_answer("Why does backward fill leaves?", "Backward fills leaves.")
    assert not states_answer("Which tensors does backward write to?", "Backward fills leaves.")


def test_a_method_call_shows_where_its_method_does() -> None:
    # "`zero_()` fails ..." on the card gives `x.grad.zero_()` away, whatever the tensor.
    assert shows_elsewhere("`x.grad.zero_()`", "`zero_()` fails while `.grad` is None")
    assert shows_elsewhere("`opt.zero_grad()`", "call `model.zero_grad()` first")
    assert not shows_elsewhere("`x.grad.zero_()`", "Clear it before the next backward")
    assert not shows_elsewhere("`w.grad`", "`x.grad` holds it")  # `grad` alone is every tensor's
