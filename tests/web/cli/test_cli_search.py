"""`subsearch search reindex` and `search verify`: the index rebuilt from the stored
subtitles without the platform (or from the platform with --refetch), and compared with
the database (the queued forms are in test_cli_catalog.py)."""

from __future__ import annotations

import sqlite3
from dataclasses import replace

import pytest
from click.testing import CliRunner

from models import ingest
from models.platform.fixture import FixturePlatform
from models.search import Document, SearchQuery, get_engine
from models.settings import get_settings, use_settings
from models.tables import IndexCheck, Video
from tests.fakes.platform_files import manual
from web.cli import main

CHANNEL = "UCclisearchclisearchcli1"


def run(*args):
    return CliRunner().invoke(main, list(args))


def found(q: str) -> set[str]:
    return {v.video_id for v in get_engine().search_videos(SearchQuery(q=q)).videos}


def _stale_segments(video_id: str) -> None:
    """What an index cut by an old rule holds: segments that do not overlap, with a
    phrase split at their boundary."""
    get_engine().replace_video_documents(
        video_id,
        [
            _segment(video_id, 0, 0.0, 6.0, "so here it is and then the quick brown"),
            _segment(video_id, 1, 6.0, 12.0, "fox jumps over the lazy dog"),
        ],
    )


def _segment(video_id: str, n: int, start: float, end: float, text: str) -> Document:
    return Document(
        id=f"{video_id}-s{n:04d}",
        video_id=video_id,
        channel_id=CHANNEL,
        kind="subtitle",
        video_title="t",
        channel_title="c",
        published_at="2026-01-01T00:00:00.000Z",
        text=text,
        start=start,
        end=end,
    )


def _phrase_found() -> bool:
    return get_engine().search(SearchQuery(q='"quick brown fox"')).total_hits > 0


@pytest.fixture
def fetched(platform_files):
    said = ("so here it is", "and then the quick brown", "fox jumps over the lazy dog")
    platform_files.channel(CHANNEL, ["cliSearch01", "cliSearch02"])
    platform_files.video("cliSearch01", CHANNEL, manual(*said, language="en"))
    platform_files.video("cliSearch02", CHANNEL, manual("一つ目の動画", "二つ目の動画"))
    for video_id in ingest.import_channel(CHANNEL).new_video_ids:
        ingest.fetch_subtitles(video_id)
    return platform_files


@pytest.fixture
def sample_data():
    """The bundled sample channels, fetched as `make run` does; then the platform is out
    of reach (its folder gone)."""
    platform = FixturePlatform(get_settings().video_fixture_dir)
    for channel_id in platform.channel_ids():
        for video_id in ingest.import_channel(channel_id).new_video_ids:
            ingest.fetch_subtitles(video_id)
    previous = get_settings()
    use_settings(replace(previous, video_fixture_dir="/nonexistent/platform"))
    yield
    use_settings(previous)


def test_reindex_now_rebuilds_the_sample_data_with_the_platform_unreachable(sample_data):
    # Given the sample data indexed, then the index emptied, and no platform to ask
    searchable = Video.select().where(Video.subtitle_status == "completed").count()
    assert searchable > 20
    get_engine().replace_videos({v.id: [] for v in Video.select()})
    assert found("大阪") == set()

    # When the index is rebuilt
    result = run("search", "reindex", "--now")

    # Then every video is back from the stored subtitles, and the speed is said
    assert result.exit_code == 0, result.output
    assert "from stored subtitles" in result.output and "videos/s" in result.output
    assert "osakaFood01" in found("大阪")
    assert run("search", "verify").exit_code == 0


def test_reindex_now_cuts_stored_cues_by_the_current_rule(fetched):
    # Given an index cut by an older rule, and the platform out of quota
    _stale_segments("cliSearch01")
    fetched.quota_exceeded()
    assert not _phrase_found()

    result = run("search", "reindex", "--now")

    assert result.exit_code == 0, result.output
    # cliSearch01: 3 short cues, one window; cliSearch02: 2 cues, one window
    assert "rebuilt 2 video(s), 4 document(s)" in result.output
    assert _phrase_found()


