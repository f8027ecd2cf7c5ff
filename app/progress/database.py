"""Engine creation and Alembic migrations, run under a lock so instances can start together."""

from __future__ import annotations

import fcntl
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, create_engine, event, make_url, text
from sqlalchemy.exc import DBAPIError

from app.config.loading import SettingsError

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
# Any fixed 64-bit number, the same in every instance: the key of the PostgreSQL advisory lock.
MIGRATION_LOCK_KEY = 0x67_72_61_64_6C_61_62  # "gradlab"


class SchemaOutOfDate(SettingsError):
    """The database is not at the newest revision and this instance may not migrate it."""


class DatabaseUnavailable(SettingsError):
    """GRADLAB_DATABASE_URL names a database this process cannot open: a SQLite folder it
    cannot write, a PostgreSQL server that does not answer or refuses it."""


def _unavailable(url: str, exc: BaseException) -> DatabaseUnavailable:
    """What was tried, and why it failed, without the password."""
    parsed = make_url(url)
    reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()[0]
    if parsed.password:
        reason = reason.replace(str(parsed.password), "***")
    database = sqlite_file(url)
    if database is not None:
        folder = database.parent.resolve()
        if "unable to open" in reason or "readonly" in reason:
            reason = f"this user cannot write it or its folder {folder} ({reason})"
        return DatabaseUnavailable(
            f"GRADLAB_DATABASE_URL: cannot open the SQLite file {database}: {reason}"
        )
    where = f"{parsed.host or 'the local socket'}:{parsed.port or 5432}"
    # psycopg says "connection to server at ..., port ... failed: <why>": keep the why.
    reason = reason.rsplit("failed: ", 1)[-1].strip()
    return DatabaseUnavailable(
        f"GRADLAB_DATABASE_URL: cannot connect to PostgreSQL at {where} "
        f"(database {parsed.database!r}, user {parsed.username!r}): {reason}"
    )


def sqlite_file(engine_or_url: Engine | str) -> Path | None:
    """The file of a SQLite database (None for in-memory SQLite and other databases)."""
    url = make_url(engine_or_url) if isinstance(engine_or_url, str) else engine_or_url.url
    if not url.drivername.startswith("sqlite"):
        return None
    database = url.database or ""
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database)


def sqlite_lock_file(engine: Engine, purpose: str) -> Path | None:
    """The file beside a SQLite database that its processes `flock` for `purpose` (migrating,
    writing); None where no other process can open the database (in-memory, other databases)."""
    database = sqlite_file(engine)
    return database.with_name(f"{database.name}.{purpose}-lock") if database else None


# Connections kept open for SQLite: in a server, writes run in the store's one writer thread
# (app/progress/writer.py) and reads on the event loop, but the store may be called from any
# thread (the CLI, tests); a smaller pool made and closed a connection, with its pragmas, for
# most requests under load (measured when writes still ran in AnyIO's thread pool).
SQLITE_POOL_SIZE = 16
SQLITE_POOL_OVERFLOW = 32


POSTGRES_CONNECT_TIMEOUT_S = 10


def make_engine(url: str) -> Engine:
    # A server's connections can be cut (a PostgreSQL restart): test each one as it leaves the
    # pool. A SQLite file has no server that could go away, so the test would be a wasted query.
    options: dict[str, Any] = {"pool_pre_ping": True}
    if "connect_timeout" not in make_url(url).query:
        # A server that does not answer (a firewall that drops the packets, a server that
        # accepts and says nothing) fails the connection after this, naming where it was tried.
        options["connect_args"] = {"connect_timeout": POSTGRES_CONNECT_TIMEOUT_S}
    if url.startswith("sqlite"):
        options = {"connect_args": {"check_same_thread": False, "timeout": 15}}
        database = sqlite_file(url)
        if database is not None:
            try:
                database.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise DatabaseUnavailable(
                    f"GRADLAB_DATABASE_URL: cannot make the folder {database.parent} for the "
                    f"SQLite file {database.name} ({exc.strerror})"
                ) from None
            options.update(pool_size=SQLITE_POOL_SIZE, max_overflow=SQLITE_POOL_OVERFLOW)
    engine = create_engine(url, **options)
    if url.startswith("sqlite"):

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(connection: Any, _: Any) -> None:
            cursor = connection.cursor()
            cursor.execute("PRAGMA foreign_keys=ON")
            _switch_to_wal(cursor)
            # In WAL mode, NORMAL syncs at checkpoints rather than at every commit: a commit
            # survives the process being killed, and only an OS crash or power cut can lose
            # the last few. Under load, one fsync per answer was what writers queued behind.
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.close()

    return engine


