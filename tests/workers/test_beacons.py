"""The beacons' stream on a fake Redis: one call per beacon hands an event on (an
impression's replay dropped in the same call), and consumers count each entry once,
acknowledging only after the commit, claiming what a dead consumer left."""

from __future__ import annotations

import json
import logging

import pytest
import redis

from models import redis_client
from models.ads.counting import Click, Counted, Impression
from models.tables import AdClickLog, AdImpressionDaily
from tasks.ads import count_beacons
from tests.factories import make_reservation
from workers import beacons
from workers.beacons import Handed

AT = "2027-01-10T10:00:00.000Z"


@pytest.fixture
def reservation():
    return make_reservation(start_month="2027-01", end_month="2027-01", status="active")


@pytest.fixture
def client(redis_backend):
    """A client on this test's fake Redis, as the front and the consumers have it."""
    return redis_client.get_redis()


def seen(reservation, event_id) -> Impression:
    return Impression(event_id, reservation.id, "2027-01-10", "JP", AT)


def clicked(reservation, click_id, token=None) -> Click:
    return Click(click_id, reservation.id, "JP", "Mozilla/5.0", AT, token)


def counted(reservation) -> int:
    rows = AdImpressionDaily.select().where(AdImpressionDaily.ad_reservation == reservation.id)
    return sum(r.impressions for r in rows)


def consumer(client, claim_idle_ms=30_000) -> beacons.Consumer:
    made = beacons.Consumer(client, claim_idle_ms=claim_idle_ms)
    beacons.ensure_group(client)
    return made


def test_an_impression_goes_on_the_stream_once_per_view_token(client, reservation):
    assert beacons.offer(seen(reservation, "view:1")) is Handed.QUEUED
    assert beacons.offer(seen(reservation, "view:1")) is Handed.REPLAYED
    assert beacons.offer(seen(reservation, "view:2")) is Handed.QUEUED
    assert client.xlen(beacons.STREAM) == 2


def test_every_click_goes_on_the_stream(client, reservation):
    click = clicked(reservation, "c1", "tok")
    assert [beacons.offer(click) for _ in range(2)] == [Handed.QUEUED] * 2
    assert client.xlen(beacons.STREAM) == 2


def test_an_entry_holds_the_event_as_it_was_offered(client, reservation):
    events = [
        seen(reservation, "view:1"),
        clicked(reservation, "c1"),
        Click("c2", reservation.id, "JP", None, AT, "tok", True),
    ]
    for event in events:
        beacons.offer(event)
    assert [beacons.decode(fields) for _, fields in client.xrange(beacons.STREAM)] == events


def test_an_entry_is_its_kind_and_the_event_in_one_field(client, reservation):
    # Two fields whatever the event: the hand-off sends little
    beacons.offer(Click("c1", reservation.id, "JP", "Mozilla/5.0 (日本)", AT, "tok", True))
    [(_, fields)] = client.xrange(beacons.STREAM)
    assert set(fields) == {b"kind", b"event"}
    assert fields[b"kind"] == b"click"
    assert "Mozilla/5.0 (日本)" in fields[b"event"].decode()


def test_entries_in_the_layouts_of_releases_before_issue_43_are_dropped_not_counted(
    client, reservation, caplog
):
    # Given entries an older front left: one field a value (before the JSON event), and
    # a JSON click without invalid_reason (before issue 42)
    old = {"reservation_id": reservation.id, "country": "JP", "at": AT}
    client.xadd(
        beacons.STREAM, {"kind": "impression", "event_id": "view:old", "date": AT[:10], **old}
    )
    client.xadd(beacons.STREAM, {"kind": "click", "click_id": "flat", "is_bot": "0", **old})
    unreasoned = {"click_id": "json", **old, "user_agent": "M", "view_token": None, "is_bot": False}
    client.xadd(beacons.STREAM, {"kind": "click", "event": json.dumps(unreasoned)})
    # And the current front's impression, valid click and invalid click
    beacons.offer(seen(reservation, "view:new"))
    beacons.offer(clicked(reservation, "new-valid", token="V" * 44))
    beacons.offer(Click("new-missing", reservation.id, "JP", "M", AT, None, False, "missing_token"))
    # When a round reads them all
    with caplog.at_level(logging.ERROR, logger="workers.beacons"):
        done = beacons.consume_round(consumer(client), block_ms=None)
    # Then the old ones are dropped, each with an error line, and nothing of them counts;
    # the current ones count with their reasons, and the stream is left empty
    assert (done.read, done.counted) == (6, Counted(1, 2))
    assert counted(reservation) == 1
    reasons = {row.id: row.invalid_reason for row in AdClickLog.select()}
    assert reasons == {"new-valid": None, "new-missing": "missing_token"}
    dropped = [r for r in caplog.records if "dropped a beacon entry" in r.getMessage()]
    assert len(dropped) == 3
    assert client.xlen(beacons.STREAM) == 0
    assert beacons.pending(client) == 0


def test_with_redis_down_nothing_is_handed_on(redis_backend, reservation):
    redis_backend.connected = False
    assert beacons.offer(seen(reservation, "view:1")) is Handed.UNAVAILABLE
    # Redis is skipped a few seconds now: the next one does not wait on it
    assert beacons.offer(clicked(reservation, "c1")) is Handed.UNAVAILABLE


