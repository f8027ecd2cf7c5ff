"""`gradlab check` holds the numbers a lesson's prose states to what its code does.

A number stated in prose (app/lessons/prose_numbers.py says which are statements) is verified
one of three ways:

- **run**: it is among what the lesson's code gave when the check ran it: a number printed
  (by a snippet or a `because`) or in an error message, a value, `.grad` or shape of a tensor,
  or a number written in the code itself (the inputs a step shows);
- **arithmetic**: it is the result of arithmetic the prose writes out ("4 + 3 = 7",
  "(−3 − 6 + 0 − 12)/4 = −5.25"), which the check evaluates; a false equation fails by itself;
- **claim**: it stands inside the `says` fragment of one of the lesson's `claims`, whose code
  the check runs and whose assertions must hold.

Anything else fails, naming the number and where it stands.
"""

from __future__ import annotations

import asyncio
import bisect
import re
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field

from pydantic import BaseModel

from app.lessons.format import Choice, Lesson, ValueMisconception
from app.lessons.lint import Finding
from app.lessons.numeric import ATOL, RTOL, flatten, numbers_close
from app.lessons.prose_numbers import Stated, equations, normal, stated_numbers
from app.sandbox.result import RunResult

# Fields that are not prose, or whose numbers are not claimed to be true: code and what it
# printed; questions (a yes/no question may name a wrong value on purpose); a myth's belief.
_SKIPPED = {
    "code", "output", "because", "error", "grads", "question", "belief", "claims", "slug",
    "torch_version", "format", "level", "order", "minutes", "prerequisites", "next", "value",
    "expected", "tensor", "answer", "walk", "after_step", "none_matters",
}  # fmt: skip
# A number in code or output, with its minus when the minus is its own ("-3.", not "x-3").
_CODE_NUMBER = re.compile(r"(?:(?<![\w.)\]])-)?(?<![\w.])\d+(?:\.\d+)?(?:[eE][-+]?\d+)?")


@dataclass(frozen=True)
class Prose:
    """One prose field: where it stands, its text (`normal`), and numbers it may name without
    claiming them (a wrong choice's `why` names the wrong value it explains)."""

    where: str
    text: str
    named: frozenset[float] = frozenset()


def _numbers_in(text: str) -> set[float]:
    return {abs(number.value) for number in stated_numbers(normal(text))}


def prose_fields(lesson: Lesson) -> Iterator[Prose]:
    """Every prose field whose numbers are claims, wrong choices' own texts apart."""
    yield from _walk(lesson, lesson, "")


def _walk(lesson: Lesson, value: object, where: str) -> Iterator[Prose]:
    if isinstance(value, str):
        yield Prose(where, normal(value))
    elif isinstance(value, Choice):
        yield from _choice(lesson, value, where)
    elif isinstance(value, ValueMisconception):
        wrong = frozenset(abs(float(n)) for n in flatten(value.value) if n is not None)
        yield Prose(f"{where}.why", normal(value.why), wrong)
    elif isinstance(value, BaseModel):
        for name, item in value.__dict__.items():
            if name not in _SKIPPED:
                yield from _walk(lesson, item, f"{where}.{name}" if where else name)
    elif isinstance(value, list):
        for index, item in enumerate(value, start=1):
            yield from _walk(lesson, item, f"{where}[{index}]")


def _choice(lesson: Lesson, choice: Choice, where: str) -> Iterator[Prose]:
    """The right choice's text is a claim; a wrong one's is the misconception, and its `why`
    may name the wrong value it explains."""
    if choice.text == _prediction_of(lesson, where):
        yield Prose(f"{where}.text", normal(choice.text))
    elif choice.why is not None:
        yield Prose(f"{where}.why", normal(choice.why), frozenset(_numbers_in(choice.text)))


def _prediction_of(lesson: Lesson, where: str) -> str | None:
    """The answer of the prediction whose choice stands at `where` (steps[N].prediction...)."""
    match = re.match(r"steps\[(\d+)\]\.prediction", where)
    if match is None:
        return None
    step = lesson.steps[int(match.group(1)) - 1]
    return step.prediction.answer if step.prediction is not None else None


