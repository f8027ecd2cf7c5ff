"""`gradlab check`: prove that every lesson tells the truth, by running it.

For every lesson: the schema validates and links resolve (the loader); every snippet runs in the
real sandbox and prints exactly its declared output, raises exactly its declared error, and leaves
its declared `.grad` values; every value prediction's answer is what the run computed; every
pitfall's wrong code really goes wrong and its correct code really behaves differently; every
wrong choice that claims to be what other code gives (`because`) is what that code prints; every
stored variant instance is what its code computes (app/lessons/variant_runs.py); every
exercise's reference solution passes its own grading, while its code with the blanks left
empty (and, for a diagnosis, with the bug in them) fails it, and no hint writes the solution; every
number the prose states is what a run gave, what arithmetic beside it computes, or what a claim
proves (`app.lessons.prose_check`). Then the pedagogy lints (`app.lessons.lint`) check that the
quizzes test understanding.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from typing import TypeVar

from app.config.loading import load_settings
from app.config.settings import Settings
from app.errors import SandboxUnavailable
from app.lessons.behaviour import Verdict, snippet_problems
from app.lessons.exercises import goal_by_hand, graded_programs, judge_runs
from app.lessons.format import Exercise, Lesson
from app.lessons.inventory_check import check_inventory, summary
from app.lessons.lint import Finding, lint_catalog, step_label
from app.lessons.lint_text import plain
from app.lessons.lint_variants import form_counts
from app.lessons.loader import Catalog, LessonError, load_catalog
from app.lessons.numeric import compare
from app.lessons.prose_check import Produced, prose_failures
from app.lessons.unfinished import unfinished_fields
from app.lessons.variant_runs import check_variants, variant_steps
from app.sandbox.result import RunResult
from app.sandbox.service import Sandbox

# A failed check reads like a lint finding: lesson, where, problem.
Failure = Finding


def _outcome(result: RunResult) -> tuple[str, str, str]:
    error = f"{result.error.type}: {result.error.message}" if result.error else ""
    return result.status, result.stdout, error


Runner = Callable[[str], Awaitable[RunResult]]
T = TypeVar("T")


async def check_lesson(lesson: Lesson, run: Runner) -> list[Failure]:
    labelled = lesson.snippets()
    results = await asyncio.gather(*(run(snippet.code) for _, snippet in labelled))
    by_snippet = {
        id(snippet): result for (_, snippet), result in zip(labelled, results, strict=True)
    }
    failures = [
        Failure(lesson.slug, label, problem)
        for (label, snippet), result in zip(labelled, results, strict=True)
        for problem in snippet_problems(snippet, result)
    ]
    for number, step in enumerate(lesson.steps, start=1):
        guess = step.value_prediction
        if guess is None or step.snippet is None:
            continue
        tensors = {t.name: t for t in by_snippet[id(step.snippet)].tensors}
        where = f"step {number} ({step.title}) value prediction"
        if guess.tensor not in tensors:
            failures.append(Failure(lesson.slug, where, f"no tensor named {guess.tensor!r}"))
            continue
        actual = tensors[guess.tensor].grad
        comparison = compare(guess.expected, actual)
        if not comparison.matches:
            failures.append(
                Failure(
                    lesson.slug,
                    where,
                    f"the answer {guess.expected!r} is wrong: {guess.tensor}.grad is {actual!r} "
                    f"({comparison.problem})",
                )
            )
    for number, pitfall in enumerate(lesson.pitfalls, start=1):
        wrong, correct = by_snippet[id(pitfall.wrong)], by_snippet[id(pitfall.correct)]
        if _outcome(wrong) == _outcome(correct):
            failures.append(
                Failure(
                    lesson.slug,
                    f"pitfall {number} ({pitfall.title})",
                    "the wrong code and the correct code behave the same, so the pitfall shows "
                    "nothing",
                )
            )
    because, because_failures = await _check_because(lesson, run)
    failures += because_failures
    for number, exercise in enumerate(lesson.exercises, start=1):
        failures += [
            Failure(lesson.slug, f"exercise {number} ({exercise.title})", problem)
            for problem in await exercise_problems(exercise, run)
        ]
    failures += await check_variants(lesson, run)
    runs = [(snippet.code, result) for (_, snippet), result in zip(labelled, results, strict=True)]
    return failures + await prose_failures(lesson, Produced.of(runs + because), run)


NO_RERUN = (
    "no rerun: the grading must run the filled code again with other values (`rerun`), or a "
    "goal written in by hand passes it"
)


def _reasons(verdict: Verdict) -> str:
    return " ".join(" ".join(reason.split()) for reason in verdict.reasons)


async def exercise_problems(exercise: Exercise, run: Runner) -> list[str]:
    """The reference solution must pass the grading a learner's lines get; the code with its
    blanks empty, the buggy code a diagnosis shows, and the goal written in by hand
    (`goal_by_hand`) must fail it (or the exercise grades nothing); every exercise reruns with
    other values; a hint must not write out a line of the solution."""
    fills = {"the reference solution": exercise.solution}
    fills["the code with its blanks empty"] = [""] * exercise.blanks
    if exercise.buggy is not None:
        fills["the buggy code"] = exercise.buggy
    for number, by_hand in enumerate(goal_by_hand(exercise), start=1):
        fills[f"the goal written by hand ({number})"] = by_hand
    runs = {which: graded_programs(exercise, lines) for which, lines in fills.items()}
    results = await asyncio.gather(*(run(code) for codes in runs.values() for code in codes))
    each = iter(results)
    verdicts = {
        which: judge_runs(exercise, [next(each) for _ in codes]) for which, codes in runs.items()
    }
    problems = [] if exercise.rerun is not None else [NO_RERUN]
    reference = verdicts.pop("the reference solution")
    if not reference.passed:
        problems.append(f"the reference solution fails its own grading: {_reasons(reference)}")
    problems += [
        f"{which} passes the grading, so the exercise asks nothing"
        for which, verdict in verdicts.items()
        if verdict.passed
    ]
    lines = {line.strip() for fill in exercise.solution for line in fill.splitlines()}
    for number, hint in enumerate(exercise.hint_list, start=1):
        written = sorted(line for line in lines if len(line) > 3 and line in hint.text)
        if written:
            problems.append(f"hint {number} writes the solution out: {written[0]!r}")
    return problems


async def _check_because(
    lesson: Lesson, run: Runner
) -> tuple[list[tuple[str, RunResult]], list[Failure]]:
    """A wrong choice that says it is what some code gives must be what that code prints.
    Also returns each `because` code with its run: what it printed is what the prose may cite."""
    becauses = [
        (step_label(number, step), choice.text, choice.because)
        for number, step in enumerate(lesson.steps, start=1)
        if step.prediction is not None
        for choice in step.prediction.choices
        if choice.because is not None
    ]
    results = await asyncio.gather(*(run(code) for _, _, code in becauses))
    failures = []
    for (where, text, _), result in zip(becauses, results, strict=True):
        printed = result.stdout.strip()
        if result.error is not None:
            problem = f"raised {result.error.type}: {result.error.message}"
        # torch pads what it prints ("tensor([ 0.05, -0.3])"): white space says nothing.
        elif "".join(printed.split()) != "".join(plain(text).split()):
            problem = f"prints {printed!r}"
        else:
            continue
        failures.append(
            Failure(lesson.slug, where, f"the `because` code of the choice {text!r} {problem}")
        )
    runs = [(code, result) for (_, _, code), result in zip(becauses, results, strict=True)]
    return runs, failures


def _installed_torch() -> str:
    import importlib.metadata

    return importlib.metadata.version("torch").split("+", 1)[0]


async def with_sandbox(
    settings: Settings, work: Callable[[Runner], Awaitable[T]], started: Runner | None = None
) -> T:
    """Start a sandbox, give `work` a runner on it, stop the sandbox; or, given `started` (a
    runner on a sandbox already started, with `settings`' workers), give `work` that."""
    # Never more runs waiting than the sandbox has workers: its queue is for web traffic.
    slots = asyncio.Semaphore(settings.workers)
    if started is not None:

        async def run_started(code: str) -> RunResult:
            async with slots:
                return await started(code)

        return await work(timeout_retried(run_started))
    sandbox = Sandbox(settings)

    async def run(code: str) -> RunResult:
        async with slots:
            return await sandbox.run(code)

    await sandbox.start()
    try:
        return await work(timeout_retried(run))
    finally:
        await sandbox.stop()


def timeout_retried(run: Runner) -> Runner:
    """`run`, where a run stopped by its time limit is run once more before its result counts.
    A lesson's snippets run in milliseconds, so a time-out is nearly always a machine too busy
    to give the run a core in time (the check beside a test suite, say), and the second try
    settles it; a snippet that really runs too long is stopped twice and fails as before."""

    async def run_again_if_timed_out(code: str) -> RunResult:
        result = await run(code)
        if result.status == "timeout":
            result = await run(code)
        return result

    return run_again_if_timed_out


async def check_lessons(
    lessons: list[Lesson], settings: Settings, started: Runner | None = None
) -> list[Failure]:
    async def check_all(run: Runner) -> list[Failure]:
        outcomes = await asyncio.gather(*(check_lesson(lesson, run) for lesson in lessons))
        return [failure for failures in outcomes for failure in failures]

    return await with_sandbox(settings, check_all, started)


def select_lessons(catalog: Catalog, only: list[str] | None) -> tuple[list[Lesson], list[str]]:
    """The lessons `--lesson` names (all without it), and the names that match none."""
    lessons = [lesson for lesson in catalog.lessons if not only or lesson.slug in only]
    missing = sorted(set(only or ()) - {lesson.slug for lesson in lessons})
    return lessons, missing


def unfinished_failures(catalog: Catalog, lessons: list[Lesson]) -> list[Failure]:
    """One failure per field still holding a `TODO` (see `gradlab new`)."""
    return [
        Failure(lesson.slug, where, "unfinished: TODO")
        for lesson in lessons
        for where in unfinished_fields(catalog.paths[lesson.slug])
    ]


def load_selected(
    lessons_dir: str | None, only: list[str] | None, *, advice: str = ""
) -> tuple[Settings, Catalog, list[Lesson]] | None:
    """Settings, the catalog and the lessons `--lesson` names, or None once it has said on
    stderr why not (a lesson that does not load, a slug that matches none)."""
    settings = load_settings({"lessons_dir": lessons_dir}, flags={"lessons_dir": "--lessons-dir"})
    try:
        catalog = load_catalog(settings.lessons_dir)
    except LessonError as exc:
        print(f"FAIL schema or links{advice}:\n{exc}", file=sys.stderr)
        return None
    lessons, missing = select_lessons(catalog, only)
    if missing:
        print(f"FAIL: no such lesson(s): {', '.join(missing)}", file=sys.stderr)
        return None
    return settings, catalog, lessons


def run_check(
    lessons_dir: str | None = None,
    only: list[str] | None = None,
    verbose: bool = False,
    inventory: bool = False,
    started: Runner | None = None,
) -> int:
    """Check the lessons `only` names (all without it) and, when all are checked or with
    `inventory`, the concept inventory; with `inventory` alone, only the inventory. The
    snippets run in a sandbox started for the check, or through `started` (see
    `with_sandbox`)."""
    loaded = load_selected(lessons_dir, only)
    if loaded is None:
        return 1
    settings, catalog, lessons = loaded
    if inventory and not only:
        return run_inventory_check(settings, catalog, started)
    with_inventory = inventory or not only
    _note_torch_versions(lessons)
    try:
        failures = unfinished_failures(catalog, lessons)
        failures += asyncio.run(check_lessons(lessons, settings, started))
        if with_inventory and catalog.inventory is not None:
            failures += asyncio.run(_inventory_failures(catalog, settings, started))
    except SandboxUnavailable as exc:
        print(f"FAIL: the sandbox cannot run snippets: {exc}", file=sys.stderr)
        return 1
    # A field still holding a TODO has that one problem: the lints wait for its real text.
    todo = {(failure.lesson, failure.where) for failure in failures}
    failures += [
        finding
        for finding in lint_catalog(list(catalog.lessons), only=set(only) if only else None)
        if (finding.lesson, finding.where) not in todo
    ]
    snippets = sum(len(lesson.snippets()) for lesson in lessons)
    for failure in failures:
        print(f"FAIL {failure}", file=sys.stderr)
    if verbose or not failures:
        for lesson in lessons:
            bad = sum(1 for failure in failures if failure.lesson == lesson.slug)
            print(
                f"{'ok  ' if not bad else 'FAIL'} {lesson.slug}: "
                f"{len(lesson.snippets())} snippets, {bad} problems"
            )
    instances = sum(v.count for lesson in lessons for _, _, v in variant_steps(lesson))
    if with_inventory and catalog.inventory is not None and not failures:
        print("\n".join(summary(catalog.inventory)))
    print("\n".join(form_counts(lessons).lines()))
    print(
        f"{len(lessons)} lessons, {snippets} snippets and {instances} variant instances checked: "
        f"{'all true' if not failures else f'{len(failures)} problems'}"
    )
    return 1 if failures else 0


def _note_torch_versions(lessons: list[Lesson]) -> None:
    installed = _installed_torch()
    for lesson in lessons:
        if lesson.torch_version != installed:
            print(
                f"note: {lesson.slug} was verified against torch {lesson.torch_version}; "
                f"torch {installed} is installed: checking against {installed}"
            )


async def _inventory_failures(
    catalog: Catalog, settings: Settings, started: Runner | None = None
) -> list[Failure]:
    inventory = catalog.inventory
    if inventory is None:
        return []

    async def work(run: Runner) -> list[Failure]:
        return await check_inventory(inventory, catalog.lessons, run)

    return await with_sandbox(settings, work, started)


def run_inventory_check(settings: Settings, catalog: Catalog, started: Runner | None = None) -> int:
    """`gradlab check --inventory`: the concept inventory alone (its items run in the
    sandbox; the lessons are read, not run, to find a repeated example)."""
    if catalog.inventory is None:
        print("FAIL: no lessons folder has an inventory.yaml", file=sys.stderr)
        return 1
    try:
        failures = asyncio.run(_inventory_failures(catalog, settings, started))
    except SandboxUnavailable as exc:
        print(f"FAIL: the sandbox cannot run snippets: {exc}", file=sys.stderr)
        return 1
    for failure in failures:
        print(f"FAIL {failure}", file=sys.stderr)
    if not failures:
        print("\n".join(summary(catalog.inventory)))
    items = len(catalog.inventory.items)
    print(
        f"inventory: {items} items checked: "
        f"{'all true' if not failures else f'{len(failures)} problems'}"
    )
    return 1 if failures else 0
