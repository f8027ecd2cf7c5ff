"""`gradlab inventory stats`: the concept inventory's items and gain for authors, on the
database GRADLAB_DATABASE_URL names (every learner, or one class's with --class)."""

from __future__ import annotations

import argparse
import csv
import json
import sys
from typing import TYPE_CHECKING, Any

from app.pedagogy.sample_size import TOO_FEW  # a few constants: cheap for every command

# The commands' own imports are in each command: `gradlab` builds its parser from every
# command module, and a command pays only for what it runs.
if TYPE_CHECKING:
    from app.learning.inventory.inventory_gain import ClassGain

DISCRIMINATION = "point-biserial correlation of the item with the rest of its test"


def _num(x: float | None, digits: int = 4) -> float | None:
    return round(x, digits) if x is not None else None


def _gain_json(found: ClassGain) -> dict[str, Any]:
    """The gain as the dashboard's JSON gives it (app/learning/inventory/inventory_report.py):
    each gain with its n, and "too few to say" below its minimum."""
    from app.learning.inventory.inventory_report import class_gain_out

    out = class_gain_out(found).model_dump(exclude={"id", "name", "held"})
    out["bands"] = {band.label: band.learners for band in found.bands}
    return out


def _stats(args: argparse.Namespace) -> int:
    from app.config.loading import load_settings

    # The settings first: a bad one is said before the command's own imports are paid for.
    settings = load_settings()
    from app.learning.inventory.inventory_gain import class_gain
    from app.learning.inventory.inventory_item_stats import item_stats
    from app.lessons.loader import load_catalog
    from app.progress.store import open_store

    catalog = load_catalog(settings.lessons_dir)
    if catalog.inventory is None:
        print("gradlab inventory: no lessons folder has an inventory.yaml", file=sys.stderr)
        return 1
    store = open_store(settings.database_url, settings.migrate)
    if args.class_id:
        if store.find_class(args.class_id) is None:
            print(f"gradlab inventory: no class {args.class_id!r}", file=sys.stderr)
            return 1
        learners = [member.learner for member in store.members(args.class_id)]
        answers = store.inventory_answers_of(learners)
    else:
        answers = store.inventory_answers_of(None)
        learners = sorted({answer.learner for answer in answers})
    items, forms = item_stats(catalog.inventory, answers)
    found = class_gain(catalog.inventory, answers, learners)
    data = {
        "discrimination": DISCRIMINATION,
        "items": [
            {
                "item": row.item,
                "form": row.form,
                "concept": row.concept,
                "pre_answered": row.pre_answered,
                "pre_right": _num(row.pre_right),
                "post_answered": row.post_answered,
                "post_right": _num(row.post_right),
                "discrimination": _num(row.discrimination),
                "n": row.n,
                "too_few": row.too_few,
            }
            for row in items
        ],
        "forms": [
            {
                "form": f.form,
                "items": f.items,
                "pre_difficulty": _num(f.pre_difficulty),
                "post_difficulty": _num(f.post_difficulty),
            }
            for f in forms
        ],
        "gain": _gain_json(found),
    }
    {"json": _print_json, "csv": _print_csv, "table": _print_table}[args.format](data)
    return 0


def _print_json(data: dict[str, Any]) -> None:
    print(json.dumps(data, indent=2))


def _cell(value: object) -> object:
    return "" if value is None else value


def _said(figure: dict[str, Any]) -> object:
    """A gain's cell: the number, or "too few to say" (its n is in the row's `n`)."""
    return TOO_FEW if figure["too_few"] else _cell(figure["value"])


def _print_csv(data: dict[str, Any]) -> None:
    """One table: `section` says what a row is (item, form, gain, concept)."""
    writer = csv.writer(sys.stdout)
    writer.writerow(["section", "name", "form", "concept", "pre", "post", "gain_or_disc", "n"])
    for row in data["items"]:
        writer.writerow(
            [
                "item",
                row["item"],
                row["form"],
                row["concept"],
                _cell(row["pre_right"]),
                _cell(row["post_right"]),
                TOO_FEW if row["too_few"] else _cell(row["discrimination"]),
                row["n"],
            ]
        )
    for f in data["forms"]:
        writer.writerow(
            [
                "form",
                f["form"],
                f["form"],
                "",
                _cell(f["pre_difficulty"]),
                _cell(f["post_difficulty"]),
                "",
                f["items"],
            ]
        )
    gain = data["gain"]
    writer.writerow(
        [
            "gain",
            "all",
            "",
            "",
            _cell(gain["pre"]),
            _cell(gain["post"]),
            _said(gain["gain"]),
            gain["gain"]["n"],
        ]
    )
    for c in gain["concepts"]:
        writer.writerow(
            [
                "concept",
                c["concept"],
                "",
                c["concept"],
                _cell(c["pre"]),
                _cell(c["post"]),
                _said(c["gain"]),
                c["gain"]["n"],
            ]
        )


def _show(x: float | None, percent: bool = False) -> str:
    if x is None:
        return "—"
    return f"{100 * x:.0f}%" if percent else f"{x:.2f}"


def _print_table(data: dict[str, Any]) -> None:
    print(f"{'item':<32} {'form':<4} {'pre':>5} {'post':>5} {'n':>4} {'disc':>14}  concept")
    for row in data["items"]:
        disc = TOO_FEW if row["too_few"] else _show(row["discrimination"])
        print(
            f"{row['item']:<32} {row['form']:<4} {_show(row['pre_right'], True):>5} "
            f"{_show(row['post_right'], True):>5} {row['n']:>4} {disc:>14}  {row['concept']}"
        )
    print(f"discrimination: {data['discrimination']}")
    for f in data["forms"]:
        print(
            f"form {f['form']}: {f['items']} items, mean share right "
            f"{_show(f['pre_difficulty'], True)} before, {_show(f['post_difficulty'], True)} after"
        )
    gain = data["gain"]
    interval = gain["interval"]
    shown = f", 95% CI {interval[0]:.2f} to {interval[1]:.2f}" if interval else ""
    print(
        f"learners with both tests: {gain['matched']} (pre only {gain['pre_only']}, "
        f"post only {gain['post_only']})"
    )
    if gain["matched"]:
        print(
            f"pre {gain['pre']:.1f}%, post {gain['post']:.1f}%, "
            f"class-average normalized gain {gain['gain']['shown']} (n = {gain['gain']['n']}"
            f"{shown})"
        )
        for c in gain["concepts"]:
            print(
                f"  {c['concept']:<28} pre {c['pre']:5.1f}%  post {c['post']:5.1f}%  "
                f"gain {c['gain']['shown']} (n = {c['gain']['n']})"
            )


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    inventory = commands.add_parser("inventory", help="the concept inventory's statistics")
    actions = inventory.add_subparsers(dest="inventory_command", required=True)
    stats = actions.add_parser(
        "stats",
        help="per item: share right before and after, discrimination; per form: mean "
        "difficulty; the gain",
    )
    stats.add_argument("--format", choices=("table", "csv", "json"), default="table")
    stats.add_argument("--class", dest="class_id", default=None, help="one class's learners")
    stats.set_defaults(func=_stats)
