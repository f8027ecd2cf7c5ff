"""Numbers in prose are claims: find them, and the arithmetic the prose does with them.

A number a lesson states in its text ("`y.grad` is 40", "(−3 − 6 + 0 − 12)/4 = −5.25") must be
true like its code. This module reads the text: which numbers it states (an ordinal, a version,
a digit that is part of a name are not statements), and which of its arithmetic is true. What
counts as verified is decided in app/lessons/prose_check.py, which has the runs.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import pairwise

# How a superscript exponent is written: 10⁻⁸, 2²⁴.
_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
_NUMBER = r"\d+(?:\.\d+)?(?:[eE][-+−]?\d+)?(?:[⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)?"
_TOKEN = re.compile(
    rf"(?P<number>(?<![\w.]){_NUMBER}(?![\w]|\.\d))"
    r"|(?P<root>(?<!\w)sqrt|√)|(?P<op>\*\*|[-+−·×*/÷^])|(?P<open>\()|(?P<close>\))|(?P<equals>==|=|≈)"
    r"|(?P<space>\s+)"
    r"|(?P<other>[^\W\d]\w*|.)",  # a word (x1, float32, x²) is one token
    re.DOTALL,
)
# Words after which a number names a position or a release, not a quantity.
_ORDINAL = re.compile(
    r"(?:\b(?:step|steps|lesson|line|lines|element|elements|entry|row|rows|column|columns|"
    r"index|dim|dimension|axis|epoch|epochs|iteration|iterations|call|pass|rank|worker|"
    r"workers|gpu|gpus|device|layer|node|batch|item|position|chapter|section|part|round|"
    r"phase|stage|version|torch|pytorch|python|cuda|pep|level|myth|pitfall|takeaway|"
    r"micro-batch|microbatch|hook|ieee)\s*|(?<=[\w)\]])\[|\bv)$",
    re.IGNORECASE,
)
_VERSION = re.compile(r"^\.\d")
_APPROXIMATE = re.compile(r"(?:\babout|\broughly|\bnearly|\baround|\balmost|≈|~)\s*[-−]?$")
# A minus that belongs to the number: at the start, or after a space or an opening mark.
_SIGN = re.compile(r"(?:^|[\s(\[=:,])[-−]$")
# Markup that never stands between a number and its arithmetic.
_TICKS = re.compile(r"`")


def normal(text: str) -> str:
    """Text as the checks read it: no code marks, white space (line breaks too) folded."""
    return " ".join(_TICKS.sub("", text).split())


@dataclass(frozen=True)
class Stated:
    """A number the text states: its value, where it stands, and how many decimals it has."""

    value: float
    start: int
    end: int
    text: str
    approximate: bool = False  # "about 0.01", "≈ 2.09": stated to the digits written
    negative: bool = False  # written with its own minus: "-2.5", not "3 - 2.5"

    @property
    def base(self) -> float | None:
        """The number under a superscript exponent (the 4 of "4²"), or None."""
        if not re.search("[⁰¹²³⁴⁵⁶⁷⁸⁹]", self.text):
            return None
        return float(re.split("[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]", self.text)[0])

    @property
    def decimals(self) -> int:
        """Decimal places of the value as written: 2 for "5.25", 5 for "6e-5"."""
        mantissa, _, exponent = self.text.replace("−", "-").lower().partition("e")
        mantissa = re.split("[⁻⁰¹²³⁴⁵⁶⁷⁸⁹]", mantissa)[0]
        places = len(mantissa.split(".", 1)[1]) if "." in mantissa else 0
        return places - int(exponent) if exponent else places


def _value(text: str) -> float:
    """The value of a written number: "6", "1e-8", "2²⁴", "10⁻⁸"."""
    written = text.replace("−", "-")
    digits = written.rstrip("⁰¹²³⁴⁵⁶⁷⁸⁹⁻")
    power = written[len(digits) :].translate(_SUPERSCRIPT)
    return float(float(digits) ** int(power)) if power else float(digits)


@dataclass(frozen=True)
class _Token:
    kind: str
    text: str
    start: int
    end: int


@functools.lru_cache(maxsize=4096)
def _tokens(text: str) -> tuple[_Token, ...]:
    found = []
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup or "other"
        if kind != "space":
            found.append(_Token(kind, match.group(0), match.start(), match.end()))
    return tuple(found)


def _is_statement(text: str, token: _Token) -> bool:
    """Is this number a quantity the text claims, rather than a position, release or marker?"""
    before = text[: token.start].rstrip()
    if _ORDINAL.search(before):
        return False
    if _VERSION.match(text[token.end :]) or text.startswith("-bit", token.end):
        return False  # a release (2.1.0), a format's width (16-bit)
    # A list marker: "1." or "1)" opening the text (an item of a list of takeaways).
    after = text[token.end : token.end + 2]
    return not (token.start == 0 and after[:1] in {".", ")"} and after[1:2] in {" ", ""})


def stated_numbers(text: str) -> list[Stated]:
    """The numbers `text` (already `normal`) states as quantities, in order."""
    return [
        Stated(
            _value(token.text),
            token.start,
            token.end,
            token.text,
            bool(_APPROXIMATE.search(text[max(0, token.start - 12) : token.start])),
            bool(_SIGN.search(text[max(0, token.start - 2) : token.start])),
        )
        for token in _tokens(text)
        if token.kind == "number" and _is_statement(text, token)
    ]


# --- arithmetic ------------------------------------------------------------------------------
class _Parser:
    """Evaluate one side of an equation: numbers, + - − · × * / ÷ ^ **, sqrt or √, and
    parentheses. A name anywhere makes it algebra, which this does not evaluate."""

    def __init__(self, tokens: list[_Token]) -> None:
        self.tokens = tokens
        self.at = 0

    def _peek(self) -> str | None:
        return self.tokens[self.at].text if self.at < len(self.tokens) else None

    def _take(self) -> _Token:
        token = self.tokens[self.at]
        self.at += 1
        return token

    def parse(self) -> float | None:
        try:
            value = self._sum()
        except (IndexError, ValueError, ZeroDivisionError, OverflowError):
            return None
        return value if self.at == len(self.tokens) else None

    def _sum(self) -> float:
        value = self._product()
        while self._peek() in {"+", "-", "−"}:
            sign = self._take().text
            right = self._product()
            value = value + right if sign == "+" else value - right
        return value

    def _product(self) -> float:
        value = self._unary()
        while self._peek() in {"*", "·", "×", "/", "÷"}:
            op = self._take().text
            right = self._unary()
            value = value / right if op in {"/", "÷"} else value * right
        return value

    def _unary(self) -> float:
        if self._peek() in {"-", "−", "+"}:
            sign = self._take().text
            value = self._unary()
            return value if sign == "+" else -value
        return self._power()

    def _power(self) -> float:
        value = self._atom()
        if self._peek() in {"^", "**"}:
            self._take()
            value = value ** self._unary()
        return value

    def _atom(self) -> float:
        token = self._take()
        if token.kind == "number":
            return _value(token.text)
        if token.kind == "root":
            return math.sqrt(self._power())
        if token.kind == "open":
            value = self._sum()
            if self._take().kind != "close":
                raise ValueError("unbalanced")
            return value
        raise ValueError(token.text)


@dataclass(frozen=True)
class Equation:
    """`left = right` written in the text, both sides plain arithmetic, one side computing."""

    text: str
    left: float
    right: float
    right_decimals: int
    approximate: bool
    start: int
    end: int
    result_start: int  # where the right side starts: its numbers are what the equation proves

    @property
    def holds(self) -> bool:
        if math.isnan(self.left) or math.isnan(self.right):
            return False
        # Prose rounds: "1/3 = 0.333" holds, and "≈" allows one unit in the last place. A
        # whole number after "=" is exact: "2 · 3.2 = 6" is false.
        if self.approximate:
            slack = 10.0**-self.right_decimals
        else:
            slack = 0.5 * 10.0**-self.right_decimals if self.right_decimals > 0 else 0.0
        return abs(self.left - self.right) <= slack + 1e-9 * max(1.0, abs(self.right))


def _sides(run: list[_Token]) -> Iterator[tuple[list[_Token], str]]:
    side: list[_Token] = []
    for token in run:
        if token.kind == "equals":
            yield side, token.text
            side = []
        else:
            side.append(token)
    yield side, ""


def _decimals(side: list[_Token]) -> int:
    numbers = [Stated(0.0, t.start, t.end, t.text) for t in side if t.kind == "number"]
    return max((number.decimals for number in numbers), default=0)


def _side(side: list[_Token], text: str, *, leading: bool) -> list[_Token]:
    """The side as arithmetic, or [] when it is not all arithmetic: "2 · x = 6" has no left
    side ("· 2" follows a name), nor does "f(2) = 4". An unmatched parenthesis at the outer
    end is the sentence's, not the equation's: "(so 2 · 3 = 6)"."""
    while side and side[0 if leading else -1].kind == ("open" if leading else "close"):
        if _Parser(side).parse() is not None:
            break
        side = side[1:] if leading else side[:-1]
    if not side or side[-1].kind in {"op", "root"}:
        return []
    first = side[0]
    before = text[: first.start].rstrip()[-1:]
    follows_a_name = before.isalnum() or before in {")", "]", "_", "²", "³"}
    if first.kind == "op" and (first.text not in {"-", "−"} or follows_a_name):
        return []
    if first.kind == "open" and before.isalnum() and text[first.start - 1] != " ":
        return []  # a call: f(2)
    return side if _Parser(side).parse() is not None else []


def equations(text: str) -> list[Equation]:
    """Every equation in `text` (already `normal`) whose sides are arithmetic."""
    runs: list[list[_Token]] = [[]]
    for token in _tokens(text):
        if token.kind == "other":
            runs.append([])
        else:
            runs[-1].append(token)
    found = []
    for run in runs:
        sides = list(_sides(run))
        for (left, sign), (right, _) in pairwise(sides):
            left, right = _side(left, text, leading=True), _side(right, text, leading=False)
            if not left or not right or len(left) + len(right) < 3:
                continue
            found.append(
                Equation(
                    text[left[0].start : right[-1].end],
                    _Parser(left).parse() or 0.0,
                    _Parser(right).parse() or 0.0,
                    _decimals(right),
                    sign == "≈",
                    left[0].start,
                    right[-1].end,
                    right[0].start,
                )
            )
    return found
