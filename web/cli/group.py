"""The `subsearch` command group: settings checked, logging set for the command, the
process wired (web/wiring.py); the `db` group; and opening the database, which the
commands that read or write it do first."""

from __future__ import annotations

import logging

import click

from models import logs
from models.db import init_db
from models.settings import ConfigError, get_settings
from web.wiring import wire

# The long-running commands log as the process they are; the others as the CLI.
LOG_COMPONENTS = {"serve": "web", "worker": "worker", "scheduler": "scheduler", "dev": "dev"}


def open_db() -> None:
    init_db(get_settings().database_url)


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
