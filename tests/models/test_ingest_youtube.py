"""Ingestion that heals on the youtube engine too (against the local stand-ins of the Data
API and of youtube-transcript-api): a blocked fetch is retried, a removed channel is
deleted, renamed channels and videos reach their documents."""

from __future__ import annotations

import pytest
from youtube_transcript_api import IpBlocked

from models import ingest, platform_pause
from models.platform.youtube import YouTubePlatform
from models.search import SearchQuery, get_engine
from models.tables import Channel, Video
from tests.fakes.http import serve
from tests.fakes.platform_files import pause_runs_out
from tests.fakes.youtube_server import API_KEY, FakeTranscripts, FakeYouTube

CH = "UCyout0yout0yout0yout0y1"
KYOTO = [(0.0, 2.0, "the golden pavilion")]


@pytest.fixture
def fake():
    return FakeYouTube()


@pytest.fixture
def transcripts():
    return FakeTranscripts()


@pytest.fixture
def youtube(fake, transcripts, monkeypatch):
    with serve(fake) as url:
        platform = YouTubePlatform(API_KEY, api_base=f"{url}/youtube/v3", transcripts=transcripts)
        monkeypatch.setattr(ingest, "get_platform", lambda: platform)
        fake.add_channel(CH, title="A channel", uploads=["ytVideo0001", "ytVideo0002"])
        fake.add_video("ytVideo0001", channel_id=CH, title="Osaka trip")
        fake.add_video("ytVideo0002", channel_id=CH, title="Kyoto trip")
        transcripts.add("ytVideo0001", "en", [(0.0, 2.0, "takoyaki in Osaka")])
        transcripts.add("ytVideo0002", "en", KYOTO, fetch_error=IpBlocked("ytVideo0002"))
        ingest.import_channel(CH)
        yield platform


def search(q, **kw):
    return get_engine().search(SearchQuery(q=q, **kw))


def rename_channel(fake, title):
    """As the platform does: the channel and every video's `channelTitle`."""
    fake.channels[CH]["snippet"]["title"] = title
    for video in fake.videos.values():
        video["snippet"]["channelTitle"] = title


def test_a_blocked_fetch_pauses_fetching_fails_nothing_and_heals(youtube, transcripts):
    # When the platform blocks the service's address
    with pytest.raises(ingest.FetchLater) as later:
        ingest.fetch_subtitles("ytVideo0002")
    # Then the video is not failed, only noted, and every fetch pauses
    video = Video.get_by_id("ytVideo0002")
    assert (video.subtitle_status, video.fetch_attempts) == ("pending", 0)
    assert video.last_failure_kind == "ip_blocked" and video.last_failure_at
    assert round(later.value.seconds) == 300  # PLATFORM_BACKOFF_SECONDS
    assert platform_pause.state().kind == "ip_blocked"

    # And once the pause is over and the platform answers again, the fetch completes
    transcripts.add("ytVideo0002", "en", KYOTO)  # no longer blocked
    pause_runs_out()
    assert ingest.fetch_subtitles("ytVideo0002") == "completed"  # the probe
    assert platform_pause.state() is None
    assert [h.video_id for h in search("pavilion").hits] == ["ytVideo0002"]


def test_a_channel_the_api_no_longer_returns_is_deleted(youtube, fake):
    ingest.fetch_subtitles("ytVideo0001")
    Channel.update(updated_at="2026-01-01T00:00:00.000Z").where(Channel.id == CH).execute()
    del fake.channels[CH]

    result = ingest.refresh_channel(CH)

    assert result.reason == "deleted from the platform"
    assert Channel.get_by_id(CH).subtitle_status == "deleted"
    assert search("takoyaki").total_hits == 0
    assert ingest.due_channels() == []


def test_renames_reach_the_documents_on_refresh_and_on_reindex(youtube, fake):
    ingest.fetch_subtitles("ytVideo0001")
    rename_channel(fake, "New name")
    fake.videos["ytVideo0001"]["snippet"]["title"] = "Kobe trip"

    assert ingest.refresh_channel(CH).refreshed

    [hit] = search("takoyaki").hits
    assert (hit.video_title, hit.channel_title) == ("Kobe trip", "New name")

    # and a reindex applies a later rename it learns from the video's answer
    rename_channel(fake, "Newer name")
    ingest.refetch_all(CH)
    [hit] = search("takoyaki").hits
    assert hit.channel_title == "Newer name"
    assert Channel.get_by_id(CH).title == "Newer name"
