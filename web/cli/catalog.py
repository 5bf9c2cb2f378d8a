"""`subsearch search`, `subsearch channels`, `subsearch sample`: the search engine and
the catalogue of channels and videos."""

from __future__ import annotations

import json

import click

from models.ingest import videos_to_reindex
from models.platform.fixture import FixturePlatform
from models.search import SearchEngine, SearchError, get_engine
from models.settings import get_settings
from tasks.channels import (
    fetch_video_subtitles,
    import_channel,
    refresh_channel,
    refresh_due_channels,
)
from web.cli import main, open_db


def _engine() -> SearchEngine:
    return get_engine()


@main.group()
def search() -> None:
    """Search-engine operations."""


@search.command("health")
def search_health() -> None:
    """Ask the engine whether it is available (no key needed)."""
    try:
        answer = _engine().health()
    except SearchError as error:
        raise click.ClickException(f"search engine unavailable: {error}") from None
    click.echo(json.dumps(answer, ensure_ascii=False))
    if answer.get("status") != "available":
        raise SystemExit(1)


@search.command("keys")
def search_keys() -> None:
    """List the engine's API keys (needs SEARCH_MASTER_KEY)."""
    try:
        keys = _engine().keys()
    except SearchError as error:
        raise click.ClickException(str(error)) from None
    if not keys:
        click.echo("no keys (the embedded engine has none)")
    for key in keys:
        click.echo(f"{key['name']}\t{key['key']}")


@search.command("setup")
def search_setup() -> None:
    """Create the `subtitles` index and apply its settings (idempotent)."""
    _engine().apply_settings()
    click.echo("index subtitles is set up")


@search.command("reindex")
@click.option("--channel", "channel_id", help="Only this channel's videos.")
def search_reindex(channel_id: str | None) -> None:
    """Enqueue a fresh fetch and index of every video (of one channel)."""
    open_db()
    _engine().apply_settings()
    video_ids = videos_to_reindex(channel_id)
    for video_id in video_ids:
        fetch_video_subtitles.send(video_id)
    click.echo(f"enqueued {len(video_ids)} video(s) for indexing")


@main.group()
def channels() -> None:
    """Channels of the video platform."""


@channels.command("add")
@click.argument("id_or_handle")
def channels_add(id_or_handle: str) -> None:
    """Enqueue the import of a channel (UC... id or @handle) and its videos."""
    import_channel.send(id_or_handle)
    click.echo(f"enqueued import of {id_or_handle}")


@channels.command("refresh")
@click.argument("channel_id", required=False)
@click.option("--all", "everything", is_flag=True, help="Every channel that is due.")
def channels_refresh(channel_id: str | None, everything: bool) -> None:
    """Enqueue the 24-hour refresh of one channel, or of every due channel."""
    if bool(channel_id) == everything:
        raise click.UsageError("give a channel id or --all")
    if everything:
        refresh_due_channels.send()
        click.echo("enqueued the refresh of every due channel")
    else:
        refresh_channel.send(channel_id)
        click.echo(f"enqueued refresh of {channel_id}")


@main.group()
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
