"""The questions a step asks, one model each (`Step.QUESTIONS` lists the fields that hold
them): a choice prediction, a typed value, an ordering, a select-all, and what they share (a
choice, the `Question` declaration of what a page may send before the commit)."""

from __future__ import annotations

import hashlib
from typing import Annotated, ClassVar

from pydantic import Field, StringConstraints, model_validator

from app.lessons.format_base import (
    IDENTIFIER,
    Code,
    GradValue,
    Plain,
    Snippet,
    Strict,
    Text,
    TextOrMapping,
)
from app.lessons.numeric import compare


class Choice(TextOrMapping):
    """One answer a learner can pick. A wrong choice names the misconception behind it.

    In a lesson file a choice is either plain text (fine for the right answer) or a mapping
    with `text`, `why` (shown when a learner picks it: what that belief gets wrong) and,
    where the choice claims to be what some other code gives, `because`: that code, which
    `gradlab check` runs to prove it prints the choice.
    """

    text: Text
    why: Text | None = None
    because: Code | None = None
    # The belief behind a wrong choice, in a teacher's words ("Thinks `.grad` holds the
    # tensor's own value."): shown on the class dashboard beside how many picked it, never to a
    # learner. `why` is the rebuttal the learner reads; this is what they believed.
    misconception: Text | None = None

    def __str__(self) -> str:
        return self.text


class Question(Strict):
    """A question a step asks (`Step.QUESTIONS` lists the fields that hold one). Each kind
    declares what of it a page may send before the learner commits an answer; the public
    lesson (app/lessons/public.py) sends exactly that."""

    # Fields sent only with the reveal.
    hidden: ClassVar[frozenset[str]] = frozenset()
    # The field whose items each learner is sent in an order of their own, if any.
    in_learner_order: ClassVar[str | None] = None
    # Is the step's code itself the answer (sent only with the reveal)?
    withholds_code: ClassVar[bool] = False
    # Is its answer computed from the step's numbers, so that review asks it again on a variant
    # instance with other numbers (app/lessons/lint_variants.py)?
    computed: ClassVar[bool] = False
    # Is it sent only once the step's other question is committed, when the step asks another
    # (app/lessons/disclosure.py, `question_open`)?
    after_others: ClassVar[bool] = False
    # The fields holding its own text, sent before the commit, and what the leak lints call them
    # (app/lessons/lint_visible.py: "step 3's value question").
    asked: ClassVar[tuple[str, ...]] = ("question",)
    called: ClassVar[str] = "question"
    # The fields of prose that explain its answer, sent with the step's reveal.
    explains: ClassVar[tuple[str, ...]] = ("explanation",)
    # How long a learner takes to answer it (app/lessons/lint_minutes.py).
    minutes: ClassVar[float] = 0.5

    def sent(self, snippet: Snippet | None) -> dict[str, object]:
        """What a page may send of this question before the commit, as JSON."""
        dumped = self.model_dump(mode="json")
        return {k: v for k, v in dumped.items() if k not in self.hidden}

    def asked_texts(self) -> list[str]:
        """Its own text, as sent before the commit (the fields `asked` names)."""
        return [str(getattr(self, name)) for name in self.asked]

    def explanations(self) -> list[str]:
        """The prose its reveal explains the answer with (the fields `explains` names)."""
        return [str(getattr(self, name)) for name in self.explains]

    def outcome(self) -> tuple[str, str] | None:
        """(what it is, its text): the answer as the reveal states it ("its answer", ...),
        None when the step's own outcome (its output) is the answer's."""
        return None

    @property
    def texts(self) -> list[str]:
        """The items a learner gets in an order of their own (`in_learner_order`), as text."""
        return []

    def shuffled(self, key: str) -> list[str]:
        """Those items in the order of `key` (see `shuffled`), never the file's order."""
        return shuffled(self.texts, key)

    def believed(self) -> list[tuple[str, str | None, str | None]]:
        """Each answer a learner can get wrong that stands for a belief: (its text, the belief
        in a teacher's words, the `why` the learner reads); the belief lint reads them."""
        return []

    def readings(self) -> dict[str, str]:
        """name -> a Python expression that a run of the step's code (and of each variant
        instance's) evaluates after it finishes, where the question's answer is what the run
        says: `gradlab check` compares the step's with `stated()`, and `--update` keeps each
        instance's (`VariantInstance.readings`)."""
        return {}

    def stated(self) -> dict[str, Plain]:
        """name -> what the lesson states each reading evaluates to on the step's own code."""
        return {}


