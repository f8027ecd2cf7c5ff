"""A step's variants as a learner meets them: instances of its question with other numbers.

A step with `variants` (app/lessons/format.py) keeps its own concrete code for the lesson page;
practice after the reveal (the typed value, drills, review) asks the same idea on an instance:
the code template filled with one set of parameters, and the answers, printed output and
misconception values that the sandbox computed for it (stored in the lesson by
`gradlab check --update`, proved by `gradlab check`). Serving an instance runs nothing.

Which instance a learner sees is a hash of who asks and what, so that it is the same on every
page that asks it, and a review of it may ask another (`pick`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from app.lessons.format import (
    Choice,
    ExpectedError,
    GradValue,
    Plain,
    Step,
    ValueMisconception,
    Variants,
)
from app.lessons.format_variants import fill as fill  # where the code fills its templates
from app.lessons.memo import per_object
from app.lessons.numeric import compare


def instance_code(variants: Variants, index: int) -> str:
    return variants.code_of(index)


@dataclass(frozen=True)
class Instance:
    """One instance of a step's question, with everything it is graded against."""

    index: int
    code: str
    output: str
    grads: dict[str, GradValue]
    choices: list[Choice] = field(default_factory=list)  # the step's choices, in file order
    answer: str | None = None  # the right choice's text
    misconceptions: tuple[ValueMisconception, ...] = ()
    explanation: str = ""  # why the answers are what they are, with this instance's numbers
    # What the code raised, if it did: then it has no grads and no typed value to ask.
    error: ExpectedError | None = None
    # On a step that asks an ordering: the code above the lines, and the lines in the order
    # this instance's code has them (an order that prints `output`; never sent before the
    # answer, as the step's own are not).
    head: str = ""
    lines: tuple[str, ...] = ()
    # What the step's question readings evaluated to on this instance (`Question.readings`).
    readings: dict[str, Plain] = field(default_factory=dict)

    @property
    def finished(self) -> bool:
        """Did the code run to the end (so that it has `.grad`s to ask)?"""
        return self.error is None

    def choice(self, text: str) -> Choice | None:
        return next((choice for choice in self.choices if choice.text == text), None)

    @property
    def texts(self) -> list[str]:
        return [choice.text for choice in self.choices]


def _choices(
    step: Step, values: dict[str, Plain], raised: bool, index: int
) -> tuple[list[Choice], str | None]:
    """The step's choices as this instance reads them (`values`: its params and values, or
    what it raised)."""
    prediction, variants = step.prediction, step.variants
    if prediction is None or variants is None:
        return [], None
    made: list[Choice] = []
    answer = None
    for own, rule in zip(prediction.choices, variants.choices, strict=True):
        text = fill(rule.text, values)
        why = fill(rule.why, values) if rule.why else own.why
        made.append(Choice(text=text, why=why))
        if own.text == prediction.answer:
            answer = text
    template = texts_of(variants, raised, index)[0]
    if template is not None:
        answer = fill(template, values)
    return made, answer


def texts_of(variants: Variants, raised: bool, index: int) -> tuple[str | None, str]:
    """The `answer` and `explanation` templates of instance `index`: those of `raised` for one
    whose code raised, where the variants give them."""
    answer, explanation = variants.answer, variants.explanation_of(index)
    if raised and variants.raised is not None:
        answer = variants.raised.answer or answer
        explanation = variants.raised.explanation or explanation
    return answer, explanation


def empty_texts(variants: Variants, index: int) -> list[str]:
    """The templates that stored instance `index` fills to no text at all (`why: "{note}"`
    where `note` is ""): such an instance has nothing to show there, so the step serves none
    of its instances and `gradlab check` names each one."""
    stored = variants.instances[index]
    named = variants.params_of(index) | stored.named()
    answer, explanation = texts_of(variants, stored.error is not None, index)
    templates = [("the explanation", explanation), ("the answer", answer)]
    for number, rule in enumerate(variants.choices, start=1):
        templates += [(f"choice {number}", rule.text), (f"choice {number}'s `why`", rule.why)]
    if stored.error is None:
        templates += [
            (f"misconception {number}'s `why`", rule.why)
            for number, rule in enumerate(variants.misconceptions, start=1)
        ]
    return [
        f"{where} fills to empty text with this instance's params and values: "
        "give it words of its own around the placeholder, or other values"
        for where, template in templates
        if template is not None and not fill(template, named).strip()
    ]


@per_object
def instances(step: Step) -> tuple[Instance, ...]:
    """Every stored instance of the step (none until `gradlab check --update` wrote them for
    the step's current params, nor while one of them fills a text to nothing). Computed once
    per step (app/lessons/memo.py): the page, the progress and every answer on a step with
    variants ask for them."""
    variants = step.variants
    if variants is None or not variants.current:
        return ()
    if any(empty_texts(variants, index) for index in range(len(variants.instances))):
        return ()
    found = []
    for index, stored in enumerate(variants.instances):
        named = variants.params_of(index) | stored.named()
        raised = stored.error is not None
        choices, answer = _choices(step, named, raised, index)
        code = instance_code(variants, index)
        cut = step.ordering.split(code) if step.ordering is not None else None
        head, lines = cut if cut is not None else ("", [])
        rules = variants.misconceptions
        wrong = tuple(
            ValueMisconception(value=value, why=fill(rule.why, named))
            for rule, value in zip(rules, stored.misconceptions, strict=False)
        )
        found.append(
            Instance(
                index,
                code,
                stored.output,
                dict(stored.grads),
                choices,
                answer,
                wrong,
                fill(texts_of(variants, raised, index)[1], named),
                stored.error,
                head,
                tuple(lines),
                dict(stored.readings),
            )
        )
    return tuple(found)


