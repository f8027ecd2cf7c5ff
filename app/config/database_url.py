"""GRADLAB_DATABASE_URL: the forms gradlab accepts, read as SQLAlchemy reads them, and printed
without the password."""

from __future__ import annotations

import re

POSTGRES_DRIVER = "postgresql+psycopg"  # the driver gradlab ships (psycopg 3)
DATABASE_URL_FORMS = (
    "sqlite:///relative/path.db, sqlite:////absolute/path.db or "
    f"{POSTGRES_DRIVER}://user:password@host:port/database"
)


def database_url(url: str) -> str:
    """GRADLAB_DATABASE_URL as SQLAlchemy reads it: `postgres://` and `postgresql://` (what
    hosting services print) name the psycopg driver gradlab ships; a path or an unknown
    database is refused with what to write instead."""
    url = url.strip()
    scheme, separator, rest = url.partition("://")
    if not separator:
        if url.startswith(("/", ".", "~")) or url.endswith((".db", ".sqlite", ".sqlite3")):
            raise ValueError(f"a path, not a URL: for a SQLite file write sqlite:///{url}")
        raise ValueError(f"not a database URL; write {DATABASE_URL_FORMS}")
    scheme = scheme.lower()
    if scheme in ("postgres", "postgresql"):
        return f"{POSTGRES_DRIVER}://{rest}"
    if scheme == POSTGRES_DRIVER or scheme in ("sqlite", "sqlite+pysqlite"):
        return url
    raise ValueError(
        f"gradlab stores progress in SQLite or PostgreSQL (with psycopg); write "
        f"{DATABASE_URL_FORMS}"
    )


def without_password(url: str) -> str:
    """A database URL fit to print: its password, if any, is `***`."""
    return re.sub(r"(://[^/@:]*:)[^/@]*@", r"\1***@", url)