class ChoicePrediction(Question):
    """A question the learner answers before the step's output is revealed."""

    hidden: ClassVar[frozenset[str]] = frozenset({"answer", "explanation"})
    in_learner_order: ClassVar[str | None] = "choices"
    computed: ClassVar[bool] = True

    question: Text
    choices: Annotated[list[Choice], Field(min_length=2, max_length=6)]
    answer: Text
    explanation: Text

    def outcome(self) -> tuple[str, str] | None:
        return ("its answer", self.answer)

    @property
    def texts(self) -> list[str]:
        return [choice.text for choice in self.choices]

    def sent(self, snippet: Snippet | None) -> dict[str, object]:
        # A wrong choice's `why` and `because` would say it is wrong: only its text shows.
        return {"question": self.question, "choices": self.texts}

    def believed(self) -> list[tuple[str, str | None, str | None]]:
        return [(c.text, c.misconception, c.why) for c in self.choices if c.text != self.answer]

    def choice(self, text: str) -> Choice | None:
        """The choice whose text is `text` (grading goes by the choice, never its position)."""
        return next((choice for choice in self.choices if choice.text == text), None)

    @model_validator(mode="after")
    def _answer_is_a_choice(self) -> ChoicePrediction:
        if len(set(self.texts)) != len(self.texts):
            raise ValueError("choices: two choices are the same")
        if self.answer not in self.texts:
            raise ValueError(f"answer: {self.answer!r} is not one of the choices {self.texts}")
        return self


class ValueMisconception(Strict):
    """A wrong value a learner may type for a `.grad`, and what the belief behind it gets wrong.
    Shown when the typed value matches it, so `why` must not give the right value away."""

    value: GradValue
    why: Text


class ValuePrediction(Question):
    """The learner types the `.grad` of one tensor; it is checked numerically against the run.
    A typed value that matches one of `misconceptions` gets that misconception's `why`."""

    # Named wrong values would narrow the answer down: they come only with a matching answer.
    hidden: ClassVar[frozenset[str]] = frozenset({"expected", "explanation", "misconceptions"})
    computed: ClassVar[bool] = True
    # On a step that asks a choice, its mere presence would say the code does not raise.
    after_others: ClassVar[bool] = True
    called: ClassVar[str] = "value question"

    question: Text
    tensor: Annotated[str, StringConstraints(pattern=IDENTIFIER.pattern)]
    expected: GradValue
    explanation: Text
    misconceptions: list[ValueMisconception] = Field(default_factory=list)

    def outcome(self) -> tuple[str, str] | None:
        return ("its value", f"{self.tensor}.grad = {self.expected}")

    @model_validator(mode="after")
    def _misconceptions_are_wrong_and_distinct(self) -> ValuePrediction:
        for number, wrong in enumerate(self.misconceptions, start=1):
            if compare(wrong.value, self.expected).matches:
                raise ValueError(f"misconceptions {number}: {wrong.value!r} is the right value")
            for other in self.misconceptions[: number - 1]:
                if compare(wrong.value, other.value).matches:
                    raise ValueError(f"misconceptions {number}: {wrong.value!r} is listed twice")
        return self


def shuffled(texts: list[str], key: str) -> list[str]:
    """`texts` (an ordering's lines, in the author's order) in the order of `key`: a keyed hash
    of each line (a learner's id gives each learner an order of their own), never the
    author's order."""
    secret = key.encode()[:64]

    def rank(text: str) -> bytes:
        return hashlib.blake2b(text.encode(), key=secret, digest_size=16).digest()

    order = sorted(texts, key=rank)
    return order[1:] + order[:1] if order == texts else order


def distinct_lines(lines: list[str]) -> str | None:
    """Why these lines cannot be an ordering's (an order is graded by its texts), or None."""
    if len(set(lines)) != len(lines):
        return "two lines are the same (an order is graded by its texts)"
    if any(not line.strip() for line in lines):
        return "a line is empty"
    return None


