"""`gradlab migrate` and GRADLAB_MIGRATE=off: replicas that never migrate, and say why."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from fastapi.testclient import TestClient

from app.config.paths import PROJECT_ROOT
from app.main import create_app
from app.progress.database import SchemaOutOfDate
from tests.conftest import make_settings


def _gradlab_migrate(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app.cli", "migrate"],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_migrate_off_refuses_an_empty_database_until_gradlab_migrate(database_url: str) -> None:
    settings = make_settings(database_url=database_url, migrate="off")
    with pytest.raises(SchemaOutOfDate, match="gradlab migrate"):
        create_app(settings)
    env = {**os.environ, "GRADLAB_DATABASE_URL": database_url, "PYTHONPATH": str(PROJECT_ROOT)}
    for _ in range(2):  # a second run finds nothing to do
        done = _gradlab_migrate(env)
        assert done.returncode == 0, done.stderr
        assert "up to date" in done.stdout
    with TestClient(create_app(settings)) as client:
        assert (
            client.put(
                "/api/lessons/first-steps/steps/1/code", json={"code": "print(1)"}
            ).status_code
            == 204
        )


def test_gradlab_migrate_names_a_bad_database_url() -> None:
    env = {**os.environ, "GRADLAB_DATABASE_URL": "postgresql+psycopg://nobody@127.0.0.1:1/x"}
    done = _gradlab_migrate(env)
    assert done.returncode == 2
    assert done.stderr == (
        "gradlab migrate: GRADLAB_DATABASE_URL: cannot connect to PostgreSQL at 127.0.0.1:1 "
        "(database 'x', user 'nobody'): Connection refused\n"
    )
