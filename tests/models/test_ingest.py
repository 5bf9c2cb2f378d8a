"""Ingestion: import, subtitle status transitions, and the 24-hour refresh rules."""

from __future__ import annotations

import pytest

from models import ingest
from models.credits import NoSubtitles, unlock_video
from models.platform import QuotaExceeded
from models.search import SearchQuery, get_engine
from models.tables import Channel, Video
from tests.factories import make_user
from tests.fakes.platform_files import auto, manual

CH = "UCtesttesttesttesttest01"


@pytest.fixture
def channel(platform_files):
    files = platform_files
    files.channel(CH, ["manualVid01", "autoVid0001", "noSubs00001", "failing0001", "gone0000001"])
    files.video("manualVid01", CH, manual("今日は大阪に来ました。", "広告の話です。"))
    files.video("autoVid0001", CH, auto("たこ焼きを", "たこ焼きを\n食べます"))
    files.video("noSubs00001", CH, None, title="字幕なしの京都旅行")
    files.video("failing0001", CH, "error")
    files.video("gone0000001", CH, manual("消えた"), deleted=True)
    return files


def search(q, **kw):
    return get_engine().search(SearchQuery(q=q, **kw))


def status(video_id):
    video = Video.get_by_id(video_id)
    return video.subtitle_status, video.subtitle_type


def test_import_creates_the_channel_and_pending_videos(channel):
    result = ingest.import_channel(CH)
    assert sorted(result.new_video_ids) == [
        "autoVid0001",
        "failing0001",
        "manualVid01",
        "noSubs00001",
    ]
    row = Channel.get_by_id(CH)
    assert (row.title, row.handle, row.video_count, row.country, row.subscriber_count) == (
        "テストチャンネル",
        "@test_channel",
        5,
        "JP",
        1000,
    )
    assert row.subtitle_status == "processing"
    assert {v.subtitle_status for v in Video.select()} == {"pending"}
    assert ingest.import_channel(CH).new_video_ids == []  # a second import adds nothing


def test_import_by_handle(channel):
    assert ingest.import_channel("@test_channel").channel_id == CH


def test_each_subtitle_outcome(channel):
    ingest.import_channel(CH)
    for video_id in ["manualVid01", "autoVid0001", "noSubs00001", "failing0001"]:
        ingest.fetch_subtitles(video_id)
    assert status("manualVid01") == ("completed", "manual")
    assert status("autoVid0001") == ("completed", "auto")
    assert status("noSubs00001") == ("unavailable", None)
    assert status("failing0001") == ("failed", None)
    assert Channel.get_by_id(CH).subtitle_status == "completed"
    assert [h.video_id for h in search("大阪").hits] == ["manualVid01"]
    assert [s.text for s in get_engine().video_segments("autoVid0001")] == ["たこ焼きを食べます"]
    # Title and description are searchable even without subtitles.
    [title_hit] = search("京都").hits
    assert (title_hit.video_id, title_hit.matched_in) == ("noSubs00001", "title")


def test_a_track_of_blank_cues_is_no_subtitles_and_cannot_be_unlocked(platform_files):
    platform_files.channel(CH, ["blankVid001"])
    platform_files.video("blankVid001", CH, manual(" ", "\n", ""))
    ingest.import_channel(CH)
    ingest.fetch_subtitles("blankVid001")
    assert status("blankVid001") == ("unavailable", None)
    user = make_user(credit_balance=10)
    with pytest.raises(NoSubtitles):
        unlock_video(user.id, "blankVid001")


def test_a_video_removed_from_the_platform_is_deleted_with_its_documents(channel):
    ingest.import_channel(CH)
    ingest.fetch_subtitles("manualVid01")
    assert search("大阪").total_hits == 1
    channel.update("videos", "manualVid01", deleted=True)
    assert ingest.fetch_subtitles("manualVid01") == "deleted"
    assert status("manualVid01")[0] == "deleted"
    assert search("大阪").total_hits == 0
    assert ingest.fetch_subtitles("manualVid01") is None  # deleted is final


def test_a_quota_error_while_fetching_is_raised_for_a_retry(channel):
    ingest.import_channel(CH)
    channel.quota_exceeded()
    with pytest.raises(QuotaExceeded):
        ingest.fetch_subtitles("manualVid01")
    assert status("manualVid01") == ("pending", None)


