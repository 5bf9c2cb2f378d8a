"""The index's actors: a write the index refused is made again from the stored cues, the
backfill of tracks fetched before they were kept, and the daily check; the scheduler
sends the last two."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from models import ingest
from models.search import IndexNotReady, SearchQuery, get_engine
from models.settings import get_settings, use_settings
from models.tables import IndexCheck, SubtitleTrack, Video, VideoVectors
from scheduler.runner import latest_due_tick
from scheduler.schedule import SCHEDULE
from tasks.channels import fetch_video_subtitles
from tasks.search import (
    backfill_subtitle_tracks,
    embed_videos,
    index_videos,
    verify_search_index,
)
from tests.fakes.platform_files import manual
from tests.fixtures import take_messages

CH = "UCsearchtasksearchtask01"


def found(q: str) -> set[str]:
    return {v.video_id for v in get_engine().search_videos(SearchQuery(q=q)).videos}


@pytest.fixture
def imported(platform_files):
    platform_files.channel(CH, ["taskIndex01", "taskIndex02"])
    platform_files.video("taskIndex01", CH, manual("たこ焼きを六個買いました"))
    platform_files.video("taskIndex02", CH, manual("お好み焼きも食べました"))
    ingest.import_channel(CH)
    return platform_files


@pytest.fixture
def index_not_set_up(tmp_path):
    """An index file no `db upgrade` has laid out yet."""
    previous = get_settings()
    use_settings(replace(previous, search_path=str(tmp_path / "new" / "search.db")))
    yield
    use_settings(previous)


def test_a_write_the_index_refused_is_made_later_from_the_stored_cues(
    imported, stub_broker, index_not_set_up
):
    # Given an index not set up when the video is fetched
    fetch_video_subtitles("taskIndex01")
    # Then the database has the video and its cues, and the write waits in the queue
    assert Video.get_by_id("taskIndex01").subtitle_status == "completed"
    assert SubtitleTrack.get_by_id("taskIndex01").cue_count == 1
    [message] = take_messages(stub_broker, "index")
    assert (message["actor_name"], message["args"]) == ("index_videos", [["taskIndex01"]])
    # and it fails (to be retried) while the index is not set up
    with pytest.raises(IndexNotReady):
        index_videos(*message["args"])

    # When the index is set up and the platform is out of quota, then the retry writes
    # the video from its stored cues
    get_engine().apply_settings()
    imported.quota_exceeded()
    index_videos(*message["args"])
    assert found("たこ焼き") == {"taskIndex01"}


def test_the_backfill_fetches_videos_kept_without_cues_and_resumes_after_the_quota(imported):
    # Given two videos fetched before tracks and descriptions were kept
    for video_id in ("taskIndex01", "taskIndex02"):
        ingest.fetch_subtitles(video_id)
    SubtitleTrack.delete().execute()
    Video.update(description=None).execute()

    # When a round meets the quota, then nothing is lost and nothing is marked done
    imported.quota_exceeded()
    backfill_subtitle_tracks()
    assert SubtitleTrack.select().count() == 0
    assert Video.get_by_id("taskIndex01").subtitle_status == "completed"

    # When the next round runs, then both have their cues and description
    imported.quota_exceeded(on=False)
    backfill_subtitle_tracks()
    assert SubtitleTrack.select().count() == 2
    assert {v.description for v in Video.select()} == {"説明文です"}
    assert ingest.videos_without_track(10) == []


def test_the_daily_check_repairs_a_video_missing_from_the_index_and_records_it(imported):
    for video_id in ("taskIndex01", "taskIndex02"):
        ingest.fetch_subtitles(video_id)
    get_engine().delete_video_documents("taskIndex02")

    verify_search_index()

    assert found("お好み焼き") == {"taskIndex02"}
    check = IndexCheck.get()
    assert (check.videos, check.missing, check.repaired) == (2, 1, True)
    verify_search_index()  # a second run finds nothing left
    assert IndexCheck.select().order_by(IndexCheck.id.desc()).first().missing == 0


@pytest.mark.parametrize(
    ("actor", "ticks_in_a_day"),
    [("backfill_subtitle_tracks", 24), ("verify_search_index", 1)],
)
def test_the_scheduler_sends_the_index_jobs(stub_broker, actor, ticks_in_a_day):
    [job] = [job for job in SCHEDULE if job.actor == actor]
    assert stub_broker.get_actor(job.actor)
    day = datetime(2026, 11, 22, 0, 0, tzinfo=UTC)
    ticks = {
        latest_due_tick(job, day.replace(hour=hour), day.replace(hour=hour, minute=59))
        for hour in range(24)
    }
    assert len(ticks - {None}) == ticks_in_a_day


def meant(q: str) -> set[str]:
    found = get_engine().search_videos(SearchQuery(q=q, semantic=True, sr=1.0))
    return {v.video_id for v in found.videos[:1]}


def test_a_fetched_video_is_embedded_on_its_own_queue_after_it_is_indexed(imported, stub_broker):
    # Given a video fetched and indexed: keyword search finds it at once
    fetch_video_subtitles("taskIndex01")
    assert found("たこ焼き") == {"taskIndex01"}
    assert take_messages(stub_broker, "index") == []
    # and its embedding waits on the embed queue
    [message] = take_messages(stub_broker, "embed")
    assert (message["actor_name"], message["args"]) == ("embed_videos", [["taskIndex01"]])

    embed_videos(*message["args"])
    embed_videos(*message["args"])  # delivered twice: the second finds it done

    assert meant("大阪の名物を食べた") == {"taskIndex01"}
    assert VideoVectors.select().count() == 1


def test_a_rewrite_from_the_queue_and_the_daily_check_send_what_lacks_vectors(
    imported, stub_broker
):
    for video_id in ("taskIndex01", "taskIndex02"):
        ingest.fetch_subtitles(video_id)
    take_messages(stub_broker, "embed")

    index_videos(["taskIndex01"])
    assert [m["args"] for m in take_messages(stub_broker, "embed")] == [[["taskIndex01"]]]

    verify_search_index()
    [message] = take_messages(stub_broker, "embed")
    assert sorted(message["args"][0]) == ["taskIndex01", "taskIndex02"]
    embed_videos(*message["args"])
    verify_search_index()
    assert take_messages(stub_broker, "embed") == []


def test_the_scheduler_sends_the_vector_compaction_every_ten_minutes(stub_broker):
    [job] = [job for job in SCHEDULE if job.actor == "compact_search_vectors"]
    assert stub_broker.get_actor(job.actor)
    hour = datetime(2026, 11, 22, 5, 0, tzinfo=UTC)
    second = timedelta(seconds=1)
    ticks = {
        latest_due_tick(job, hour + minute * 60 * second - second, hour + minute * 60 * second)
        for minute in range(60)
    }
    assert len(ticks - {None}) == 6
