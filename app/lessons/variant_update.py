"""`gradlab check --update` for variants: write each instance the sandbox computed into the
step's `variants.instances`, in the lesson's own file, leaving instances that still hold alone.

An instance whose code raised is written with its `error` (type and stable first line), like a
snippet's. An instance whose run did not end (a timeout, a `values` expression that raised),
whose numbers make a misconception coincide with the answer, or whose texts name what it has
not, is reported for the author to decide (other parameters, or another rule).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq

from app.lessons.format import Lesson, VariantInstance
from app.lessons.lint import Finding, step_label
from app.lessons.variant_runs import (
    differences,
    empty_findings,
    step_problems,
    template_problems,
)
from app.lessons.variants import coincidences, instances
from app.lessons.yaml_edit import error_node, flow_text, grad_node, set_text, text_node


def _flow(value: Any) -> Any:
    """A param or value in flow style, as it is: a whole number the author wrote (`3`) stays
    one, and a float is not rounded (a param is the author's; a value is rounded when read)."""
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, dict):
        mapping = CommentedMap((key, _flow(item)) for key, item in value.items())
        mapping.fa.set_flow_style()
        return mapping
    if isinstance(value, list):
        sequence = CommentedSeq(_flow(item) for item in value)
        sequence.fa.set_flow_style()
        return sequence
    return flow_text(value) if isinstance(value, str) else value


def _float(value: float) -> Any:
    """A float as the lesson loader (YAML 1.1) reads it back as one: `1e-05` is text there, so
    an exponent gets its mantissa's point (`1.0e-05`)."""
    written = repr(value)
    mantissa, _, exponent = written.partition("e")
    if not exponent or "." in mantissa or not math.isfinite(value):
        return value
    return YAML().load(f"{mantissa}.0e{exponent}")  # a float that keeps how it is written


def instance_node(instance: VariantInstance) -> CommentedMap:
    node = CommentedMap()
    node["params"] = _flow(instance.params)
    if instance.values:
        node["values"] = _flow(instance.values)
    node["output"] = text_node(instance.output)
    if instance.error is not None:
        node["error"] = error_node(instance.error.type, instance.error.message_contains)
    if instance.grads:
        node["grads"] = _flow({name: grad_node(v) for name, v in instance.grads.items()})
    if instance.misconceptions:
        node["misconceptions"] = _flow(instance.misconceptions)
    if instance.readings:
        node["readings"] = _flow(instance.readings)
    return node


def write_instances(
    document: Any, lesson: Lesson, computed: Mapping[int, list[VariantInstance | ValueError]]
) -> list[Finding]:
    """Write the computed instances into `document` (the lesson, round-trip loaded); returns
    what the author must look at."""
    reports = []
    for number, made in computed.items():
        step = lesson.steps[number - 1]
        variants = step.variants
        if variants is None:
            continue
        where = f"{step_label(number, step)} variants"
        failed = [(i, m) for i, m in enumerate(made, start=1) if isinstance(m, ValueError)]
        if failed:
            reports += [Finding(lesson.slug, f"{where} instance {i}", str(m)) for i, m in failed]
            continue
        fresh = [m for m in made if isinstance(m, VariantInstance)]
        fresh_variants = variants.model_copy(update={"instances": fresh})
        written = step.model_copy(update={"variants": fresh_variants})
        reports += empty_findings(lesson.slug, where, fresh_variants)
        for instance in instances(written):
            problems = coincidences(written, instance) + template_problems(written, instance)
            reports += [
                Finding(lesson.slug, f"{where} instance {instance.index + 1}", problem)
                for problem in problems
            ]
        reports += [Finding(lesson.slug, where, problem) for problem in step_problems(written)]
        kept = variants.instances
        if len(kept) == len(fresh) and not any(
            differences(old, new) for old, new in zip(kept, fresh, strict=True)
        ):
            continue
        _write(document["steps"][number - 1]["variants"], fresh)
    return reports


def _write(variants: CommentedMap, fresh: list[VariantInstance]) -> None:
    """Write `fresh` into the `instances` of a step's `variants` mapping: key by key where as
    many are written already, so that the comments around them (kept by ruamel on the keys)
    stay; otherwise as a new list."""
    kept = variants.get("instances")
    if not isinstance(kept, CommentedSeq) or len(kept) != len(fresh):
        variants["instances"] = CommentedSeq(instance_node(instance) for instance in fresh)
        return
    for old, instance in zip(kept, fresh, strict=True):
        new = instance_node(instance)
        for key in [key for key in old if key not in new]:
            del old[key]
        for key, value in new.items():
            if key == "output" and key in old:
                set_text(old, key, instance.output)
            else:
                old[key] = value