def finished(step: Step) -> tuple[Instance, ...]:
    """The instances whose code ran to the end: the only ones a typed value or a drill (a
    `.grad` to type) can ask."""
    return tuple(instance for instance in instances(step) if instance.finished)


def asked_tensors(step: Step) -> list[str]:
    """The tensors whose `.grad` each instance keeps: the snippet's `grads` and the typed
    value's tensor."""
    names = list(step.snippet.grads) if step.snippet is not None else []
    guess = step.value_prediction
    return [*names, guess.tensor] if guess is not None and guess.tensor not in names else names


def question_readings(step: Step) -> dict[str, str]:
    """What a run of the step's code (or an instance's) evaluates for its questions, by name."""
    return {
        name: code for _, question in step.questions() for name, code in question.readings().items()
    }


def _rank(key: str) -> int:
    return int.from_bytes(hashlib.blake2b(key.encode(), digest_size=8).digest(), "big")


def choose(
    count: int,
    key: str,
    *,
    never: int | None = None,
    previous: int | None = None,
    seen: int | None = None,
) -> int:
    """Which of `count` forms of a question to ask under `key`: never `never` (the one the
    learner meets on the lesson page) and not `previous` (the one asked the time before), as
    long as another remains, nor `seen` (one the learner was shown elsewhere) while another of
    those remains; the same for the same key."""
    allowed = [index for index in range(count) if index != never] or list(range(count))
    fresh = [index for index in allowed if index != previous] or allowed
    unseen = [index for index in fresh if index != seen] or fresh
    return unseen[_rank(key) % len(unseen)]


def code_print(code: str) -> str:
    """Names code as a learner reads it (its text and so its numbers), whatever page showed
    it: what the record of what a learner was shown (app/learning/practice/seen.py) holds."""
    return hashlib.sha256(code.strip().encode()).hexdigest()[:24]


def _unseen_first(found: list[Instance], key: str, seen: frozenset[str]) -> Instance:
    """Of `found`, one whose code is not in `seen` while one remains: the first in an order
    of `key`'s own, so that seeing another instance never changes which one is asked."""
    unseen = [instance for instance in found if code_print(instance.code) not in seen] or found
    return min(unseen, key=lambda instance: _rank(f"{key}\0{instance.index}"))


def _not_shown(step: Step, found: tuple[Instance, ...]) -> list[Instance]:
    """`found` without an instance that is the step's own code (its reveal has shown it),
    unless there is no other."""
    own = step.snippet.code.strip() if step.snippet is not None else None
    return [instance for instance in found if instance.code.strip() != own] or list(found)


def pick(
    step: Step,
    key: str,
    *,
    avoid: str | None = None,
    previous: int | None = None,
    ran: bool = False,
    seen: frozenset[str] | None = None,
) -> Instance | None:
    """The instance asked under `key` (e.g. learner/lesson/step). With `avoid`, never the one
    the typed value asks under that key, so that a review asks other numbers than the lesson
    page did; with `previous`, not that instance (the one asked the time before) while
    another remains; with `ran`, only an instance whose code ran to the end (a typed value, a
    drill: an instance that raised has no `.grad` to ask). With `seen` (code this learner was
    shown, by `code_print`), not an instance whose code is in it while another remains."""
    found = _not_shown(step, finished(step) if ran else instances(step))
    if not found:
        return None
    never = None
    if avoid is not None and (typed := _not_shown(step, finished(step))):
        never = typed[_rank(avoid) % len(typed)].index
    if seen is not None:
        allowed = [instance for instance in found if instance.index != never] or found
        fresh = [instance for instance in allowed if instance.index != previous] or allowed
        return _unseen_first(fresh, key, seen)
    position = {instance.index: at for at, instance in enumerate(found)}
    chosen = choose(
        len(found),
        key,
        never=position.get(never) if never is not None else None,
        previous=position.get(previous) if previous is not None else None,
    )
    return found[chosen]


def expected_value(step: Step, instance: Instance) -> GradValue:
    """The typed value's answer in this instance: the `.grad` of the asked tensor."""
    guess = step.value_prediction
    return instance.grads.get(guess.tensor) if guess is not None else None


def coincidences(step: Step, instance: Instance) -> list[str]:
    """Where this instance's numbers make a misconception the answer: two choices that read
    the same, or a wrong typed value equal to the right one."""
    problems = []
    texts = instance.texts
    if instance.answer is not None and instance.answer not in texts:
        problems.append(f"the answer {instance.answer!r} is not one of the choices {texts}")
    for number, text in enumerate(texts, start=1):
        if text in texts[: number - 1]:
            problems.append(f"choices {texts.index(text) + 1} and {number} both read {text!r}")
    if step.value_prediction is not None:
        expected = expected_value(step, instance)
        for number, wrong in enumerate(instance.misconceptions, start=1):
            if compare(wrong.value, expected).matches:
                problems.append(
                    f"misconception {number} gives {wrong.value!r}, which is the right value"
                )
    return problems
