"""A lesson's sections besides its steps and exercises: the overview, the mental model, under
the hood, the myths (and their other forms), the connections, the pitfalls, and the claims that
prove the prose's numbers (app/lessons/format.py puts a lesson together from them)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from app.lessons.format_base import Code, Snippet, Strict, Text


class Overview(Strict):
    what: Text
    why: Text
    where: Text


class MentalModel(Strict):
    core_idea: Text
    analogy: Text
    diagram: str | None = None


class UnderTheHood(Strict):
    text: Text
    diagram: str | None = None


class MythForm(Strict):
    """The same misconception met again as another belief, in other code or numbers: review
    asks a form instead of the lesson's question. Like the myth, only the `question` shows
    before the commit; its `reality` and its demo come with the verdict. The myth's `belief`
    and `why_it_matters` hold for every form."""

    question: Text
    answer: Literal["yes", "no"]
    reality: Text
    # Executable evidence for this form's verdict, checked like any other snippet.
    demo: Snippet


class Myth(Strict):
    """A yes/no question whose answer the page reveals only once the learner commits.

    Only the `question` shows before the commit; the `belief` (what people commonly think),
    the `reality` and `why_it_matters` come with the verdict.
    """

    question: Text
    belief: Text
    answer: Literal["yes", "no"]
    reality: Text
    why_it_matters: Text
    # Executable evidence for the verdict, checked like any other snippet.
    demo: Snippet | None = None
    # Other forms of the same misconception, for review; never shown on the lesson page.
    forms: list[MythForm] = Field(default_factory=list)


class Connection(Strict):
    topic: Text
    relation: Text
    insight: Text


class Pitfall(Strict):
    """A mistake, its fix and why. Pitfalls run code and print what it gives, so they belong to
    the reference part of a lesson: a learner sees them once every prediction of the build-up is
    committed, or, with `after_step: N`, once the steps up to N are."""

    title: Text
    wrong: Snippet
    correct: Snippet
    root_cause: Text
    # The last build-up step this pitfall's outputs may answer; it opens when the learner has
    # committed every step up to it. Unset: it opens with the rest of the reference.
    after_step: Annotated[int, Field(ge=1)] | None = None
    # A learner's fix is graded by behaviour: the corrected code's output and its declared
    # non-`None` `.grad` values, a gradient of zeros and `None` counting as the same. Set this
    # only when the difference between `None` and zeros is the point of the pitfall: then the
    # corrected code's `None` claims are part of the goal too, and zeros do not stand for them.
    none_matters: bool = False

    @model_validator(mode="after")
    def _two_sides_differ(self) -> Pitfall:
        if self.wrong.code.strip() == self.correct.code.strip():
            raise ValueError("correct: the corrected code is the same as the wrong code")
        if self.correct.error is not None:
            raise ValueError("correct: the corrected code must not be expected to raise")
        return self


class Claim(Strict):
    """A number the prose states that no snippet shows, and the code that proves it.

    `gradlab check` finds `says` (a fragment of the lesson's prose, copied; code marks and
    line breaks aside) and runs `code` in the sandbox: its assertions must hold. `says` may
    list several fragments that the same code proves. Authors only: a claim is never sent to
    a learner, so its code may compute what a step asks."""

    says: Text | Annotated[list[Text], Field(min_length=1)]
    code: Code

    @property
    def fragments(self) -> list[str]:
        return [self.says] if isinstance(self.says, str) else list(self.says)

    @model_validator(mode="after")
    def _code_asserts(self) -> Claim:
        if "assert" not in self.code:
            raise ValueError("code: a claim's code proves its numbers with `assert`")
        return self
