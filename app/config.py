"""Every knob of gradlab in one validated object, read from `GRADLAB_*` environment variables.

Each default works on a laptop; a bad value stops the server (and every command) at start-up
with one line that names the variable, instead of failing later in the middle of a request:
`load_settings` reads them so.
"""

from __future__ import annotations

import contextlib
import importlib.resources
import os
import re
import types
from collections.abc import Mapping
from ipaddress import IPv4Network, IPv6Network, ip_network
from pathlib import Path
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import annotated_types
from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict


def _package_dir() -> Path:
    """The `app` package's folder. Jinja, the static files, the lesson loader and the sandbox
    read its files from disk, so it must be a folder, not a zip archive."""
    package = importlib.resources.files("app")
    if not isinstance(package, Path):
        raise RuntimeError(f"gradlab must be installed as files on disk, not in {package}")
    return package.resolve()


PACKAGE_DIR = _package_dir()
# The folder that holds the package: the checkout, or site-packages when installed.
PROJECT_ROOT = PACKAGE_DIR.parent


def _shipped(folder: str, installed: str) -> Path:
    """A folder of the checkout's top level that gradlab cannot run without. A wheel carries it
    inside the package as `installed` (pyproject.toml maps it there), so that an installed
    gradlab finds it from whatever directory it is started; in a checkout, or an editable
    install of one, it is the top-level folder itself."""
    inside = PACKAGE_DIR / installed
    return inside if inside.is_dir() else PROJECT_ROOT / folder


TEMPLATES_DIR = _shipped("templates", "templates")
STATIC_DIR = _shipped("static", "static")
BUNDLED_LESSONS = _shipped("lessons", "bundled_lessons")  # the lessons gradlab comes with
LESSON_SCHEMA = BUNDLED_LESSONS / "lesson.schema.json"  # what `gradlab schema` prints
MiB = 1024 * 1024

# The isolation layers a snippet runs behind; each can be required or relaxed by name.
ISOLATION_LAYERS = ("rlimits", "uid", "no_new_privs", "landlock", "seccomp")


# Under load a run spends most of its time waiting for the server's event loop, not computing:
# with one run per CPU they queued until the server refused them (docs/performance.md).
RUNS_PER_CPU = 4
# ...but each run may use up to GRADLAB_MEMORY_MIB (1 GiB by default) above the zygote: the
# default keeps one GiB of the memory this server may use for each, after one for the server,
# its zygote and its spares.
GiB = 1 << 30
CGROUP_MEMORY_MAX = Path("/sys/fs/cgroup/memory.max")  # cgroup v2; "max" means no limit


def memory_limit_bytes() -> int:
    """The memory this process may use: the machine's, or its cgroup's limit if lower (in a
    container, /proc/meminfo shows the host's)."""
    limit = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    with contextlib.suppress(OSError, ValueError):
        cgroup = CGROUP_MEMORY_MAX.read_text().strip()
        if cgroup.isdigit():
            limit = min(limit, int(cgroup))
    return limit


IPNetwork = IPv4Network | IPv6Network
MAX_WORKERS = 64
MAX_PROCESSES = 32
# Runs that may wait, per worker: a full queue is about this many runs' time away. At 100
# learners on 2 cores (eight workers), once answers stopped queueing for the database, six per
# worker refused 2.1 - 3.8 % of runs, eight 0.38 - 0.60 %, ten none; a longer queue makes the
# runs that wait wait longer (docs/performance.md).
QUEUE_PER_WORKER = 8


