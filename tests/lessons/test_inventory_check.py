"""`gradlab check` holds the concept inventory to the truth (its items run in the real sandbox)
and refuses an item that repeats a lesson's example."""

from __future__ import annotations

import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
import yaml

from app.config.paths import BUNDLED_LESSONS
from app.lessons.check import run_check
from app.lessons.inventory import INVENTORY_FILE, Inventory
from app.lessons.inventory_check import (
    example_key,
    inventory_failures,
    inventory_lints,
    repeated_examples,
)
from app.lessons.loader import LessonError, load_catalog, parse_yaml
from tests.conftest import SandboxHarness

CATALOG = load_catalog(BUNDLED_LESSONS)


def inventory_data() -> dict[str, Any]:
    data: dict[str, Any] = parse_yaml((BUNDLED_LESSONS / INVENTORY_FILE).read_text())
    return data


def item(data: dict[str, Any], item_id: str) -> dict[str, Any]:
    found: dict[str, Any] = next(i for i in data["items"] if i["id"] == item_id)
    return found


def only(data: dict[str, Any], *ids: str) -> Inventory:
    """The inventory with only these items (run only them), forms kept parallel by pairing."""
    kept = [i for i in data["items"] if i["id"] in ids]
    concepts = [c for c in data["concepts"] if any(i["concept"] == c["id"] for i in kept)]
    return Inventory.model_validate({**data, "items": kept, "concepts": concepts})


def test_the_bundled_inventory_is_parallel_and_big_enough() -> None:
    inventory = CATALOG.inventory
    assert inventory is not None
    assert len(inventory.concepts) >= 10
    assert len(inventory.items) >= 40
    assert inventory_lints(inventory) == []
    assert repeated_examples(inventory, CATALOG.lessons) == []


def test_a_planted_wrong_answer_fails(sandbox: SandboxHarness) -> None:
    data = inventory_data()
    planted = item(data, "accumulation-and-clearing-a1")
    planted["prediction"]["answer"] = "tensor(4.)"  # a wrong choice: backward adds up to 12
    inventory = only(data, "accumulation-and-clearing-a1", "accumulation-and-clearing-b1")
    failures = sandbox.call(inventory_failures(inventory, sandbox.sandbox.run))
    assert [(f.where, f.problem) for f in failures] == [
        (
            "item accumulation-and-clearing-a1 (form A)",
            "the answer 'tensor(4.)' is not what the code prints: 'tensor(12.)'",
        ),
        # the right output is now a "wrong" choice: the item would have two answers
        (
            "item accumulation-and-clearing-a1 (form A)",
            "the wrong choice 'tensor(12.)' is what the code prints",
        ),
    ]


def test_an_answer_that_hides_the_error_fails(sandbox: SandboxHarness) -> None:
    data = inventory_data()
    planted = item(data, "graphs-used-twice-a1")
    planted["prediction"]["answer"] = "tensor(24.)"
    planted_b = item(data, "graphs-used-twice-b1")
    inventory = only(data, "graphs-used-twice-a1", planted_b["id"])
    failures = sandbox.call(inventory_failures(inventory, sandbox.sandbox.run))
    assert [f.problem for f in failures] == [
        "the code raises RuntimeError, but the answer 'tensor(24.)' does not say so"
    ]


def test_a_truthful_item_passes(sandbox: SandboxHarness) -> None:
    inventory = only(inventory_data(), "intermediates-and-hooks-a2", "intermediates-and-hooks-b1")
    assert sandbox.call(inventory_failures(inventory, sandbox.sandbox.run)) == []


def test_a_lesson_example_copied_is_refused() -> None:
    step = next(lesson for lesson in CATALOG.lessons if lesson.slug == "what-is-grad").steps[1]
    assert step.snippet is not None
    data = inventory_data()
    # The same code, its lines spaced differently.
    item(data, "what-grad-holds-a1")["snippet"]["code"] = step.snippet.code.replace("\n", "\n\n")
    failures = repeated_examples(Inventory.model_validate(data), CATALOG.lessons)
    assert [(f.where, f.problem.split(":")[0]) for f in failures] == [
        (
            "item what-grad-holds-a1 (form A)",
            "repeats a lesson's example (the same code as what-is-grad step 2 (Calling backward() "
            "on y = x * x))",
        )
    ]


def test_the_same_operation_on_the_same_numbers_is_refused() -> None:
    data = inventory_data()
    # what-is-grad's step 2 (x = 3, x * x, backward, print) with other names and layout.
    item(data, "what-grad-holds-b1")["snippet"]["code"] = (
        "import torch\nv = torch.tensor(3.0, requires_grad=True)\nw = v * v\nw.backward()\n"
        "print(v.grad)\n"
    )
    failures = repeated_examples(Inventory.model_validate(data), CATALOG.lessons)
    assert len(failures) == 1
    assert failures[0].where == "item what-grad-holds-b1 (form B)"
    assert "the same operations on the same numbers as what-is-grad" in failures[0].problem


def test_other_numbers_or_other_operations_are_a_new_example() -> None:
    lesson = "x = torch.tensor(3.0, requires_grad=True)\ny = x * x\ny.backward()\nprint(x.grad)"
    assert example_key(lesson) == example_key(lesson.replace("x", "q"))
    assert example_key(lesson) != example_key(lesson.replace("3.0", "4.0"))
    assert example_key(lesson) != example_key(lesson.replace("x * x", "x ** 2"))
    assert example_key(lesson) == example_key(lesson.replace("3.0", "3"))


