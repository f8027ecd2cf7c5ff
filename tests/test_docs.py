"""The README documents every setting and the commands CI relies on."""

from __future__ import annotations

import pytest

from app.config import PROJECT_ROOT, Settings

README = (PROJECT_ROOT / "README.md").read_text()


@pytest.mark.parametrize("name", sorted(Settings.model_fields))
def test_every_setting_is_documented(name: str) -> None:
    assert f"`GRADLAB_{name.upper()}`" in README


def test_the_readme_gives_the_two_commands() -> None:
    assert "-e . && gradlab serve" in README
    assert '-e ".[dev]" && python -m pytest' in README
    assert "python3 -m pytest" in (PROJECT_ROOT / ".ci" / "run").read_text()


def test_test_modules_have_unique_names() -> None:
    """pytest imports test modules by basename (no packages here): two with one name clash."""
    names = [path.name for path in (PROJECT_ROOT / "tests").rglob("test_*.py")]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)


def test_the_tests_mirror_the_package() -> None:
    """Every layer of app/ has its tests in the folder of the same name."""
    for layer in ("learning", "lessons", "modes", "progress", "routes", "sandbox"):
        assert (PROJECT_ROOT / "app" / layer).is_dir(), layer
        assert list((PROJECT_ROOT / "tests" / layer).glob("test_*.py")), layer


def test_docs_hold_the_architecture_contract_and_threat_model() -> None:
    for name in ("architecture.md", "http-contract.md", "sandbox-threat-model.md"):
        assert (PROJECT_ROOT / "docs" / name).is_file(), name
    assert "docs/http-contract.md" in README
