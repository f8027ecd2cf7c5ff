"""The `gradlab` command: serve, check, new, schema."""

from __future__ import annotations

import argparse
import logging
import sys

from pydantic import ValidationError


def _serve(args: argparse.Namespace) -> int:
    import uvicorn

    from app.config import Settings
    from app.lessons.loader import LessonError
    from app.main import create_app

    try:
        application = create_app(Settings(), reload=args.reload)
    except (LessonError, ValidationError) as exc:
        print(f"gradlab: cannot start:\n{exc}", file=sys.stderr)
        return 2
    uvicorn.run(application, host=args.host, port=args.port, log_level=args.log_level)
    return 0


def _check(args: argparse.Namespace) -> int:
    from app.lessons.check import run_check

    if args.update:
        from app.lessons.update import run_update

        return run_update(lessons_dir=args.lessons_dir, only=args.lesson)
    return run_check(lessons_dir=args.lessons_dir, only=args.lesson, verbose=args.verbose)


def _new(args: argparse.Namespace) -> int:
    from pathlib import Path

    from app.config import Settings
    from app.lessons.scaffold import ScaffoldError, new_lesson

    try:
        folder = Path(args.dir) if args.dir else Settings().lessons_dir[0]
        path = new_lesson(args.slug, folder)
    except (ScaffoldError, ValidationError) as exc:
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
        help="print the lesson format as JSON Schema (lessons/lesson.schema.json is this output)",
    )
    schema.set_defaults(func=_schema)


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
    serve.set_defaults(func=_serve)
    check = commands.add_parser(
        "check", help="verify every lesson: schema, outputs, grads, pitfalls, myths, links"
    )
    check.add_argument("--lessons-dir", default=None, help="default: GRADLAB_LESSONS_DIR")
    check.add_argument("--lesson", action="append", help="check only this slug (repeatable)")
    check.add_argument("-v", "--verbose", action="store_true")
    check.add_argument(
        "--update",
        action="store_true",
        help="run every snippet and write its real output, grads and error into the file",
    )
    check.set_defaults(func=_check)
    _add_new(commands)
    _add_schema(commands)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    result: int = args.func(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
