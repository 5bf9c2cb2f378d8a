"""GET /metrics shows the last search index check, read when scraped: what it found by
state, how many videos were searchable, and when it finished. Before any check these are
left out (the alert SearchIndexCheckMissing fires on their absence); a check that cannot
be read is counted as a scrape error and the rest of the scrape still answers."""

from __future__ import annotations

from dataclasses import replace

import pytest
from peewee import OperationalError

from models.clock import parse_iso
from tests.web.api.test_index_check_admin import make_check
from tests.web.test_metrics import TOKEN, scrape, value
from web import metrics as web_metrics
from web.app import create_app

NAMES = (
    "subsearch_index_check_videos",
    "subsearch_index_check_searchable_videos",
    "subsearch_index_check_last_run_timestamp_seconds",
)


@pytest.fixture
def metered(settings):
    app = create_app(replace(settings, metrics_token=TOKEN))
    app.config.update(TESTING=True)
    return app.test_client()


def shown(samples) -> set[str]:
    return {name for name, _labels in samples if name in NAMES}


def test_before_any_check_the_gauges_are_left_out_without_an_error(metered):
    samples = scrape(metered)
    assert shown(samples) == set()
    assert ("subsearch_scrape_errors", (("part", "index_check"),)) not in samples
    assert "subsearch_outbox_waiting" in {name for name, _labels in samples}


def test_the_last_check_is_shown_by_state_with_its_videos_and_time(metered):
    make_check(finished_at="2026-11-23T09:16:00.000Z", missing=40, stale=7)  # older
    make_check(finished_at="2026-11-24T09:16:00.000Z", videos=1234, missing=2, extra=3, stale=0)
    samples = scrape(metered)
    assert value(samples, "subsearch_index_check_videos", state="missing") == 2
    assert value(samples, "subsearch_index_check_videos", state="extra") == 3
    assert ("subsearch_index_check_videos", (("state", "stale"),)) in samples
    assert value(samples, "subsearch_index_check_videos", state="stale") == 0
    assert value(samples, "subsearch_index_check_searchable_videos") == 1234
    finished = parse_iso("2026-11-24T09:16:00.000Z").timestamp()
    assert value(samples, "subsearch_index_check_last_run_timestamp_seconds") == finished
    assert value(samples, "subsearch_scrape_errors", part="index_check") == 0


def test_a_check_that_cannot_be_read_is_a_scrape_error_and_the_rest_answers(metered, monkeypatch):
    make_check()

    def unreadable():
        raise OperationalError("database is locked")

    monkeypatch.setattr(web_metrics.index_check, "last_check", unreadable)
    samples = scrape(metered)
    assert value(samples, "subsearch_scrape_errors", part="index_check") == 1
    assert shown(samples) == set()
    assert "subsearch_outbox_waiting" in {name for name, _labels in samples}
