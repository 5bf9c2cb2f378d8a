"""`subsearch db`: the group, and `db upgrade` (the schema, the ad slots and the search
index's layout); `db backup` and `db restore` are in backups.py."""

from __future__ import annotations

import click

from models import migrations
from web.cli.group import LazyGroup, open_db
from web.cli.search import set_up_index


@click.group(
    cls=LazyGroup,
    commands={"backup": "web.cli.backups:db_backup", "restore": "web.cli.backups:db_restore"},
)
def db() -> None:
    """Database schema, backups and restores."""


@db.command("upgrade")
def db_upgrade() -> None:
    """Apply pending migrations (idempotent), seed the ad slots, and set up the search
    index's layout (a new one is filled from the stored subtitles)."""
    open_db()
    applied = migrations.upgrade()
    click.echo(f"applied {', '.join(applied)}" if applied else "database is up to date")
    set_up_index()
