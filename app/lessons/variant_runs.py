"""Run a step's variants in the sandbox: what `gradlab check --update` writes and `gradlab check`
verifies.

Each instance runs as its filled-in code followed by a probe that prints, after a marker line,
the variant's named `values`, the `.grad` of the tensors the step asks about and the value of
each misconception rule, as JSON. What the code printed before the marker is the instance's
output. The probe first prints a marker of its own: a run that raised without it raised in the
code, and the instance records that error (type and stable first line, as a snippet's `error`)
instead of values; a run that raised after it raised in a `values` or misconception
expression, a failure.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
from collections.abc import Awaitable, Callable
from typing import Any

from app.lessons.format import (
    ExpectedError,
    GradValue,
    Lesson,
    Plain,
    Step,
    VariantInstance,
    Variants,
)
from app.lessons.format_variants import RAISED, placeholders
from app.lessons.lint import Finding, step_label
from app.lessons.numeric import compare
from app.lessons.variants import (
    Instance,
    asked_tensors,
    coincidences,
    empty_texts,
    fill,
    finished,
    instance_code,
    instances,
    question_readings,
    texts_of,
)
from app.lessons.yaml_edit import stable_fragment
from app.sandbox.result import RunResult

Runner = Callable[[str], Awaitable[RunResult]]
RAN = "\n@@gradlab-variant-ran@@"
MARK = "\n@@gradlab-variant-values@@"
_PROBE = """
print({ran!r}, end="")
import json as _gradlab_json


def _gradlab_plain(value):
    return value.tolist() if hasattr(value, "tolist") else value