def test_with_redis_down_an_impression_and_a_click_are_written_here(redis_backend, reservation):
    redis_backend.connected = False
    assert beacons.accept_impression(seen(reservation, "view:1")) is True
    assert beacons.accept_impression(seen(reservation, "view:1")) is True  # no filter now
    beacons.accept_click(clicked(reservation, "c1"))
    assert counted(reservation) == 1
    assert AdClickLog.select().count() == 1


def test_a_round_counts_its_entries_then_acks_and_deletes_them(client, reservation):
    for n in range(3):
        beacons.offer(seen(reservation, f"view:{n}"))
    beacons.offer(clicked(reservation, "c1", "tok"))
    done = beacons.consume_round(consumer(client), block_ms=None)
    assert (done.read, done.counted) == (4, Counted(3, 1))
    assert counted(reservation) == 3
    assert client.xlen(beacons.STREAM) == 0
    assert beacons.pending(client) == 0


def test_a_round_with_nothing_new_reads_nothing(client):
    assert beacons.consume_round(consumer(client), block_ms=None) == beacons.Round()


def test_a_consumer_that_failed_before_its_commit_leaves_the_entries_to_another(
    client, reservation, monkeypatch
):
    # Given a consumer whose transaction fails: its entries stay pending under its name
    for n in range(5):
        beacons.offer(seen(reservation, f"view:{n}"))

    def fails(*_a):
        raise RuntimeError("database down")

    with monkeypatch.context() as patch:
        patch.setattr(beacons, "count", fails)
        with pytest.raises(RuntimeError):
            beacons.consume_round(consumer(client), block_ms=None)
    assert beacons.pending(client) == 5
    assert counted(reservation) == 0
    # When another consumer claims entries pending longer than its timeout
    done = beacons.consume_round(consumer(client, claim_idle_ms=0), block_ms=None)
    # Then it counts them, once
    assert (done.read, done.counted.impressions) == (5, 5)
    assert counted(reservation) == 5
    assert beacons.pending(client) == 0


def test_a_consumer_killed_after_its_commit_and_before_its_ack_counts_nothing_twice(
    client, reservation, monkeypatch
):
    # Given a consumer that committed its batch but never acknowledged it
    for n in range(4):
        beacons.offer(seen(reservation, f"view:{n}"))
    beacons.offer(clicked(reservation, "c1", "tok"))
    beacons.offer(clicked(reservation, "c2", "tok"))

    def killed(*_a, **_k):
        raise redis.ConnectionError("the process died here")

    with monkeypatch.context() as patch:
        patch.setattr(redis.client.Pipeline, "execute", killed)
        with pytest.raises(redis.ConnectionError):
            beacons.consume_round(consumer(client), block_ms=None)
    assert counted(reservation) == 4
    assert beacons.pending(client) == 6
    # When another consumer claims the entries and writes them again
    done = beacons.consume_round(consumer(client, claim_idle_ms=0), block_ms=None)
    # Then they are acknowledged, and nothing more is counted or logged
    assert (done.read, done.counted) == (6, Counted(0, 0))
    assert counted(reservation) == 4
    assert {c.id: c.is_repeat for c in AdClickLog.select()} == {"c1": False, "c2": True}
    assert beacons.pending(client) == 0


def test_a_consumer_does_not_claim_what_another_holds_within_the_timeout(client, reservation):
    beacons.offer(seen(reservation, "view:1"))
    first = consumer(client)
    client.xreadgroup(beacons.GROUP, first.name, {beacons.STREAM: ">"})  # read, not counted
    assert beacons.consume_round(consumer(client), block_ms=None).read == 0
    assert beacons.pending(client) == 1


def test_an_entry_holding_no_event_is_dropped(client, reservation):
    client.xadd(beacons.STREAM, {"kind": "unknown"})
    beacons.offer(seen(reservation, "view:1"))
    done = beacons.consume_round(consumer(client), block_ms=None)
    assert (done.read, done.counted.impressions) == (2, 1)
    assert client.xlen(beacons.STREAM) == 0


@pytest.mark.parametrize(
    "event", ["not json", "[1, 2]", '{"event_id": "view:1"}', '{"unknown": 1}']
)
def test_an_entry_whose_event_does_not_read_is_dropped(client, reservation, event):
    client.xadd(beacons.STREAM, {"kind": "impression", "event": event})
    beacons.offer(seen(reservation, "view:2"))
    done = beacons.consume_round(consumer(client), block_ms=None)
    assert (done.read, done.counted.impressions) == (2, 1)
    assert client.xlen(beacons.STREAM) == 0


def test_after_redis_lost_the_stream_a_consumer_starts_it_again(client, reservation):
    reader = consumer(client)
    client.flushdb()  # restarted without its data
    assert beacons.consume_round(reader, block_ms=None) == beacons.Round()
    beacons.offer(seen(reservation, "view:1"))
    assert beacons.consume_round(reader, block_ms=None).counted.impressions == 1


def test_entries_added_before_the_group_existed_are_counted(client, reservation):
    beacons.offer(seen(reservation, "view:1"))  # XADD made the stream, not the group
    assert beacons.consume_round(consumer(client), block_ms=None).read == 1


def test_the_actor_reads_for_its_time_and_leaves_the_group_tidy(client, reservation):
    beacons.offer(seen(reservation, "view:1"))
    beacons.offer(clicked(reservation, "c1"))
    count_beacons(seconds=0.2)
    assert counted(reservation) == 1
    assert AdClickLog.select().count() == 1
    assert client.xinfo_consumers(beacons.STREAM, beacons.GROUP) == []
