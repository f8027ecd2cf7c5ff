"""`gradlab lti`: register the course sites (LMSs) that launch gradlab, and what to tell them."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

# The commands' own imports are in each command: `gradlab` builds its parser from every
# command module, and a command pays only for what it runs.
if TYPE_CHECKING:
    from app.config.settings import Settings
    from app.progress.store import ProgressStore


def _store(settings: Settings) -> ProgressStore:
    from app.progress.store import open_store

    return open_store(settings.database_url, settings.migrate)


def _lti(args: argparse.Namespace) -> int:
    from app.config.loading import load_settings

    # The settings first: a bad one is said before the command's own imports are paid for.
    settings = load_settings()
    from app.config.settings import public_url_notice
    from app.learning.lti.keys import rotate, signing_key
    from app.learning.lti.launch import tool_urls

    store = _store(settings)
    if args.action == "add-platform":
        platform = store.add_platform(
            args.issuer,
            args.client_id,
            args.deployment_id,
            args.auth_url,
            args.token_url,
            args.jwks_url,
        )
        signing_key(store)  # the tool's key pair, made once
        print(
            f"platform {platform.id}: {platform.issuer} (client {platform.client_id}), "
            f"deployments {', '.join(platform.deployments)}"
        )
    elif args.action == "list":
        for p in store.platforms():
            print(f"{p.id}\t{p.issuer}\t{p.client_id}\t{','.join(p.deployments)}\t{p.auth_url}")
    elif args.action == "remove":
        if not store.remove_platform(args.id):
            print(f"gradlab lti: no platform {args.id}", file=sys.stderr)
            return 1
    elif args.action == "rotate-key":
        print(f"new signing key {rotate(store)}; the old ones stay published")
    else:
        print(json.dumps(tool_urls(settings.public_url), indent=2))
        if notice := public_url_notice(settings):
            print(f"gradlab lti: {notice}", file=sys.stderr)
    return 0


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    lti = commands.add_parser("lti", help="LTI 1.3: the course sites that launch gradlab")
    actions = lti.add_subparsers(dest="action", required=True)
    add = actions.add_parser("add-platform", help="register a platform (or add deployments)")
    add.add_argument("--issuer", required=True)
    add.add_argument("--client-id", required=True)
    add.add_argument("--deployment-id", required=True, action="append", help="repeatable")
    add.add_argument("--auth-url", required=True, help="the platform's OIDC authorization URL")
    add.add_argument("--token-url", required=True, help="the platform's OAuth2 token URL")
    add.add_argument("--jwks-url", required=True, help="the platform's public keyset URL")
    actions.add_parser("list", help="every registered platform")
    actions.add_parser("remove", help="forget a platform").add_argument("id", type=int)
    actions.add_parser("rotate-key", help="a new signing key (the old stay published)")
    actions.add_parser("config", help="the URLs to paste into the LMS")
    lti.set_defaults(func=_lti)
