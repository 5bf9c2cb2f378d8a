"""`subsearch ingest status`, `subsearch videos retry|show` and what `channels add` takes
(issue 44, CONTRACT §12.3): the operator sees a block and re-queues from the command
line; bad input is a clear message and exit 2."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from models import ingest
from models.tables import Video
from tests.fakes.platform_files import manual
from tests.fixtures import take_messages
from web.cli import main

CH = "UCingest0ingest0ingest01"
OTHER = "UCingest0ingest0ingest02"


def run(*args):
    return CliRunner().invoke(main, list(args))


@pytest.fixture
def catalogue(platform_files):
    """Two channels: one video fetched, one blocked, one broken, one without subtitles."""
    files = platform_files
    files.channel(CH, ["ingVideo001", "ingVideo002", "ingVideo003"], title="取り込み")
    files.video("ingVideo001", CH, manual("一"))
    files.video("ingVideo002", CH, manual("二"), faults=["broken"])
    files.video("ingVideo003", CH, None)
    files.channel(OTHER, ["ingVideo004"], title="もう一つ", handle="@other")
    files.video("ingVideo004", OTHER, manual("四"), faults=["broken"])
    for channel in (CH, OTHER):
        ingest.import_channel(channel)
    for video_id in ("ingVideo001", "ingVideo002", "ingVideo003", "ingVideo004"):
        ingest.fetch_subtitles(video_id)
    return files


def test_status_shows_fetching_failures_by_kind_and_videos_by_status(catalogue):
    shown = run("ingest", "status")
    assert shown.exit_code == 0, shown.output
    assert "fetching: yes" in shown.output
    assert "  broken: 2" in shown.output
    assert "  completed: 1\n  failed: 2\n" in shown.output
    assert "  unavailable: 1" in shown.output


def test_status_shows_a_pause_with_its_reason(catalogue):
    catalogue.video("ingVideo005", CH, manual("五"), faults=["ip_blocked"])
    catalogue.update("channels", CH, videoIds=["ingVideo001", "ingVideo005"])
    ingest.import_channel(CH)
    with pytest.raises(ingest.FetchLater):
        ingest.fetch_subtitles("ingVideo005")

    shown = run("ingest", "status")

    assert "fetching: paused until " in shown.output
    assert "the platform refused this service (ip_blocked)" in shown.output
    assert "  ip_blocked: 1" in shown.output
    assert Video.get_by_id("ingVideo005").subtitle_status == "pending"


def test_retry_requeues_the_failed_videos_afresh(catalogue, stub_broker):
    done = run("videos", "retry")
    assert done.exit_code == 0, done.output
    assert "re-queued 2 video(s)" in done.output
    sent = sorted(m["args"][0] for m in take_messages(stub_broker, "subtitles"))
    assert sent == ["ingVideo002", "ingVideo004"]
    assert Video.get_by_id("ingVideo002").fetch_attempts == 0


def test_retry_takes_a_status_and_a_channel(catalogue, stub_broker):
    done = run("videos", "retry", "--status", "unavailable", "--channel", CH)
    assert "re-queued 1 video(s)" in done.output
    assert [m["args"] for m in take_messages(stub_broker, "subtitles")] == [["ingVideo003"]]
    done = run("videos", "retry", "--channel", OTHER)
    assert "re-queued 1 video(s)" in done.output
    assert [m["args"] for m in take_messages(stub_broker, "subtitles")] == [["ingVideo004"]]


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("videos", "retry", "--status", "completed"), "'completed' is not one of"),
        (("videos", "retry", "--channel", "UCnobody0nobody0nobody01"), "no channel"),
        (("videos", "show", "noSuchVid01"), "no video 'noSuchVid01'"),
    ],
)
def test_bad_input_is_refused_with_exit_2(catalogue, stub_broker, args, said):
    refused = run(*args)
    assert refused.exit_code == 2
    assert said in refused.output
    assert take_messages(stub_broker, "subtitles") == []


def test_show_tells_a_videos_state_and_last_failure(catalogue):
    shown = run("videos", "show", "ingVideo002")
    assert shown.exit_code == 0, shown.output
    assert "subtitles: failed" in shown.output
    assert "failed fetches in a row: 1" in shown.output
    assert "last failure: broken at 20" in shown.output
    assert f"channel: {CH} (取り込み)" in shown.output


@pytest.mark.parametrize("text", ["@", "not a channel !!", "https://example.com/@osaka", "@ab"])
def test_channels_add_refuses_what_names_no_channel(stub_broker, text):
    refused = run("channels", "add", text)
    assert refused.exit_code == 2
    assert "not a channel id" in refused.output
    assert take_messages(stub_broker, "channels") == []


@pytest.mark.parametrize(
    ("text", "sent"),
    [
        ("UCkT3vOsakaGourmet9xQ_2a", "UCkT3vOsakaGourmet9xQ_2a"),
        ("@osaka_gourmet", "@osaka_gourmet"),
        ("osaka_gourmet", "@osaka_gourmet"),
        ("https://www.youtube.com/@大阪グルメ", "@大阪グルメ"),
        (
            "https://m.youtube.com/channel/UCkT3vOsakaGourmet9xQ_2a/videos",
            "UCkT3vOsakaGourmet9xQ_2a",
        ),
    ],
)
def test_channels_add_takes_an_id_a_handle_or_an_address(stub_broker, text, sent):
    done = run("channels", "add", text)
    assert done.exit_code == 0, done.output
    assert [m["args"] for m in take_messages(stub_broker, "channels")] == [[sent]]