class Ordering(Question):
    """Put the lines of the step's code in an order that prints what its `output` says (a
    Parsons problem). `lines` are the last lines of the step's snippet, in the order the author
    wrote them (each may be a block of several lines); what comes before them is shown as it
    is. The learner is sent the lines in an order of their own and their order is graded by
    running it: any order that prints the snippet's output without raising passes. With the
    step's `variants`, each instance is an ordering of its own: the last lines of its code, cut
    as these are, and the output it prints (review asks one)."""

    # The lines are sent in the learner's order, never this one; the explanation with the
    # reveal.
    hidden: ClassVar[frozenset[str]] = frozenset({"explanation"})
    in_learner_order: ClassVar[str | None] = "lines"
    withholds_code: ClassVar[bool] = True
    # With variants, review asks the order again on an instance whose numbers change it.
    computed: ClassVar[bool] = True
    called: ClassVar[str] = "ordering question"

    question: Text
    lines: Annotated[list[Code], Field(min_length=2, max_length=8)]
    explanation: Text

    @model_validator(mode="after")
    def _lines_are_distinct(self) -> Ordering:
        if (problem := distinct_lines([line.strip("\n") for line in self.lines])) is not None:
            raise ValueError(f"lines: {problem}")
        return self

    @property
    def texts(self) -> list[str]:
        return [line.strip("\n") for line in self.lines]

    def sent(self, snippet: Snippet | None) -> dict[str, object]:
        """The question, the code above the lines, the lines (never in the author's order:
        each learner's own replaces this one) and the output the right order prints."""
        code = snippet.code if snippet is not None else ""
        return {
            "question": self.question,
            "head": self.head(code) or "",
            "lines": self.shuffled(""),
            "output": snippet.output if snippet is not None else "",
        }

    @property
    def shape(self) -> list[int]:
        """How many lines of code each of the lines holds (a block may hold several)."""
        return [line.count("\n") + 1 for line in self.texts]

    def split(self, code: str) -> tuple[str, list[str]] | None:
        """`code` (a variant instance's) cut as the step's code is: the head, and its last
        lines in blocks of the same sizes as this ordering's lines; None when it is too short."""
        physical = code.rstrip("\n").split("\n")
        wanted = sum(self.shape)
        if len(physical) < wanted:
            return None
        head = physical[: len(physical) - wanted]
        blocks, at = [], len(head)
        for size in self.shape:
            blocks.append("\n".join(physical[at : at + size]))
            at += size
        return "".join(f"{line}\n" for line in head), blocks

    def head(self, code: str) -> str | None:
        """What comes before the lines in `code` (the snippet's), or None when `code` does not
        end with the lines in this order."""
        body = "\n".join(self.texts)
        trimmed = code.rstrip("\n")
        if not trimmed.endswith(body):
            return None
        head = trimmed[: len(trimmed) - len(body)]
        return head if head == "" or head.endswith("\n") else None

    def program(self, head: str, order: list[str]) -> str:
        """The code the learner's order makes."""
        return head + "\n".join(order) + "\n"


class Option(Strict):
    """One statement of a "select all that apply" question. `holds` is a Python expression
    evaluated after the step's code runs (`a.grad is not None`); the statement applies when it
    is true, and `applies` says what the lesson states it is (`gradlab check` runs it)."""

    text: Text
    holds: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=500)]
    applies: bool
    # Shown when the learner's answer on this statement is wrong (ticked but false, or left
    # but true): what the belief behind that gets wrong. Each statement needs one.
    why: Text
    # The belief behind getting it wrong, in a teacher's words (see `Choice.misconception`).
    misconception: Text | None = None


class SelectAll(Question):
    """Tick every statement that holds after the step's code runs (none may hold). Each
    statement's truth is what a run of the code says (`Option.holds`), so with the step's
    `variants` each instance asks the same statements about other code. Graded at once: right
    when the ticked set is exactly the set that holds."""

    hidden: ClassVar[frozenset[str]] = frozenset({"explanation"})
    in_learner_order: ClassVar[str | None] = "options"
    computed: ClassVar[bool] = True
    called: ClassVar[str] = "select-all question"
    minutes: ClassVar[float] = 1.0

    question: Text
    options: Annotated[list[Option], Field(min_length=3, max_length=6)]
    explanation: Text

    @property
    def texts(self) -> list[str]:
        return [option.text for option in self.options]

    @property
    def right(self) -> list[str]:
        """The statements that hold on the step's own code, in the file's order."""
        return [option.text for option in self.options if option.applies]

    def asked_texts(self) -> list[str]:
        return [self.question, *self.texts]

    def believed(self) -> list[tuple[str, str | None, str | None]]:
        # Each statement can be got wrong: ticked though false, or left though true.
        return [(o.text, o.misconception, o.why) for o in self.options]

    def explanations(self) -> list[str]:
        return [self.explanation, *(option.why for option in self.options)]

    def holding(self, read: dict[str, Plain]) -> list[str]:
        """The statements that hold on a run whose readings gave `read`."""
        return [o.text for n, o in enumerate(self.options, 1) if read.get(f"option {n}")]

    def option(self, text: str) -> Option | None:
        return next((option for option in self.options if option.text == text), None)

    def outcome(self) -> tuple[str, str] | None:
        return ("what holds", "; ".join(self.right) or "none of them")

    def sent(self, snippet: Snippet | None) -> dict[str, object]:
        # What holds (`applies`), how it is worked out (`holds`) and `why` would answer it.
        return {"question": self.question, "options": self.texts}

    def readings(self) -> dict[str, str]:
        return {f"option {n}": f"bool({o.holds})" for n, o in enumerate(self.options, 1)}

    def stated(self) -> dict[str, Plain]:
        return {f"option {n}": o.applies for n, o in enumerate(self.options, 1)}

    @model_validator(mode="after")
    def _statements_are_distinct(self) -> SelectAll:
        if len(set(self.texts)) != len(self.texts):
            raise ValueError("options: two statements are the same")
        return self
