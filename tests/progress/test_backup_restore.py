"""The backup and restore of docs/deploying.md, run as documented: a learner's progress written
through the app is backed up while the app runs, restored into a new database, and read back
by the same learner (the cookie-signing key travels in the database, so their cookie still
works). SQLite with `.backup` and `VACUUM INTO`; PostgreSQL with pg_dump and pg_restore."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from tests.conftest import make_settings

PREDICTION = "/api/lessons/first-steps/steps/1/prediction"


def _write_progress(url: str) -> tuple[TestClient, dict[str, str]]:
    """An app on `url`, left running, with one learner's answer in it; and their cookies."""
    client = TestClient(create_app(make_settings(database_url=url)))
    client.__enter__()
    answer = {"choice": "tensor([4., 6.])", "confidence": "certain"}
    assert client.post(PREDICTION, json=answer).status_code == 200
    assert client.get("/api/progress").json()["lessons"]["first-steps"]["steps_done"] == 1
    return client, dict(client.cookies)


def _read_back(url: str, cookies: dict[str, str]) -> None:
    with TestClient(create_app(make_settings(database_url=url))) as client:
        client.cookies.update(cookies)
        summary = client.get("/api/progress").json()["lessons"]["first-steps"]
        assert summary["steps_done"] == 1
        saved = client.get("/api/lessons/first-steps/progress").json()["steps"]["1"]
        assert saved["answer"]["sent"] == {"choice": "tensor([4., 6.])"}


@pytest.mark.skipif(shutil.which("sqlite3") is None, reason="the sqlite3 shell is not installed")
@pytest.mark.parametrize("command", [".backup '{backup}'", "VACUUM INTO '{backup}'"])
def test_sqlite_online_backup_restores_progress(command: str) -> None:
    folder = Path(tempfile.mkdtemp(prefix="gradlab-backup-"))
    database, backup = folder / "gradlab.db", folder / "backups" / "gradlab.db"
    backup.parent.mkdir()
    running, cookies = _write_progress(f"sqlite:///{database}")
    try:  # online: the server is running and its last write may still be in the WAL
        subprocess.run(
            ["sqlite3", str(database), command.format(backup=backup)],
            check=True,
            capture_output=True,
            timeout=60,
        )
    finally:
        running.__exit__(None, None, None)
    checked = subprocess.run(
        ["sqlite3", str(backup), "PRAGMA integrity_check"],
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert checked.stdout.strip() == "ok"
    # Restore as documented: the file in place of the database, with no -wal or -shm beside it.
    restored = folder / "restored" / "gradlab.db"
    restored.parent.mkdir()
    shutil.copyfile(backup, restored)
    assert not restored.with_name("gradlab.db-wal").exists()
    _read_back(f"sqlite:///{restored}", cookies)


def test_postgresql_pg_dump_and_pg_restore_restore_progress(postgres: Any) -> None:
    url = postgres.new_database()
    running, cookies = _write_progress(url)
    dump = Path(tempfile.mkdtemp(prefix="gradlab-backup-")) / "gradlab.dump"
    libpq = url.replace("postgresql+psycopg://", "postgresql://")
    try:  # online: pg_dump reads one consistent snapshot while the server runs
        subprocess.run(
            [str(postgres.bin_dir / "pg_dump"), "--format=custom", f"--file={dump}", libpq],
            check=True,
            capture_output=True,
            timeout=120,
        )
    finally:
        running.__exit__(None, None, None)
    target = postgres.new_database()  # an empty database, as `createdb` makes
    subprocess.run(
        [
            str(postgres.bin_dir / "pg_restore"),
            "--no-owner",
            f"--dbname={target.replace('postgresql+psycopg://', 'postgresql://')}",
            str(dump),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    _read_back(target, cookies)
