"""docs/architecture.md's "Words with one meaning" held true: every name it retires is absent
from the code (app/, templates/, static/js/; the migrations that made and renamed the old table
aside), every name it gives a meaning to exists, and a page's `data-kind` holds only a
question kind's name."""

from __future__ import annotations

import re
from pathlib import Path

from app.config.paths import PROJECT_ROOT

ARCHITECTURE = (PROJECT_ROOT / "docs" / "architecture.md").read_text()
SECTION = ARCHITECTURE.split("## Words with one meaning", 1)[1].split("\n## ", 1)[0]
RETIRED = re.search(r"Retired names,.*?:(.*?)\.\n", SECTION, re.DOTALL)
CODE = ("app", "templates", "static/js")
SUFFIXES = {".py", ".html", ".js"}
MIGRATIONS = "app/progress/migrations/versions/"
# Names the glossary gives their one meaning to, each where it must be found.
NEW_NAMES = {
    "StepAnswer": "app/progress/models/learners.py",
    "StepAnswerRecord": "app/progress/records.py",
    "record_step_answer": "app/progress/store.py",
    "first_step_answers": "app/progress/modes_store.py",
    "ValueRubric": "app/learning/answers/grader.py",
    "DatabaseProbe": "app/learning/readiness.py",
    "ReviewExercise": "app/learning/kinds/kind.py",
    "ReviewOrdering": "app/learning/kinds/kind.py",
    "reports_without_item": "app/learning/classes/dashboard.py",
    "shared_statement": "app/lessons/lint_examples.py",
    "LEVEL_RANGES": "app/pedagogy/calibration.py",
    "stated": "app/lessons/format_questions.py",
    "queue_lesson_score": "app/learning/lti/grades.py",
    "add_to_outbox": "app/progress/lti_store.py",
}


def retired_names() -> list[str]:
    assert RETIRED is not None, "the glossary lists no retired names"
    return re.findall(r"`([^`]+)`", RETIRED.group(1))


def uses(root: Path, names: list[str]) -> list[str]:
    """path:line name, for each retired name found as a whole word in the code under `root`."""
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b")
    found = []
    for folder in CODE:
        for path in sorted((root / folder).rglob("*")):
            relative = path.relative_to(root).as_posix()
            if path.suffix not in SUFFIXES or relative.startswith(MIGRATIONS):
                continue
            for number, line in enumerate(path.read_text().splitlines(), start=1):
                found += [f"{relative}:{number} {m}" for m in pattern.findall(line)]
    return found


def test_the_glossary_retires_the_overloaded_names() -> None:
    names = retired_names()
    assert {"PredictionAttempt", "prediction_attempts", "ValueCheck", "ExerciseCard"} <= set(names)
    assert uses(PROJECT_ROOT, names) == [], "a retired name is back: use the glossary's name"


def test_every_name_the_glossary_gives_is_there() -> None:
    for name, where in NEW_NAMES.items():
        assert name in SECTION, f"the glossary does not name {name}"
        assert re.search(rf"\b{name}\b", (PROJECT_ROOT / where).read_text()), (name, where)


def test_data_kind_holds_only_a_question_kinds_name() -> None:
    """A question names its widget in `data-widget`; `data-kind` is written only from a
    question kind's name (review and recall items, a lesson page's step questions)."""
    written = []
    for folder in ("templates", "static/js"):
        for path in sorted((PROJECT_ROOT / folder).rglob("*")):
            if path.suffix in SUFFIXES:
                written += re.findall(r"data-kind=\S+", path.read_text())
    assert written, "no page writes data-kind any more: update the glossary"
    assert set(written) == {'data-kind="{{'}, written
    pages = (PROJECT_ROOT / "templates").rglob("*.html")
    kinds = {m for p in pages for m in re.findall(r'data-kind="\{\{ ([^}]*) \}\}"', p.read_text())}
    assert kinds == {"prompt.kind.name", "kind.name"}, kinds


def test_a_planted_retired_name_fails(tmp_path: Path) -> None:
    planted = tmp_path / "app" / "learning" / "planted.py"
    planted.parent.mkdir(parents=True)
    planted.write_text("from app.progress.models.learners import PredictionAttempt\n")
    migration = tmp_path / MIGRATIONS / "0001_old.py"
    migration.parent.mkdir(parents=True)
    migration.write_text('TABLE = "prediction_attempts"  # a migration may name it\n')
    (tmp_path / "templates").mkdir()
    (tmp_path / "static" / "js").mkdir(parents=True)
    (tmp_path / "static" / "js" / "old.js").write_text("checkValue();\nnew OrderingCard();\n")
    assert uses(tmp_path, retired_names()) == [
        "app/learning/planted.py:1 PredictionAttempt",
        "static/js/old.js:2 OrderingCard",
    ]
