"""`subsearch users`: user accounts."""

from __future__ import annotations

import click

from models.db import db as database
from models.errors import DomainError
from models.users import promote
from web.cli.group import open_db


@click.group()
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
