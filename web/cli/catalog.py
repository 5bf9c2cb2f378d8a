"""`subsearch channels`, `subsearch sample`: the catalogue of channels and videos (the
search engine's commands are in search.py)."""

from __future__ import annotations

import click

from models.db import db as database
from models.platform.addresses import channel_reference
from models.platform.fixture import FixturePlatform
from models.settings import get_settings
from tasks.channels import (
    import_channel,
    refresh_channel,
    refresh_due_channels,
)
from web.cli.group import open_db, web_app
from web.devtools.demo import load_demo
from web.urls import AD_PAGES


@click.group()
def channels() -> None:
    """Channels of the video platform."""


@channels.command("add")
@click.argument("id_or_handle")
def channels_add(id_or_handle: str) -> None:
    """Enqueue the import of a channel (UC... id, @handle or its address) and its videos."""
    reference = channel_reference(id_or_handle)
    if reference is None:
        raise click.BadParameter(
            "not a channel id (UC and 22 more), @handle or channel address "
            "(https://www.youtube.com/@name or /channel/UC...)",
            param_hint="ID_OR_HANDLE",
        )
    import_channel.send(reference)
    click.echo(f"enqueued import of {reference}")


@channels.command("refresh")
@click.argument("channel_id", required=False)
@click.option("--all", "everything", is_flag=True, help="Every channel that is due.")
def channels_refresh(channel_id: str | None, everything: bool) -> None:
    """Enqueue the 24-hour refresh of one channel, or of every due channel."""
    if bool(channel_id) == everything:
        raise click.UsageError("give a channel id or --all")
    if not channel_id:  # --all (the check above leaves one of the two)
        refresh_due_channels.send()
        click.echo("enqueued the refresh of every due channel")
    else:
        refresh_channel.send(channel_id)
        click.echo(f"enqueued refresh of {channel_id}")


@click.group()
def sample() -> None:
    """The bundled sample data."""


@sample.command("load")
def sample_load() -> None:
    """Enqueue the import of every channel of the fixture video platform."""
    platform = FixturePlatform(get_settings().video_fixture_dir)
    channel_ids = platform.channel_ids()
    for channel_id in channel_ids:
        import_channel.send(channel_id)
    click.echo(f"enqueued import of {len(channel_ids)} channel(s)")
    if get_settings().is_production:
        return
    _load_demo()


def _load_demo() -> None:
    """The demo advertiser, admin, ads and history (development and test only)."""
    open_db()
    app = web_app(get_settings())
    with app.test_request_context(), database.connection_context():
        demo = load_demo(AD_PAGES)
    if demo.created:
        click.echo(f"demo ad placed on {', '.join(demo.created)}")
    for reservation in demo.reservations:
        click.echo(
            f"demo ad {reservation.id}: {reservation.slot_id} position {reservation.position}"
        )
    click.echo(f"demo advertiser: {demo.advertiser.email}, demo admin: {demo.admin.email}")