def test_lints_find_a_thin_inventory_and_a_missing_why() -> None:
    data = inventory_data()
    data["concepts"] = data["concepts"][:2]
    data["items"] = [
        i for i in data["items"] if i["concept"] in {c["id"] for c in data["concepts"]}
    ]
    dropped = {
        "what-grad-holds-a2",
        "what-grad-holds-b2",
        "leaves-and-requires-grad-a1",
        "leaves-and-requires-grad-b1",
    }
    data["items"] = [i for i in data["items"] if i["id"] not in dropped]
    choice = item(data, "what-grad-holds-a1")["prediction"]["choices"][0]
    choice.pop("why")
    problems = [f"{f.where}: {f.problem}" for f in inventory_lints(Inventory.model_validate(data))]
    assert "concepts: 2 concepts; an inventory asks at least 10" in problems
    assert "concept what-grad-holds: 1 item(s) in form A; at least 2 per form" in problems
    assert "item what-grad-holds-a1: the wrong choice 'tensor(5.)' has no `why`" in problems


def test_lints_refuse_a_wrong_choice_without_its_belief_and_a_belief_on_the_right_one() -> None:
    """The dashboard states the belief behind each wrong choice (`misconception`); the right
    choice stands for none. The bundled inventory has every belief (above)."""
    data = inventory_data()
    wrong = item(data, "what-grad-holds-a1")["prediction"]["choices"][0]
    assert wrong["misconception"]
    wrong.pop("misconception")
    prediction = item(data, "what-grad-holds-b1")["prediction"]
    texts = [c["text"] if isinstance(c, dict) else c for c in prediction["choices"]]
    index = texts.index(prediction["answer"])
    prediction["choices"][index] = {"text": prediction["answer"], "misconception": "Knows it."}
    problems = [f"{f.where}: {f.problem}" for f in inventory_lints(Inventory.model_validate(data))]
    assert [p for p in problems if "misconception" in p] == [
        "item what-grad-holds-a1: the wrong answer 'tensor(5.)' has no `misconception` (the "
        "belief behind it, in a teacher's words, for the class dashboard)",
        "item what-grad-holds-b1: the right choice has a `misconception`: only a wrong choice "
        "stands for a belief to address",
    ]


def test_lints_refuse_private_api_and_unequal_choices() -> None:
    """An item may not lean on torch's private API, and a concept's items offer as many
    choices in one form as in the other (a 3-choice item is easier to guess)."""
    data = inventory_data()
    leaning = item(data, "in-place-and-versions-a2")
    leaning["snippet"]["code"] = leaning["snippet"]["code"].replace(
        "print(w.grad)", "print(w.grad, w._version)"
    )
    fewer = item(data, "higher-order-a2")["prediction"]
    fewer["choices"] = [
        c for c in fewer["choices"] if not isinstance(c, dict) or "9." not in c["text"]
    ]
    problems = [f"{f.where}: {f.problem}" for f in inventory_lints(Inventory.model_validate(data))]
    assert "item in-place-and-versions-a2: uses the private `_version`: ask about public API" in (
        problems
    )
    assert any(
        p.startswith("concept higher-order: items offer unequal numbers of choices")
        and "higher-order-a2 3" in p
        for p in problems
    )
    assert not any("__init__" in p for p in problems)


def test_a_concept_summary_may_not_give_an_answer_away() -> None:
    data = inventory_data()
    concept = next(c for c in data["concepts"] if c["id"] == "higher-order")
    concept["summary"] += " Here: `-8.0 -2.0`."
    problems = [f"{f.where}: {f.problem}" for f in inventory_lints(Inventory.model_validate(data))]
    assert problems == [
        "concept higher-order: its summary gives away the answer of higher-order-a1 ('-8.0 -2.0')"
    ]


def test_forms_that_are_not_parallel_do_not_load(tmp_path: Path) -> None:
    data = inventory_data()
    data["items"] = [i for i in data["items"] if i["id"] != "accumulation-and-clearing-b2"]
    folder = tmp_path / "lessons"
    shutil.copytree(BUNDLED_LESSONS, folder)
    (folder / INVENTORY_FILE).write_text(yaml.safe_dump(data, allow_unicode=True))
    with pytest.raises(LessonError, match="accumulation-and-clearing: 2 item"):
        load_catalog(folder)


def check_in_thread(sandbox: SandboxHarness, **options: Any) -> int:
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(run_check, started=sandbox.runner(), **options).result()


def test_gradlab_check_inventory_prints_the_concepts_and_fails_on_a_lie(
    check_sandbox: SandboxHarness,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert check_in_thread(check_sandbox, inventory=True) == 0
    out = capsys.readouterr().out
    assert "inventory: 10 concepts" in out
    assert "  recording-off: A 2, B 2 (taught in turning-gradients-off)" in out
    assert (
        "inventory: form A: 20 items, form B: 20 items; no item repeats a lesson's example" in out
    )
    assert "inventory: 40 items checked: all true" in out

    folder = tmp_path / "lessons"
    shutil.copytree(BUNDLED_LESSONS, folder)
    data = inventory_data()
    item(data, "in-place-and-versions-a2")["prediction"]["answer"] = "tensor([2., 4.])"
    (folder / INVENTORY_FILE).write_text(yaml.safe_dump(data, allow_unicode=True))
    assert check_in_thread(check_sandbox, lessons_dir=str(folder), inventory=True) == 1
    err = capsys.readouterr().err
    assert (
        "FAIL inventory.yaml: item in-place-and-versions-a2 (form A): the answer "
        "'tensor([2., 4.])'" in err
    )


def test_gradlab_check_with_a_lesson_and_the_inventory(
    check_sandbox: SandboxHarness, capsys: pytest.CaptureFixture[str]
) -> None:
    assert check_in_thread(check_sandbox, only=["what-is-grad"], inventory=True) == 0
    out = capsys.readouterr().out
    assert "inventory: form A: 20 items, form B: 20 items; no item repeats" in out
    assert "1 lessons, " in out and "all true" in out
