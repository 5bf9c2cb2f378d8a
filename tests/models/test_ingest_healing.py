"""Ingestion that heals (issue 15): failed fetches retried with backoff, channels removed
from the platform deleted with their videos, title changes applied to every document."""

from __future__ import annotations

from datetime import timedelta

import pytest

from models import ingest
from models.clock import iso, parse_iso, utcnow
from models.db import db
from models.migrations import dialect, m0009_ingestion_healing, render
from models.platform import FixturePlatform, PlatformError
from models.search import SearchQuery, get_engine
from models.tables import Channel, Video
from tests.fakes.platform_files import manual

CH = "UCheal0heal0heal0heal0h1"


@pytest.fixture
def channel(platform_files):
    files = platform_files
    files.channel(CH, ["healVideo01", "healVideo02"], title="元の名前")
    files.video("healVideo01", CH, manual("今日は大阪に来ました。"), title="大阪の旅")
    files.video("healVideo02", CH, "error", title="京都の旅")
    ingest.import_channel(CH)
    return files


def search(q, **kw):
    return get_engine().search(SearchQuery(q=q, **kw))


def retry_state(video_id):
    video = Video.get_by_id(video_id)
    return video.subtitle_status, video.fetch_attempts, video.next_fetch_at


def hours_from_now(text):
    return (parse_iso(text) - utcnow()) / timedelta(hours=1)


def later(hours):
    return iso(utcnow() + timedelta(hours=hours))


# -- failed fetches are retried ------------------------------------------------------------


def test_a_failed_fetch_is_due_again_after_an_hour(channel):
    # when
    assert ingest.fetch_subtitles("healVideo02") == "failed"

    # then
    status, attempts, next_at = retry_state("healVideo02")
    assert (status, attempts) == ("failed", 1)
    assert 0.99 < hours_from_now(next_at) <= 1.0
    assert ingest.videos_due_for_retry() == []
    assert ingest.videos_due_for_retry(later(1.01)) == [("healVideo02", 1)]


def test_retries_back_off_1_6_24_hours_then_the_video_stays_failed(channel):
    ingest.fetch_subtitles("healVideo02")
    waits = []
    for attempts in (1, 2, 3):
        waits.append(round(hours_from_now(retry_state("healVideo02")[2])))
        assert ingest.retry_subtitles("healVideo02", attempts) == "failed"
    assert waits == [1, 6, 24]
    assert retry_state("healVideo02") == ("failed", 4, None)
    assert ingest.videos_due_for_retry(later(1000)) == []


def test_a_retry_that_succeeds_completes_the_video_and_clears_the_retry(channel):
    ingest.fetch_subtitles("healVideo02")
    channel.update("videos", "healVideo02", subtitles=manual("金閣寺を見ました。"))

    assert ingest.retry_subtitles("healVideo02", 1) == "completed"

    assert retry_state("healVideo02") == ("completed", 0, None)
    assert [h.video_id for h in search("金閣寺").hits] == ["healVideo02"]


def test_a_second_message_for_the_same_retry_counts_nothing(channel):
    ingest.fetch_subtitles("healVideo02")
    assert ingest.retry_subtitles("healVideo02", 1) == "failed"

    assert ingest.retry_subtitles("healVideo02", 1) is None  # redelivered: attempt 1 is done

    assert retry_state("healVideo02")[:2] == ("failed", 2)


def test_a_network_error_of_the_platform_fails_the_fetch_with_a_retry(channel, monkeypatch):
    # given the platform unreachable (not a quota error, not "no subtitles")
    def unreachable(self, video_ids):
        raise PlatformError("YouTube Data API unreachable (videos): timed out")

    monkeypatch.setattr(FixturePlatform, "get_videos", unreachable)

    # when
    assert ingest.fetch_subtitles("healVideo01") == "failed"

    # then
    status, attempts, next_at = retry_state("healVideo01")
    assert (status, attempts) == ("failed", 1)
    assert next_at is not None


