"""The ingestion actors that heal: retries of failed fetches sent by the hourly round,
and the refresh of a channel removed from the platform."""

from __future__ import annotations

import time
from dataclasses import replace

from models import ingest
from models.clock import iso, utcnow
from models.platform import FixturePlatform
from models.settings import get_settings, use_settings
from models.tables import Channel, Video
from tasks.channels import (
    fetch_video_subtitles,
    refresh_channel,
    refresh_due_channels,
    retry_failed_subtitles,
    retry_video_subtitles,
)
from tests.fakes.platform_files import manual, pause_runs_out
from tests.fixtures import take_messages

CH = "UCtask0task0task0task0t1"


def _failed_and_due(files, *video_ids):
    files.channel(CH, list(video_ids))
    for video_id in video_ids:
        files.video(video_id, CH, "error")
    ingest.import_channel(CH)
    for video_id in video_ids:
        ingest.fetch_subtitles(video_id)
    Video.update(next_fetch_at=iso(utcnow())).where(Video.id.in_(video_ids)).execute()


def test_the_hourly_round_retries_due_fetches_once_even_when_run_twice(platform_files, stub_broker):
    # given two failed videos due for their first retry; one now has subtitles
    _failed_and_due(platform_files, "taskVideo01", "taskVideo02")
    platform_files.update("videos", "taskVideo01", subtitles=manual("直りました"))

    # when the round runs twice before the worker gets to its messages
    retry_failed_subtitles()
    retry_failed_subtitles()
    messages = take_messages(stub_broker, "subtitles")
    assert sorted((m["actor_name"], *m["args"]) for m in messages) == [
        ("retry_video_subtitles", "taskVideo01", 1),
        ("retry_video_subtitles", "taskVideo01", 1),
        ("retry_video_subtitles", "taskVideo02", 1),
        ("retry_video_subtitles", "taskVideo02", 1),
    ]
    for message in messages:
        retry_video_subtitles(*message["args"])

    # then each retry happened once
    first, second = Video.get_by_id("taskVideo01"), Video.get_by_id("taskVideo02")
    assert (first.subtitle_status, first.fetch_attempts, first.next_fetch_at) == (
        "completed",
        0,
        None,
    )
    assert (second.subtitle_status, second.fetch_attempts) == ("failed", 2)
    assert second.next_fetch_at > iso(utcnow())
    retry_failed_subtitles()
    assert take_messages(stub_broker, "subtitles") == []  # nothing due any more


def test_a_removed_channel_is_refreshed_without_error_and_never_again(platform_files, stub_broker):
    platform_files.channel(CH, ["taskVideo03"])
    platform_files.video("taskVideo03", CH, manual("さようなら"))
    ingest.import_channel(CH)
    Channel.update(updated_at="2026-01-01T00:00:00.000Z").where(Channel.id == CH).execute()
    platform_files.remove_channel(CH)

    refresh_channel(CH)  # today: NotFoundOnPlatform, retried, then dead-lettered

    assert Channel.get_by_id(CH).subtitle_status == "deleted"
    assert Video.get_by_id("taskVideo03").subtitle_status == "deleted"
    refresh_due_channels()
    assert take_messages(stub_broker, "channels") == []


def test_a_fetch_met_by_a_block_is_sent_again_after_the_pause_not_failed(
    platform_files, stub_broker
):
    # given a video whose first fetch the platform refuses (the service's address)
    platform_files.channel(CH, ["taskVideo01"])
    platform_files.video("taskVideo01", CH, manual("届きました"), faults=["request_blocked"])
    ingest.import_channel(CH)

    # when the worker fetches it
    fetch_video_subtitles("taskVideo01")

    # then it is not failed, and the same fetch waits for the end of the pause
    assert Video.get_by_id("taskVideo01").subtitle_status == "pending"
    [message] = take_messages(stub_broker, "subtitles.DQ")
    assert (message["actor_name"], message["args"]) == ("fetch_video_subtitles", ["taskVideo01"])
    wait_s = message["options"]["eta"] / 1000 - time.time()
    assert 290 < wait_s <= 300 * 1.1 + 1  # the pause, spread by up to a tenth
    # and once the pause is over it completes
    pause_runs_out()
    fetch_video_subtitles(*message["args"])
    assert Video.get_by_id("taskVideo01").subtitle_status == "completed"


def test_a_retry_met_by_a_block_keeps_its_place_in_the_retries(platform_files, stub_broker):
    _failed_and_due(platform_files, "taskVideo01")
    platform_files.update(
        "videos", "taskVideo01", subtitles=manual("直りました"), faults=["network"]
    )

    retry_video_subtitles("taskVideo01", 1)

    row = Video.get_by_id("taskVideo01")
    assert (row.subtitle_status, row.fetch_attempts) == ("failed", 1)
    [message] = take_messages(stub_broker, "subtitles.DQ")
    assert (message["actor_name"], message["args"]) == ("retry_video_subtitles", ["taskVideo01", 1])


def test_fetches_past_the_minutes_rate_wait_for_the_next_window(
    platform_files, stub_broker, monkeypatch
):
    # given three new videos of the real platform (here its files: only its fetches are
    # rated) and a rate of two fetches a minute, across the workers
    previous = get_settings()
    use_settings(replace(previous, subtitle_fetches_per_minute=2, video_api_backend="youtube"))
    files = FixturePlatform(platform_files.folder)
    monkeypatch.setattr(ingest, "get_platform", lambda: files)
    ids = ["taskVideo01", "taskVideo02", "taskVideo03"]
    platform_files.channel(CH, ids)
    for video_id in ids:
        platform_files.video(video_id, CH, manual("届きました"))
    ingest.import_channel(CH)

    # when the worker gets to all three within the minute
    for video_id in ids:
        fetch_video_subtitles(video_id)

    # then two are fetched, and the third waits within the next minute, not failed
    statuses = [Video.get_by_id(video_id).subtitle_status for video_id in ids]
    assert statuses == ["completed", "completed", "pending"]
    [message] = take_messages(stub_broker, "subtitles.DQ")
    assert message["args"] == ["taskVideo03"]
    assert 0 < message["options"]["eta"] / 1000 - time.time() <= 66
    use_settings(previous)
