"""Code to write: an exercise's blanks, its goal, its hints, and optionally a gradcheck or a
diagnosis to make first (app/lessons/exercises.py runs it)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import (
    Field,
    StringConstraints,
    model_validator,
)

from app.lessons.format_base import IDENTIFIER, Code, GradValue, Slug, Strict, Text
from app.lessons.format_questions import ChoicePrediction

# A line of an exercise's code that is only this marker is a blank the learner writes.
BLANK = "____"


class Gradcheck(Strict):
    """How an exercise's custom `backward` is graded: `torch.autograd.gradcheck` on `function`
    with `inputs`, made double-precision tensors that require grad, after the code has run."""

    # What gradcheck calls, as the code names it (`Square.apply`).
    function: Annotated[str, StringConstraints(pattern=IDENTIFIER.pattern)]
    # One Python expression per input, each giving a tensor (`torch.randn(3)`).
    inputs: Annotated[
        list[Annotated[str, StringConstraints(min_length=1, max_length=200)]],
        Field(min_length=1, max_length=4),
    ]


# What a learner's miss is about, as the grading reads its run: an error (or a run stopped), an
# output that differs from the goal's while the `.grad` values are right, or a `.grad` that is
# not the goal's (gradcheck's finding and a gradient that does not follow other values too).
HintCase = Literal["error", "output", "grads"]


class Hint(Strict):
    """A hint for one kind of miss (`when`); a hint given as plain text serves any miss."""

    text: Text
    when: HintCase | None = None


class Rerun(Strict):
    """A second run the grading makes of the filled code, with values in the given code
    replaced (`replace`: text of the given code -> what stands there instead); the filled code
    must do what this goal says there too. A `.grad` written in by hand does not follow."""

    replace: Annotated[dict[str, str], Field(min_length=1)]
    output: str = ""
    grads: dict[str, GradValue] = Field(default_factory=dict)


class Probe(Strict):
    """A behaviour the grading checks in the sandbox: `watch` (code) is added after the given
    line `after`, before the learner's lines run; after the run, `value` (an expression) must
    be `expect` (compared as `repr` gives it). `miss` tells the learner what it requires."""

    after: Annotated[str, StringConstraints(min_length=1, max_length=200)]
    watch: Code
    value: Annotated[str, StringConstraints(min_length=1, max_length=200)]
    expect: Annotated[str, StringConstraints(min_length=1, max_length=200)]
    miss: Text


class Exercise(Strict):
    """Code to write: the learner fills the blank lines (`____`) of `code`, and the filled code
    is run in the sandbox and graded by what it does (output, no error, the `.grad` values that
    matter, as a pitfall fix is), never by its text. `gradlab check` proves that the reference
    `solution` passes and that the code with its blanks unfilled fails.

    With `diagnosis`, the learner first sees the code with its blanks holding `buggy` and names
    the bug (a choice, each wrong one a misconception with a `why`); `source` is the lesson the
    bug comes from, linked once they have answered; then they write the fix."""

    title: Text
    # What the filled code is for, in words (the output and the `.grad` goal are shown as well).
    task: Text
    code: Code
    # What fills each blank in the reference solution, in order (a blank may take several lines).
    solution: Annotated[list[Code], Field(min_length=1)]
    # What the filled code prints, byte for byte, and the `.grad` values it leaves.
    output: str = ""
    grads: dict[str, GradValue] = Field(default_factory=dict)
    none_matters: bool = False
    gradcheck: Gradcheck | None = None
    # Leading questions, one per failed check, chosen by what the run did (`when`: error,
    # output, grads; plain text serves any miss); none may contain the solution.
    hints: Annotated[list[Text | Hint], Field(min_length=1, max_length=6)]
    # How the grading makes sure the mechanism was used: a second run with other values, and
    # a behaviour checked in the sandbox (docs/authoring.md, "Code to write").
    rerun: Rerun | None = None
    probe: Probe | None = None
    # What the blanks hold in the buggy code a diagnosis shows.
    buggy: list[Code] | None = None
    diagnosis: ChoicePrediction | None = None
    source: Slug | None = None
    # The step this exercise follows: it opens once steps 1..N are committed (unset: with the
    # reference, once the build-up is).
    after_step: Annotated[int, Field(ge=1)] | None = None

    @property
    def hint_list(self) -> list[Hint]:
        """Every hint, a plain one as a hint for any miss."""
        return [hint if isinstance(hint, Hint) else Hint(text=hint) for hint in self.hints]

    @property
    def blanks(self) -> int:
        return sum(1 for line in self.code.splitlines() if line.strip() == BLANK)

    @model_validator(mode="after")
    def _blanks_match(self) -> Exercise:
        if self.blanks == 0:
            raise ValueError(f"code: no blank line (a line that is only {BLANK})")
        if len(self.solution) != self.blanks:
            raise ValueError(f"solution: {len(self.solution)} entries for {self.blanks} blank(s)")
        if (self.diagnosis is None) != (self.buggy is None) or (
            (self.diagnosis is None) != (self.source is None)
        ):
            raise ValueError("diagnosis, buggy and source go together")
        if self.buggy is not None and len(self.buggy) != self.blanks:
            raise ValueError(f"buggy: {len(self.buggy)} entries for {self.blanks} blank(s)")
        for name in [*self.grads, *(self.rerun.grads if self.rerun else {})]:
            if not IDENTIFIER.match(name):
                raise ValueError(f"grads: {name!r} is not a variable name")
        given = [line for line in self.code.splitlines() if line.strip() != BLANK]
        for old in self.rerun.replace if self.rerun else {}:
            if sum(line.count(old) for line in given) != 1:
                raise ValueError(f"rerun.replace: {old!r} is not once in the given code")
        if self.probe is not None and self.probe.after.strip() not in (g.strip() for g in given):
            raise ValueError(f"probe.after: {self.probe.after!r} is not a line of the code")
        return self