def test_refetch_now_fetches_again_and_stops_at_the_quota(fetched):
    fetched.update("videos", "cliSearch02", subtitles=manual("三つ目の言葉"))
    result = run("search", "reindex", "--now", "--refetch", "--channel", CHANNEL)
    assert result.exit_code == 0, result.output
    assert "refetched 2 video(s)" in result.output
    assert found("三つ目") == {"cliSearch02"}

    fetched.quota_exceeded()
    result = run("search", "reindex", "--now", "--refetch", "--channel", CHANNEL)
    assert result.exit_code == 1
    assert "refetched 0 video(s), 0 segment(s)" in result.output
    assert "quota" in result.output


def test_verify_finds_nothing_wrong_after_an_import(fetched):
    result = run("search", "verify")
    assert result.exit_code == 0, result.output
    assert "2 searchable video(s): 0 missing, 0 extra, 0 stale" in result.output
    check = IndexCheck.get()
    assert (check.videos, check.missing, check.extra, check.stale) == (2, 0, 0, 0)


def test_verify_finds_and_repairs_a_video_deleted_by_hand_from_the_index_file(fetched):
    # Given a video deleted by hand from the embedded index's file
    conn = sqlite3.connect(get_settings().search_path)
    conn.execute("DELETE FROM videos WHERE video_id = 'cliSearch02'")
    conn.commit()
    conn.close()
    assert found("二つ目") == set()

    # When the index is verified, then the video is reported missing (exit 1)
    result = run("search", "verify")
    assert result.exit_code == 1, result.output
    assert "0 extra, 0 stale" in result.output and "1 missing" in result.output
    assert "missing\tcliSearch02" in result.output

    # When it is repaired, then it is found again, and nothing is left to report
    repaired = run("search", "verify", "--repair")
    assert repaired.exit_code == 0, repaired.output
    assert "repaired 1 video(s)" in repaired.output
    assert found("二つ目") == {"cliSearch02"}
    assert "0 missing, 0 extra, 0 stale" in run("search", "verify").output


def test_verify_reports_stale_and_extra_videos_and_repairs_them(fetched):
    # Given a video whose documents were cut by an old rule, and a video the index holds
    # that the database does not hold as searchable
    _stale_segments("cliSearch01")
    Video.update(subtitle_status="deleted").where(Video.id == "cliSearch02").execute()

    result = run("search", "verify", "--repair")

    assert "0 missing, 1 extra, 1 stale" in result.output
    assert "stale\tcliSearch01" in result.output and "extra\tcliSearch02" in result.output
    assert _phrase_found() and found("二つ目") == set()
    assert "0 missing, 0 extra, 0 stale" in run("search", "verify").output


def test_a_renamed_video_whose_documents_kept_the_old_title_is_stale(fetched):
    Video.update(title="新しい題名").where(Video.id == "cliSearch02").execute()
    assert "stale\tcliSearch02" in run("search", "verify").output


def test_db_upgrade_lays_an_older_index_out_and_fills_it_from_stored_cues(fetched, tmp_path):
    # Given the database's videos, an index file of an older layout, and no platform
    path = tmp_path / "search.db"
    old = sqlite3.connect(path)
    old.execute("CREATE TABLE documents (rowid INTEGER PRIMARY KEY, id TEXT)")
    old.commit()
    old.close()
    fetched.quota_exceeded()
    previous = get_settings()
    use_settings(replace(previous, search_path=str(path)))
    try:
        # When the operator upgrades
        result = run("db", "upgrade")
        # Then the index is laid out and rebuilt from the stored subtitles
        assert result.exit_code == 0, result.output
        assert "search index laid out" in result.output
        assert "rebuilt 2 video(s)" in result.output
        assert found("二つ目") == {"cliSearch02"} and _phrase_found()
        # and a second upgrade changes nothing
        again = run("db", "upgrade")
        assert "search index is up to date" in again.output
    finally:
        use_settings(previous)
