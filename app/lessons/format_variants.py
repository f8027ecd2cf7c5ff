"""A step's variants: new instances of its question, their answers computed by the sandbox
(`gradlab check --update`) and verified by `gradlab check`; app/lessons/variants.py serves them."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import (
    Field,
    model_validator,
)

from app.lessons.format_base import (
    IDENTIFIER,
    Code,
    ExpectedError,
    GradValue,
    Plain,
    Strict,
    Text,
    TextOrMapping,
)

# --- variants: new instances of a step's question, computed by the sandbox ---------------------
PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
# What a template may name on an instance whose run raised: the exception's type name and the
# stable first line of its message (as a snippet's `error.message_contains`).
RAISED = ("error", "error_message")


def placeholders(template: str) -> set[str]:
    """The `{name}` placeholders a code or text template uses."""
    return set(PLACEHOLDER.findall(template))


def _as_text(value: Plain) -> str:
    """A value as it stands in a template: text as it is, anything else as a Python literal."""
    return value if isinstance(value, str) else repr(value)


def fill(template: str, values: dict[str, Plain]) -> str:
    """`template` with each `{name}` of `values` replaced; other braces are left alone."""

    def replace(found: re.Match[str]) -> str:
        name = found.group(1)
        return _as_text(values[name]) if name in values else found.group(0)

    return PLACEHOLDER.sub(replace, template)


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


class RaisedTexts(Strict):
    """The texts of an instance whose code raised, where a step's instances differ in whether
    they raise: the right choice's text and the explanation, templates over the params,
    `{error}` and `{error_message}`."""

    answer: Text | None = None
    explanation: Text | None = None


class VariantInstance(Strict):
    """One instance as the sandbox ran it; written by `gradlab check --update`, verified by
    `gradlab check`."""

    params: dict[str, Plain]
    values: dict[str, Plain] = Field(default_factory=dict)
    # What the code printed (before it raised, if it did).
    output: str = ""
    # The exception the code raised, if it did: then it never finished, and the `values`,
    # `grads` and `misconceptions` that need it to finish are absent.
    error: ExpectedError | None = None
    # `.grad` of the value prediction's tensor and of the snippet's `grads` names.
    grads: dict[str, GradValue] = Field(default_factory=dict)
    # The value of each `misconceptions` rule, in order.
    misconceptions: list[GradValue] = Field(default_factory=list)
    # What each of the step's question readings evaluated to (`Question.readings`).
    readings: dict[str, Plain] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _a_raised_run_computed_nothing(self) -> VariantInstance:
        if self.error is not None and (
            self.values or self.grads or self.misconceptions or self.readings
        ):
            raise ValueError(
                "an instance that raised has no values, grads or misconceptions: "
                "its code never finished"
            )
        return self

    def named(self) -> dict[str, Plain]:
        """What this instance's templates may name beside its params: its values, or, if it
        raised, `error` and `error_message`."""
        if self.error is None:
            return dict(self.values)
        return {"error": self.error.type, "error_message": self.error.message_contains}


class Variants(Strict):
    """New instances of a step's question: the same code with other parameters, whose answers
    the sandbox computes. Instance i takes the i-th value of every parameter."""

    # name -> the values it takes, one per instance (every list as long as the others).
    params: Annotated[dict[str, Annotated[list[Plain], Field(min_length=2)]], Field(min_length=1)]
    # The step's code with `{name}` where a parameter goes (text is inserted as it is, other
    # values as Python literals); nothing else in it is touched.
    code: Code
    # name -> a Python expression evaluated after the code runs (`str(x.grad)`, `y.item()`);
    # `{name}` of a param is filled in first. An instance whose code raises has none; its
    # texts may name `{error}` (the exception's type) and `{error_message}` instead.
    values: dict[str, Text] = Field(default_factory=dict)
    # The prediction's choices as rules, one per choice of the step, in the same order.
    choices: list[VariantChoice] = Field(default_factory=list)
    # Where which choice is right depends on the params (a detached tensor: `None`), a template
    # giving the right choice's text; by default the rule in the place of the step's answer.
    answer: Text | None = None
    # The typed value's wrong values as rules.
    misconceptions: list[MisconceptionRule] = Field(default_factory=list)
    # Why an instance's answer is what it is, for its reveal: a template over the params and
    # values (the step's own explanations name the step's own numbers), or one text per
    # instance, in the params' order, where instances differ in more than their numbers (an
    # ordering whose right order moves).
    explanation: Text | Annotated[list[Text], Field(min_length=2)]
    # Where some instances raise and others run to the end: the `answer` and `explanation` of
    # those that raised (the ones above then serve those that finished).
    raised: RaisedTexts | None = None
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

    def code_of(self, index: int) -> str:
        """Instance `index`'s code: the code template filled with its params."""
        return fill(self.code, self.params_of(index))

    def explanation_of(self, index: int) -> str:
        """The explanation template of instance `index`."""
        explanation = self.explanation
        return explanation if isinstance(explanation, str) else explanation[index]

    @property
    def explanations(self) -> list[str]:
        explanation = self.explanation
        return [explanation] if isinstance(explanation, str) else list(explanation)

    @model_validator(mode="after")
    def _params_fill_the_code(self) -> Variants:
        lengths = {len(values) for values in self.params.values()}
        if len(lengths) != 1:
            raise ValueError("params: every parameter needs as many values as the others")
        for name in self.params:
            if not IDENTIFIER.match(name) or "." in name:
                raise ValueError(f"params: {name!r} is not a name")
        if not isinstance(self.explanation, str) and len(self.explanation) not in lengths:
            raise ValueError(
                f"explanation: {len(self.explanation)} texts for {lengths.pop()} instances "
                "(one per instance, in the params' order, or one template for all)"
            )
        used = placeholders(self.code)
        if unknown := used - set(self.params):
            raise ValueError(f"code: {{{sorted(unknown)[0]}}} is not a parameter")
        if unused := set(self.params) - used:
            raise ValueError(f"params: {sorted(unused)[0]!r} is not used in the code")
        return self

    @model_validator(mode="after")
    def _texts_name_what_exists(self) -> Variants:
        for name in RAISED:
            if name in self.params or name in self.values:
                raise ValueError(
                    f"{{{name}}} names what an instance that raises raised: "
                    "call the param or value something else"
                )
        known = set(self.values) | set(self.params) | set(RAISED)
        templates = [("explanation", " ".join(self.explanations)), ("answer", self.answer or "")]
        if self.raised is not None:
            templates += [
                ("raised answer", self.raised.answer or ""),
                ("raised explanation", self.raised.explanation or ""),
            ]
        templates += [
            (f"choices {n}", f"{c.text} {c.why or ''}") for n, c in enumerate(self.choices, 1)
        ]
        templates += [(f"misconceptions {n}", m.why) for n, m in enumerate(self.misconceptions, 1)]
        for where, template in templates:
            if unknown := placeholders(template) - known:
                raise ValueError(f"{where}: {{{sorted(unknown)[0]}}} is not a param or a value")
        return self
