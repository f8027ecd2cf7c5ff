"""The `gradlab` command: serve, check, new, schema, migrate, shares, class, stats, reports,
inventory, lti."""

from __future__ import annotations

import argparse
import json
import logging
import os
import socket
import sys
import threading
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.config.settings import Settings
    from app.web.open_files import OpenFiles


def _serve(args: argparse.Namespace) -> int:
    # Alembic announces its plugins as it is imported: not for the operator's eyes.
    logging.getLogger("alembic").setLevel(logging.WARNING)
    from app.config.loading import load_settings, warn_unknown_variables

    # --processes, when given, wins over GRADLAB_PROCESSES (and sets the runs' default).
    settings = load_settings({"processes": args.processes}, flags={"processes": "--processes"})
    # Imported once the settings are good: a bad one is said without loading the lesson
    # format and the web layer first (a tenth of a second).
    from app.lessons.loader import LessonError
    from app.web.logs import configure_logging
    from app.web.open_files import raise_open_files_limit

    # The port first: taken, nothing else starts (nor says it is ready).
    listening = _listen(args.host, args.port)
    try:
        logging.getLogger().handlers.clear()  # main()'s plain handler: this one replaces it
        configure_logging(settings.log_format, args.log_level)
        warn_unknown_variables(logging.getLogger("gradlab").warning)
        open_files = raise_open_files_limit(settings)  # before anything opens, said once started
        shown = "127.0.0.1" if args.host in ("0.0.0.0", "::") else args.host  # noqa: S104
        url = f"http://{shown}:{args.port}"
        if settings.processes > 1:
            listening.close()  # uvicorn's supervisor binds it again for its processes
            return _serve_processes(args, settings, url, open_files)
        return _serve_one(args, settings, url, listening, open_files)
    except LessonError as exc:
        print(f"gradlab: cannot start:\n{exc}", file=sys.stderr)
        return 2
    finally:
        listening.close()


def _say_open_files(limit: OpenFiles) -> None:
    """Every learner's open connection holds a descriptor: the limit in one line, and a warning
    if a class needs more (app/web/open_files.py). Said once the settings and the database
    were found good, so that a refused start says only why."""
    log = logging.getLogger("gradlab")
    log.info(limit.report())
    if not limit.enough:
        log.warning(limit.warning())


def _listen(host: str, port: int) -> socket.socket:
    """The server's socket, bound as uvicorn binds it, or a SettingsError naming --port."""
    from app.config.loading import SettingsError

    listening = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listening.bind((host, port))
    except OSError as exc:
        listening.close()
        raise SettingsError(
            f"--port {port}: cannot listen on {host}:{port} ({exc.strerror}); another server "
            "may be using it: stop it or choose another --port"
        ) from None
    listening.set_inheritable(True)
    return listening


def _serve_one(
    args: argparse.Namespace,
    settings: Settings,
    url: str,
    listening: socket.socket,
    open_files: OpenFiles,
) -> int:
    import uvicorn

    from app.main import create_app
    from app.web.gc_tuning import settle_for_serving

    application = create_app(settings, reload=args.reload)
    application.state.listen_url = url
    _say_open_files(open_files)
    settle_for_serving()  # what start-up made lives as long as the server: see app/web/gc_tuning
    server = uvicorn.Server(uvicorn.Config(application, **_uvicorn_options(args, settings)))
    server.run(sockets=[listening])
    return 0 if server.started else 1


def _serve_processes(
    args: argparse.Namespace, settings: Settings, url: str, open_files: OpenFiles
) -> int:
    """Several server processes on one port (uvicorn's workers, each building the app from
    the environment with app.main's `from_environment`). Checked and migrated once, here,
    before any starts; their metrics add up in a shared folder (app/web/process_metrics.py)."""
    import uvicorn

    from app.lessons.loader import load_catalog
    from app.progress.database import make_engine, prepare_schema
    from app.web.process_metrics import prepare_shared_dir

    if args.reload:
        print("gradlab: --reload serves one process: leave --processes at 1", file=sys.stderr)
        return 2
    load_catalog(settings.lessons_dir)  # a broken lesson stops the start here, once
    engine = make_engine(settings.database_url)
    prepare_schema(engine, settings.migrate)
    engine.dispose()
    _say_open_files(open_files)  # the processes inherit the limit
    _, remove_shared = prepare_shared_dir()
    # What the processes read from the environment as they start (Settings).
    os.environ["GRADLAB_PROCESSES"] = str(settings.processes)
    os.environ["GRADLAB_MIGRATE"] = "off"  # done above; each process checks it is current
    threading.Thread(
        target=_announce_when_ready,
        args=(url, settings.processes, settings.sandbox_enabled),
        daemon=True,
    ).start()
    try:
        uvicorn.run(
            "app.main:from_environment",
            factory=True,
            workers=settings.processes,
            log_level=args.log_level,
            **_uvicorn_options(args, settings),
        )
    finally:
        remove_shared()
    return 0


