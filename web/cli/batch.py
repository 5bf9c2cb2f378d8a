"""`subsearch batch`: enqueue the periodic jobs by hand."""

from __future__ import annotations

import re

import click

from models import outbox
from models.db import write_transaction
from web.cli.group import open_db


@click.group()
def batch() -> None:
    """Periodic jobs."""


@batch.command("monthly-reset")
@click.option("--period", help="The month it is for, YYYY-MM (default: the current UTC month).")
@click.option("--force", is_flag=True, help="Run even when that month's reset already ran.")
def monthly_reset(period: str | None, force: bool) -> None:
    """Enqueue batch-monthly-reset: balances to plan limits, expired access removed."""
    if period and not re.fullmatch(r"\d{4}-(0[1-9]|1[0-2])", period):
        raise click.BadParameter("use YYYY-MM", param_hint="--period")
    open_db()
    with write_transaction():
        message_id = outbox.add("batch-monthly-reset", period, force)
    outbox.send(message_id)
    click.echo(
        f"enqueued batch-monthly-reset for {period or 'the current month'}"
        + (" (forced)" if force else "")
    )
