"""`subsearch`: the operator's command line."""

from __future__ import annotations

import logging

import click

import tasks
from models import logs, migrations
from models.db import db as database
from models.db import init_db
from models.errors import DomainError
from models.settings import ConfigError, get_settings
from models.users import promote

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
    tasks.setup()  # the broker, for the commands that enqueue (it connects on first use)


@main.group()
def db() -> None:
    """Database schema, backups and restores."""


@db.command("upgrade")
def db_upgrade() -> None:
    """Apply pending migrations (idempotent), seed the ad slots, and set up the search
    index's layout (a new one is filled from the stored subtitles)."""
    open_db()
    applied = migrations.upgrade()
    click.echo(f"applied {', '.join(applied)}" if applied else "database is up to date")
    search.set_up_index()


@main.group()
def users() -> None:
    """User accounts."""


@users.command("promote")
@click.argument("email")
def users_promote(email: str) -> None:
    """Give the user with EMAIL the admin role."""
    open_db()
    try:
        with database.connection_context():
            user = promote(email)
    except DomainError as error:
        raise click.ClickException(error.message) from None
    click.echo(f"{user.email} is now admin")


from web.cli import ads, backups, batch, catalog, processes, queue, search  # noqa: E402,F401  (attach their commands)
