"""Where a sentence's blank goes, for a recall card, and when a card answers itself.

A blank must fall on the idea, the part of the sentence that carries its meaning: a name every
lesson repeats (`.grad`, `None`, `backward()`) is recalled from the lesson's title, and a blank
whose answer shows elsewhere on the card is read, not recalled. So a blank is the last code span
that is neither (an API name or an expression, usually the point of the sentence); failing
that, the sentence is cut after its first clause or its verb, and the learner completes it.

The flashcards (app/modes/flashcards.py) build their cards with these functions, and the
pedagogy lints (app/lessons/lint.py) report a sentence they cannot blank and a question that
states its own answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_CODE_SPAN = re.compile(r"`([^`\n]+)`")
# Where a clause ends: "; ", ": ", ", " (never inside a code span, a link or parentheses).
_CLAUSE_END = re.compile(r"[;:,]\s")
# The first verb of a sentence that has no clause to cut at: the learner completes the predicate.
_VERB = re.compile(
    r"\b(is|are|holds|fills|adds?|keeps?|gives?|returns?|moves?|makes?|means|needs?|runs?|"
    r"writes|reads|stays?|becomes?|turns?|goes|has|have|calls?|sees?|saves?|frees?|skips?|"
    r"picks?|scales?|defers?|applies|apply|stops?|lands?|points?|counts?)\s"
)
# Names every lesson repeats, and a snippet's one- or two-letter variables (`x`, `y`, `w1`): a
# blank on one of them alone tests nothing.
_COMMON = re.compile(
    r"^(?:[A-Za-z_]\w*)?\.grad$|^None$|^backward\(\)$|^True$|^False$|^[A-Za-z]\w?$"
)
_LONGEST_SPAN = 40  # characters: a longer span (an error message) is quoted, not recalled
_FEWEST_WORDS = 2  # the least a completion asks for
_MARKUP = re.compile(r"`|\*|(?<!\w)_|_(?!\w)")
_WORD = re.compile(r"[a-z0-9_]+(?:\.[a-z0-9_]+)*")
# Words that carry no idea of their own, for comparing a question with its answer.
_STOPWORDS = frozenset(
    re.findall(
        r"\S+",
        "a an and are as at be by can do does for from has have if in into is it its it's of "
        "on one or so than that the their them then there these this those to under was what "
        "when where which while who why will with without you your not no only",
    )
)
# A question sharing this share of its answer's words states the answer.
SELF_ANSWER_SHARE = 0.8


@dataclass(frozen=True)
class Blank:
    """A sentence with a hole: `before` + `answer` + `after` is the sentence."""

    before: str
    answer: str
    after: str


def common(answer: str) -> bool:
    """Is this blank a name every lesson repeats (`.grad`, `x.grad`, `None`, `backward()`) or a
    snippet's variable?"""
    return bool(_COMMON.match(answer.strip("`").strip()))


def _stem(answer: str) -> str:
    # `requires_grad_()`, `requires_grad=True` and requires_grad all name requires_grad.
    name = answer.strip("`").strip().lower()
    name = re.split(r"[=(\s]", name, maxsplit=1)[0] or name
    return name.strip("._")


def shows_elsewhere(answer: str, front: str) -> bool:
    """Does the answer show on the card's front? For a code span, the name it is built on
    (`requires_grad_()` shows in `requires_grad`); for words, the words themselves."""
    text = " ".join(_MARKUP.sub("", front).lower().split())
    span = _CODE_SPAN.fullmatch(answer.strip())
    needle = _stem(answer) if span else " ".join(_MARKUP.sub("", answer).lower().split())
    if len(needle) < 2:
        return False
    if re.search(rf"(?<![\w.]){re.escape(needle)}(?!\w)", text):
        return True
    # `x.grad.zero_()` shows in "`zero_()` fails": the method named last, on any tensor.
    last = needle.rsplit(".", 1)[-1] if span and "." in needle else ""
    return (
        len(last) > 3
        and last != "grad"
        and re.search(rf"(?<!\w){re.escape(last)}", text) is not None
    )


def _balanced(text: str) -> bool:
    return (
        text.count("`") % 2 == 0
        and text.count("[") == text.count("]")
        and text.count("(") == text.count(")")
    )


def _span_blank(text: str, context: str) -> Blank | None:
    for match in reversed(list(_CODE_SPAN.finditer(text))):
        answer = match.group(0)
        if common(answer) or len(match.group(1)) > _LONGEST_SPAN:
            continue
        before, after = text[: match.start()], text[match.end() :]
        if not shows_elsewhere(answer, f"{context} {before} {after}"):
            return Blank(before, answer, after)
    return None


def _cut_blank(text: str) -> Blank | None:
    cuts = [m.end() for m in _CLAUSE_END.finditer(text)] + [m.end() for m in _VERB.finditer(text)]
    for cut in sorted(cuts):
        before, rest = text[:cut], text[cut:]
        if len(before.split()) < 2 or len(rest.split()) < _FEWEST_WORDS:
            continue
        if _balanced(before) and not common(rest.rstrip(".")):
            return Blank(before, rest, "")
    return None


def blank(text: str, context: str = "") -> Blank | None:
    """The sentence's blank: on its idea, never on a common name alone nor on an answer the
    rest of the sentence or the card's `context` (a step's title) shows; None when the
    sentence has no such place."""
    return _span_blank(text, context) or _cut_blank(text)


def _words(text: str) -> set[str]:
    # A plural or a verb's -s does not change the idea: "fills" and "fill" are one word here.
    words = set(_WORD.findall(_MARKUP.sub("", text).lower())) - _STOPWORDS
    return {word[:-1] if len(word) > 3 and word.endswith("s") else word for word in words}


def states_answer(question: str, answer: str) -> bool:
    """Does the question already say what its answer says (most of the answer's words)?"""
    words = _words(answer)
    return bool(words) and len(words & _words(question)) >= SELF_ANSWER_SHARE * len(words)
