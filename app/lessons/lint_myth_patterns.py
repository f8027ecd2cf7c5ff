"""Patterns a learner could answer the myths by without reading them: a lesson whose myths all
give one answer; over the curriculum, a share of "yes" far from half, a fixed yes/no split in
every lesson, or a first word or a position in a lesson's list that predicts the answer.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator

from app.lessons.format import Lesson
from app.lessons.lint_disclosure import _plain

# A myth question's first word predicts its answer when used this often with this share of
# one answer; so does a position in the lessons' myth lists.
PATTERN_USES = 5
PATTERN_SHARE = 0.8
# Share of myths answered "yes" across the curriculum.
YES_SHARE = (0.4, 0.6)


def one_answer(lesson: Lesson) -> str | None:
    """A lesson of three myths or more that all give the same answer."""
    answers = {myth.answer for myth in lesson.myths}
    if len(lesson.myths) >= 3 and len(answers) == 1:
        return (
            f"all {len(lesson.myths)} myths answer {answers.pop()!r}: "
            "a learner who always says that scores full marks"
        )
    return None


def myth_balance(lessons: list[Lesson]) -> Iterator[str]:
    """The share of myths answered "yes" across the curriculum, when it is far from half."""
    counts: dict[str, int] = defaultdict(int)
    for lesson in lessons:
        for myth in lesson.myths:
            counts[myth.answer] += 1
    total = sum(counts.values())
    if not total:
        return
    share = counts["yes"] / total
    low, high = YES_SHARE
    if not low <= share <= high:
        yield (
            f"{counts['yes']} of {total} myths answer yes ({share:.0%}); keep it between "
            f"{low:.0%} and {high:.0%} so that neither 'always yes' nor 'always no' passes"
        )


def myth_patterns(lessons: list[Lesson]) -> Iterator[str]:
    """Patterns a learner could answer the myths by without reading them."""
    splits = {
        lesson.slug: tuple(sorted(Counter(m.answer for m in lesson.myths).items()))
        for lesson in lessons
        if lesson.myths
    }
    if len(splits) >= 2 and len(set(splits.values())) == 1:
        split = ", ".join(f"{count} {answer}" for answer, count in next(iter(splits.values())))
        yield (
            f"every lesson's myths split the same way ({split}): the last answer of a lesson "
            "follows from the others; vary the split"
        )
    firsts: dict[str, list[str]] = defaultdict(list)
    positions: dict[int, list[str]] = defaultdict(list)
    for lesson in lessons:
        for position, myth in enumerate(lesson.myths, start=1):
            words = _plain(myth.question).split()
            if words:
                firsts[words[0].lower().strip("`*_")].append(myth.answer)
            positions[position].append(myth.answer)
    for word, answers in sorted(firsts.items()):
        yield from _predicts(f"a myth starting {word.capitalize()!r}", answers)
    for position, answers in sorted(positions.items()):
        yield from _predicts(f"myth {position} of a lesson", answers)


def _predicts(what: str, answers: list[str]) -> Iterator[str]:
    if len(answers) < PATTERN_USES:
        return
    answer, count = Counter(answers).most_common(1)[0]
    if count / len(answers) >= PATTERN_SHARE:
        yield (
            f"{what} answers {answer!r} {count} times out of {len(answers)}: the pattern "
            "gives the answer away; reword questions rather than flipping facts"
        )
