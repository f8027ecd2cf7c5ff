"""`gradlab check --update` writes a step's instances as the author wrote its params (a whole
number stays whole), and a variant text that fills to nothing is a failure naming the lesson,
step and instance, for the update and for the check, never a traceback."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.lessons.loader import load_catalog
from app.lessons.update import run_update
from app.lessons.variant_runs import check_variants
from app.lessons.variants import instances
from tests.conftest import SandboxHarness, in_own_thread

FIXTURE = Path(__file__).parents[1] / "fixtures" / "variant-lessons" / "other-numbers.yaml"
STEP_2 = "step 2 (A tensor that may be cut off)"


def _plant(folder: Path, *replacements: tuple[str, str]) -> Path:
    text = FIXTURE.read_text(encoding="utf-8")
    for old, new in replacements:
        assert old in text, old
        text = text.replace(old, new, 1)
    # Instances written by the update from now on: none stored to begin with.
    text = re.sub(r"      instances:\n(?:        .*\n)+", "", text)
    path = folder / "other-numbers.yaml"
    path.write_text(text, encoding="utf-8")
    return path


WHOLE = (
    ("k: [3.0, 3.0, 5.0]", "k: [3, 3, 5]"),
    (
        "        value: \"str(w.detach()) + ' ' + str(b.grad)\"\n",
        "        value: \"str(w.detach()) + ' ' + str(b.grad)\"\n"
        '        ks: "[{k}, {k} + 1]"\n'
        '        flags: "[{k} > 4, True]"\n',
    ),
)


@pytest.mark.slow  # a sandbox of its own: several seconds
def test_whole_number_params_and_values_are_written_as_whole_numbers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _plant(tmp_path, *WHOLE)
    assert "- params" not in path.read_text(encoding="utf-8")
    assert in_own_thread(run_update, str(tmp_path)) == 0
    text = path.read_text(encoding="utf-8")
    assert "- params: {used: w, k: 3}" in text
    assert "- params: {used: w, k: 5}" in text
    assert "ks: [5, 6], flags: [true, true]" in text
    assert "ks: [3, 4], flags: [false, true]" in text
    assert "k: 3.0" not in text and "k: 5.0" not in text and "[3.0, 4.0]" not in text
    step = load_catalog([tmp_path]).lessons[0].steps[1]
    assert step.variants is not None and step.variants.current
    assert [type(i.params["k"]) for i in step.variants.instances] == [int, int, int]
    capsys.readouterr()
    assert in_own_thread(run_update, str(tmp_path)) == 0  # written once, then left alone
    assert "1 lessons: 0 updated" in capsys.readouterr().out
    assert path.read_text(encoding="utf-8") == text


@pytest.mark.slow  # a sandbox of its own: several seconds
def test_a_whole_number_written_as_a_float_is_a_difference_the_update_repairs(
    tmp_path: Path, sandbox: SandboxHarness, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _plant(tmp_path, *WHOLE)
    assert in_own_thread(run_update, str(tmp_path)) == 0
    right = path.read_text(encoding="utf-8")
    path.write_text(right.replace("{used: w, k: 5}", "{used: w, k: 5.0}"), encoding="utf-8")
    lesson = load_catalog([tmp_path]).lessons[0]
    failures = sandbox.call(check_variants(lesson, sandbox.sandbox.run))
    assert [f"{f.where}: {f.problem}" for f in failures] == [
        f"{STEP_2} variants instance 3: params are written {{'used': 'w', 'k': 5.0}}, "
        "now {'used': 'w', 'k': 5}"
    ]
    capsys.readouterr()
    assert in_own_thread(run_update, str(tmp_path)) == 0
    assert "1 lessons: 1 updated" in capsys.readouterr().out
    assert path.read_text(encoding="utf-8") == right


EMPTY_WHY = (
    (
        "        value: \"str(w.detach()) + ' ' + str(b.grad)\"\n",
        "        value: \"str(w.detach()) + ' ' + str(b.grad)\"\n"
        "        note: \"'' if {k} < 4 else 'w counts once'\"\n",
    ),
    ('          why: "That is the value of `w`, not the slope."', '          why: "{note}"'),
)


def test_a_why_that_fills_to_nothing_is_a_failure_line_not_a_traceback(
    tmp_path: Path, sandbox: SandboxHarness, capsys: pytest.CaptureFixture[str]
) -> None:
    """Instances 1 and 2 (k = 3) fill choice 2's `why` with "", instance 3 (k = 5) does not:
    the update writes what the sandbox computed and names both; the check fails them, and the
    step serves none of its instances until the author gives the `why` words of its own."""
    path = _plant(tmp_path, *EMPTY_WHY)
    assert in_own_thread(run_update, str(tmp_path)) == 1
    err = capsys.readouterr().err
    said = (
        "choice 2's `why` fills to empty text with this instance's params and values: give it "
        "words of its own around the placeholder, or other values"
    )
    assert [line for line in err.splitlines() if line.startswith("CHECK")] == [
        f"CHECK other-numbers: {STEP_2} variants instance {n}: {said}" for n in (1, 2)
    ]
    assert "Traceback" not in err
    assert 'note: ""' in path.read_text(encoding="utf-8")  # the runs' results are kept
    lesson = load_catalog([tmp_path]).lessons[0]
    step = lesson.steps[1]
    assert step.variants is not None and step.variants.current
    assert instances(step) == ()
    failures = sandbox.call(check_variants(lesson, sandbox.sandbox.run))
    assert [f"{f.where}: {f.problem}" for f in failures] == [
        f"{STEP_2} variants instance {n}: {said}" for n in (1, 2)
    ]


def test_an_instances_numbers_read_back_as_the_same_numbers_of_the_same_types() -> None:
    """Written by the update and read by the lesson loader (YAML 1.1): a whole number stays a
    whole number, alone or in a list, a truth value stays one, a float keeps every digit, and
    one written with an exponent (`1e-05`, text to YAML 1.1) still reads as a float."""
    from app.lessons.format import VariantInstance
    from app.lessons.loader import parse_yaml
    from app.lessons.variant_update import instance_node
    from app.lessons.yaml_edit import dump, round_trip_yaml

    numbers = {"k": 3, "f": 2.0, "long": 1.23456789, "tiny": 1e-05, "huge": -2.5e20}
    instance = VariantInstance(
        params=numbers | {"xs": [1, 2], "mixed": [[1, 2.5], [True, None]], "off": float("-inf")},
        values={"n": [3, 4], "flags": [True, False], "g": [0.1, 0.25]},
    )
    yaml = round_trip_yaml("instances: []\n")
    text = dump(yaml, {"instances": [instance_node(instance)]})
    read = VariantInstance.model_validate(parse_yaml(text)["instances"][0])
    assert read == instance

    def types(value: object) -> object:
        if isinstance(value, dict):
            return {key: types(item) for key, item in value.items()}
        if isinstance(value, list):
            return [types(item) for item in value]
        return type(value).__name__

    assert types(read.params) == types(instance.params)
    assert types(read.values) == types(instance.values)
    assert "k: 3," in text and "xs: [1, 2]" in text and "tiny: 1.0e-05" in text
