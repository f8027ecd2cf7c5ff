"""Settings as the server and every command say them: a `GRADLAB_*` variable that names no
setting is one warning naming the closest setting (a typo is not silently ignored), and
`uvicorn --factory app.main:from_environment`, the route docs/deploying.md gives besides
`gradlab serve`, says a bad setting in the same one line, without a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from app.config.loading import NOT_SETTINGS, unknown_variables
from app.config.paths import PROJECT_ROOT
from tests.conftest import wait_until
from tests.live import free_port
from tests.test_cli_settings import COMMANDS, _env, _gradlab

TYPO = "GRADLAB_WORKER is not a setting and is ignored: did you mean GRADLAB_WORKERS?"
BAD_WORKERS = "GRADLAB_WORKERS='abc': must be a whole number from 1 to 64"


def test_each_unknown_variable_names_the_closest_setting() -> None:
    said = unknown_variables(
        {
            "GRADLAB_WORKER": "2",
            "GRADLAB_DATABSE_URL": "sqlite:///x.db",
            "GRADLAB_NOTHING_LIKE_IT": "1",
            "gradlab_workers": "2",  # a setting: the settings read names in any case
            "GRADLAB_SANDBOX_PHASES": "/tmp/phases",  # read by the sandbox, not a setting
            "PATH": "/usr/bin",
        }
    )
    assert said == {
        "GRADLAB_DATABSE_URL": "GRADLAB_DATABSE_URL is not a setting and is ignored: did you "
        "mean GRADLAB_DATABASE_URL?",
        "GRADLAB_NOTHING_LIKE_IT": "GRADLAB_NOTHING_LIKE_IT is not a setting and is ignored "
        "(docs/settings.md lists them)",
        "GRADLAB_WORKER": TYPO,
    }
    assert not unknown_variables(dict.fromkeys(NOT_SETTINGS, "x"))


@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_every_command_warns_once_before_it_says_a_bad_setting(
    tmp_path: Path, args: list[str]
) -> None:
    """Every command reads the settings; with a typo beside a bad value, each says both."""
    done = _gradlab(args, _env(tmp_path, GRADLAB_WORKER="2", GRADLAB_WORKERS="abc"))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    who = f"gradlab {args[0]}"
    if args[0] == "serve":  # its log is not set up yet: the bad value stops it first
        assert done.stderr.splitlines() == [f"{who}: {BAD_WORKERS}"]
    else:
        assert done.stderr.splitlines() == [f"{who}: {TYPO}", f"{who}: {BAD_WORKERS}"]


def test_a_command_that_works_warns_once_and_works(tmp_path: Path) -> None:
    done = _gradlab(["class", "create", "Autumn"], _env(tmp_path, GRADLAB_WORKER="2"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("join: ")
    assert done.stderr.splitlines()[0] == f"gradlab class: {TYPO}"
    assert done.stderr.count("is not a setting") == 1


UVICORN = [sys.executable, "-m", "uvicorn", "--factory", "app.main:from_environment"]


@pytest.mark.parametrize(
    ("setting", "line"),
    [
        ({"GRADLAB_WORKERS": "abc"}, BAD_WORKERS),
        (
            {"GRADLAB_DATABASE_URL": "/data/x.db"},
            "GRADLAB_DATABASE_URL='/data/x.db': a path, not a URL: for a SQLite file write "
            "sqlite:////data/x.db",
        ),
    ],
    ids=["a bad number", "a database it cannot use"],
)
def test_uvicorn_with_a_bad_setting_says_one_line_naming_the_variable(
    tmp_path: Path, setting: dict[str, str], line: str
) -> None:
    env = _env(tmp_path, **setting)
    done = subprocess.run(
        [*UVICORN, "--port", "0"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [f"gradlab: {line}"], done.stderr
    assert done.stdout == ""


def _log_once_serving(command: list[str], env: dict[str, str], cwd: Path, port: int) -> list[str]:
    """What a server logs from its start until it answers /healthz (then it is stopped)."""
    server = subprocess.Popen(
        command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        assert wait_until(lambda: _answers(port), timeout=120), "the server did not answer"
    finally:
        server.terminate()
        output, _ = server.communicate(timeout=60)
    return output.splitlines()


def _answers(port: int) -> bool:
    try:
        return httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


@pytest.mark.slow
@pytest.mark.parametrize("processes", ["1", "2"])
def test_gradlab_serve_warns_once_in_its_log(tmp_path: Path, processes: str) -> None:
    """Once, from the parent of several processes too: the processes it starts do not repeat
    it."""
    env = _env(tmp_path, GRADLAB_WORKER="2")
    port = free_port()
    command = [sys.executable, "-m", "app.cli", "serve", "--port", str(port)]
    lines = _log_once_serving([*command, "--processes", processes], env, PROJECT_ROOT, port)
    warned = [line for line in lines if "is not a setting" in line]
    assert warned == [f"WARNING gradlab: {TYPO}"], lines


@pytest.mark.slow
def test_uvicorn_warns_once_in_its_log(tmp_path: Path) -> None:
    env = _env(tmp_path, GRADLAB_WORKER="2")
    port = free_port()
    lines = _log_once_serving([*UVICORN, "--port", str(port)], env, tmp_path, port)
    warned = [line for line in lines if "is not a setting" in line]
    assert warned == [f"WARNING gradlab: {TYPO}"], lines
