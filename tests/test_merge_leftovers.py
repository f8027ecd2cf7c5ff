"""`.ci/no-merge-leftovers`, which CI and pre-commit run: it refuses what a merge leaves behind."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / ".ci" / "no-merge-leftovers"


def _check(tree: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(SCRIPT), str(tree)], capture_output=True, text=True, check=False
    )


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    git("init", "-q")
    (tmp_path / "app.py").write_text("x = 1\n# a line of dashes is not a marker\n=======\n")
    (tmp_path / ".gitignore").write_text("build/\n")
    git("add", ".")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "clean")
    return tmp_path


def test_the_repository_has_none() -> None:
    result = _check(ROOT)
    assert result.returncode == 0, result.stdout


def test_a_clean_tree_passes(repo: Path) -> None:
    assert _check(repo).returncode == 0


@pytest.mark.parametrize(
    "name", ["app.py.orig", "lessons/x.yaml.rej", "app_BACKUP_1234.py", "app_REMOTE_99.py"]
)
def test_a_planted_leftover_fails(repo: Path, name: str) -> None:
    (repo / name).parent.mkdir(parents=True, exist_ok=True)
    (repo / name).write_text("x = 0\n")
    result = _check(repo)
    assert result.returncode == 1
    assert f"merge leftover: {name}" in result.stdout


def test_conflict_markers_fail(repo: Path) -> None:
    (repo / "app.py").write_text("<<<<<<< HEAD\nx = 1\n=======\nx = 2\n>>>>>>> other\n")
    result = _check(repo)
    assert result.returncode == 1
    assert "conflict marker: app.py:1:<<<<<<< HEAD" in result.stdout
    assert "app.py:5:>>>>>>> other" in result.stdout


def test_an_ignored_leftover_is_not_the_tree_s(repo: Path) -> None:
    (repo / "build").mkdir()
    (repo / "build" / "app.py.orig").write_text("x = 0\n")
    assert _check(repo).returncode == 0
