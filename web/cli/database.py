"""`subsearch db upgrade`: the schema, the ad slots and the search index's layout."""

from __future__ import annotations

import click

from models import migrations
from web.cli.group import db, open_db
from web.cli.search import set_up_index


@db.command("upgrade")
def db_upgrade() -> None:
    """Apply pending migrations (idempotent), seed the ad slots, and set up the search
    index's layout (a new one is filled from the stored subtitles)."""
    open_db()
    applied = migrations.upgrade()
    click.echo(f"applied {', '.join(applied)}" if applied else "database is up to date")
    set_up_index()