print({mark!r} + _gradlab_json.dumps({{{entries}}}, default=str))
"""


def _expressions(step: Step, variants: Variants, index: int) -> dict[str, str]:
    params = variants.params_of(index)
    found = {f"value {name}": fill(expr, params) for name, expr in variants.values.items()}
    found |= {f"grad {name}": f"{name}.grad" for name in asked_tensors(step)}
    for number, rule in enumerate(variants.misconceptions, start=1):
        found[f"misconception {number}"] = fill(rule.value, params)
    found |= {f"reading {name}": code for name, code in question_readings(step).items()}
    return found


def _probed(code: str, expressions: dict[str, str]) -> str:
    entries = ", ".join(
        f"{key!r}: _gradlab_plain({expression})" for key, expression in expressions.items()
    )
    return code + _PROBE.format(ran=RAN, mark=MARK, entries=entries)


async def stated_findings(lesson: Lesson, run: Runner) -> list[Finding]:
    """`gradlab check`: what each question's readings evaluate to after the step's own code runs
    is what the lesson claims (`Question.claims`: a select-all's `applies`)."""
    asked = [
        (number, step, readings)
        for number, step in enumerate(lesson.steps, start=1)
        if step.snippet is not None and (readings := question_readings(step))
    ]
    codes = [_probed(step.snippet.code, readings) for _, step, readings in asked if step.snippet]
    results = await asyncio.gather(*(run(code) for code in codes))
    failures = []
    for (number, step, readings), result in zip(asked, results, strict=True):
        where = f"{step_label(number, step)} readings"
        _, ran, probed = result.stdout.rpartition(RAN)
        _, marked, found = probed.rpartition(MARK)
        if result.error is not None or not ran or not marked:
            raised = f": {result.error.type}: {result.error.message}" if result.error else ""
            failures.append(Finding(lesson.slug, where, f"the readings did not run{raised}"))
            continue
        computed = json.loads(found)
        stated = {name: value for _, q in step.questions() for name, value in q.stated().items()}
        failures += [
            Finding(
                lesson.slug,
                where,
                f"{name} is stated {stated.get(name)!r}, the run says "
                f"{computed.get(name)!r} ({readings[name]})",
            )
            for name in readings
            if stated.get(name) != computed.get(name)
        ]
    return failures


def probe_code(step: Step, variants: Variants, index: int) -> str:
    return _probed(instance_code(variants, index), _expressions(step, variants, index))


def _rounded(value: Any) -> Any:
    """float32 noise past 7 significant digits is not a claim (as for a snippet's grads)."""
    if isinstance(value, list):
        return [_rounded(item) for item in value]
    if isinstance(value, float) and math.isfinite(value):
        return float(f"{value:.7g}")
    return value


def read_run(step: Step, variants: Variants, index: int, result: RunResult) -> VariantInstance:
    """The instance a run computed, which may be an error the code raised; ValueError says
    why there is none."""
    if result.status not in ("ok", "error"):
        raise ValueError(f"the run ended with status {result.status!r}")
    if result.truncated:
        raise ValueError("the run printed more than the sandbox keeps")
    output, ran, probed = result.stdout.rpartition(RAN)
    error = result.error
    if error is not None and ran:
        raise ValueError(
            f"a `values` or misconception expression raised {error.type}: {error.message}"
        )
    if error is not None and step.ordering is not None:
        raise ValueError(
            f"raised {error.type}: {error.message}; an ordering's instance must print its "
            "output without raising: choose other params"
        )
    if error is not None:
        fragment = stable_fragment(error.message)
        if not fragment:
            raise ValueError(f"raised {error.type} with no usable message")
        return VariantInstance(
            params=variants.params_of(index),
            output=result.stdout,
            error=ExpectedError(type=error.type, message_contains=fragment),
        )
    _, marked, probed = probed.rpartition(MARK)
    if not ran or not marked:
        raise ValueError("the run exited before its values were printed")
    found = json.loads(probed)
    variants_values = {name: _rounded(found[f"value {name}"]) for name in variants.values}
    return VariantInstance(
        params=variants.params_of(index),
        values=variants_values,
        output=output,
        grads={name: _rounded(found[f"grad {name}"]) for name in asked_tensors(step)},
        misconceptions=[
            _rounded(found[f"misconception {n}"])
            for n in range(1, len(variants.misconceptions) + 1)
        ],
        readings={name: _rounded(found[f"reading {name}"]) for name in question_readings(step)},
    )


def variant_steps(lesson: Lesson) -> list[tuple[int, Step, Variants]]:
    return [
        (number, step, step.variants)
        for number, step in enumerate(lesson.steps, start=1)
        if step.variants is not None
    ]


async def run_instances(
    lesson: Lesson, run: Runner
) -> dict[int, list[VariantInstance | ValueError]]:
    """Every instance of every step with variants, run now: step number -> instances."""
    jobs = [
        (number, step, variants, index)
        for number, step, variants in variant_steps(lesson)
        for index in range(variants.count)
    ]
    results = await asyncio.gather(*(run(probe_code(s, v, i)) for _, s, v, i in jobs))
    computed: dict[int, list[VariantInstance | ValueError]] = {}
    for (number, step, variants, index), result in zip(jobs, results, strict=True):
        try:
            made: VariantInstance | ValueError = read_run(step, variants, index, result)
        except ValueError as exc:
            made = exc
        computed.setdefault(number, []).append(made)
    return computed


def _same(stored: Plain | GradValue, fresh: Plain | GradValue) -> bool:
    if isinstance(stored, str) or isinstance(fresh, str):
        return stored == fresh
    if isinstance(stored, bool) or isinstance(fresh, bool):
        return stored == fresh
    return compare(stored, fresh).matches


def _typed(value: Plain | dict[str, Plain]) -> object:
    """`value` with each number and truth value paired with its type, for a comparison in
    which `3`, `3.0` and `True` differ as they differ in the code a param is written into."""
    if isinstance(value, dict):
        return {key: _typed(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_typed(item) for item in value]
    return (type(value).__name__, value)


def _raised(instance: VariantInstance) -> str:
    error = instance.error
    return "finishes" if error is None else f"raises {error.type}: {error.message_contains!r}"


def differences(stored: VariantInstance, fresh: VariantInstance) -> list[str]:
    """How a stored instance differs from what the sandbox computes now."""
    found = []
    if _typed(stored.params) != _typed(fresh.params):  # 3 and 3.0 are two params
        found.append(f"params are written {stored.params!r}, now {fresh.params!r}")
    if stored.output != fresh.output:
        found.append(f"output is written {stored.output!r} but the run prints {fresh.output!r}")
    if stored.error != fresh.error:
        found.append(f"error is written {_raised(stored)}, but the run {_raised(fresh)}")
    for part in ("values", "grads", "readings"):
        kept, now = getattr(stored, part), getattr(fresh, part)
        for name in sorted(set(kept) | set(now)):
            if name not in kept or name not in now or not _same(kept[name], now[name]):
                found.append(
                    f"{part}.{name} is written {kept.get(name)!r}, computed {now.get(name)!r}"
                )
    if len(stored.misconceptions) != len(fresh.misconceptions) or not all(
        _same(a, b) for a, b in zip(stored.misconceptions, fresh.misconceptions, strict=False)
    ):
        found.append(
            f"misconceptions are written {stored.misconceptions!r}, "
            f"computed {fresh.misconceptions!r}"
        )
    return found


# A number as prose names it ("9 is the value of `y`"), and any run of digits a text shows
# ("2w" shows 2). 0 and 1 are left out: every gradient step has them (the seed gradient of 1,
# a branch that gets 0), so naming them is not quoting the step's numbers.
_NAMED = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?!\w)")
_SHOWN = re.compile(r"\d+(?:\.\d+)?")


def _named_numbers(text: str) -> set[float]:
    return {float(n) for n in _NAMED.findall(text)} - {0.0, 1.0, -0.0, -1.0}


def _shown_numbers(*texts: str) -> set[float]:
    return {float(n) for text in texts for n in _SHOWN.findall(text)}


def _step_numbers(step: Step) -> set[float]:
    """The numbers the step itself shows: its code, output, choices and explanations."""
    snippet, prediction = step.snippet, step.prediction
    texts = [step.explanation]
    if snippet is not None:
        texts += [snippet.code, snippet.output]
    if prediction is not None:
        texts += [*prediction.texts, prediction.explanation]
    return _shown_numbers(*texts)


def template_problems(step: Step, instance: Instance) -> list[str]:
    """Where this instance's texts cannot be what its templates mean: a template naming what
    the instance has not (a value of an instance that raised, `{error}` of one that did not),
    and a choice rule without `why` whose fallback, the step's own `why`, names one of the
    step's numbers that this instance does not show."""
    variants = step.variants
    if variants is None:
        return []
    stored = variants.instances[instance.index]
    has = set(variants.params) | set(stored.named())
    answer, explanation = texts_of(variants, not instance.finished, instance.index)
    templates = [("the explanation", explanation), ("the answer", answer or "")]
    templates += [
        (f"choice {n}", f"{c.text} {c.why or ''}") for n, c in enumerate(variants.choices, 1)
    ]
    if instance.finished:  # an instance that raised is never asked a typed value
        templates += [
            (f"misconception {n}", m.why) for n, m in enumerate(variants.misconceptions, 1)
        ]
    problems = []
    raised = stored.error.type if stored.error is not None else "nothing"
    for where, template in templates:
        for name in sorted(placeholders(template) - has):
            if name in RAISED:
                problems.append(f"{where} names {{{name}}}, but this instance does not raise")
            else:
                problems.append(
                    f"{where} names {{{name}}}, but this instance raised {raised}, "
                    "so its values were never computed"
                )
    prediction = step.prediction
    if prediction is None:
        return problems
    shown = _shown_numbers(instance.code, instance.output, *instance.texts, instance.explanation)
    ours = _step_numbers(step)
    rules = zip(prediction.choices, variants.choices, strict=False)
    for number, (own, rule) in enumerate(rules, start=1):
        if rule.why is not None or own.why is None:
            continue
        quoted = sorted((_named_numbers(own.why) & ours) - shown)
        if quoted:
            problems.append(
                f"choice {number} has no `why`, and the step's own `why` names "
                f"{', '.join(f'{n:g}' for n in quoted)}, which this instance does not show: "
                "give the variant choice a `why`"
            )
    return problems


def step_problems(step: Step) -> list[str]:
    """What a step's instances together lack: an instance that finished, where the step asks
    a `.grad`; the answer of those that raised, where some raise and others finish."""
    served = instances(step)
    ran = finished(step)
    problems = []
    if served and not ran and asked_tensors(step):
        problems.append(
            "every instance raises, but the step asks a `.grad` (its typed value or drills): "
            "give it instances that run to the end"
        )
    variants = step.variants
    mixed = 0 < len(ran) < len(served) and step.prediction is not None
    if mixed and variants is not None and (variants.raised is None or not variants.raised.answer):
        problems.append(
            "some instances raise and others run to the end: give `raised: {answer: ...}`, "
            "the right choice of those that raise"
        )
    return problems


def empty_findings(slug: str, where: str, variants: Variants) -> list[Finding]:
    """A failure for each text an instance fills to nothing (its step serves no instance)."""
    return [
        Finding(slug, f"{where} instance {index + 1}", problem)
        for index in range(len(variants.instances))
        for problem in empty_texts(variants, index)
    ]


async def check_variants(lesson: Lesson, run: Runner) -> list[Finding]:
    """`gradlab check`: every stored instance is what its code computes (an error it raises
    included), its texts name only what it has, and no instance's numbers make a misconception
    coincide with the answer."""
    failures = []
    computed = await run_instances(lesson, run)
    for number, step, variants in variant_steps(lesson):
        where = f"{step_label(number, step)} variants"
        if not variants.current:
            problem = "the instances are not written for these params"
            failures.append(Finding(lesson.slug, where, f"{problem}: run `gradlab check --update`"))
            continue
        if empty := empty_findings(lesson.slug, where, variants):
            failures += empty
            continue
        for instance, fresh in zip(instances(step), computed[number], strict=True):
            at = f"{where} instance {instance.index + 1}"
            if isinstance(fresh, ValueError):
                failures.append(Finding(lesson.slug, at, str(fresh)))
                continue
            stored = variants.instances[instance.index]
            failures += [Finding(lesson.slug, at, p) for p in differences(stored, fresh)]
            failures += [Finding(lesson.slug, at, p) for p in coincidences(step, instance)]
            failures += [Finding(lesson.slug, at, p) for p in template_problems(step, instance)]
        failures += [Finding(lesson.slug, where, problem) for problem in step_problems(step)]
    return failures + await stated_findings(lesson, run)
