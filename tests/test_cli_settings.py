"""Bad settings as every command says them: the real `gradlab` command, run as a process, with
one setting wrong. One line per bad setting, naming its variable (or option), the value given
and what is allowed; exit status 2; no traceback and nothing it knocks on."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event

from app.config.loading import SettingsError, load_settings
from app.config.paths import PROJECT_ROOT
from app.main import create_app
from app.progress.database import POSTGRES_CONNECT_TIMEOUT_S, make_engine
from tests.conftest import FIXTURE_LESSONS, make_settings

# Every command that reads the settings.
COMMANDS = [
    ["serve", "--port", "0"],
    ["check", "--lesson", "first-steps"],
    ["inventory", "stats"],
    ["class", "list"],
    ["class", "create", "Autumn"],
    ["lti", "config"],
    ["stats"],
    ["reports"],
    ["shares", "prune"],
    ["migrate"],
]
# Those that open the database (the test lessons have no inventory: `inventory stats` stops
# there first).
OPENS_THE_DATABASE = [args for args in COMMANDS if args[0] not in ("check", "inventory")]
# One of each way a command opens it: the server, the migration, the teacher's commands
# (`class`, `stats` and `reports` share one), LTI's, and the shares'.
EACH_WAY_IN = [
    next(args for args in OPENS_THE_DATABASE if args[0] == name)
    for name in ("serve", "migrate", "class", "lti", "shares")
]


def _env(tmp_path: Path, **settings: str) -> dict[str, str]:
    """This process's environment without its GRADLAB_* variables, with a SQLite file of the
    test's own, the test lessons and no sandbox, then `settings`."""
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("GRADLAB_")}
    env.update(
        GRADLAB_DATABASE_URL=f"sqlite:///{tmp_path / 'progress.db'}",
        GRADLAB_LESSONS_DIR=str(FIXTURE_LESSONS),
        GRADLAB_SANDBOX_ENABLED="false",
        PYTHONPATH=str(PROJECT_ROOT),
    )
    env.update(settings)
    return env


def _gradlab(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _one_line(args: list[str], env: dict[str, str]) -> str:
    """The one line a command says about its bad setting, after checking how it exits."""
    done = _gradlab(args, env)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert "ready: open" not in done.stdout + done.stderr  # the line `serve` says when it is
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"gradlab {args[0]}: ")
    return lines[0]


def _closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_a_bad_number_is_one_line_naming_the_variable(tmp_path: Path, args: list[str]) -> None:
    line = _one_line(args, _env(tmp_path, GRADLAB_WORKERS="abc"))
    # Not GRADLAB_QUEUE_SIZE, whose default is computed from it.
    assert line == f"gradlab {args[0]}: GRADLAB_WORKERS='abc': must be a whole number from 1 to 64"


@pytest.mark.parametrize("args", EACH_WAY_IN, ids=" ".join)
def test_a_postgres_url_as_hosts_print_it_reaches_postgresql(
    tmp_path: Path, args: list[str]
) -> None:
    """postgres:// is read as the psycopg driver's URL: what fails is the connection (nothing
    listens there), and the line names where it went, never the password."""
    port = _closed_port()
    url = f"postgres://gradlab:s3cret-pw@127.0.0.1:{port}/gradlab"
    line = _one_line(args, _env(tmp_path, GRADLAB_DATABASE_URL=url))
    assert line == (
        f"gradlab {args[0]}: GRADLAB_DATABASE_URL: cannot connect to PostgreSQL at "
        f"127.0.0.1:{port} (database 'gradlab', user 'gradlab'): Connection refused"
    )


