"""The `subsearch` command group: settings checked, logging set for the command, the
process wired (web/wiring.py); the `db` group; opening the database, which the
commands that read or write it do first; and building the web app, which the few
commands that need one do by name."""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

import click

from models import logs
from models.db import init_db
from models.settings import ConfigError, Settings, get_settings
from web.wiring import wire

if TYPE_CHECKING:
    from flask import Flask

# The long-running commands log as the process they are; the others as the CLI.
LOG_COMPONENTS = {"serve": "web", "worker": "worker", "scheduler": "scheduler", "dev": "dev"}


# The app factory, by name as gunicorn names the app (web.wsgi:app): importing it loads
# Flask's app, every blueprint, page and API schema, a second or more that `--help`, and
# `serve` before it execs gunicorn, have no use for.
APP_FACTORY = "web.app"


def open_db() -> None:
    init_db(get_settings().database_url)


def web_app(settings: Settings | None = None) -> Flask:
    """The web app for `settings` (default: the environment's), its module loaded now."""
    create_app: Callable[[Settings | None], Flask] = importlib.import_module(APP_FACTORY).create_app
    return create_app(settings)


@click.group()
@click.option("-v", "--verbose", is_flag=True, help="Log at debug level.")
def main(verbose: bool) -> None:
    """Operate subsearch."""
    try:
        settings = get_settings()
    except ConfigError as error:
        raise click.ClickException(f"configuration: {error}") from None
    command = click.get_current_context().invoked_subcommand or ""
    logs.configure(
        settings.log_format,
        component=LOG_COMPONENTS.get(command, "cli"),
        secrets=logs.secret_values(settings),
        level=logging.DEBUG if verbose else logging.INFO,
    )
    # the services and the broker, for the commands that use or enqueue (it connects on
    # first use)
    wire(settings)


@main.group()
def db() -> None:
    """Database schema, backups and restores."""
