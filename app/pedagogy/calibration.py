"""Calibration: how often the learner was right at each level of confidence they gave, and what
those numbers do and do not support.

Each level stands for a range of how often it is right (`LEVEL_RANGES`). A level is judged
only once it has `MIN_ANSWERS` first answers; below that it is "too few", whatever its
percentage, and the finding says how many more answers it needs. The summary never says
confidence and results agree unless every level judged does.

Why 25 (docs/learning.md, "Progress and calibration", has the whole argument): the share right
at one level, from n answers, is known to within ±1.96·sqrt(p(1−p)/n) at 95 %. The levels'
typical rates lie about 20 points apart (a guess near 50 %, fairly sure near 70 %, certain near
90 %), so the interval must be at most ±20 points where it is widest, at p = 0.5:
1.96 · 0.5 / sqrt(n) ≤ 0.20 gives n ≥ (1.96 · 0.5 / 0.20)² = 24.01, so 25. Eight answers
leave ±35 points: six right of eight (75 %) fits anything from 45 % to 100 %.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

LEVELS = (("certain", "Certain"), ("fairly_sure", "Fairly sure"), ("guess", "Guess"))
# Below this many answers at a level, its percentage says more about luck than about the learner:
# the 95 % interval of a share is at most ±20 points from 25 answers on (see the docstring).
MIN_ANSWERS = 25
# The share of answers right that each level stands for, as (at least, at most), in percent.
LEVEL_RANGES = {"certain": (80, 100), "fairly_sure": (55, 90), "guess": (0, 70)}
_MEANS = {
    "certain": "nearly always right (at least 80%)",
    "fairly_sure": "right more often than not, but not always (55% to 90%)",
    "guess": "right less often than when you are sure (at most 70%)",
}


class Verdict(StrEnum):
    none = "none"  # no answers at this level
    too_few = "too_few"  # fewer than MIN_ANSWERS: nothing to judge yet
    overconfident = "overconfident"  # right less often than the level stands for
    underconfident = "underconfident"  # right more often than the level stands for
    matches = "matches"


@dataclass(frozen=True)
class LevelStats:
    level: str
    label: str
    answered: int
    right: int

    @property
    def percent(self) -> int | None:
        return round(100 * self.right / self.answered) if self.answered else None

    @property
    def needed(self) -> int:
        """How many more answers this level needs before it is judged."""
        return max(0, MIN_ANSWERS - self.answered)

    @property
    def verdict(self) -> Verdict:
        if not self.answered:
            return Verdict.none
        if self.answered < MIN_ANSWERS:
            return Verdict.too_few
        low, high = LEVEL_RANGES[self.level]
        share = 100 * self.right / self.answered
        if share < low:
            return Verdict.overconfident
        if share > high:
            return Verdict.underconfident
        return Verdict.matches

    @property
    def finding(self) -> str:
        """One sentence on this level alone."""
        counts = f"{self.percent}% right ({self.right} of {self.answered})"
        meaning = f"“{self.label.lower()}” should mean {_MEANS[self.level]}"
        match self.verdict:
            case Verdict.none:
                return f"{self.label}: no answers yet; it is judged from {MIN_ANSWERS} answers on."
            case Verdict.too_few:
                more = "1 more answer" if self.needed == 1 else f"{self.needed} more answers"
                return (
                    f"{self.label}: {self.right} of {self.answered} right, too few answers to "
                    f"judge yet: {more} needed (at least {MIN_ANSWERS} at a level)."
                )
            case Verdict.overconfident:
                return f"{self.label}: {counts}, but {meaning}: overconfident."
            case Verdict.underconfident:
                return f"{self.label}: {counts}, but {meaning}: underconfident."
            case Verdict.matches:
                return f"{self.label}: {counts}, as {meaning}."


def calibration(attempts: list[tuple[str, bool]]) -> list[LevelStats]:
    """(confidence, correct) pairs -> one row per confidence level, most confident first."""
    return [
        LevelStats(
            level,
            label,
            sum(1 for confidence, _ in attempts if confidence == level),
            sum(1 for confidence, correct in attempts if confidence == level and correct),
        )
        for level, label in LEVELS
    ]


def _names(rows: list[LevelStats]) -> str:
    names = [f"“{row.label}”" for row in rows]
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def advice(stats: list[LevelStats], *, teacher: bool = False) -> str:
    """What the numbers support, as a whole: a level is judged only with enough answers. Told
    to the learner, or with `teacher` to a class's teacher about their learners."""
    by_verdict: dict[Verdict, list[LevelStats]] = {verdict: [] for verdict in Verdict}
    for row in stats:
        by_verdict[row.verdict].append(row)
    over, under = by_verdict[Verdict.overconfident], by_verdict[Verdict.underconfident]
    matches, few = by_verdict[Verdict.matches], by_verdict[Verdict.too_few]
    words = _TEACHER if teacher else _LEARNER
    if not any(row.answered for row in stats):
        return words["none"]
    sentences = []
    if over:
        sentences.append(words["over"].format(_names(over)))
    if under:
        sentences.append(words["under"].format(_names(under)))
    if matches and not over and not under:
        sentences.append(words["matches"].format(_names(matches)))
    if few:
        sentences.append(
            f"{_names(few)}: too few answers to judge yet (at least {MIN_ANSWERS} at a level)."
        )
    return " ".join(sentences)


_LEARNER = {
    "none": "Answer a few predictions to see how well your confidence matches your results.",
    "over": "When you say {} you are right less often than that claims: "
    "those are the answers worth slowing down for.",
    "under": "When you say {} you are right more often than that claims: "
    "you know more than you give yourself credit for.",
    "matches": "When you say {}, your results match.",
}
_TEACHER = {
    "none": "No confident first answers yet: the class's calibration shows once learners "
    "answer predictions.",
    "over": "When your learners say {} they are right less often than that claims: "
    "the questions they answer that sure deserve a second look in class.",
    "under": "When your learners say {} they are right more often than that claims: "
    "they know more than they give themselves credit for.",
    "matches": "When your learners say {}, their results match.",
}
