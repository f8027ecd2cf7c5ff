"""`gradlab class`, `gradlab stats` and `gradlab reports`: classes and item analysis from the
command line, on the database GRADLAB_DATABASE_URL names."""

from __future__ import annotations

import argparse
import csv
import json
import sys
from typing import TYPE_CHECKING

from app.config.loading import load_settings

# The commands' own imports are in each command: `gradlab` builds its parser from every
# command module, and a command pays only for what it runs.
if TYPE_CHECKING:
    from app.config.settings import Settings
    from app.progress.classes_store import ClassLinks
    from app.progress.store import ProgressStore


def _store(settings: Settings) -> ProgressStore:
    from app.progress.store import open_store

    return open_store(settings.database_url, settings.migrate)


def _links(links: ClassLinks, settings: Settings) -> None:
    """A class's links on stdout; on stderr, when they name the default address, that they do."""
    from app.config.settings import public_url_notice
    from app.learning.classes.dashboard import links_text

    print(links_text(links, settings.public_url))
    if notice := public_url_notice(settings):
        print(f"gradlab class: {notice}", file=sys.stderr)


def _class(args: argparse.Namespace) -> int:
    settings = load_settings()
    store = _store(settings)
    if args.action == "create":
        name = " ".join(args.name.split())
        if not 1 <= len(name) <= 120:
            print("gradlab class create: a name has 1 to 120 characters", file=sys.stderr)
            return 2
        _links(store.create_class(name), settings)
    elif args.action == "list":
        for info in store.list_classes():
            print(f"{info.id}\t{info.members} learners\t{info.created_at:%Y-%m-%d}\t{info.name}")
    elif args.action == "rotate-links":
        links = store.rotate_links(args.id)
        if links is None:
            print(f"gradlab class: no class {args.id!r}", file=sys.stderr)
            return 1
        _links(links, settings)
    elif args.action in ("open-post-test", "close-post-test"):
        if not store.open_post_test(args.id, args.action == "open-post-test"):
            print(f"gradlab class: no class {args.id!r}", file=sys.stderr)
            return 1
        state = "open" if args.action == "open-post-test" else "closed"
        print(f"the post-test is {state} for class {args.id}")
    elif not store.delete_class(args.id):
        print(f"gradlab class: no class {args.id!r}", file=sys.stderr)
        return 1
    return 0


def _stats(args: argparse.Namespace) -> int:
    """Item analysis over every learner of this instance (first attempts only). With --lesson
    the figures are the same as without (discrimination against each learner's share right
    over every question, as on the dashboard); only the rows shown are that lesson's."""
    # The settings first: a bad one is said before the command's own imports are paid for.
    settings = load_settings()
    from app.learning.classes.first_attempts import answers_of, current_answers, first_attempts
    from app.learning.classes.question_figures import by_concern, item_rows, misconceptions
    from app.learning.classes.teaching import item_out
    from app.lessons.loader import load_catalog
    from app.rendering import plain_text

    catalog = load_catalog(settings.lessons_dir)
    answered, left_out = current_answers(catalog, first_attempts(_store(settings), None))
    answers = answers_of(answered)
    shown = set(args.lesson or (lesson.slug for lesson in catalog.lessons))
    rows = [
        item_out(row)
        for row in by_concern(item_rows(catalog, answers))
        if row.question.lesson.slug in shown
    ]
    if args.format == "json":
        print(json.dumps({"items": [r.model_dump() for r in rows], "left_out": left_out}, indent=2))
        return 0
    fields = [
        "lesson",
        "kind",
        "number",
        "answered",
        "difficulty",
        "discrimination",
        "sure_wrong_share",
        "held_share",
        "flags",
        "too_few_for_flags",
        "question",
    ]
    if args.format == "csv":
        writer = csv.writer(sys.stdout)
        writer.writerow(fields)
        for r in rows:
            writer.writerow([_cell(getattr(r, name)) for name in fields])
        return 0
    from app.pedagogy.sample_size import TOO_FEW

    print(f"{'question':<44} {'n':>4} {'right':>6} {'disc':>6} {'sure&wrong':>10}  flags")
    for r in rows:
        label = f"{r.lesson} {r.kind} {r.number}"
        flags = TOO_FEW if r.too_few_for_flags else ", ".join(r.flags)
        print(
            f"{label:<44} {r.answered:>4} {_pct(r.difficulty):>6} {_num(r.discrimination):>6}"
            f" {_pct(r.sure_wrong_share):>10}  {flags}"
        )
    top = [m for m in misconceptions(catalog, answers) if m.question.lesson.slug in shown][:5]
    if top:
        print("\nmisconceptions to address (weighted by confidence):")
        for m in top:
            print(
                f"  {m.question.lesson.slug} {m.question.kind.name} {m.question.number}: "
                f"{m.choice!r} x{m.picked} (weight {m.weight:g})"
            )
            if m.belief:
                print(f"    {plain_text(m.belief)}")
    if left_out:
        print(f"\n{left_out} first attempts at questions rewritten since are left out")
    return 0


def _reports(args: argparse.Namespace) -> int:
    for report in _store(load_settings()).reports():
        text = " ".join(report.text.split())
        print(f"{report.at:%Y-%m-%d %H:%M}\t{report.lesson} {report.kind} {report.number}\t{text}")
    return 0


def _cell(value: object) -> object:
    return ";".join(value) if isinstance(value, list) else value


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.0f}%"


def _num(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    klass = commands.add_parser("class", help="make and manage classes (join and instructor links)")
    actions = klass.add_subparsers(dest="action", required=True)
    actions.add_parser("create", help="make a class; prints its join and instructor links")
    actions.choices["create"].add_argument("name")
    actions.add_parser("list", help="every class: id, members, created, name")
    for action, help_text in (
        ("rotate-links", "new links; the old ones (and cookies made from them) stop working"),
        ("delete", "delete the class (its learners keep their progress)"),
        ("open-post-test", "open the concept inventory's post-test to the class's learners now"),
        ("close-post-test", "close it again: only learners who finished the path may take it"),
    ):
        actions.add_parser(action, help=help_text).add_argument("id")
    klass.set_defaults(func=_class)
    stats = commands.add_parser("stats", help="item analysis of every question, first attempts")
    stats.add_argument(
        "--lesson",
        action="append",
        help="show only this lesson's questions (repeatable); the figures, discrimination "
        "included, are still computed over every question, as on the dashboard",
    )
    stats.add_argument("--format", choices=("table", "csv", "json"), default="table")
    stats.set_defaults(func=_stats)
    reports = commands.add_parser("reports", help="problems learners reported with questions")
    reports.set_defaults(func=_reports)