def _uvicorn_options(args: argparse.Namespace, settings: Settings) -> dict[str, Any]:
    from app.web.header_caps import CappedHeadersProtocol

    return {
        "host": args.host,
        "port": args.port,
        # Our own logging (plain or JSON, with request ids) for uvicorn's loggers too.
        "log_config": None,
        "access_log": False,
        # X-Forwarded-For is read by the app, from GRADLAB_TRUSTED_PROXIES only (uvicorn's own
        # default would believe it from 127.0.0.1).
        "proxy_headers": False,
        # A request's headers must arrive within GRADLAB_HEADER_TIMEOUT_S (app/web/slow_clients),
        # and be no longer and no more than app/web/header_caps.py allows.
        "http": CappedHeadersProtocol,
        # An idle connection stays open while a learner reads (GRADLAB_KEEP_ALIVE_S).
        "timeout_keep_alive": settings.keep_alive_s,
        # On SIGTERM: stop accepting, give runs in flight their wall limit (and a margin for
        # the answer to leave), then the lifespan stops the zygote and its children.
        "timeout_graceful_shutdown": int(settings.wall_time_s) + 5,
    }


def _announce_when_ready(url: str, processes: int, with_sandbox: bool) -> None:
    """Say where to go once a process answers, with its sandbox ready (120 s at most)."""
    import urllib.request

    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=1) as answer:  # noqa: S310
                if json.load(answer)["sandbox"]["ready"] or not with_sandbox:
                    logging.getLogger("gradlab").info(
                        "ready: open %s (%d server processes)", url, processes
                    )
                    return
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.5)


def _migrate(args: argparse.Namespace) -> int:
    """Bring the database to the newest schema and exit: for deployments that migrate once,
    before starting replicas with GRADLAB_MIGRATE=off."""
    logging.getLogger("alembic.runtime.plugins").setLevel(logging.WARNING)  # import chatter
    from app.config.loading import load_settings

    # The settings first: a bad one is said before the command's own imports are paid for.
    settings = load_settings()
    from app.progress.database import make_engine, prepare_schema

    engine = make_engine(settings.database_url)
    prepare_schema(engine, "auto")
    engine.dispose()
    print("gradlab: the database schema is up to date")
    return 0


def _check(args: argparse.Namespace) -> int:
    from app.lessons.check import run_check

    if args.update:
        from app.lessons.update import run_update

        return run_update(lessons_dir=args.lessons_dir, only=args.lesson)
    return run_check(
        lessons_dir=args.lessons_dir,
        only=args.lesson,
        verbose=args.verbose,
        inventory=args.inventory,
    )


def _new(args: argparse.Namespace) -> int:
    from pathlib import Path

    from app.config.loading import load_settings
    from app.lessons.scaffold import ScaffoldError, new_lesson

    try:
        folder = Path(args.dir) if args.dir else load_settings().lessons_dir[0]
        path = new_lesson(args.slug, folder)
    except ScaffoldError as exc:
        print(f"gradlab new: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {path}\nfill in every TODO, then: gradlab check --update --lesson {args.slug}")
    return 0


