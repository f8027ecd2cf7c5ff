"""A plain install: the wheel built from this checkout, installed (not editable) into a fresh
virtualenv and started from a directory that is not the checkout, serves every page. The pages,
static files and bundled lessons travel inside the package, or nothing works.

The virtualenv sees this machine's packages (`--system-site-packages`), so torch and the other
dependencies come from here and nothing is downloaded; gradlab itself comes from the wheel."""

from __future__ import annotations

import html
import os
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from app.config.paths import BUNDLED_LESSONS, PACKAGE_DIR, PROJECT_ROOT, STATIC_DIR
from app.lessons.loader import load_catalog
from tests.live import free_port

pytestmark = pytest.mark.slow

# What a wheel is built from: the same files as `pip install .` from a clone reads.
SOURCES = ("pyproject.toml", "README.md", "app", "templates", "static", "lessons")
LESSON = "what-is-grad"


@dataclass(frozen=True)
class Installed:
    bin: Path  # the virtualenv's scripts
    package: Path  # where its `app` package is
    elsewhere: Path  # a directory that is neither the checkout nor the virtualenv


def _quiet(command: list[str], cwd: Path) -> str:
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
    assert done.returncode == 0, f"{command}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def installed() -> Iterator[Installed]:
    # Readable by everyone, as an installed package is: pytest's own temporary folders are
    # not, and a run (as another user) would be kept out of them whatever its sandbox did.
    work = Path(tempfile.mkdtemp(prefix="gradlab-install-"))
    work.chmod(0o755)
    try:
        yield _install(work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _install(work: Path) -> Installed:
    # Built from a copy: setuptools reuses a checkout's build/ folder, where a file left by an
    # earlier build would hide one that this build leaves out.
    source = work / "source"
    source.mkdir()
    for name in SOURCES:
        if (PROJECT_ROOT / name).is_dir():
            ignore = shutil.ignore_patterns("__pycache__")
            shutil.copytree(PROJECT_ROOT / name, source / name, ignore=ignore)
        else:
            shutil.copy2(PROJECT_ROOT / name, source / name)
    offline = ["--no-deps", "--no-index", "--quiet"]
    build = ["wheel", *offline, "--no-build-isolation", "--wheel-dir", "dist", str(source)]
    _quiet([sys.executable, "-m", "pip", *build], work)
    (wheel,) = (work / "dist").glob("gradlab-*.whl")
    venv = work / "venv"
    _quiet([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", "venv"], work)
    python = venv / "bin" / "python"
    # This machine's pip, installing into the virtualenv; the machine's own gradlab (editable,
    # outside the virtualenv) is left alone and shadowed.
    _quiet([str(python), "-m", "pip", "install", *offline, "--force-reinstall", str(wheel)], work)
    elsewhere = work / "elsewhere"
    elsewhere.mkdir()
    where = _quiet([str(python), "-c", "import app; print(app.__file__)"], elsewhere)
    package = Path(where.strip()).parent
    assert package.is_relative_to(venv), package
    return Installed(venv / "bin", package, elsewhere)


def _environment() -> dict[str, str]:
    """This environment without gradlab's settings or a path to the checkout: the defaults."""
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith("GRADLAB_") and name != "PYTHONPATH"
    }
    return {**env, "GRADLAB_WORKERS": "1", "GRADLAB_SPARES": "1"}


@pytest.fixture(scope="module")
def served(installed: Installed) -> Iterator[str]:
    """`gradlab serve` of the virtualenv, started in `elsewhere`, with every default but two
    (one worker and one spare: a light sandbox)."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    command = [
        str(installed.bin / "gradlab"),
        "serve",
        "--port",
        str(port),
        "--log-level",
        "warning",
    ]
    process = subprocess.Popen(
        command, cwd=installed.elsewhere, env=_environment(), stderr=subprocess.PIPE, text=True
    )
    try:
        deadline = time.monotonic() + 120
        while True:
            assert process.poll() is None, f"gradlab serve exited:\n{process.communicate()[1]}"
            try:
                if httpx.get(f"{url}/healthz", timeout=1).json()["sandbox"]["ready"]:
                    break
            except (httpx.HTTPError, KeyError, ValueError):
                pass
            assert time.monotonic() < deadline, "the installed gradlab did not become ready"
            time.sleep(0.3)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_every_package_of_code_is_listed_for_the_wheel() -> None:
    """pyproject.toml lists the packages by hand (a folder it maps from the top level cannot be
    found by a search): a package of code left off the list would be missing from every
    install."""
    pyproject = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(pyproject["tool"]["setuptools"]["packages"])
    code = {
        ".".join(folder.relative_to(PROJECT_ROOT).parts)
        for folder in [PACKAGE_DIR, *PACKAGE_DIR.rglob("*")]
        if folder.is_dir() and any(folder.glob("*.py"))
    }
    assert sorted(code - listed) == [], "add them to [tool.setuptools] packages"


def test_the_catalog_lists_the_bundled_lessons(served: str) -> None:
    page = httpx.get(f"{served}/")
    assert page.status_code == 200
    for lesson in load_catalog(BUNDLED_LESSONS).lessons:
        assert f'/lessons/{lesson.slug}"' in page.text, lesson.slug


def test_a_lesson_page_and_the_playground_render(served: str) -> None:
    lesson = load_catalog(BUNDLED_LESSONS).get(LESSON)
    assert lesson is not None
    page = httpx.get(f"{served}/lessons/{LESSON}")
    assert page.status_code == 200
    assert html.escape(lesson.title, quote=False) in page.text
    assert "/static/css/site.css" in page.text
    playground = httpx.get(f"{served}/playground")
    assert playground.status_code == 200
    assert "<html" in playground.text


def test_static_files_are_served(served: str) -> None:
    css = httpx.get(f"{served}/static/css/site.css")
    assert css.status_code == 200
    assert css.text == (STATIC_DIR / "css" / "site.css").read_text()
    assert httpx.get(f"{served}/static/vendor/codemirror.js").status_code == 200


def test_a_run_computes_the_grad_in_the_sandbox(served: str) -> None:
    code = (
        "import torch\n"
        "x = torch.tensor([2.0, 3.0], requires_grad=True)\n"
        "(x * x).sum().backward()\n"
        "print(x.grad)\n"
    )
    result = httpx.post(f"{served}/api/run", json={"code": code}, timeout=30).json()
    assert result["status"] == "ok", result
    assert result["stdout"] == "tensor([4., 6.])\n"
    assert {t["name"]: t["grad"] for t in result["tensors"]}["x"] == [4.0, 6.0]


def test_a_run_cannot_read_the_installed_package(served: str, installed: Installed) -> None:
    """Installed, gradlab sits among the packages a run may read; its own files (code, and the
    lessons with their answers) stay out of reach, while what lies beside them does not."""
    beside = next(installed.package.parent.glob("gradlab-*.dist-info")) / "METADATA"
    code = f"print(open({str(beside)!r}).read().splitlines()[1])\n"
    result = httpx.post(f"{served}/api/run", json={"code": code}, timeout=30).json()
    assert result["stdout"] == "Name: gradlab\n", result
    for path in (
        installed.package / "config" / "settings.py",
        installed.package / "bundled_lessons" / f"{LESSON}.yaml",
    ):
        assert path.is_file(), path
        code = f"print(open({str(path)!r}).read()[:80])\n"
        result = httpx.post(f"{served}/api/run", json={"code": code}, timeout=30).json()
        assert result["status"] == "error", result
        assert result["error"]["type"] == "PermissionError", result


def test_the_database_is_made_where_the_server_started(served: str, installed: Installed) -> None:
    assert (installed.elsewhere / "var" / "gradlab.db").is_file()
    assert not (installed.package.parent / "var").exists()


def test_the_installed_schema_is_found_by_a_new_lesson(
    installed: Installed, tmp_path: Path
) -> None:
    gradlab = str(installed.bin / "gradlab")
    _quiet([gradlab, "new", "my-lesson", "--dir", str(tmp_path)], installed.elsewhere)
    first = (tmp_path / "my-lesson.yaml").read_text().splitlines()[0]
    schema = (tmp_path / first.removeprefix("# yaml-language-server: $schema=")).resolve()
    assert schema == installed.package / "bundled_lessons" / "lesson.schema.json"
    assert schema.read_text() == _quiet([gradlab, "schema"], installed.elsewhere)
