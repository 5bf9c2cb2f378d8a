"""`subsearch search`, `subsearch channels`, `subsearch sample`: the search engine and
the catalogue of channels and videos."""

from __future__ import annotations

import json

import click

from web.cli import main, open_db


def _engine():
    from models.search import get_engine

    return get_engine()


@main.group()
def search():
    """Search-engine operations."""


@search.command("health")
def search_health():
    """Ask the engine whether it is available (no key needed)."""
    from models.search import SearchError

    try:
        answer = _engine().health()
    except SearchError as error:
        raise click.ClickException(f"search engine unavailable: {error}") from None
    click.echo(json.dumps(answer, ensure_ascii=False))
    if answer.get("status") != "available":
        raise SystemExit(1)


@search.command("keys")
def search_keys():
    """List the engine's API keys (needs SEARCH_MASTER_KEY)."""
    from models.search import SearchError

    try:
        keys = _engine().keys()
    except SearchError as error:
        raise click.ClickException(str(error)) from None
    if not keys:
        click.echo("no keys (the embedded engine has none)")
    for key in keys:
        click.echo(f"{key['name']}\t{key['key']}")


@search.command("setup")
def search_setup():
    """Create the `subtitles` index and apply its settings (idempotent)."""
    _engine().apply_settings()
    click.echo("index subtitles is set up")


@search.command("reindex")
@click.option("--channel", "channel_id", help="Only this channel's videos.")
def search_reindex(channel_id):
    """Enqueue a fresh fetch and index of every video (of one channel)."""
    from models.ingest import videos_to_reindex
    from tasks.channels import fetch_video_subtitles

    open_db()
    _engine().apply_settings()
    video_ids = videos_to_reindex(channel_id)
    for video_id in video_ids:
        fetch_video_subtitles.send(video_id)
    click.echo(f"enqueued {len(video_ids)} video(s) for indexing")


@main.group()
def channels():
    """Channels of the video platform."""


@channels.command("add")
@click.argument("id_or_handle")
def channels_add(id_or_handle):
    """Enqueue the import of a channel (UC... id or @handle) and its videos."""
    from tasks.channels import import_channel

    import_channel.send(id_or_handle)
    click.echo(f"enqueued import of {id_or_handle}")


@channels.command("refresh")
@click.argument("channel_id", required=False)
@click.option("--all", "everything", is_flag=True, help="Every channel that is due.")
def channels_refresh(channel_id, everything):
    """Enqueue the 24-hour refresh of one channel, or of every due channel."""
    from tasks.channels import refresh_channel, refresh_due_channels

    if bool(channel_id) == everything:
        raise click.UsageError("give a channel id or --all")
    if everything:
        refresh_due_channels.send()
        click.echo("enqueued the refresh of every due channel")
    else:
        refresh_channel.send(channel_id)
        click.echo(f"enqueued refresh of {channel_id}")


@main.group()
def sample():
    """The bundled sample data."""


@sample.command("load")
def sample_load():
    """Enqueue the import of every channel of the fixture video platform."""
    from models.platform.fixture import FixturePlatform
    from models.settings import get_settings
    from tasks.channels import import_channel

    platform = FixturePlatform(get_settings().video_fixture_dir)
    channel_ids = platform.channel_ids()
    for channel_id in channel_ids:
        import_channel.send(channel_id)
    click.echo(f"enqueued import of {len(channel_ids)} channel(s)")
