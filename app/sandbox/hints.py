"""Plain-language explanations for the autograd errors learners meet.

Each hint matches on the exception type and a fragment of torch's message, says what went wrong
in words a learner understands, and names the lesson that explains it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Hint:
    error_type: str
    fragment: str
    text: str
    lesson: str


HINTS = (
    Hint(
        "RuntimeError",
        "grad can be implicitly created only for scalar outputs",
        "backward() without arguments needs a single number (a scalar) to start from. Your output "
        "has several elements: reduce it first (for example `y.sum().backward()`), or pass a "
        "`gradient=` tensor of the same shape as the output.",
        "non-scalar-backward",
    ),
    Hint(
        "RuntimeError",
        "a leaf Variable that requires grad is being used in an in-place operation",
        "You changed a leaf tensor that requires grad in place (`+=`, `.add_()`, slice "
        "assignment...). Autograd forbids that, always. Use an out-of-place version "
        "(`x = x + 1`), or update it inside `with torch.no_grad():` as optimizers do.",
        "in-place-and-versions",
    ),
    Hint(
        "RuntimeError",
        "Trying to backward through the graph a second time",
        "The graph was freed by the first backward() to save memory, so a second backward() "
        "through it has nothing to walk. Recompute the forward pass, or pass "
        "`retain_graph=True` to the first backward() if you really need two passes.",
        "autograd-grad",
    ),
    Hint(
        "RuntimeError",
        "does not require grad and does not have a grad_fn",
        "Nothing in this computation requires grad, so there is no graph to go backward "
        "through. Create your input with `requires_grad=True` (or call `.requires_grad_()`), "
        "and make sure the computation did not run under `torch.no_grad()` or on a detached "
        "tensor.",
        "requires-grad-and-leaves",
    ),
    Hint(
        "RuntimeError",
        "Only Tensors of floating point and complex dtype can require gradients",
        "Only floating-point (or complex) tensors can require grad: gradients are fractional. "
        "Create the tensor with a float dtype, e.g. `torch.tensor([1.0, 2.0], "
        "requires_grad=True)` or `dtype=torch.float32`.",
        "requires-grad-and-leaves",
    ),
    Hint(
        "RuntimeError",
        "modified by an inplace operation",
        "A tensor that autograd saved for the backward pass was changed in place afterwards, "
        "so the saved value is stale (its version counter moved). Use an out-of-place "
        "operation, or `.clone()` the tensor before modifying it.",
        "in-place-and-versions",
    ),
    Hint(
        "AttributeError",
        "'NoneType' object has no attribute",
        "Something you used is None. If it was a `.grad`, that gradient was never filled: "
        "either backward() has not run yet, the tensor does not require grad, or it is not a "
        "leaf (call `.retain_grad()` on it before backward()).",
        "retain-grad-and-hooks",
    ),
    Hint(
        "TypeError",
        "unsupported operand type(s) for",
        "One operand is probably None. If it is a `.grad`, that gradient was never filled: "
        "backward() has not reached this tensor (it is not a leaf, does not require grad, or "
        "backward() did not run yet).",
        "debugging-gradients",
    ),
    Hint(
        "RuntimeError",
        "can't allocate memory",
        "The snippet asked for more memory than a run may use. Work with smaller tensors.",
        "what-is-grad",
    ),
    Hint(
        "RuntimeError",
        "appears to not have been used in the graph",
        "torch.autograd.grad was asked for the gradient of an input the output does not depend "
        "on. Pass `allow_unused=True` to get None for it instead of this error.",
        "autograd-grad",
    ),
    Hint(
        "RuntimeError",
        "Inference tensors cannot be saved for backward",
        "The tensor was made under `torch.inference_mode()`, which never records a graph. "
        "Recreate it outside inference mode (or `.clone()` it) before using it in autograd.",
        "turning-gradients-off",
    ),
)

NON_LEAF_WARNING = "is not a leaf Tensor is being accessed"
NON_LEAF_HINT = Hint(
    "",
    NON_LEAF_WARNING,
    "You read `.grad` of a tensor that is not a leaf (it was computed from other tensors), so it "
    "is None: autograd only keeps gradients of leaves. Call `.retain_grad()` on that tensor "
    "before backward() to keep its gradient too.",
    "retain-grad-and-hooks",
)
IMPORT_HINT = Hint(
    "ModuleNotFoundError",
    "",
    "The sandbox offers torch, math and a few standard modules only; other imports are not "
    "available here.",
    "what-is-grad",
)


def hint_for(error_type: str, message: str, stderr: str = "") -> Hint | None:
    """The hint for an exception; `stderr` tells a None `.grad` of a non-leaf from others."""
    if NON_LEAF_WARNING in stderr and "NoneType" in message:
        return NON_LEAF_HINT
    if error_type in ("ModuleNotFoundError", "ImportError", "PermissionError") and (
        "import" in message.lower() or "module" in message.lower()
    ):
        return IMPORT_HINT
    for hint in HINTS:
        if error_type == hint.error_type and hint.fragment in message:
            return hint
    return None
