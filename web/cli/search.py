"""`subsearch search`: the search engine's health, keys and settings, and the reindex
that rebuilds every video's segments."""

from __future__ import annotations

import json

import click

from models.db import db as database
from models.ingest import reindex_all, videos_to_reindex
from models.search import SearchError, get_engine
from tasks.channels import fetch_video_subtitles
from web.cli import main, open_db


@main.group()
def search() -> None:
    """Search-engine operations."""


@search.command("health")
def search_health() -> None:
    """Ask the engine whether it is available (no key needed)."""
    try:
        answer = get_engine().health()
    except SearchError as error:
        raise click.ClickException(f"search engine unavailable: {error}") from None
    click.echo(json.dumps(answer, ensure_ascii=False))
    if answer.get("status") != "available":
        raise SystemExit(1)


@search.command("keys")
def search_keys() -> None:
    """List the engine's API keys (needs SEARCH_MASTER_KEY)."""
    try:
        keys = get_engine().keys()
    except SearchError as error:
        raise click.ClickException(str(error)) from None
    if not keys:
        click.echo("no keys (the embedded engine has none)")
    for key in keys:
        click.echo(f"{key['name']}\t{key['key']}")


@search.command("setup")
def search_setup() -> None:
    """Create the `subtitles` index and apply its settings (idempotent)."""
    get_engine().apply_settings()
    click.echo("index subtitles is set up")


@search.command("reindex")
@click.option("--channel", "channel_id", help="Only this channel's videos.")
@click.option(
    "--now",
    is_flag=True,
    help="Rebuild here, one video after another, instead of enqueueing for the workers.",
)
def search_reindex(channel_id: str | None, now: bool) -> None:
    """Fetch every video's subtitles (of one channel) again and rebuild its segments:
    enqueued for the workers, or done here with --now (README, Search and ingestion)."""
    open_db()
    if now:
        with database.connection_context():
            done = reindex_all(channel_id)
        click.echo(f"reindexed {done.videos} video(s), {done.segments} segment(s)")
        if done.stopped_by_quota:
            raise click.ClickException("stopped by the platform quota; run it again later")
        return
    get_engine().apply_settings()
    video_ids = videos_to_reindex(channel_id)
    for video_id in video_ids:
        fetch_video_subtitles.send(video_id)
    click.echo(f"enqueued {len(video_ids)} video(s) for indexing")
