"""A subtitle fetch fails by kind, and each kind has its outcome (issue 44, CONTRACT §12.2):
the platform refusing the service's address fails no video but pauses every fetch, once
for all the workers, doubling while it goes on; a video gone is `deleted`; an age limit
makes it `unavailable` with the reason kept; disabled transcripts do so only when a
second fetch agrees; a token asked for is tried later without counting; the rest is the
video's own failure. Seen through the fixture platform's `"faults"`."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace

import pytest

from models import ingest, platform_pause
from models.platform import FixturePlatform, SubtitlesFailed
from models.search import SearchQuery, get_engine
from models.settings import get_settings, use_settings
from models.tables import Video
from tests.fakes.platform_files import manual, pause_runs_out

CH = "UCfaul0faul0faul0faul0f1"
SAID = manual("今日は大阪でたこ焼きを食べました。")


@pytest.fixture
def files(platform_files):
    platform_files.channel(CH, [], title="障害チャンネル")
    return platform_files


def imported(files, video_id, faults):
    """A video of the channel whose next fetches fail as `faults` say, imported."""
    files.video(video_id, CH, SAID, faults=list(faults))
    files.update("channels", CH, videoIds=[*known_videos(), video_id])
    ingest.import_channel(CH)
    return video_id


def known_videos():
    return [v.id for v in Video.select(Video.id).order_by(Video.id)]


def video(video_id):
    return Video.get_by_id(video_id)


def found(q):
    return [hit.video_id for hit in get_engine().search(SearchQuery(q=q)).hits]


# -- the platform refusing the address ------------------------------------------------------


@pytest.mark.parametrize("kind", ["ip_blocked", "request_blocked", "network"])
def test_a_refused_address_fails_no_video_and_pauses_every_fetch(files, kind):
    first = imported(files, "faultVideo1", [kind])
    second = imported(files, "faultVideo2", [])

    with pytest.raises(ingest.FetchLater) as later:
        ingest.fetch_subtitles(first)

    assert round(later.value.seconds) == 300
    assert (video(first).subtitle_status, video(first).fetch_attempts) == ("pending", 0)
    assert video(first).last_failure_kind == kind
    # Another video waits too, without the platform being asked
    with pytest.raises(ingest.FetchLater):
        ingest.fetch_subtitles(second)
    assert video(second).subtitle_status == "pending"
    assert video(second).last_failure_kind is None


def test_the_pause_doubles_while_the_probe_is_refused_up_to_its_longest(files):
    use_settings(replace(get_settings(), platform_backoff_max_seconds=1000))
    blocked = imported(files, "faultVideo1", ["ip_blocked"] * 4)
    lengths = []
    for _ in range(4):
        with pytest.raises(ingest.FetchLater) as later:
            ingest.fetch_subtitles(blocked)  # the first, then each pause's probe
        lengths.append(round(later.value.seconds))
        pause_runs_out()
    assert lengths == [300, 600, 1000, 1000]
    # The platform answers the probe: fetching goes on, and a new block starts afresh
    assert ingest.fetch_subtitles(blocked) == "completed"
    assert platform_pause.state() is None
    assert found("たこ焼き") == [blocked]
    assert video(blocked).last_failure_kind == "ip_blocked"  # kept, with its time


def test_when_a_pause_runs_out_one_probe_goes_first_and_the_rest_wait():
    platform_pause.pause("ip_blocked")
    pause_runs_out()
    waits = [platform_pause.wait_before_fetching() for _ in range(3)]
    assert waits == [0, platform_pause.PROBE_WAIT_SECONDS, platform_pause.PROBE_WAIT_SECONDS]


def test_refusals_met_at_once_by_many_workers_pause_once():
    with ThreadPoolExecutor(8) as pool:
        waits = list(pool.map(lambda _: platform_pause.pause("ip_blocked"), range(16)))
    assert all(round(wait) in (299, 300) for wait in waits), waits
    assert platform_pause.state().seconds == 300


def test_fetches_at_once_each_take_one_fault_of_the_file(files):
    files.video("faultVideo1", CH, SAID, faults=["broken"] * 5)
    platform = FixturePlatform(files.folder)

    def fetch(_):
        try:
            platform.get_subtitles("faultVideo1")
        except SubtitlesFailed as failed:
            return failed.kind
        return "fetched"

    with ThreadPoolExecutor(8) as pool:
        outcomes = list(pool.map(fetch, range(12)))
    assert sorted(outcomes) == ["broken"] * 5 + ["fetched"] * 7


# -- the video's own answers -----------------------------------------------------------------


def test_an_unavailable_video_is_deleted(files):
    gone = imported(files, "faultVideo1", ["video_unavailable"])
    assert ingest.fetch_subtitles(gone) == "deleted"
    assert video(gone).last_failure_kind == "video_unavailable"


def test_an_age_restricted_video_is_unavailable_with_the_reason_kept(files):
    limited = imported(files, "faultVideo1", ["age_restricted"])
    assert ingest.fetch_subtitles(limited) == "unavailable"
    assert (video(limited).subtitle_status, video(limited).last_failure_kind) == (
        "unavailable",
        "age_restricted",
    )


def test_disabled_transcripts_make_a_video_unavailable_only_when_a_second_fetch_agrees(files):
    disabled = imported(files, "faultVideo1", ["transcripts_disabled", "transcripts_disabled"])
    blocked_then = imported(files, "faultVideo2", ["transcripts_disabled"])

    assert ingest.fetch_subtitles(disabled) == "failed"  # a retry is scheduled
    assert ingest.fetch_subtitles(blocked_then) == "failed"
    # The second fetch agrees for one; for the other (a block then) it finds subtitles
    assert ingest.retry_subtitles(disabled, 1) == "unavailable"
    assert ingest.retry_subtitles(blocked_then, 1) == "completed"
    assert found("たこ焼き") == [blocked_then]


def test_a_token_asked_for_is_tried_later_without_counting_as_a_failure(files):
    asked = imported(files, "faultVideo1", ["po_token_required"])
    with pytest.raises(ingest.FetchLater) as later:
        ingest.fetch_subtitles(asked)
    assert later.value.seconds == ingest.PO_TOKEN_RETRY_SECONDS
    assert (video(asked).subtitle_status, video(asked).fetch_attempts) == ("pending", 0)
    assert platform_pause.state() is None  # the platform answered: nothing pauses
    assert ingest.fetch_subtitles(asked) == "completed"


@pytest.mark.parametrize("fault", ["broken", "something the file makes up"])
def test_anything_else_is_the_videos_own_failure_on_the_retry_schedule(files, fault):
    broken = imported(files, "faultVideo1", [fault])
    assert ingest.fetch_subtitles(broken) == "failed"
    row = video(broken)
    assert (row.fetch_attempts, row.next_fetch_at is not None) == (1, True)
    assert row.last_failure_kind == "broken"
    assert ingest.retry_subtitles(broken, 1) == "completed"
