"""Run a step's variants in the sandbox: what `gradlab check --update` writes and `gradlab check`
verifies.

Each instance runs as its filled-in code followed by a probe that prints, after a marker line,
the variant's named `values`, the `.grad` of the tensors the step asks about and the value of
each misconception rule, as JSON. What the code printed before the marker is the instance's
output. An instance that raises is a failure: its values could not be computed.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Awaitable, Callable
from typing import Any

from app.lessons.lint import Finding, step_label
from app.lessons.numeric import compare
from app.lessons.schema import GradValue, Lesson, Plain, Step, VariantInstance, Variants
from app.lessons.variants import asked_tensors, coincidences, fill, instance_code, instances
from app.sandbox.result import RunResult

Runner = Callable[[str], Awaitable[RunResult]]
MARK = "\n@@gradlab-variant-values@@"
_PROBE = """
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
    return found


def probe_code(step: Step, variants: Variants, index: int) -> str:
    entries = ", ".join(
        f"{key!r}: _gradlab_plain({expression})"
        for key, expression in _expressions(step, variants, index).items()
    )
    return instance_code(variants, index) + _PROBE.format(mark=MARK, entries=entries)


def _rounded(value: Any) -> Any:
    """float32 noise past 7 significant digits is not a claim (as for a snippet's grads)."""
    if isinstance(value, list):
        return [_rounded(item) for item in value]
    if isinstance(value, float) and math.isfinite(value):
        return float(f"{value:.7g}")
    return value


def read_run(step: Step, variants: Variants, index: int, result: RunResult) -> VariantInstance:
    """The instance a run computed; ValueError says why there is none."""
    if result.error is not None:
        raise ValueError(f"raised {result.error.type}: {result.error.message}")
    if result.status != "ok":
        raise ValueError(f"the run ended with status {result.status!r}")
    output, marked, probed = result.stdout.rpartition(MARK)
    if not marked:
        raise ValueError("the run printed more than the sandbox keeps, or exited early")
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


def differences(stored: VariantInstance, fresh: VariantInstance) -> list[str]:
    """How a stored instance differs from what the sandbox computes now."""
    found = []
    if stored.params != fresh.params:
        found.append(f"params are written {stored.params!r}, now {fresh.params!r}")
    if stored.output != fresh.output:
        found.append(f"output is written {stored.output!r} but the run prints {fresh.output!r}")
    for part in ("values", "grads"):
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


async def check_variants(lesson: Lesson, run: Runner) -> list[Finding]:
    """`gradlab check`: every stored instance is what its code computes, none raises, and no
    instance's numbers make a misconception coincide with the answer."""
    failures = []
    computed = await run_instances(lesson, run)
    for number, step, variants in variant_steps(lesson):
        where = f"{step_label(number, step)} variants"
        if not variants.current:
            problem = "the instances are not written for these params"
            failures.append(Finding(lesson.slug, where, f"{problem}: run `gradlab check --update`"))
            continue
        for instance, fresh in zip(instances(step), computed[number], strict=True):
            at = f"{where} instance {instance.index + 1}"
            if isinstance(fresh, ValueError):
                failures.append(Finding(lesson.slug, at, str(fresh)))
                continue
            stored = variants.instances[instance.index]
            failures += [Finding(lesson.slug, at, p) for p in differences(stored, fresh)]
            failures += [Finding(lesson.slug, at, p) for p in coincidences(step, instance)]
    return failures