def default_workers(processes: int = 1) -> int:
    """Runs at once in each of `processes` server processes: the machine's share of each."""
    by_cpu = RUNS_PER_CPU * (os.cpu_count() or 1) // processes
    by_memory = (memory_limit_bytes() // GiB - processes) // processes
    return max(1, min(by_cpu, by_memory, MAX_WORKERS))


class SettingsError(Exception):
    """Settings that cannot work, as one line per bad setting, each naming its variable (or
    command-line option), the value given and what is allowed. Raised at start-up only; every
    command prints the lines and exits with status 2 (`app/cli.py`)."""

    def __init__(self, *lines: str) -> None:
        super().__init__("\n".join(lines))
        self.lines = lines


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


class Settings(BaseSettings):
    # A setting's description is the docstring under it (docs/settings.md is made of them).
    model_config = SettingsConfigDict(
        env_prefix="GRADLAB_", extra="ignore", frozen=True, use_attribute_docstrings=True
    )

    # --- content ---
    lessons_dir: Annotated[tuple[Path, ...], NoDecode] = Field(
        default=(BUNDLED_LESSONS,),
        description=(  # not a docstring: it names this system's separator
            "Folder of lesson YAML files; several folders (lesson packs) separated by "
            f"{os.pathsep!r}. A slug may appear in one folder only."
        ),
    )

    # --- learner progress ---
    database_url: str = "sqlite:///var/gradlab.db"
    """SQLAlchemy URL of the progress database (by default a SQLite file, var/gradlab.db under
    the directory the server is started in): `sqlite:///relative.db`, `sqlite:////absolute.db`
    or `postgresql+psycopg://user:password@host:port/database`; `postgres://` and
    `postgresql://`, as hosting services print them, are read as `postgresql+psycopg://`."""
    secret_key: SecretStr | None = None
    """Key that signs the learner cookie; by default one is made and kept in the database."""
    cookie_secure: bool = False
    """Send the learner cookie over HTTPS only (behind TLS); also sends
    Strict-Transport-Security."""
    cookie_samesite: Literal["lax", "none"] = "lax"
    """SameSite of the learner cookie: 'none' lets it work inside an LMS's frame (LTI), and
    needs GRADLAB_COOKIE_SECURE=true (browsers refuse SameSite=None without Secure)."""
    review_sitting: Annotated[int, Field(ge=1, le=500)] = 20
    """The most items one review sitting asks; the rest wait for the next (an hour of misses
    comes back as a sitting, not as a wall)."""
    migrate: Literal["auto", "off"] = "auto"
    """'auto': migrate the database at start-up (under a lock, so instances may start together);
    'off': refuse to start on an out-of-date schema (run `gradlab migrate`)."""

    # --- share links ---
    share_days: Annotated[int, Field(ge=1, le=36_500)] | None = None
    """Days a shared snippet is kept after it was last viewed (unset: forever); older ones stop
    showing at once and are deleted by `gradlab shares prune` and as new ones are made."""
    shares_per_hour: Annotated[int, Field(ge=1, le=10_000)] = 30
    """Shares one learner (one cookie) may make in an hour (429 with Retry-After above)."""
    shares_per_address_per_hour: Annotated[int, Field(ge=1, le=100_000)] = 300
    """Shares one client address may make in an hour, counted in each server process (429 with
    Retry-After above); a class behind one address shares it."""

    # --- operating it ---
    public_url: str = "http://127.0.0.1:8000"
    """The address learners open gradlab at: class links (`gradlab class`) and the LTI
    addresses (`gradlab lti config`, /lti/config) are under it, and a launch's target_link_uri
    is read for a lesson only on its origin. Unset, the links use the default and say so, since
    only this machine can open it; a launch then takes the origin it reached."""
    trusted_proxies: Annotated[tuple[IPNetwork, ...], NoDecode] = ()
    """Proxies whose X-Forwarded-For is believed (comma-separated addresses or CIDR ranges,
    e.g. '10.0.0.0/8,127.0.0.1'); from any other peer the header is ignored. Default: none."""
    new_learners_per_minute: Annotated[int, Field(ge=1, le=1_000_000)] = 120
    """New learners (requests without a cookie that get one) one client address may create a
    minute, as many at once (a class behind one NAT); beyond that a lesson page or an answer is
    429 with Retry-After, and the playground, shares, review, progress and runs are served
    without a cookie."""
    frame_ancestors: str = "'self'"
    """CSP frame-ancestors: who may embed the pages in a frame (e.g. "'self'
    https://course.example.org")."""
    log_format: Literal["text", "json"] = "text"
    """'json': one JSON object per log line, with the request id (X-Request-ID)."""
    metrics_token: SecretStr | None = None
    """Bearer token that unlocks /metrics (Prometheus); unset: /metrics answers 404."""
    processes: Annotated[int, Field(ge=1, le=MAX_PROCESSES)] = 1
    """Server processes `gradlab serve` starts on one port, each with its own sandbox (about
    280 MiB more each); the default runs at once are shared between them."""

    header_timeout_s: Annotated[float, Field(gt=0, le=300)] = 10.0
    """Seconds a client has to send a request's headers (from connecting, or from the first
    byte of a later request on the same connection) before its connection is closed:
    slow-loris clients are cut off."""
    keep_alive_s: Annotated[int, Field(ge=1, le=3600)] = 75
    """Seconds an idle connection stays open for the client's next request. Longer than a
    learner reads a page: a connection closed sooner is opened again for the next click, and
    under load a new connection waits for the server to accept it behind every request on
    the open ones."""
    body_timeout_s: Annotated[float, Field(gt=0, le=300)] = 15.0
    """Seconds a request's body may take to arrive once its headers have; then 408."""

    # --- snippet sandbox ---
    sandbox_enabled: bool = True
    """Start the sandbox (a torch-preloaded zygote) with the server."""
    workers: Annotated[int, Field(ge=1, le=MAX_WORKERS)] = Field(
        default_factory=lambda data: default_workers(data.get("processes", 1))
    )
    """Snippets run at the same time, in each server process (default: four per CPU, at most
    one per GiB of memory beyond the first, shared between GRADLAB_PROCESSES)."""
    queue_size: Annotated[int, Field(ge=0, le=10_000)] = Field(
        default_factory=lambda data: QUEUE_PER_WORKER * data["workers"]
    )
    """Runs that may wait for a worker before the server answers 503 (default: eight per
    worker)."""
    runs_per_learner: Annotated[int, Field(ge=1, le=MAX_WORKERS)] = 2
    """Runs one learner may have in progress at once; more wait in their line."""
    queued_per_learner: Annotated[int, Field(ge=0, le=1000)] = 4
    """Runs one learner may have waiting; beyond that and GRADLAB_RUNS_PER_LEARNER the server
    answers 429 with Retry-After. A free worker serves the learner who has had the least of
    the sandbox lately."""
    wall_time_s: Annotated[float, Field(gt=0, le=300)] = 5.0
    """Wall-clock limit of one run, in seconds."""
    cpu_time_s: Annotated[int, Field(ge=1, le=300)] = 5
    """CPU-time limit of one run, in seconds."""
    memory_mib: Annotated[int, Field(ge=64, le=65_536)] = 1024
    """Memory a run may add above the zygote's baseline, in MiB."""
    output_bytes: Annotated[int, Field(ge=1024, le=16 * MiB)] = 64 * 1024
    """stdout + stderr kept per run; the rest is cut."""
    code_bytes: Annotated[int, Field(ge=100, le=1 * MiB)] = 20_000
    """Largest snippet accepted (413 above)."""
    file_size_bytes: Annotated[int, Field(ge=0, le=1024 * MiB)] = 1 * MiB
    """Largest file a snippet may write."""
    scratch_bytes: Annotated[int, Field(ge=0, le=1024 * MiB)] = 8 * MiB
    """Total size of the files a snippet may leave in its scratch dir."""
    open_files: Annotated[int, Field(ge=16, le=4096)] = 64
    """Open file descriptors per run."""
    spares: Annotated[int, Field(ge=1, le=16)] = 2
    """Children kept forked, confined and warmed up ahead of demand (each costs memory)."""
    scratch_root: Path | None = None
    """Where per-run scratch dirs are made (default: the system temp dir)."""
    sandbox_user: str = "nobody"
    """When the server runs as root, snippets run as this user."""
    relax: Annotated[frozenset[str], NoDecode] = frozenset()
    """Isolation layers allowed to be off (comma-separated, e.g. 'landlock,seccomp'); for
    development only, logged loudly."""

    @property
    def public_url_given(self) -> bool:
        """Whether GRADLAB_PUBLIC_URL was set (unset, links name the default, 127.0.0.1)."""
        return "public_url" in self.model_fields_set

    @field_validator("database_url")
    @classmethod
    def _database_url(cls, value: str) -> str:
        return database_url(value)

    @field_validator("relax", mode="before")
    @classmethod
    def _parse_relax(cls, value: object) -> object:
        if isinstance(value, str):
            value = [part.strip() for part in value.split(",") if part.strip()]
        if isinstance(value, list | tuple | set | frozenset):
            unknown = sorted(set(value) - set(ISOLATION_LAYERS))
            if unknown:
                raise ValueError(
                    f"unknown isolation layer(s) {unknown}; known: {', '.join(ISOLATION_LAYERS)}"
                )
            return frozenset(value)
        return value

    @field_validator("trusted_proxies", mode="before")
    @classmethod
    def _parse_networks(cls, value: object) -> object:
        if isinstance(value, str):
            value = [part.strip() for part in value.split(",") if part.strip()]
        if isinstance(value, list | tuple):
            try:
                return tuple(ip_network(str(part), strict=False) for part in value)
            except ValueError as exc:
                raise ValueError(f"not an address or CIDR range: {exc}") from None
        return value

    @field_validator("lessons_dir", mode="before")
    @classmethod
    def _split_lesson_folders(cls, value: object) -> object:
        if isinstance(value, str):
            return tuple(part for part in value.split(os.pathsep) if part.strip())
        if isinstance(value, Path):
            return (value,)
        return value

    @model_validator(mode="after")
    def _none_needs_secure(self) -> Settings:
        if self.cookie_samesite == "none" and not self.cookie_secure:
            raise ValueError("GRADLAB_COOKIE_SAMESITE=none needs GRADLAB_COOKIE_SECURE=true")
        return self

    @field_validator("frame_ancestors")
    @classmethod
    def _one_directive(cls, value: str) -> str:
        # A value is pasted into the CSP header: it must not end the directive or the header.
        if not value.strip() or any(char in value for char in ";,\r\n"):
            raise ValueError("a space-separated list of sources, without ';' ',' or newlines")
        return value.strip()

    @field_validator("lessons_dir")
    @classmethod
    def _lesson_folders_exist(cls, value: tuple[Path, ...]) -> tuple[Path, ...]:
        if not value:
            raise ValueError("name at least one lessons folder")
        folders: list[Path] = []
        for folder in value:
            if not folder.is_dir():
                raise ValueError(f"{folder} is not a directory")
            if folder.resolve() not in folders:  # the same pack named twice is one pack
                folders.append(folder.resolve())
        return tuple(folders)


def load_settings(
    options: Mapping[str, object] | None = None, *, flags: Mapping[str, str] | None = None
) -> Settings:
    """The settings from the environment, with `options` given on the command line (`flags`
    names each one's option, e.g. {"processes": "--processes"}); a bad value raises
    SettingsError, one line per bad setting, instead of pydantic's report."""
    given: dict[str, Any] = {k: v for k, v in (options or {}).items() if v is not None}
    try:
        return Settings(**given)
    except ValidationError as exc:
        lines: dict[str, str] = {}
        for error in exc.errors():
            # A field whose default is computed from a bad one: the bad one says it all.
            if error["type"] == "default_factory_not_called":
                continue
            field = str(error["loc"][0]) if error["loc"] else ""
            if field not in lines:
                lines[field] = _problem(field, error, given, flags or {})
        raise SettingsError(*lines.values()) from None


def _problem(field: str, error: Any, given: Mapping[str, object], flags: Mapping[str, str]) -> str:
    """One bad setting as a line: its variable or option, the value given, what is allowed."""
    reason = str(error["msg"]).removeprefix("Value error, ")
    if not field:  # a rule across settings: its message names them
        return reason
    info = Settings.model_fields[field]
    if field in given:
        name, value = flags.get(field, field), given[field]
    else:
        name = f"GRADLAB_{field.upper()}"
        value = _from_environment(name, error.get("input"))
    shown = "(hidden)" if _secret(info) else repr(without_password(str(value)))
    said = f"{name} {shown}" if name.startswith("--") else f"{name}={shown}"
    allowed = None if error["type"] == "value_error" else _allowed(info)
    return f"{said}: {f'must be {allowed}' if allowed else reason}"


def _secret(info: FieldInfo) -> bool:
    return any(member is SecretStr for member in (info.annotation, *get_args(info.annotation)))


def _from_environment(name: str, fallback: object) -> object:
    """The variable as set (pydantic-settings reads names in any case)."""
    for key, value in os.environ.items():
        if key.upper() == name:
            return value
    return fallback


def _allowed(info: FieldInfo) -> str | None:
    """What a setting accepts, in words, from its type and bounds."""
    annotation: Any = info.annotation
    metadata = list(info.metadata)
    optional = False
    if get_origin(annotation) in (Union, types.UnionType):
        members = [a for a in get_args(annotation) if a is not type(None)]
        optional = len(members) < len(get_args(annotation))
        if len(members) == 1:
            annotation = members[0]
    if get_origin(annotation) is Annotated:
        annotation, *more = get_args(annotation)
        metadata += more
    bounds = _bounds(metadata)
    if annotation is bool:
        allowed = "true or false"
    elif annotation is int:
        allowed = f"a whole number{bounds}"
    elif annotation is float:
        allowed = f"a number{bounds}"
    elif get_origin(annotation) is Literal:
        allowed = "one of " + ", ".join(repr(choice) for choice in get_args(annotation))
    else:
        return None
    return f"{allowed}, or unset" if optional else allowed


def _bounds(metadata: list[Any]) -> str:
    low = high = ""
    for rule in metadata:
        if isinstance(rule, FieldInfo):  # Annotated[int, Field(ge=...)] inside an Optional
            return _bounds(list(rule.metadata))
        if isinstance(rule, annotated_types.Ge):
            low = f"from {rule.ge}"
        elif isinstance(rule, annotated_types.Gt):
            low = f"above {rule.gt}"
        elif isinstance(rule, annotated_types.Le):
            high = str(rule.le)
    if not high:
        return f" {low}" if low else ""
    if low.startswith("from"):
        return f" {low} to {high}"
    return f" {low} and at most {high}" if low else f" at most {high}"


def public_url_notice(settings: Settings) -> str | None:
    """What a command that prints links says on stderr when GRADLAB_PUBLIC_URL is unset: the
    default address opens on this machine only, so links under it are dead anywhere else."""
    if settings.public_url_given:
        return None
    return (
        f"GRADLAB_PUBLIC_URL is not set: these links use {settings.public_url}, which opens "
        "on this machine only; set it to the address learners open gradlab at, e.g. "
        "GRADLAB_PUBLIC_URL=https://gradlab.example.org"
    )


def _shown(value: object) -> str:
    """A default as an operator would write it, with the bundled lessons' folder as
    `<lessons>`."""
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, frozenset):
        return ",".join(sorted(value)) or "(none)"
    if isinstance(value, tuple):
        return os.pathsep.join(_shown(item) for item in value)
    return str(value).replace(str(BUNDLED_LESSONS), "<lessons>")