def test_videos_that_failed_before_the_upgrade_are_retried_by_the_next_round(channel):
    # given a video failed as this version found it: no count, no retry
    ingest.fetch_subtitles("healVideo02")
    Video.update(fetch_attempts=0, next_fetch_at=None).where(Video.id == "healVideo02").execute()

    # when the migration's data step runs
    *_, backfill = m0009_ingestion_healing.statements(dialect())
    db.execute_sql(render(backfill, dialect()))

    # then
    assert ingest.videos_due_for_retry(later(0.01)) == [("healVideo02", 1)]
    assert retry_state("healVideo01")[1:] == (0, None)  # pending, untouched


# -- a channel removed from the platform -------------------------------------------------


def _age(channel_id):
    Channel.update(updated_at="2026-01-01T00:00:00.000Z").where(Channel.id == channel_id).execute()


@pytest.mark.parametrize("removal", ["file removed", "marked deleted"])
def test_a_channel_removed_from_the_platform_is_deleted_with_its_videos(channel, removal):
    ingest.fetch_subtitles("healVideo01")
    ingest.fetch_subtitles("healVideo02")
    assert search("大阪").total_hits >= 1
    _age(CH)
    # when the platform no longer has the channel
    if removal == "file removed":
        channel.remove_channel(CH)
    else:
        channel.update("channels", CH, deleted=True)

    result = ingest.refresh_channel(CH)

    # then
    assert (result.refreshed, result.reason) == (False, "deleted from the platform")
    assert Channel.get_by_id(CH).subtitle_status == "deleted"
    assert {v.subtitle_status for v in Video.select().where(Video.channel == CH)} == {"deleted"}
    assert retry_state("healVideo02") == ("deleted", 1, None)  # no retry of a deleted video
    assert search("大阪").total_hits == 0
    assert search("京都").total_hits == 0
    assert ingest.due_channels() == []
    assert ingest.videos_due_for_retry(later(1000)) == []
    # a second refresh (a redelivery, a manual refresh) asks nothing and stays deleted
    again = ingest.refresh_channel(CH)
    assert (again.refreshed, again.reason) == (False, "deleted from the platform")


# -- titles changed on the platform ---------------------------------------------------------


def test_a_refresh_applies_a_new_channel_title_to_every_document(channel):
    ingest.fetch_subtitles("healVideo01")
    ingest.fetch_subtitles("healVideo02")
    channel.update("channels", CH, title="新しい名前")

    assert ingest.refresh_channel(CH).refreshed

    hits = search("大阪").hits + search("京都").hits
    assert hits
    assert {h.channel_title for h in hits} == {"新しい名前"}


def test_a_refresh_applies_a_new_video_title_to_every_document_of_the_video(channel):
    ingest.fetch_subtitles("healVideo01")
    channel.update("videos", "healVideo01", title="神戸の旅")

    assert ingest.refresh_channel(CH).refreshed

    assert Video.get_by_id("healVideo01").title == "神戸の旅"
    [subtitle_hit] = search("大阪", targets=("subtitle",)).hits
    assert subtitle_hit.video_title == "神戸の旅"
    [title_hit] = search("神戸", targets=("title",)).hits
    assert (title_hit.video_id, title_hit.matched_in) == ("healVideo01", "title")
    assert search("大阪", targets=("title",)).hits == []


def test_a_reindex_applies_new_channel_and_video_titles(channel):
    ingest.fetch_subtitles("healVideo01")
    channel.update("channels", CH, title="新しい名前")
    channel.update("videos", "healVideo01", title="神戸の旅")

    done = ingest.refetch_all(CH)

    assert done.videos == 2
    [subtitle_hit] = search("大阪", targets=("subtitle",)).hits
    assert (subtitle_hit.video_title, subtitle_hit.channel_title) == ("神戸の旅", "新しい名前")
    # the other video's documents, rebuilt or not, carry the new channel title too
    assert {h.channel_title for h in search("京都").hits} == {"新しい名前"}
    assert Channel.get_by_id(CH).title == "新しい名前"
    assert [h.video_id for h in search("神戸", targets=("title",)).hits] == ["healVideo01"]


def test_a_refresh_finishes_a_channel_deletion_that_was_interrupted(channel):
    # given the channel marked deleted while one of its videos is still searchable
    ingest.fetch_subtitles("healVideo01")
    Channel.update(subtitle_status="deleted").where(Channel.id == CH).execute()

    ingest.refresh_channel(CH)

    assert Video.get_by_id("healVideo01").subtitle_status == "deleted"
    assert search("大阪").total_hits == 0
