"""The gradient doctor's corpus: training programs written the way learners write them, each
with the findings the doctor must report (docs/doctor.md).

Every program is a file under `buggy/` or `correct/` whose first lines say what it must produce:
`# expect: KIND TENSOR` once per finding (a buggy program), or `# expect: none` (a correct one).
The set of (kind, tensor) the doctor reports must be exactly that set: a finding missing is a
miss, one more is a false alarm.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).parent
Expected = frozenset[tuple[str, str | None]]


@dataclass(frozen=True)
class Program:
    name: str  # "buggy/detach_hidden"
    code: str
    expected: Expected


def expectations(code: str) -> Expected:
    found: set[tuple[str, str | None]] = set()
    for line in code.splitlines():
        if not line.startswith("# expect:"):
            continue
        words = line.removeprefix("# expect:").split()
        if words != ["none"]:
            found.add((words[0], words[1] if len(words) > 1 else None))
    return frozenset(found)


def programs() -> list[Program]:
    return [
        Program(f"{path.parent.name}/{path.stem}", code, expectations(code))
        for path in sorted(HERE.glob("*/*.py"))
        for code in [path.read_text()]
    ]


def reported(findings: list[dict[str, object]]) -> Expected:
    """The (kind, tensor) pairs of POST /api/doctor's findings."""
    return frozenset((str(f["kind"]), f["tensor"] and str(f["tensor"])) for f in findings)