SETTINGS_DOC_HEAD = """# Settings

Every setting is an environment variable with a default that works on a laptop. A bad value
stops the server, and every other `gradlab` command, at start-up with one line per bad setting
naming the variable, the value given and what is allowed, and exit status 2:

```
gradlab serve: GRADLAB_WORKERS='abc': must be a whole number from 1 to 64
```

A database named by `GRADLAB_DATABASE_URL` that cannot be opened is said the same way: a plain
path (write `sqlite:////path/to/file.db`), a SQLite folder this user cannot make or write, a
PostgreSQL server that refuses or does not answer within 10 s (`?connect_timeout=N` in the URL
changes the wait), named by its host and port, never the password.
A busy port stops `gradlab serve` before anything starts, naming `--port`.

This page is generated from `Settings` in `app/config.py` (each field's description): after
changing a setting, run `python -m app.cli settings-doc > docs/settings.md`;
`tests/test_docs.py` fails until you do. `<lessons>` is the folder of the bundled lessons:
`lessons/` in a clone, `bundled_lessons/` inside the `app` package when installed.

| variable | default | what it does |
| --- | --- | --- |
"""


def settings_doc() -> str:
    """docs/settings.md: every setting's variable, default and description, as Markdown."""
    rows = []
    for name, field in Settings.model_fields.items():
        default = "(computed)" if field.default_factory is not None else _shown(field.default)
        default = default if default in ("unset", "(computed)", "(none)") else f"`{default}`"
        about = " ".join((field.description or "").split())  # a docstring may wrap
        about = about.replace("|", "\\|")  # a table cell
        rows.append(f"| `GRADLAB_{name.upper()}` | {default} | {about} |")
    return SETTINGS_DOC_HEAD + "\n".join(rows) + "\n"
