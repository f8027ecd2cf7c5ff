"""The lesson file format, version 1.

A lesson is one YAML file in the lessons directory. Its structure follows the way a good
tutorial teaches one idea: overview, mental model, step-by-step build-up, under the hood, myth
busters, expert zone, pitfalls and takeaways. Every piece of code a lesson shows is a
`Snippet` that declares what running it prints (and, optionally, the `.grad` values it leaves
behind), so that `gradlab check` can prove the lesson tells the truth.

Text fields hold Markdown. Code fields hold Python source.
"""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetJsonSchemaHandler,
    StringConstraints,
    model_validator,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema
from typing_extensions import TypeAliasType

from app.lessons.numeric import compare

Slug = Annotated[str, StringConstraints(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$", max_length=64)]
Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
Code = Annotated[str, StringConstraints(min_length=1, max_length=20_000)]
# A gradient as a lesson writes it: a number, a (nested) list of numbers, or null for None.
GradValue = TypeAliasType("GradValue", "float | list[GradValue] | None")

IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


class Strict(BaseModel):
    """Every model refuses unknown fields, so a typo in a lesson is an error, not silence."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Level(StrEnum):
    beginner = "beginner"
    intermediate = "intermediate"
    advanced = "advanced"
    expert = "expert"


class StepLevel(StrEnum):
    foundation = "foundation"
    intermediate = "intermediate"
    advanced = "advanced"
    expert = "expert"


class ExpectedError(Strict):
    """The exception a snippet is meant to raise."""

    type: Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_.]*$")]
    # A fragment of the message, matched literally; enough to tell this error from others.
    message_contains: Text


class Snippet(Strict):
    """Runnable code and everything it is claimed to do when run."""

    code: Code
    # Exactly what the snippet prints to stdout, byte for byte ("" when it prints nothing).
    output: str = ""
    # Set when the snippet is meant to fail; `output` is then what it prints before failing.
    error: ExpectedError | None = None
    # `.grad` of named tensors after the run, compared numerically; null claims `.grad is None`.
    grads: dict[str, GradValue] = Field(default_factory=dict)
    # Open the backward walk under the run's output (it is collapsed in lesson steps otherwise).
    # Runs are locked until the prediction is committed, so the walk never shows before it.
    walk: bool = False

    @model_validator(mode="after")
    def _grad_names_are_identifiers(self) -> Snippet:
        for name in self.grads:
            if not IDENTIFIER.match(name):
                raise ValueError(f"grads: {name!r} is not a variable name")
        return self


class TextOrMapping(Strict):
    """A model a lesson file may write as plain text, meaning `{text: ...}` (a choice)."""

    @model_validator(mode="before")
    @classmethod
    def _plain_text_is_a_choice(cls, data: object) -> object:
        return {"text": data} if isinstance(data, str) else data

    @classmethod
    def __get_pydantic_json_schema__(
        cls, core_schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        # The validator above turns plain text into {text: ...}, which pydantic cannot see:
        # say in the schema that a choice may also be a string.
        found = handler(core_schema)
        schema = handler.resolve_ref_schema(found)
        mapping = dict(schema)
        schema.clear()
        schema["anyOf"] = [{"type": "string", "minLength": 1}, mapping]
        schema["description"] = mapping.get("description", "")
        schema["title"] = mapping.get("title", "Choice")
        return found


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

    def __str__(self) -> str:
        return self.text


class ChoicePrediction(Strict):
    """A question the learner answers before the step's output is revealed."""

    question: Text
    choices: Annotated[list[Choice], Field(min_length=2, max_length=6)]
    answer: Text
    explanation: Text

    @property
    def texts(self) -> list[str]:
        return [choice.text for choice in self.choices]

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


class ValuePrediction(Strict):
    """The learner types the `.grad` of one tensor; it is checked numerically against the run.
    A typed value that matches one of `misconceptions` gets that misconception's `why`."""

    question: Text
    tensor: Annotated[str, StringConstraints(pattern=IDENTIFIER.pattern)]
    expected: GradValue
    explanation: Text
    misconceptions: list[ValueMisconception] = Field(default_factory=list)

    @model_validator(mode="after")
    def _misconceptions_are_wrong_and_distinct(self) -> ValuePrediction:
        for number, wrong in enumerate(self.misconceptions, start=1):
            if compare(wrong.value, self.expected).matches:
                raise ValueError(f"misconceptions {number}: {wrong.value!r} is the right value")
            for other in self.misconceptions[: number - 1]:
                if compare(wrong.value, other.value).matches:
                    raise ValueError(f"misconceptions {number}: {wrong.value!r} is listed twice")
        return self


# --- variants: new instances of a step's question, computed by the sandbox ---------------------
# A value a variant's parameter or computed value holds: a number, text, a truth value, a list.
Plain = TypeAliasType("Plain", "bool | int | float | str | list[Plain] | None")
PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def placeholders(template: str) -> set[str]:
    """The `{name}` placeholders a code or text template uses."""
    return set(PLACEHOLDER.findall(template))


class VariantChoice(TextOrMapping):
    """One choice of the step's prediction in every instance, in the step's choice order: a
    `text` template whose `{name}`s are the variant's `values` (the rule that makes this choice,
    right or wrong, for any numbers) and, where the step's `why` names numbers, a `why` template."""

    text: Text
    why: Text | None = None


class MisconceptionRule(Strict):
    """A wrong typed value as a rule: a Python expression evaluated after each instance runs
    (`y.item()`: "the value of the output"), and what the belief behind it gets wrong (a
    template over the params and values, like the choices')."""

    value: Text
    why: Text


class VariantInstance(Strict):
    """One instance as the sandbox ran it; written by `gradlab check --update`, verified by
    `gradlab check`."""

    params: dict[str, Plain]
    values: dict[str, Plain] = Field(default_factory=dict)
    output: str = ""
    # `.grad` of the value prediction's tensor and of the snippet's `grads` names.
    grads: dict[str, GradValue] = Field(default_factory=dict)
    # The value of each `misconceptions` rule, in order.
    misconceptions: list[GradValue] = Field(default_factory=list)


class Variants(Strict):
    """New instances of a step's question: the same code with other parameters, whose answers
    the sandbox computes. Instance i takes the i-th value of every parameter."""

    # name -> the values it takes, one per instance (every list as long as the others).
    params: Annotated[dict[str, Annotated[list[Plain], Field(min_length=2)]], Field(min_length=1)]
    # The step's code with `{name}` where a parameter goes (text is inserted as it is, other
    # values as Python literals); nothing else in it is touched.
    code: Code
    # name -> a Python expression evaluated after the code runs (`str(x.grad)`, `y.item()`);
    # `{name}` of a param is filled in first.
    values: dict[str, Text] = Field(default_factory=dict)
    # The prediction's choices as rules, one per choice of the step, in the same order.
    choices: list[VariantChoice] = Field(default_factory=list)
    # Where which choice is right depends on the params (a detached tensor: `None`), a template
    # giving the right choice's text; by default the rule in the place of the step's answer.
    answer: Text | None = None
    # The typed value's wrong values as rules.
    misconceptions: list[MisconceptionRule] = Field(default_factory=list)
    # Why an instance's answer is what it is, for its reveal: a template over the params and
    # values (the step's own explanations name the step's own numbers).
    explanation: Text
    # Written by `gradlab check --update`: what each instance computed. Instances written for
    # other params than these are stale: none is served, and `gradlab check` fails, until the
    # update writes them again.
    instances: list[VariantInstance] = Field(default_factory=list)

    @property
    def current(self) -> bool:
        """Were the stored instances written for these params?"""
        return len(self.instances) == self.count and all(
            instance.params == self.params_of(index)
            for index, instance in enumerate(self.instances)
        )

    @property
    def count(self) -> int:
        return len(next(iter(self.params.values())))

    def params_of(self, index: int) -> dict[str, Plain]:
        return {name: values[index] for name, values in self.params.items()}

    @model_validator(mode="after")
    def _params_fill_the_code(self) -> Variants:
        lengths = {len(values) for values in self.params.values()}
        if len(lengths) != 1:
            raise ValueError("params: every parameter needs as many values as the others")
        for name in self.params:
            if not IDENTIFIER.match(name) or "." in name:
                raise ValueError(f"params: {name!r} is not a name")
        used = placeholders(self.code)
        if unknown := used - set(self.params):
            raise ValueError(f"code: {{{sorted(unknown)[0]}}} is not a parameter")
        if unused := set(self.params) - used:
            raise ValueError(f"params: {sorted(unused)[0]!r} is not used in the code")
        return self

    @model_validator(mode="after")
    def _texts_name_what_exists(self) -> Variants:
        known = set(self.values) | set(self.params)
        templates = [("explanation", self.explanation), ("answer", self.answer or "")]
        templates += [
            (f"choices {n}", f"{c.text} {c.why or ''}") for n, c in enumerate(self.choices, 1)
        ]
        templates += [(f"misconceptions {n}", m.why) for n, m in enumerate(self.misconceptions, 1)]
        for where, template in templates:
            if unknown := placeholders(template) - known:
                raise ValueError(f"{where}: {{{sorted(unknown)[0]}}} is not a param or a value")
        return self


class Step(Strict):
    """One build-up step.

    Before a learner commits a prediction, the page shows only what sets the question up:
    the `title`, the `setup`, the locked code and the question with its choices. The
    `concept`, the `explanation` and the `insight` explain the answer, so they appear only
    after the commit (on a step without a prediction, at once). `gradlab check` fails a
    step whose answer, or a number of it, shows in what is visible before the commit.
    """

    title: Text
    level: StepLevel
    # What the learner needs to know to make the prediction; must not give its answer away.
    setup: Text | None = None
    concept: Text
    explanation: Text
    snippet: Snippet | None = None
    prediction: ChoicePrediction | None = None
    value_prediction: ValuePrediction | None = None
    # New instances of the prediction, the typed value and the step's drills.
    variants: Variants | None = None
    insight: Text
    # The question the insight's flashcard asks (the insight is its answer); without one, the
    # card is a cloze of the insight.
    insight_question: Text | None = None

    @model_validator(mode="after")
    def _value_prediction_needs_code(self) -> Step:
        if self.value_prediction is not None and self.snippet is None:
            raise ValueError("value_prediction: a value prediction needs a snippet to check it")
        return self

    @model_validator(mode="after")
    def _variants_fit_the_step(self) -> Step:
        variants = self.variants
        if variants is None:
            return self
        if self.snippet is None:
            raise ValueError("variants: variants need the step's snippet")
        asked = len(self.prediction.choices) if self.prediction else 0
        if len(variants.choices) != asked:
            raise ValueError(
                f"variants.choices: {len(variants.choices)} rules for the prediction's "
                f"{asked} choices (one per choice, in the same order)"
            )
        if variants.misconceptions and self.value_prediction is None:
            raise ValueError("variants.misconceptions: the step asks for no typed value")
        return self


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
    # Leading questions, shown one per failed check; none may contain the solution.
    hints: Annotated[list[Text], Field(min_length=1, max_length=3)]
    # What the blanks hold in the buggy code a diagnosis shows.
    buggy: list[Code] | None = None
    diagnosis: ChoicePrediction | None = None
    source: Slug | None = None
    # The step this exercise follows: it opens once steps 1..N are committed (unset: with the
    # reference, once the build-up is).
    after_step: Annotated[int, Field(ge=1)] | None = None

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
        for name in self.grads:
            if not IDENTIFIER.match(name):
                raise ValueError(f"grads: {name!r} is not a variable name")
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


class Lesson(Strict):
    format: Literal[1]
    slug: Slug
    title: Text
    summary: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]
    level: Level
    minutes: Annotated[int, Field(ge=1, le=120)]
    # Position in the suggested learning path (lower comes first).
    order: Annotated[int, Field(ge=0)]
    torch_version: Annotated[str, StringConstraints(pattern=r"^\d+\.\d+(\.\d+)?$")]
    prerequisites: list[Slug] = Field(default_factory=list)
    next: Slug | None = None

    overview: Overview
    mental_model: MentalModel
    steps: Annotated[list[Step], Field(min_length=1)]
    under_the_hood: UnderTheHood | None = None
    why_designed: str | None = None
    myths: list[Myth] = Field(default_factory=list)
    expert_zone: list[Text] = Field(default_factory=list)
    when_not_to_use: str | None = None
    production_patterns: str | None = None
    connections: list[Connection] = Field(default_factory=list)
    pitfalls: list[Pitfall] = Field(default_factory=list)
    exercises: list[Exercise] = Field(default_factory=list)
    takeaways: Annotated[list[Text], Field(min_length=1)]
    # Numbers in the prose that no snippet prints, each with code that proves it (authors only).
    claims: list[Claim] = Field(default_factory=list)

    @model_validator(mode="after")
    def _links_are_not_circular(self) -> Lesson:
        for number, pitfall in enumerate(self.pitfalls, start=1):
            if pitfall.after_step is not None and pitfall.after_step > len(self.steps):
                raise ValueError(
                    f"pitfalls[{number}].after_step: {pitfall.after_step} is past the last "
                    f"step ({len(self.steps)})"
                )
        for number, exercise in enumerate(self.exercises, start=1):
            if exercise.after_step is not None and exercise.after_step > len(self.steps):
                raise ValueError(
                    f"exercises[{number}].after_step: {exercise.after_step} is past the last "
                    f"step ({len(self.steps)})"
                )
        if self.slug in self.prerequisites:
            raise ValueError("prerequisites: a lesson cannot require itself")
        if self.next == self.slug:
            raise ValueError("next: a lesson cannot lead to itself")
        return self

    def snippets(self) -> list[tuple[str, Snippet]]:
        """Every snippet in the lesson with a label saying where it stands."""
        found: list[tuple[str, Snippet]] = []
        for number, step in enumerate(self.steps, start=1):
            if step.snippet is not None:
                found.append((f"step {number} ({step.title})", step.snippet))
        for number, myth in enumerate(self.myths, start=1):
            if myth.demo is not None:
                found.append((f"myth {number} demo", myth.demo))
        for number, pitfall in enumerate(self.pitfalls, start=1):
            found.append((f"pitfall {number} wrong code", pitfall.wrong))
            found.append((f"pitfall {number} correct code", pitfall.correct))
        return found
