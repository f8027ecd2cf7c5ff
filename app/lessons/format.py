"""The lesson file format, version 1.

A lesson is one YAML file in the lessons directory. Its structure follows the way a good
tutorial teaches one idea: overview, mental model, step-by-step build-up, under the hood, myth
busters, expert zone, pitfalls and takeaways. Every piece of code a lesson shows is a
`Snippet` that declares what running it prints (and, optionally, the `.grad` values it leaves
behind), so that `gradlab check` can prove the lesson tells the truth.

Text fields hold Markdown. Code fields hold Python source.
"""

from __future__ import annotations

from typing import Annotated, ClassVar, Literal, get_args

from pydantic import (
    Field,
    StringConstraints,
    model_validator,
)

from app.lessons.format_base import (
    IDENTIFIER,
    Code,
    ExpectedError,
    GradValue,
    Level,
    Plain,
    Slug,
    Snippet,
    StepLevel,
    Strict,
    Text,
    TextOrMapping,
)
from app.lessons.format_exercises import BLANK, Exercise, Gradcheck, Hint, HintCase, Probe, Rerun
from app.lessons.format_questions import (
    Choice,
    ChoicePrediction,
    Option,
    Ordering,
    Question,
    SelectAll,
    ValueMisconception,
    ValuePrediction,
    distinct_lines,
)
from app.lessons.format_sections import (
    Claim,
    Connection,
    MentalModel,
    Myth,
    MythForm,
    Overview,
    Pitfall,
    UnderTheHood,
)
from app.lessons.format_variants import (
    PLACEHOLDER,
    MisconceptionRule,
    VariantChoice,
    VariantInstance,
    Variants,
    placeholders,
)

__all__ = [
    "BLANK",
    "IDENTIFIER",
    "PLACEHOLDER",
    "Choice",
    "ChoicePrediction",
    "Claim",
    "Code",
    "Connection",
    "Exercise",
    "ExpectedError",
    "GradValue",
    "Gradcheck",
    "Hint",
    "HintCase",
    "Lesson",
    "Level",
    "MentalModel",
    "MisconceptionRule",
    "Myth",
    "MythForm",
    "Option",
    "Ordering",
    "Overview",
    "Pitfall",
    "Plain",
    "Probe",
    "Question",
    "Rerun",
    "SelectAll",
    "Slug",
    "Snippet",
    "Step",
    "StepLevel",
    "Strict",
    "Text",
    "TextOrMapping",
    "UnderTheHood",
    "ValueMisconception",
    "ValuePrediction",
    "VariantChoice",
    "VariantInstance",
    "Variants",
    "placeholders",
]


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
    # Put the last lines of the snippet in an order that prints its output.
    ordering: Ordering | None = None
    # Tick every statement that holds once the snippet has run.
    select_all: SelectAll | None = None
    # New instances of the prediction, the typed value, the step's drills, or its ordering.
    variants: Variants | None = None
    # Why this step has no variants, where its answer is not something the sandbox can compute
    # with other parameters (a step that asks no question, an answer that is a fact of the API).
    no_variants: Text | None = None
    insight: Text
    # The question the insight's flashcard asks (the insight is its answer); without one, the
    # card is a cloze of the insight.
    insight_question: Text | None = None

    # The fields that ask the learner something, each a `Question` declaring what of it a page
    # may send before the commit. A step that has one asks (app/lessons/disclosure.py); the
    # disclosure, the public lesson, the minutes and leak lints and the class dashboard's first
    # attempts iterate over these, and only the format and the kinds name one
    # (tests/test_question_fields.py).
    QUESTIONS: ClassVar[tuple[str, ...]] = (
        "prediction",
        "value_prediction",
        "ordering",
        "select_all",
    )

    def questions(self) -> list[tuple[str, Question]]:
        """(field, question) for each question this step asks."""
        return [(name, q) for name in self.QUESTIONS if (q := getattr(self, name)) is not None]

    @classmethod
    def question_model(cls, name: str) -> type[Question]:
        """The `Question` model the field `name` (one of `QUESTIONS`) holds."""
        annotation = cls.model_fields[name].annotation
        return next(
            t for t in get_args(annotation) if isinstance(t, type) and issubclass(t, Question)
        )

    @property
    def ordering_head(self) -> str:
        """The code shown as it is above an ordering's lines."""
        if self.ordering is None or self.snippet is None:
            return ""
        return self.ordering.head(self.snippet.code) or ""

    @model_validator(mode="after")
    def _ordering_orders_the_snippet(self) -> Step:
        if self.ordering is None:
            return self
        if self.prediction is not None or self.value_prediction is not None:
            raise ValueError("ordering: a step that asks an ordering asks nothing else")
        if self.snippet is None or self.ordering.head(self.snippet.code) is None:
            raise ValueError(
                "ordering.lines: the step's snippet must end with the lines, in this order"
            )
        if self.snippet.error is not None:
            raise ValueError("ordering: the snippet must print its output without raising")
        if self.variants is not None:
            if self.snippet.grads:
                raise ValueError(
                    "snippet.grads: an ordering with variants drills no `.grad` (a drill shows "
                    "an instance's code, the answer to its order)"
                )
            _orders_each_instance(self.ordering, self.variants)
        return self

    @model_validator(mode="after")
    def _select_all_reads_the_run(self) -> Step:
        if self.select_all is None:
            return self
        if self.prediction is not None or self.ordering is not None:
            raise ValueError("select_all: a step that asks a select-all asks no choice or order")
        if self.snippet is None or self.snippet.error is not None:
            raise ValueError(
                "select_all: its statements are read after the snippet runs to its end"
            )
        return self

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


def _orders_each_instance(ordering: Ordering, variants: Variants) -> None:
    """An ordering's variants: each instance is an ordering of its own (the last lines of its
    code, cut as the step's are, and what it prints), so it has no choice, answer or typed
    value to rule on, and each instance's lines must be distinct and its run must finish."""
    if variants.answer is not None or variants.raised is not None:
        raise ValueError(
            "variants: an ordering's instance is answered by an order of its own lines: it has "
            "no `answer` or `raised` texts"
        )
    for index in range(variants.count):
        cut = ordering.split(variants.code_of(index))
        if cut is None:
            raise ValueError(
                f"variants: instance {index + 1}'s code is shorter than the "
                f"{len(ordering.lines)} lines to order"
            )
        if (problem := distinct_lines(cut[1])) is not None:
            raise ValueError(
                f"variants: instance {index + 1}'s last lines cannot be ordered: {problem}"
            )
    for number, stored in enumerate(variants.instances, start=1):
        if stored.error is not None:
            raise ValueError(
                f"variants.instances {number}: an ordering's instance must print its output "
                f"without raising, and this one raises {stored.error.type}: choose other params"
            )


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
            for form_number, form in enumerate(myth.forms, start=1):
                found.append((f"myth {number} form {form_number} demo", form.demo))
        for number, pitfall in enumerate(self.pitfalls, start=1):
            found.append((f"pitfall {number} wrong code", pitfall.wrong))
            found.append((f"pitfall {number} correct code", pitfall.correct))
        return found
