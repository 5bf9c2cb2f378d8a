"""`subsearch search reindex --now`: every video's segments rebuilt in the process by the
current rule, with the count printed (the queued form is in test_cli_catalog.py)."""

from __future__ import annotations

from click.testing import CliRunner

from models import ingest
from models.search import Document, SearchQuery, get_engine
from tests.fakes.platform_files import manual
from web.cli import main

CHANNEL = "UCclisearchclisearchcli1"


def run(*args):
    return CliRunner().invoke(main, list(args))


def _stale_segments(video_id: str) -> None:
    """What an index cut by the old rule holds: segments that do not overlap, with a
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


def test_reindex_now_rebuilds_every_video_by_the_current_rule(platform_files):
    said = ("so here it is", "and then the quick brown", "fox jumps over the lazy dog")
    platform_files.channel(CHANNEL, ["cliSearch01", "cliSearch02"])
    platform_files.video("cliSearch01", CHANNEL, manual(*said, language="en"))
    platform_files.video("cliSearch02", CHANNEL, manual("一つ", "二つ"))
    ingest.import_channel(CHANNEL)
    _stale_segments("cliSearch01")
    assert not _phrase_found()

    result = run("search", "reindex", "--now")

    assert result.exit_code == 0, result.output
    # cliSearch01: 3 short cues, one window; cliSearch02: 2 cues, one window
    assert "reindexed 2 video(s), 2 segment(s)" in result.output
    assert _phrase_found()
    assert ingest.Video.get_by_id("cliSearch02").subtitle_status == "completed"


def test_reindex_now_stops_at_the_quota_and_says_so(platform_files):
    platform_files.channel(CHANNEL, ["cliSearch01"])
    platform_files.video("cliSearch01", CHANNEL, manual("一つ", "二つ"))
    ingest.import_channel(CHANNEL)
    platform_files.quota_exceeded()

    result = run("search", "reindex", "--now", "--channel", CHANNEL)

    assert result.exit_code == 1
    assert "reindexed 0 video(s), 0 segment(s)" in result.output
    assert "quota" in result.output
