"""The Data API's quota counted by the service (issue 44, CONTRACT §12.1): calls stop
before the day's units are spent, go on after midnight Pacific time, and a
`quotaExceeded` answer closes the day at once."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from click.testing import CliRunner

from models.platform.base import QuotaExceeded
from models.platform.quota import QuotaLedger, day_of, next_reset
from models.platform.youtube import YouTubePlatform
from tests.fakes.http import serve
from tests.fakes.youtube_server import API_KEY, FakeYouTube
from web.cli import main

CH = "UCquot0quot0quot0quot0q1"


@pytest.fixture
def fake():
    fake = FakeYouTube()
    fake.add_channel(CH, title="Counted", uploads=[])
    return fake


def engine(url, units):
    return YouTubePlatform(API_KEY, api_base=f"{url}/youtube/v3", ledger=QuotaLedger(units))


def test_calls_stop_before_the_days_units_are_spent(fake):
    with serve(fake) as url:
        youtube = engine(url, 3)
        for _ in range(3):
            youtube.get_videos(["v1"])
        with pytest.raises(QuotaExceeded, match="after midnight Pacific time"):
            youtube.get_videos(["v1"])
    assert len(fake.requests) == 3  # the fourth was never sent
    assert QuotaLedger(3).spent_today() == 3


def test_a_quota_exceeded_answer_closes_the_day(fake):
    fake.fail_with(403, "quotaExceeded")
    with serve(fake) as url:
        youtube = engine(url, 10_000)
        with pytest.raises(QuotaExceeded):
            youtube.get_videos(["v1"])
        with pytest.raises(QuotaExceeded):
            youtube.get_videos(["v1"])
    assert len(fake.requests) == 1
    assert QuotaLedger(10_000).spent_today() == 10_000


def test_the_day_is_pacific_times_and_a_new_one_starts_afresh():
    before = datetime(2026, 11, 28, 7, 59, tzinfo=UTC)  # 23:59 on the 27th in California
    after = datetime(2026, 11, 28, 8, 0, tzinfo=UTC)
    assert (day_of(before), day_of(after)) == ("2026-11-27", "2026-11-28")
    assert next_reset(before) == after
    ledger = QuotaLedger(1)
    ledger.spend(1, now=before)
    with pytest.raises(QuotaExceeded):
        ledger.spend(1, now=before)
    ledger.spend(1, now=after)  # the new day's first unit


def test_the_status_says_the_units_spent_and_left():
    QuotaLedger(10_000).spend(42)
    shown = CliRunner().invoke(main, ["ingest", "status"])
    assert "Data API units today (Pacific time): 42 spent, 9958 left" in shown.output
