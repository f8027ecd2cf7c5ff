"""Patterns a learner could answer the myths by without reading them, over the curriculum: a
fixed yes/no split in every lesson, or a first word or a position in a lesson's list that
predicts the answer.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator

from app.lessons.lint_disclosure import _plain
from app.lessons.schema import Lesson

# A myth question's first word predicts its answer when used this often with this share of
# one answer; so does a position in the lessons' myth lists.
PATTERN_USES = 5
PATTERN_SHARE = 0.8


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
