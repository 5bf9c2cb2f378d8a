"""The scheduler sends the hourly round of subtitle retries."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from scheduler.runner import latest_due_tick
from scheduler.schedule import SCHEDULE

pytestmark = pytest.mark.database_independent


def test_failed_subtitle_fetches_are_retried_by_an_hourly_round(stub_broker):
    [job] = [job for job in SCHEDULE if job.actor == "retry_failed_subtitles"]
    assert stub_broker.get_actor(job.actor)
    after = datetime(2026, 11, 22, 10, 0, tzinfo=UTC)
    ticks = {
        latest_due_tick(job, after.replace(hour=hour), after.replace(hour=hour + 1))
        for hour in range(10, 14)
    }
    assert None not in ticks and len(ticks) == 4  # one tick in every hour
