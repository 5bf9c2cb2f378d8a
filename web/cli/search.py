"""`subsearch search`: the search engine's health, keys and settings, the reindex from
stored subtitles (or the platform, with --refetch) and the check of the index against the
database."""

from __future__ import annotations

import json

import click

from models import index_check, indexing
from models.db import db as database
from models.ingest import refetch_all, videos_to_reindex
from models.search import SearchError, get_engine
from tasks.channels import fetch_video_subtitles
from tasks.search import embed_later, index_videos
from web.cli.group import open_db


@click.group()
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
    """Create the `subtitles` index and apply its settings (idempotent; `subsearch db
    upgrade` does it too, and rebuilds a new index from the stored subtitles)."""
    set_up_index()


def set_up_index() -> None:
    """Lay the index out (once: opening it never does), and fill a new one from the
    database's stored subtitles."""
    open_db()
    try:
        created = get_engine().apply_settings()
    except SearchError as error:
        raise click.ClickException(f"the search index could not be set up: {error}") from None
    if not created:
        click.echo("search index is up to date")
        return
    click.echo("search index laid out")
    with database.connection_context():
        if indexing.has_indexed_videos():
            _rebuild(None)


def _rebuild(channel_id: str | None) -> None:
    try:
        done = indexing.rebuild(channel_id)
    except SearchError as error:
        raise click.ClickException(f"the search index refused the rebuild: {error}") from None
    click.echo(
        f"rebuilt {done.videos} video(s), {done.documents} document(s) from stored subtitles"
        f" in {done.seconds:.1f} s ({done.videos_per_second:.0f} videos/s)"
    )
    if done.unembedded:
        embed_later(done.unembedded)
        click.echo(f"enqueued {len(done.unembedded)} video(s) for embedding (search by meaning)")


@search.command("reindex")
@click.option("--channel", "channel_id", help="Only this channel's videos.")
@click.option(
    "--now",
    is_flag=True,
    help="Rebuild here, in this process, instead of enqueueing for the workers.",
)
@click.option(
    "--refetch",
    is_flag=True,
    help="Fetch the subtitles from the platform again instead of using the stored ones.",
)
def search_reindex(channel_id: str | None, now: bool, refetch: bool) -> None:
    """Rebuild every video's documents (of one channel) from the stored subtitles, without
    the platform; --refetch fetches them anew (docs/search.md, The index)."""
    open_db()
    with database.connection_context():
        if refetch and now:
            done = refetch_all(channel_id)
            click.echo(f"refetched {done.videos} video(s), {done.segments} segment(s)")
            if done.stopped_by_quota:
                raise click.ClickException("stopped by the platform quota; run it again later")
            if done.stopped_by_pause:
                raise click.ClickException(
                    "stopped: the platform refuses this service's address for now "
                    "(fetching is paused); run it again later"
                )
        elif refetch:
            video_ids = videos_to_reindex(channel_id)
            for video_id in video_ids:
                fetch_video_subtitles.send(video_id)
            click.echo(f"enqueued {len(video_ids)} video(s) for fetching")
        elif now:
            _rebuild(channel_id)
        else:
            ids = indexing.indexed_video_ids(channel_id)
            for first in range(0, len(ids), indexing.BATCH):
                index_videos.send(ids[first : first + indexing.BATCH])
            click.echo(f"enqueued {len(ids)} video(s) for indexing from stored subtitles")


@search.command("verify")
@click.option("--repair", is_flag=True, help="Rewrite the videos found missing, extra or stale.")
def search_verify(repair: bool) -> None:
    """Compare the index with the database: every searchable video in it with the
    documents its stored subtitles give, its current titles, and nothing else."""
    open_db()
    with database.connection_context():
        try:
            result = index_check.verify(repair=repair)
        except SearchError as error:
            raise click.ClickException(f"the search index could not be read: {error}") from None
    click.echo(
        f"{result.videos} searchable video(s): {result.missing_count} missing,"
        f" {result.extra_count} extra, {result.stale_count} stale,"
        f" {len(result.unembedded)} without vectors"
    )
    if repair and result.unembedded:
        embed_later(result.unembedded)
        click.echo(f"enqueued {len(result.unembedded)} video(s) for embedding")
    for kind in ("missing", "extra", "stale"):
        for video_id in getattr(result, kind):
            click.echo(f"{kind}\t{video_id}")
    if result.repaired:
        click.echo(f"repaired {len(result.wrong)} video(s)")
    elif result.wrong:
        raise SystemExit(1)
