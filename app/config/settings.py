"""Every knob of gradlab in one validated object, read from `GRADLAB_*` environment variables.

Each default works on a laptop; a bad value stops the server (and every command) at start-up
with one line that names the variable, instead of failing later in the middle of a request:
`app.config.loading.load_settings` reads them so.
"""

from __future__ import annotations

import os
from ipaddress import IPv4Network, IPv6Network, ip_network
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, SecretStr, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from app.config.capacity import (
    MAX_PROCESSES,
    MAX_WORKERS,
    QUEUE_PER_WORKER,
    MiB,
    default_reserved,
    default_workers,
)
from app.config.database_url import database_url
from app.config.paths import BUNDLED_LESSONS

# The isolation layers a snippet runs behind; each can be required or relaxed by name.
ISOLATION_LAYERS = ("rlimits", "uid", "no_new_privs", "landlock", "seccomp")

IPNetwork = IPv4Network | IPv6Network


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
    reserved_workers: Annotated[int, Field(ge=0, le=MAX_WORKERS)] = Field(
        default_factory=lambda data: default_reserved(data.get("workers", 1))
    )
    """Workers kept for a client address with no run in progress: one address keeps at most
    the others busy, so a learner at another address starts at once (default: one in eight,
    none below four workers; docs/fair-share.md)."""
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
    scratch_entries: Annotated[int, Field(ge=1, le=100_000)] = 256
    """Files, directories and links a snippet may have in its scratch dir at once; a run that
    makes more is stopped (a flood of empty files weighs no bytes but costs time to remove)."""
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