@pytest.mark.slow  # waits out a database that says nothing
@pytest.mark.parametrize("args", [["serve", "--port", "0"], ["class", "list"]], ids=" ".join)
def test_a_postgresql_that_says_nothing_is_named_once_the_wait_is_over(
    tmp_path: Path, args: list[str]
) -> None:
    """A server that takes the connection and never answers (as a firewall that drops the
    packets leaves it): the command gives up when the connect timeout is over and says where.
    The URL's own `connect_timeout` (2 s, libpq's least) keeps the wait short; that the
    default of POSTGRES_CONNECT_TIMEOUT_S reaches the driver is the next test."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        port = silent.getsockname()[1]
        url = f"postgresql://gradlab:s3cret-pw@127.0.0.1:{port}/gradlab?connect_timeout=2"
        line = _one_line(args, _env(tmp_path, GRADLAB_DATABASE_URL=url))
    assert line == (
        f"gradlab {args[0]}: GRADLAB_DATABASE_URL: cannot connect to PostgreSQL at "
        f"127.0.0.1:{port} (database 'gradlab', user 'gradlab'): connection timeout expired"
    )


@pytest.mark.parametrize(
    ("query", "timeout"), [("", str(POSTGRES_CONNECT_TIMEOUT_S)), ("?connect_timeout=3", "3")]
)
def test_the_connect_timeout_reaches_the_driver(query: str, timeout: str) -> None:
    """What the engine hands psycopg to connect with, read at SQLAlchemy's last step before
    the driver: the default timeout where the URL names none, the URL's own where it does."""
    engine = make_engine(f"postgresql+psycopg://gradlab:pw@127.0.0.1:1/gradlab{query}")
    handed: dict[str, Any] = {}

    @event.listens_for(engine, "do_connect")
    def _keep(dialect: Any, record: Any, args: Any, params: dict[str, Any]) -> None:
        handed.update(params)
        raise ConnectionAbandoned

    with pytest.raises(ConnectionAbandoned):
        engine.connect()
    engine.dispose()
    assert str(handed["connect_timeout"]) == timeout


class ConnectionAbandoned(Exception):
    """Raised where the driver would connect: nothing listens there, and nothing is tried."""


def test_postgres_urls_name_the_driver_gradlab_ships(monkeypatch: pytest.MonkeyPatch) -> None:
    for given in ("postgres://u:p@db:5432/x", "postgresql://u:p@db:5432/x"):
        monkeypatch.setenv("GRADLAB_DATABASE_URL", given)
        assert load_settings().database_url == "postgresql+psycopg://u:p@db:5432/x"
    monkeypatch.setenv("GRADLAB_DATABASE_URL", "postgresql+psycopg://u:p@db/x")
    assert load_settings().database_url == "postgresql+psycopg://u:p@db/x"


@pytest.mark.parametrize("args", [["serve", "--port", "0"], ["class", "list"]], ids=" ".join)
def test_a_plain_path_says_the_url_to_write(tmp_path: Path, args: list[str]) -> None:
    line = _one_line(args, _env(tmp_path, GRADLAB_DATABASE_URL="/data/x.db"))
    assert line == (
        f"gradlab {args[0]}: GRADLAB_DATABASE_URL='/data/x.db': a path, not a URL: for a "
        "SQLite file write sqlite:////data/x.db"
    )


