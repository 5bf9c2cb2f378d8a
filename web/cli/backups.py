"""`subsearch db backup` / `db restore`: a consistent copy of the database while the
service runs, and putting one back (models/backup.py holds the how)."""

from __future__ import annotations

from pathlib import Path

import click

from models import backup
from models.settings import get_settings

BACKUP_FILE = click.Path(dir_okay=False, path_type=Path)


@click.command("backup")
@click.argument("path", type=BACKUP_FILE)
def db_backup(path: Path) -> None:
    """Write a consistent copy of the database to PATH while the service runs.

    SQLite: the online backup API; PostgreSQL: pg_dump's custom format. The search
    index is not included: `subsearch search reindex` rebuilds it from the database."""
    try:
        backup.backup(get_settings().database_url, path)
    except backup.BackupError as error:
        raise click.ClickException(str(error)) from None
    click.echo(f"backed up the database to {path} ({path.stat().st_size} bytes)")


@click.command("restore")
@click.argument("path", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--force", is_flag=True, help="Replace a database that already holds data.")
def db_restore(path: Path, force: bool) -> None:
    """Replace the database with the backup at PATH (stop web, worker and scheduler
    first). A database that already holds data is refused without --force."""
    try:
        restored = backup.restore(get_settings().database_url, path, force=force)
    except backup.BackupError as error:
        raise click.ClickException(str(error)) from None
    click.echo(f"restored {path} (schema at migration {restored.migration or 'none'})")
    if restored.pending:
        click.echo(
            f"this code has newer migrations ({', '.join(restored.pending)}): "
            "run `subsearch db upgrade`"
        )
    if restored.unknown:
        click.echo(
            f"warning: the backup has migrations this code does not know "
            f"({', '.join(restored.unknown)}): run the release that made it"
        )
    click.echo(
        "the search index is not part of the backup: rebuild it with `subsearch search reindex`"
    )
