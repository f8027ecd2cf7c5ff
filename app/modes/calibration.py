"""Calibration: how often the learner was right at each level of confidence they gave."""

from __future__ import annotations

from dataclasses import dataclass

LEVELS = (("certain", "Certain"), ("fairly_sure", "Fairly sure"), ("guess", "Guess"))
MIN_ANSWERS = 3  # below this, a percentage says more about luck than about the learner


@dataclass(frozen=True)
class LevelStats:
    level: str
    label: str
    answered: int
    right: int

    @property
    def percent(self) -> int | None:
        return round(100 * self.right / self.answered) if self.answered else None


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


def advice(stats: list[LevelStats]) -> str:
    """One sentence on what the numbers say, once there are enough of them."""
    by_level = {row.level: row for row in stats}
    certain, guess = by_level["certain"], by_level["guess"]
    if sum(row.answered for row in stats) < MIN_ANSWERS:
        return "Answer a few more predictions to see how well your confidence matches your results."
    if certain.answered >= MIN_ANSWERS and (certain.percent or 0) < 80:
        return (
            f"When you are certain you are right {certain.percent}% of the time: those are the "
            "surprises worth slowing down for."
        )
    if guess.answered >= MIN_ANSWERS and (guess.percent or 0) >= 75:
        return "Your guesses are mostly right: you know more than you give yourself credit for."
    if certain.answered >= MIN_ANSWERS:
        return "When you are certain you are nearly always right: your confidence is well founded."
    return "Your confidence and your results agree so far."
