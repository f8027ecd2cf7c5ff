"""The backward walk names the tensor hooks that change a gradient in flight: which function,
on which tensor, and the gradient before and after. Real sandbox runs; every snippet also runs
as plain Python and torch, and must print and leave the same (the record changes nothing)."""

from __future__ import annotations

from pathlib import Path

from app.config.paths import BUNDLED_LESSONS
from app.lessons.loader import parse_yaml
from app.sandbox.backward_types import HOOK_NAME_CHARS
from tests.conftest import SandboxHarness
from tests.sandbox.backward_checks import by_name, run, values


def _two_hooks_step() -> str:
    """retain-grad-and-hooks' step whose walk showed `3.` sent into `y` and `40.` received."""
    lesson = parse_yaml((BUNDLED_LESSONS / "retain-grad-and-hooks.yaml").read_text())
    (code,) = [
        step["snippet"]["code"]
        for step in lesson["steps"]
        if "snippet" in step
        and step["snippet"]["code"].count("register_hook") == 2
        and "select_all" not in step  # the lesson's last step hooks two tensors too
    ]
    return str(code)


def test_the_lessons_two_hooks_are_named_with_what_each_did(
    sandbox: SandboxHarness, tmp_path: Path
) -> None:
    code = _two_hooks_step()
    result = run(sandbox, code, tmp_path)
    assert result.stdout == "tensor(40.) tensor(160.)\n"
    (call,) = result.backward.calls
    y = by_name(call, "y")
    mul3 = next(node for node in call.nodes if node.id != y.id and node.label == "MulBackward0")
    assert values(mul3.sent[0]) == 3.0  # what reaches `y`'s node from `y * 3` ...
    assert values(y.received[0]) == 40.0  # ... and what its node works with
    lines = code.splitlines()
    first, second = y.hooks
    assert (first.name, first.tensor, values(first.before), values(first.after)) == (
        "<lambda>",
        "y",
        3.0,
        4.0,
    )
    assert (second.name, second.tensor, values(second.before), values(second.after)) == (
        "<lambda>",
        "y",
        4.0,
        40.0,
    )
    assert first.changed and second.changed
    assert first.line is not None and "g + 1" in lines[first.line - 1]
    assert second.line is not None and "g * 10" in lines[second.line - 1]
    assert all(not node.hooks for node in call.nodes if node.id != y.id)


def test_a_named_hook_on_a_leaf_and_one_that_only_looks(
    sandbox: SandboxHarness, tmp_path: Path
) -> None:
    result = run(
        sandbox,
        """
        import torch
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        def clip(g):
            return g.clamp(max=1.5)
        def look(g):
            print("seen", g)
        w.register_hook(look)
        w.register_hook(clip)
        (w * w).sum().backward()
        print(w.grad)
        """,
        tmp_path,
    )
    (call,) = result.backward.calls
    looked, clipped = by_name(call, "w").hooks
    assert (looked.name, looked.line, looked.changed, looked.after) == ("look", 5, False, None)
    assert values(looked.before) == [2.0, 4.0]
    assert (clipped.name, clipped.line, clipped.tensor, clipped.changed) == ("clip", 3, "w", True)
    assert values(clipped.after) == [1.5, 1.5]
    assert values(call.grads[0].after) == [1.5, 1.5]


def test_a_hook_name_is_cut_and_the_hook_still_runs_after_the_call(
    sandbox: SandboxHarness, tmp_path: Path
) -> None:
    name = "double_" + "x" * 100
    result = run(
        sandbox,
        f"""
        import torch
        w = torch.tensor(1.0, requires_grad=True)
        def {name}(g):
            return g * 2
        handle = w.register_hook({name})
        (w * 3).backward()
        (w * 3).backward()
        handle.remove()
        (w * 3).backward()
        print(w.grad, type(w._backward_hooks), len(w._backward_hooks))
        """,
        tmp_path,
    )
    first, second, third = result.backward.calls
    (hook,) = by_name(first, "w").hooks
    assert len(hook.name) == HOOK_NAME_CHARS and hook.name.endswith("…")
    assert hook.name.startswith("double_x")
    assert len(by_name(second, "w").hooks) == 1 and by_name(third, "w").hooks == []
    assert result.stdout == "tensor(15.) <class 'collections.OrderedDict'> 0\n"
