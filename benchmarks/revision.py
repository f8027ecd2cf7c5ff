"""Another revision of gradlab beside this one, to compare the two on the same machine.

`checked_out(rev)` puts REV in a temporary detached git worktree (`git worktree add --detach`)
and removes it afterwards; a benchmark started with `--against REV` serves that folder in turn
with this one (A B A B ...), so that both sides meet the same load from the rest of the host.
`compared` reduces the figures of the passes to each side's range and the ratio of their
medians. `add_against_arguments` declares `--against` and `--repeat` for a benchmark, and
`checked_against` refuses a REV that names no commit or a repeat below one.

Usage (a library; run it only to check that REV can be checked out):
    python benchmarks/revision.py REV
"""

from __future__ import annotations

import argparse
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def commit_of(rev: str) -> str:
    """The commit `rev` names; ValueError when it names none."""
    answer = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}"],
        capture_output=True,
        text=True,
    )
    if answer.returncode != 0:
        raise ValueError(f"{rev!r} names no commit of {ROOT}")
    return answer.stdout.strip()


@contextmanager
def checked_out(rev: str) -> Iterator[Path]:
    """The tree of `rev` in a temporary folder (a detached git worktree), removed on exit,
    a SIGTERM's included."""
    commit = commit_of(rev)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    parent = Path(tempfile.mkdtemp(prefix="gradlab-against-"))
    folder = parent / commit[:12]
    subprocess.run(
        ["git", "-C", str(ROOT), "worktree", "add", "--detach", "--quiet", str(folder), commit],
        check=True,
    )
    try:
        yield folder
    finally:
        subprocess.run(
            ["git", "-C", str(ROOT), "worktree", "remove", "--force", str(folder)], check=False
        )
        shutil.rmtree(parent, ignore_errors=True)


@dataclass(frozen=True)
class Compared:
    """One measure on both sides: every pass's figure, and now / REV of their medians."""

    now: list[float]
    then: list[float]

    @property
    def ratio(self) -> float:
        then = statistics.median(self.then)
        return statistics.median(self.now) / then if then else float("nan")

    def line(self, name: str, width: int = 38) -> str:
        def span(values: list[float]) -> str:
            return f"{min(values):.2f} – {max(values):.2f}"

        return f"  {name:{width}} {span(self.now):>15} {span(self.then):>15} {self.ratio:7.2f}"


def compared(passes: list[tuple[str, dict[str, float]]], now: str) -> dict[str, Compared]:
    """Per measure, the figures of the passes labelled `now` against all the others."""
    names = list(passes[0][1])
    return {
        name: Compared(
            [figures[name] for side, figures in passes if side == now],
            [figures[name] for side, figures in passes if side != now],
        )
        for name in names
    }


def add_against_arguments(parser: argparse.ArgumentParser, *, repeat: int) -> None:
    """`--against REV` and `--repeat N` (passes of each side, `repeat` by default)."""
    parser.add_argument(
        "--against",
        metavar="REV",
        help="also serve REV (a commit, branch or tag) from a temporary git worktree, in turn "
        "with this tree, and print both and the ratio now / REV",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=repeat,
        help=f"with --against: passes of each side (default {repeat})",
    )


def checked_against(parser: argparse.ArgumentParser, args: argparse.Namespace) -> str:
    """The REV of `--against`, once it names a commit and `--repeat` is at least one; else
    the parser's error (which exits)."""
    try:
        commit_of(args.against)
    except ValueError as error:
        parser.error(f"--against: {error}")
    if args.repeat < 1:
        parser.error("--repeat takes a number of passes >= 1")
    return str(args.against)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rev", help="a commit, branch or tag")
    args = parser.parse_args()
    with checked_out(args.rev) as folder:
        print(f"{args.rev} checks out into {folder}")


if __name__ == "__main__":
    main()