def _age(channel_id, updated_at="2026-01-01T00:00:00.000Z"):
    Channel.update(updated_at=updated_at).where(Channel.id == channel_id).execute()


def test_refresh_upserts_fields_and_leaves_status_id_and_created_at(channel):
    ingest.import_channel(CH)
    Channel.update(subtitle_status="completed").where(Channel.id == CH).execute()
    _age(CH)
    before = Channel.get_by_id(CH)
    channel.update(
        "channels",
        CH,
        title="新しい名前",
        handle="@renamed",
        country="US",
        thumbnailUrl="https://yt3.example/new.jpg",
        subscriberCount=None,
    )
    assert ingest.refresh_channel(CH).refreshed
    after = Channel.get_by_id(CH)
    assert (after.title, after.handle, after.country, after.thumbnail_url) == (
        "新しい名前",
        "@renamed",
        "US",
        "https://yt3.example/new.jpg",
    )
    assert after.subscriber_count is None
    assert after.subtitle_status == "completed"
    assert (after.id, after.created_at) == (before.id, before.created_at)
    assert after.updated_at > before.updated_at


def test_refresh_runs_once_in_24_hours(channel):
    ingest.import_channel(CH)
    assert ingest.refresh_channel(CH).refreshed
    again = ingest.refresh_channel(CH)
    assert (again.refreshed, again.reason) == (False, "refreshed within 24 hours")


def test_a_quota_failure_keeps_updated_at_and_releases_the_lock(channel):
    ingest.import_channel(CH)
    _age(CH)
    channel.quota_exceeded()
    result = ingest.refresh_channel(CH)
    assert (result.refreshed, result.reason) == (False, "quota exceeded")
    assert Channel.get_by_id(CH).updated_at == "2026-01-01T00:00:00.000Z"
    assert CH in ingest.due_channels()
    channel.quota_exceeded(False)
    assert ingest.refresh_channel(CH).refreshed  # the lock was released


def test_a_subscriber_count_change_updates_every_document_of_the_channel(channel):
    ingest.import_channel(CH)
    for video_id in ["manualVid01", "autoVid0001"]:
        ingest.fetch_subtitles(video_id)
    engine = get_engine()
    calls = []
    original = engine.update_channel_documents

    def spy(channel_id, values):
        calls.append((channel_id, values))
        return original(channel_id, values)

    engine.update_channel_documents = spy
    try:
        channel.update("channels", CH, subscriberCount=2500)
        ingest.refresh_channel(CH)
    finally:
        del engine.update_channel_documents
    assert calls == [(CH, {"channel_title": "テストチャンネル", "subscriber_count": 2500})]
    counts = (
        engine._db()
        .execute("SELECT DISTINCT subscriber_count FROM videos WHERE channel_id = ?", (CH,))
        .fetchall()
    )
    assert [c[0] for c in counts] == [2500]


def test_an_unchanged_subscriber_count_touches_no_document(channel):
    ingest.import_channel(CH)
    engine = get_engine()
    engine.update_channel_documents = lambda *_: pytest.fail("documents updated")
    try:
        assert ingest.refresh_channel(CH).refreshed
    finally:
        del engine.update_channel_documents


def test_refresh_imports_new_videos_and_notices_deleted_ones(channel):
    ingest.import_channel(CH)
    ingest.fetch_subtitles("manualVid01")
    channel.video("brandNew001", CH, manual("新しい動画"))
    channel.update(
        "channels", CH, videoIds=["brandNew001", "autoVid0001", "noSubs00001", "failing0001"]
    )
    channel.update("videos", "manualVid01", deleted=True)
    result = ingest.refresh_channel(CH)
    assert result.new_video_ids == ["brandNew001"]
    assert status("brandNew001") == ("pending", None)
    assert status("manualVid01")[0] == "deleted"
    assert search("大阪").total_hits == 0


def test_due_channels_are_those_refreshed_24_hours_ago_or_more(channel):
    ingest.import_channel(CH)
    assert ingest.due_channels() == []
    _age(CH)
    assert ingest.due_channels() == [CH]
    Channel.update(subtitle_status="opted_out").where(Channel.id == CH).execute()
    assert ingest.due_channels() == []