# Processes that open a fresh file at the same instant all switch it to WAL. The switch takes an
# exclusive lock, and SQLite answers a connection that would deadlock waiting for it with
# "database is locked" at once, without its busy handler (seen once in eight processes started
# together, tests/progress/test_start_together.py): such a connection lets go and tries again.
WAL_ATTEMPTS = 100
WAL_PAUSE_S = 0.05


def _switch_to_wal(cursor: Any) -> None:
    for attempt in range(WAL_ATTEMPTS):
        try:
            if cursor.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or attempt == WAL_ATTEMPTS - 1:
                raise
            time.sleep(WAL_PAUSE_S)


def alembic_config(engine: Engine) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["engine"] = engine
    return config


@contextmanager
def migration_lock(engine: Engine) -> Iterator[None]:
    """Hold a lock that every instance and worker process on this database contends for.

    PostgreSQL: a session-level advisory lock on a connection of its own, released when the
    block ends or, if this process dies, when its connection closes. SQLite: an exclusive
    `flock` on a file beside the database; the kernel drops it when the process dies, and
    SQLite databases are only ever shared by processes of one machine. (A `BEGIN EXCLUSIVE`
    could not span Alembic's own transaction, which runs on another connection.)"""
    if engine.dialect.name == "postgresql":
        with engine.connect() as connection:
            connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": MIGRATION_LOCK_KEY})
            connection.commit()
            try:
                yield
            finally:
                connection.execute(
                    text("SELECT pg_advisory_unlock(:key)"), {"key": MIGRATION_LOCK_KEY}
                )
                connection.commit()
        return
    lock_path = sqlite_lock_file(engine, "migrate")
    if lock_path is None:  # in-memory SQLite: nobody else can see it
        yield
        return
    with lock_path.open("a") as lock_file:
        fcntl.flock(lock_file, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock_file, fcntl.LOCK_UN)


def _revisions(engine: Engine) -> tuple[set[str], set[str]]:
    """(the database's current revisions, the newest revisions of the migration scripts)."""
    heads = set(ScriptDirectory.from_config(alembic_config(engine)).get_heads())
    with engine.connect() as connection:
        current = set(MigrationContext.configure(connection).get_current_heads())
    return current, heads


def migrate(engine: Engine) -> None:
    """Bring the schema to the newest revision (creating it on an empty database). Any number
    of processes may call this at once: one migrates, the others wait and then find nothing to
    do."""
    current, heads = _revisions(engine)
    if current == heads:
        return  # the usual start: no lock, no Alembic chatter
    with migration_lock(engine):
        command.upgrade(alembic_config(engine), "head")


def prepare_schema(engine: Engine, mode: str) -> None:
    """What an instance does with the schema as it starts: GRADLAB_MIGRATE=auto migrates it,
    `off` only checks that it is current. A database it cannot open raises
    DatabaseUnavailable, naming what was tried."""
    require_reachable(engine)
    if mode == "auto":
        migrate(engine)
    else:
        require_current(engine)


def require_reachable(engine: Engine) -> None:
    """One connection that answers `SELECT 1`, or DatabaseUnavailable saying where it was
    tried and why it failed. At start-up, and for a running server's readiness
    (app/learning/readiness.py)."""
    try:
        with engine.connect() as connection:
            connection.execute(text("SELECT 1"))
    except (DBAPIError, OSError) as exc:
        raise _unavailable(engine.url.render_as_string(hide_password=False), exc) from None


def require_current(engine: Engine) -> None:
    """For GRADLAB_MIGRATE=off: refuse to serve a database the code does not match."""
    current, heads = _revisions(engine)
    if current != heads:
        have = ", ".join(sorted(current)) or "nothing (it is empty)"
        raise SchemaOutOfDate(
            f"the database is at {have}, the code needs {', '.join(sorted(heads))}: "
            "run `gradlab migrate` (or set GRADLAB_MIGRATE=auto)"
        )
