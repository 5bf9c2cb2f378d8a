"""Stored subtitle tracks (issue 25): kept with the status that says the video is fetched,
read back cue by cue for the transcript, and the source every index write reads, under
the index's lock, so concurrent writers leave the newest state."""

from __future__ import annotations

import itertools

import pytest

from models import index_check, indexing, ingest
from models.db import db
from models.search import SearchQuery, get_engine
from models.subtitles import load_track, moment_snippets, video_transcript
from models.tables import SubtitleTrack, Video
from tests.concurrency import at_once
from tests.fakes.platform_files import auto, manual

CH = "UCtrackstrackstracks0001"


@pytest.fixture
def files(platform_files):
    platform_files.channel(CH, ["trackVideo1", "trackVideo2"])
    platform_files.video("trackVideo1", CH, manual("一行目です", "二行目です"))
    platform_files.video("trackVideo2", CH, auto("今日は", "今日は\n大阪に", "大阪に\n来ています"))
    ingest.import_channel(CH)
    return platform_files


def test_a_completed_video_keeps_the_cues_it_was_fetched_with(files):
    ingest.fetch_subtitles("trackVideo1")
    track = load_track("trackVideo1")
    assert (track.type, track.language) == ("manual", "ja")
    assert [(c.start, c.end, c.text) for c in track.cues] == [
        (0.0, 3.0, "一行目です"),
        (3.0, 6.0, "二行目です"),
    ]
    assert SubtitleTrack.get_by_id("trackVideo1").cue_count == 2


def test_a_video_whose_subtitles_are_gone_keeps_no_cues(files):
    ingest.fetch_subtitles("trackVideo1")
    files.update("videos", "trackVideo1", subtitles=None)
    assert ingest.fetch_subtitles("trackVideo1") == "unavailable"
    assert load_track("trackVideo1") is None


def test_the_transcript_shows_each_cue_with_its_own_time_rolled_lines_once(files):
    ingest.fetch_subtitles("trackVideo2")
    assert [(s.start, s.text) for s in video_transcript("trackVideo2")] == [
        (0.0, "今日は"),
        (3.0, "大阪に"),
        (6.0, "来ています"),
    ]


def test_renames_racing_index_writes_leave_the_newest_title_in_the_index(files):
    # Given a fetched video
    ingest.fetch_subtitles("trackVideo1")

    # When threads rename it while others rewrite its documents, all at once
    def work(n):
        for round_ in range(30):
            if n % 2:
                ingest.rename_video("trackVideo1", f"題名 {n}-{round_}")
            else:
                indexing.write_video("trackVideo1")

    outcomes = at_once(work, list(range(8)))
    assert [o for o in outcomes if isinstance(o, Exception)] == []

    # Then the index holds the title the database holds, on every document
    with db.connection_context():
        title = Video.get_by_id("trackVideo1").title
        result = index_check.compare(get_engine())
    assert result.stale == [] and result.missing == []
    [video] = get_engine().search_videos(SearchQuery(q="一行目")).videos
    assert video.video_title == title


def test_a_deletion_racing_fetches_leaves_the_video_out_of_the_index(files):
    ingest.fetch_subtitles("trackVideo1")

    def work(n):
        if n == 0:
            ingest.mark_deleted(Video.get_by_id("trackVideo1"))
        else:
            indexing.write_video("trackVideo1")

    assert not any(isinstance(o, Exception) for o in at_once(work, list(range(6))))
    assert get_engine().search_videos(SearchQuery(q="一行目")).total_videos == 0


def test_two_imports_of_a_channel_at_once_fetch_each_new_video_once(files):
    Video.delete().execute()
    outcomes = at_once(lambda _: ingest.import_channel(CH).new_video_ids, [0, 1, 2, 3])
    new = sorted(video_id for ids in outcomes for video_id in ids)
    assert new == ["trackVideo1", "trackVideo2"]


@pytest.mark.parametrize("kind", [manual, auto])
def test_moments_deep_in_a_long_track_are_cut_into_the_cues_the_transcript_shows(
    platform_files, kind
):
    """A page of results reads of each track only its moments' cues (and the few before
    them that automatic captions are cleaned against): the cut is the transcript's."""
    lines = [f"{n}番目の話です" for n in range(400)]
    lines[300] = "ここで合言葉はひまわり"
    if kind is auto:  # each rolling cue shows the line before again
        lines = [lines[0]] + [f"{a}\n{b}" for a, b in itertools.pairwise(lines)]
    platform_files.channel(CH, ["longVideo01"])
    platform_files.video("longVideo01", CH, kind(*lines))
    ingest.import_channel(CH)
    ingest.fetch_subtitles("longVideo01")
    found = get_engine().search_videos(SearchQuery(q="ひまわり"))
    assert [video.video_id for video in found.videos] == ["longVideo01"]
    [snippet] = moment_snippets(found.videos)["longVideo01"]
    transcript = {cue.start: cue.text for cue in video_transcript("longVideo01")}
    assert len(snippet.cues) >= 2  # the window's cues, set apart
    for cue in snippet.cues:
        assert cue.start in transcript
    assert snippet.start == 900.0  # the cue holding the word, not the window's first
    assert (
        "<mark>ひまわり</mark>" in snippet.cues[[c.start for c in snippet.cues].index(900.0)].html
    )
