"""`subsearch ingest status`, `subsearch videos retry|show`: what fetching subtitles from
the platform is doing, and the operator's hand on it (CONTRACT §12.3)."""

from __future__ import annotations

import time

import click

from models.db import db as database
from models.ingest_status import RETRYABLE, channel_exists, ingest_status, requeue
from models.tables import Channel, Video
from tasks.channels import fetch_video_subtitles
from web.cli.group import open_db


@click.group()
def ingest() -> None:
    """Fetching subtitles from the video platform."""


@ingest.command("status")
def ingest_status_command() -> None:
    """Fetching or paused (until when, and why), failures by kind in the last 24 hours,
    videos by status."""
    open_db()
    with database.connection_context():
        status = ingest_status()
    pause = status.pause
    if pause is None:
        click.echo("fetching: yes")
    else:
        left = pause.until - time.time()
        when = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(pause.until))
        state = f"until {when} ({left:.0f} s left)" if left > 0 else "probing (the pause ran out)"
        click.echo(f"fetching: paused {state}: the platform refused this service ({pause.kind})")
        click.echo(
            f"  refused since {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime(pause.since))}"
        )
    click.echo("failures in the last 24 h, by kind:")
    for kind, count in sorted(status.failures_24h.items()) or [("none", 0)]:
        click.echo(f"  {kind}: {count}")
    click.echo(
        f"Data API units today (Pacific time): {status.units_spent} spent, {status.units_left} left"
    )
    click.echo("videos by status:")
    for name, count in sorted(status.videos.items()) or [("none", 0)]:
        click.echo(f"  {name}: {count}")


@click.group()
def videos() -> None:
    """The videos of the catalogue."""


@videos.command("retry")
@click.option(
    "--status",
    "statuses",
    type=click.Choice(RETRYABLE),
    multiple=True,
    help="Which videos (repeatable; default: failed).",
)
@click.option("--channel", "channel_id", help="Only this channel's videos (its UC... id).")
def videos_retry(statuses: tuple[str, ...], channel_id: str | None) -> None:
    """Fetch failed (or unavailable) videos again, their retries starting afresh."""
    open_db()
    with database.connection_context():
        if channel_id and not channel_exists(channel_id):
            raise click.UsageError(f"no channel {channel_id!r} in the catalogue")
        video_ids = requeue(statuses or ("failed",), channel_id)
    for video_id in video_ids:
        fetch_video_subtitles.send(video_id)
    click.echo(f"re-queued {len(video_ids)} video(s)")


@videos.command("show")
@click.argument("video_id")
def videos_show(video_id: str) -> None:
    """One video: its channel, subtitle status, retries and last failure."""
    open_db()
    with database.connection_context():
        video = Video.get_or_none(Video.id == video_id)
        if video is None:
            raise click.UsageError(f"no video {video_id!r} in the catalogue")
        channel = Channel.get_by_id(video.channel_id)
    for label, value in (
        ("video", video.id),
        ("title", video.title),
        ("channel", f"{channel.id} ({channel.title})"),
        (
            "subtitles",
            video.subtitle_status + (f" ({video.subtitle_type})" if video.subtitle_type else ""),
        ),
        ("failed fetches in a row", video.fetch_attempts),
        ("next fetch", video.next_fetch_at or "none due"),
        (
            "last failure",
            f"{video.last_failure_kind} at {video.last_failure_at}"
            if video.last_failure_kind
            else "none",
        ),
        ("updated", video.updated_at),
    ):
        click.echo(f"{label}: {value}")
