"""The docs: the README's two commands, the settings page generated from the settings, every
relative link resolving, and no history (numbered work sessions or issues) in any tracked file."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from app.config.paths import PROJECT_ROOT
from app.config.settings import Settings
from app.config.settings_doc import settings_doc

README = (PROJECT_ROOT / "README.md").read_text()
DOCS = PROJECT_ROOT / "docs"
PAGES = [PROJECT_ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
# A work session or an issue named by its number is history, which belongs in git.
HISTORY = re.compile(r"\b(session|issue)s? #?[0-9]+", re.IGNORECASE)
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)


def test_the_readme_gives_the_two_commands() -> None:
    assert "-e . && gradlab serve" in README
    assert '-e ".[dev]" && python -m pytest' in README
    assert "python3 -m pytest" in (PROJECT_ROOT / ".ci" / "run").read_text()


def test_the_settings_page_is_generated_from_the_settings() -> None:
    """Regenerate with `python -m app.cli settings-doc > docs/settings.md`."""
    assert (DOCS / "settings.md").read_text() == settings_doc()


def test_the_settings_page_command_prints_it(capsys: pytest.CaptureFixture[str]) -> None:
    from app.cli import main

    assert main(["settings-doc"]) == 0
    assert capsys.readouterr().out == settings_doc()


@pytest.mark.parametrize("name", sorted(Settings.model_fields))
def test_every_setting_says_what_it_does(name: str) -> None:
    description = Settings.model_fields[name].description or ""
    assert len(description.split()) >= 4, f"GRADLAB_{name.upper()} needs a description"


def _tracked_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=PROJECT_ROOT, capture_output=True, check=False
    )
    if listed.returncode != 0:  # not a git checkout (an unpacked sdist): every file
        return [path for path in PROJECT_ROOT.rglob("*") if path.is_file()]
    return [PROJECT_ROOT / name for name in listed.stdout.decode().split("\0") if name]


def test_no_file_numbers_work_sessions_or_issues() -> None:
    found = []
    for path in _tracked_files():
        try:
            text = path.read_text()
        except (UnicodeDecodeError, FileNotFoundError, IsADirectoryError):
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            if HISTORY.search(line):
                found.append(f"{path.relative_to(PROJECT_ROOT)}:{number}: {line.strip()[:100]}")
    assert not found, "history belongs in git, not in files:\n" + "\n".join(found)


def _anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    seen: dict[str, int] = {}
    anchors = set()
    for line in FENCE.sub("", page.read_text()).splitlines():
        if match := re.match(r"#{1,6} (.+)", line):
            anchor = _anchor(match.group(1))
            count = seen.get(anchor, 0)
            seen[anchor] = count + 1
            anchors.add(anchor if count == 0 else f"{anchor}-{count}")
    return anchors


def _relative_links(page: Path) -> list[str]:
    text = re.sub(r"`[^`\n]*`", "", FENCE.sub("", page.read_text()))
    return [
        target
        for target in LINK.findall(text)
        if not re.match(r"[a-z]+:|/", target)  # a web address, or a path on the site itself
    ]


@pytest.mark.parametrize("doc", PAGES, ids=lambda doc: str(doc.relative_to(PROJECT_ROOT)))
def test_every_relative_link_resolves(doc: Path) -> None:
    broken = []
    for target in _relative_links(doc):
        path, _, anchor = target.partition("#")
        destination = (doc.parent / path).resolve() if path else doc
        if not destination.exists():
            broken.append(f"{target}: no such file")
        elif anchor and destination.suffix == ".md" and anchor not in _anchors(destination):
            broken.append(f"{target}: no heading #{anchor} in {destination.name}")
    assert not broken, f"{doc.name}: " + "; ".join(broken)


def test_the_readme_links_every_docs_page() -> None:
    for page in sorted(DOCS.glob("*.md")):
        assert f"docs/{page.name}" in README, f"README.md does not link docs/{page.name}"


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
        assert (DOCS / name).is_file(), name
    assert "docs/http-contract.md" in README
