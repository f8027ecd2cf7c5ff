"""A throwaway PostgreSQL server for the tests, from the Debian package's binaries."""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import uuid
from pathlib import Path

import psycopg


def _bin_dir() -> Path | None:
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: p.parent.name)
    return versions[-1] if versions else None


def available() -> bool:
    return _bin_dir() is not None


class PostgresServer:
    """initdb + pg_ctl in a temp folder on a free loopback port; trust auth, user `gradlab`."""

    def __init__(self) -> None:
        bin_dir = _bin_dir()
        if bin_dir is None:
            raise RuntimeError("PostgreSQL is not installed (apt-get install postgresql)")
        self.bin_dir = bin_dir
        self.folder = Path(tempfile.mkdtemp(prefix="gradlab-pg-"))
        self.data = self.folder / "data"
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self._template: str | None = None
        self.as_user: list[str] = []
        if os.geteuid() == 0:  # postgres refuses to run as root
            owner = pwd.getpwnam("postgres")
            os.chown(self.folder, owner.pw_uid, owner.pw_gid)
            self.as_user = ["runuser", "-u", "postgres", "--"]
        self._run("initdb", "-D", str(self.data), "-A", "trust", "-U", "gradlab", "-E", "UTF8")
        self.start()

    def _run(self, tool: str, *args: str) -> None:
        subprocess.run(
            [*self.as_user, str(self.bin_dir / tool), *args],
            check=True,
            capture_output=True,
            timeout=120,
        )

    def start(self) -> None:
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run(
            "pg_ctl",
            "-D",
            str(self.data),
            "-o",
            options,
            "-l",
            str(self.folder / "log"),
            "-w",
            "start",
        )

    def stop(self, mode: str = "fast") -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "stop")

    def restart(self) -> None:
        self.stop()
        self.start()

    def new_database(self, *, migrated: bool = False) -> str:
        """A fresh database, empty or (`migrated`) with the newest schema: a copy of a template
        migrated once per server, which is much quicker than migrating each one. Returns its
        SQLAlchemy URL."""
        name = f"test_{uuid.uuid4().hex[:12]}"
        template = ""
        if migrated:
            template = f' TEMPLATE "{self._migrated_template()}"'
        with psycopg.connect(
            f"host=127.0.0.1 port={self.port} user=gradlab dbname=postgres", autocommit=True
        ) as connection:
            connection.execute(f'CREATE DATABASE "{name}"{template}')
        return f"postgresql+psycopg://gradlab@127.0.0.1:{self.port}/{name}"

    def _migrated_template(self) -> str:
        from app.progress.database import make_engine, migrate

        if self._template is None:
            url = self.new_database()
            engine = make_engine(url)
            migrate(engine)
            engine.dispose()  # a template must have no connections when it is copied
            self._template = url.rsplit("/", 1)[1]
        return self._template

    def close(self) -> None:
        try:
            self.stop("immediate")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)