def test_another_database_says_what_may_be_written(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRADLAB_DATABASE_URL", "mysql://root:hunter2@db/x")
    with pytest.raises(SettingsError) as refused:
        load_settings()
    (line,) = refused.value.lines
    assert line.startswith("GRADLAB_DATABASE_URL='mysql://root:***@db/x': ")
    assert "sqlite:////absolute/path.db" in line and "postgresql+psycopg://" in line
    assert "hunter2" not in line


@pytest.fixture
def unwritable_folder(tmp_path: Path) -> Iterator[Path]:
    """A folder that exists and this user cannot write in (root writes anywhere on a disk,
    but not in /proc)."""
    if os.geteuid() == 0:
        yield Path("/proc")
        return
    folder = tmp_path / "read-only"
    folder.mkdir(mode=0o500)
    yield folder
    folder.chmod(0o700)


@pytest.mark.parametrize("args", [["serve", "--port", "0"], ["class", "list"]], ids=" ".join)
def test_an_unwritable_sqlite_folder_is_named(
    tmp_path: Path, unwritable_folder: Path, args: list[str]
) -> None:
    url = f"sqlite:///{unwritable_folder / 'progress.db'}"
    line = _one_line(args, _env(tmp_path, GRADLAB_DATABASE_URL=url))
    assert line.startswith(
        f"gradlab {args[0]}: GRADLAB_DATABASE_URL: cannot open the SQLite file "
        f"{unwritable_folder / 'progress.db'}: this user cannot write it or its folder "
        f"{unwritable_folder} ("
    )


@pytest.mark.parametrize("args", [["serve", "--port", "0"], ["class", "list"]], ids=" ".join)
def test_a_sqlite_folder_that_cannot_be_made_is_named(tmp_path: Path, args: list[str]) -> None:
    a_file = tmp_path / "a-file"
    a_file.write_text("not a folder")
    url = f"sqlite:///{a_file / 'data' / 'progress.db'}"
    line = _one_line(args, _env(tmp_path, GRADLAB_DATABASE_URL=url))
    assert line == (
        f"gradlab {args[0]}: GRADLAB_DATABASE_URL: cannot make the folder {a_file / 'data'} "
        "for the SQLite file progress.db (Not a directory)"
    )


def test_every_bad_setting_has_its_line(tmp_path: Path) -> None:
    env = _env(tmp_path, GRADLAB_WORKERS="0", GRADLAB_MIGRATE="yes", GRADLAB_SHARE_DAYS="x")
    done = _gradlab(["class", "list"], env)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.splitlines() == [
        "gradlab class: GRADLAB_MIGRATE='yes': must be one of 'auto', 'off'",
        "gradlab class: GRADLAB_SHARE_DAYS='x': must be a whole number from 1 to 36500, or unset",
        "gradlab class: GRADLAB_WORKERS='0': must be a whole number from 1 to 64",
    ]


def test_an_option_is_named_as_the_option(tmp_path: Path) -> None:
    line = _one_line(["serve", "--port", "0", "--processes", "99"], _env(tmp_path))
    assert line == "gradlab serve: --processes '99': must be a whole number from 1 to 32"


def test_check_names_its_lessons_dir_option(tmp_path: Path) -> None:
    missing = tmp_path / "missing"
    line = _one_line(["check", "--lessons-dir", str(missing)], _env(tmp_path))
    assert line == f"gradlab check: --lessons-dir '{missing}': {missing} is not a directory"


# --- a busy port --------------------------------------------------------------------------


@pytest.mark.parametrize("processes", ["1", "2"])
def test_a_busy_port_is_one_line_and_nothing_is_ready(tmp_path: Path, processes: str) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        args = ["serve", "--port", str(port), "--processes", processes]
        line = _one_line(args, _env(tmp_path))
    assert line == (
        f"gradlab serve: --port {port}: cannot listen on 127.0.0.1:{port} (Address already in "
        "use); another server may be using it: stop it or choose another --port"
    )


# --- the address links are under -----------------------------------------------------------

NOTICE = "GRADLAB_PUBLIC_URL is not set: these links use http://127.0.0.1:8000"


@pytest.mark.slow  # runs the command line four times
def test_class_links_say_when_they_use_the_default_address(tmp_path: Path) -> None:
    env = _env(tmp_path)
    made = _gradlab(["class", "create", "Autumn"], env)
    assert made.returncode == 0, made.stderr
    assert made.stdout.startswith("join: http://127.0.0.1:8000/join/")
    assert made.stderr.startswith(f"gradlab class: {NOTICE}")
    class_id = _gradlab(["class", "list"], env).stdout.split("\t")[0]
    rotated = _gradlab(["class", "rotate-links", class_id], env)
    assert rotated.returncode == 0, rotated.stderr
    assert rotated.stderr.startswith(f"gradlab class: {NOTICE}")
    env["GRADLAB_PUBLIC_URL"] = "https://gradlab.example.org"
    rotated = _gradlab(["class", "rotate-links", class_id], env)
    assert rotated.stdout.startswith("join: https://gradlab.example.org/join/")
    assert rotated.stderr == ""


@pytest.mark.slow  # runs the command line twice
def test_lti_config_says_when_it_uses_the_default_address(tmp_path: Path) -> None:
    env = _env(tmp_path)
    told = _gradlab(["lti", "config"], env)
    assert told.returncode == 0, told.stderr
    assert '"login_url": "http://127.0.0.1:8000/lti/login"' in told.stdout
    assert told.stderr.startswith(f"gradlab lti: {NOTICE}")
    env["GRADLAB_PUBLIC_URL"] = "https://gradlab.example.org"
    told = _gradlab(["lti", "config"], env)
    assert '"login_url": "https://gradlab.example.org/lti/login"' in told.stdout
    assert told.stderr == ""


def test_the_lti_config_page_says_when_the_address_is_unset(sqlite_client: TestClient) -> None:
    page = sqlite_client.get("/lti/config").text
    assert "<code>http://127.0.0.1:8000/lti/login</code>" in page
    assert 'id="public-url-unset"' in page
    assert "<code>GRADLAB_PUBLIC_URL=http://testserver</code>" in page


def test_the_lti_config_page_uses_the_address_set() -> None:
    settings = make_settings(public_url="https://gradlab.example.org")
    with TestClient(create_app(settings)) as client:
        page = client.get("/lti/config").text
    assert "<code>https://gradlab.example.org/lti/login</code>" in page
    assert "public-url-unset" not in page