@dataclass
class Produced:
    """Every number the lesson's code gave or was given."""

    values: list[float] = field(default_factory=list)
    _signed: list[float] = field(default_factory=list, repr=False)
    _sizes: list[float] = field(default_factory=list, repr=False)

    @classmethod
    def of(cls, runs: list[tuple[str, RunResult]]) -> Produced:
        """What these runs (code and result) gave."""
        produced = cls()
        for code, result in runs:
            produced.add_run(code, result)
        return produced

    def add_text(self, text: str) -> None:
        self.values += [float(n) for n in _CODE_NUMBER.findall(text)]

    def add_value(self, value: object) -> None:
        for number in flatten(value):
            if isinstance(number, int | float) and not isinstance(number, bool):
                self.values.append(float(number))
            elif isinstance(number, str):
                self.add_text(number)

    def add_run(self, code: str, result: RunResult) -> None:
        self.add_text(code)
        self.add_text(result.stdout)
        if result.error is not None:
            self.add_text(result.error.message)
        for tensor in result.tensors:
            self.add_value(tensor.value)
            self.add_value(tensor.grad)
            self.add_value(list(tensor.shape))

    def has(self, number: Stated) -> bool:
        if number.base is not None and self._has(Stated(number.base, 0, 0, "0")):
            return True  # "4²" in "sqrt(3² + 4²)" writes the 4 it was given
        return self._has(number)

    def _has(self, number: Stated) -> bool:
        # A number written with its minus must be negative; one without may be either ("a
        # gradient of 5.25" for -5.25 speaks of its size).
        wanted = -number.value if number.negative else number.value
        # "0.33" is 1/3 to the digits it writes; so is "about 0.01" for 0.0122. A bare "6" or
        # "0.1" is exact: it must be within the numeric tolerance.
        digits = len(number.text.strip("0.").replace(".", ""))
        rounds = number.approximate or (number.decimals >= 1 and digits >= 2)
        slack = 0.5 * 10.0**-number.decimals if rounds else 0.0
        window = max(slack, ATOL + 2 * RTOL * abs(wanted))
        if len(self._signed) != len(self.values):
            self._signed = sorted(self.values)
            self._sizes = sorted(abs(value) for value in self.values)
        found = self._signed if number.negative else self._sizes
        low = bisect.bisect_left(found, wanted - window)
        high = bisect.bisect_right(found, wanted + window)
        return any(
            numbers_close(wanted, got) or abs(got - wanted) <= slack for got in found[low:high]
        )


@dataclass(frozen=True)
class Verdict:
    """How one stated number was verified ("run", "arithmetic", "claim"), or "" for not."""

    where: str
    number: str
    context: str
    route: str


def _context(text: str, number: Stated) -> str:
    return text[max(0, number.start - 30) : number.end + 20]


def verdicts(lesson: Lesson, produced: Produced, claimed: list[str]) -> Iterator[Verdict]:
    """A verdict for every number the prose states; `claimed` are the `says` fragments whose
    claims hold."""
    for prose in prose_fields(lesson):
        covered = [
            (match.start(), match.end())
            for says in claimed
            for match in re.finditer(re.escape(normal(says)), prose.text)
        ]
        proven = [
            (equation.result_start, equation.end)
            for equation in equations(prose.text)
            if equation.holds
        ]
        for number in stated_numbers(prose.text):
            if abs(number.value) in prose.named:
                continue
            if any(start <= number.start and number.end <= end for start, end in proven):
                route = "arithmetic"
            elif produced.has(number):
                route = "run"
            elif any(start <= number.start and number.end <= end for start, end in covered):
                route = "claim"
            else:
                route = ""
            yield Verdict(prose.where, number.text, _context(prose.text, number), route)


def false_equations(lesson: Lesson) -> Iterator[tuple[str, str, float]]:
    """(where, equation, what its left side gives) for each equation the prose gets wrong."""
    for prose in prose_fields(lesson):
        for equation in equations(prose.text):
            if not equation.holds:
                yield prose.where, equation.text, equation.left


def route_counts(found: list[Verdict]) -> Counter[str]:
    return Counter(verdict.route or "unverified" for verdict in found)


async def prose_failures(
    lesson: Lesson, produced: Produced, run: Callable[[str], Awaitable[RunResult]]
) -> list[Finding]:
    """Run the lesson's claims, then fail every number its prose states unverified."""
    results = await asyncio.gather(*(run(claim.code) for claim in lesson.claims))
    texts = [prose.text for prose in prose_fields(lesson)]
    failures: list[Finding] = []
    holding: list[str] = []
    for number, (claim, result) in enumerate(zip(lesson.claims, results, strict=True), start=1):
        where = f"claims[{number}]"
        missing = [says for says in claim.fragments if not any(normal(says) in t for t in texts)]
        if missing:
            failures += [
                Finding(lesson.slug, where, f"{says!r} is not in the lesson's prose")
                for says in missing
            ]
        elif result.status != "ok" or result.error is not None:
            error = f"{result.error.type}: {result.error.message}" if result.error else ""
            failures.append(
                Finding(lesson.slug, where, f"its code fails ({result.status}) {error}".strip())
            )
        else:
            holding += claim.fragments
    failures += [
        Finding(lesson.slug, where, f"the arithmetic {text!r} is false: it gives {left:g}")
        for where, text, left in false_equations(lesson)
    ]
    failures += [
        Finding(
            lesson.slug,
            verdict.where,
            f"the number {verdict.number} in {verdict.context!r} is not checked: no snippet "
            "gives it, no arithmetic beside it computes it, and no claim covers it",
        )
        for verdict in verdicts(lesson, produced, holding)
        if not verdict.route
    ]
    return failures