def _add_new(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    new = commands.add_parser(
        "new", help="write a lesson file to fill in (every section, with guidance)"
    )
    new.add_argument("slug", help="the lesson's slug, also its file name: my-lesson")
    new.add_argument("--dir", default=None, help="default: the first GRADLAB_LESSONS_DIR folder")
    new.set_defaults(func=_new)


def _schema(args: argparse.Namespace) -> int:
    from app.lessons.json_schema import schema_text

    sys.stdout.write(schema_text())
    return 0


def _add_schema(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    schema = commands.add_parser(
        "schema",
        help="print the lesson format as JSON Schema (the lesson.schema.json beside the bundled "
        "lessons is this output)",
    )
    schema.set_defaults(func=_schema)


def _settings_doc(args: argparse.Namespace) -> int:
    from app.config.settings_doc import settings_doc

    sys.stdout.write(settings_doc())
    return 0


def _add_settings_doc(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    doc = commands.add_parser(
        "settings-doc",
        help="print the settings table as Markdown (docs/settings.md is this output)",
    )
    doc.set_defaults(func=_settings_doc)


def _shares(args: argparse.Namespace) -> int:
    """An operator's hand on share links: delete one by id, or those past GRADLAB_SHARE_DAYS."""
    from app.config.loading import load_settings

    # The settings first: a bad one is said before the command's own imports are paid for.
    settings = load_settings()
    from app.learning.shares import SharePolicy, Shares
    from app.progress.store import open_store

    store = open_store(settings.database_url, settings.migrate)
    # Neither command needs the author key's secret: an operator deletes whoever made it.
    policy = SharePolicy(settings.code_bytes, 1, 1, settings.share_days, secret="")
    shares = Shares(store, policy)
    if args.shares_command == "rm":
        found = shares.remove(args.id)
        print(f"gradlab: share {args.id} deleted" if found else f"gradlab: no share {args.id}")
        return 0 if found else 1
    if settings.share_days is None:
        print("gradlab: GRADLAB_SHARE_DAYS is not set: shares are kept for ever")
        return 0
    print(f"gradlab: {shares.prune()} share(s) unviewed for {settings.share_days} days deleted")
    return 0


def _add_shares(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    shares = commands.add_parser("shares", help="manage share links (see docs/shares.md)")
    actions = shares.add_subparsers(dest="shares_command", required=True)
    rm = actions.add_parser("rm", help="delete one share, whoever made it")
    rm.add_argument(
        "id",
        help="the share's link, or its id (the link's last part, /s/ID); an id that starts "
        "with '-' goes after --: gradlab shares rm -- -ID",
    )
    actions.add_parser("prune", help="delete the shares unviewed for GRADLAB_SHARE_DAYS")
    shares.set_defaults(func=_shares)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="gradlab", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser("serve", help="start the web server")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--log-level", default="info")
    serve.add_argument(
        "--reload",
        action="store_true",
        help="development: reload lessons when their files change and show a broken "
        "lesson's error instead of refusing to start",
    )
    serve.add_argument(
        "--processes",
        type=int,
        default=None,
        help="server processes on the port, each with its own sandbox (default: "
        "GRADLAB_PROCESSES, 1); see docs/deploying.md",
    )
    serve.set_defaults(func=_serve)
    check = commands.add_parser(
        "check", help="verify every lesson: schema, outputs, grads, pitfalls, myths, links"
    )
    check.add_argument("--lessons-dir", default=None, help="default: GRADLAB_LESSONS_DIR")
    check.add_argument("--lesson", action="append", help="check only this slug (repeatable)")
    check.add_argument("-v", "--verbose", action="store_true")
    check.add_argument(
        "--inventory",
        action="store_true",
        help="check the concept inventory (inventory.yaml beside the lessons); alone, only it",
    )
    check.add_argument(
        "--update",
        action="store_true",
        help="run every snippet and write its real output, grads and error into the file",
    )
    check.set_defaults(func=_check)
    _add_new(commands)
    _add_schema(commands)
    _add_settings_doc(commands)
    _add_shares(commands)
    from app import inventory_cli, lti_cli, teaching_cli

    teaching_cli.add_commands(commands)
    inventory_cli.add_commands(commands)
    lti_cli.add_commands(commands)
    migrate = commands.add_parser(
        "migrate", help="bring the database (GRADLAB_DATABASE_URL) to the newest schema"
    )
    migrate.set_defaults(func=_migrate)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    # Alembic names each plugin it loads at INFO when first imported, which a command now does
    # after this line (the commands import what they run when they run it): noise to a reader.
    logging.getLogger("alembic.runtime.plugins").setLevel(logging.WARNING)
    from app.config.loading import SettingsError, refused, warn_unknown_variables

    who = f"gradlab {args.command}"
    if args.command != "serve":  # the server says it in its log, once its log is set up
        warn_unknown_variables(lambda warning: print(f"{who}: {warning}", file=sys.stderr))
    try:
        result: int = args.func(args)
    except SettingsError as exc:  # every command's bad settings, one line each
        return refused(exc, who)
    return result


if __name__ == "__main__":
    sys.exit(main())
