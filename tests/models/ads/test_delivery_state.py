"""Delivery state beside the review status: an approved ad is running only inside its
months; before them it is scheduled, after them ended, and a stopped one stopped."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from models.ads.admin import list_reservations
from models.ads.delivery_state import delivery_state
from models.ads.reports import admin_report, advertiser_reservations
from tests.factories import make_reservation, make_user

# The last day of November 2026; the reservations below are for December.
NOW = datetime(2026, 11, 30, 23, 59, tzinfo=UTC)


@pytest.mark.parametrize(
    ("status", "today", "state"),
    [
        ("active", date(2026, 11, 30), "scheduled"),  # paid, approved, next month
        ("active", date(2026, 12, 1), "running"),
        ("active", date(2027, 1, 31), "running"),  # the last day of the period
        ("active", date(2027, 2, 1), "ended"),  # the daily job has not run yet
        ("expired", date(2027, 1, 15), "ended"),
        ("pending_review", date(2026, 11, 30), "scheduled"),
        ("pending_review", date(2026, 12, 10), "scheduled"),  # not shown before approval
        ("pending_review", date(2027, 2, 1), "ended"),
        ("stopped", date(2026, 11, 30), "stopped"),
        ("stopped", date(2026, 12, 10), "stopped"),
        ("stopped", date(2027, 3, 1), "stopped"),
    ],
)
def test_the_state_follows_the_status_and_the_months(status, today, state):
    assert delivery_state(status, "2026-12", "2027-01", today) == state


def test_an_approved_ad_for_next_month_is_scheduled_for_its_advertiser():
    owner = make_user()
    make_reservation(
        owner, status="active", start_month="2026-12", end_month="2026-12", payment_intent_id="pi"
    )
    (own,) = advertiser_reservations(owner.id, now=NOW)
    assert own.delivery == "scheduled"


def test_the_admin_list_and_report_carry_the_state():
    scheduled = make_reservation(
        status="active", start_month="2026-12", end_month="2026-12", payment_intent_id="pi"
    )
    running = make_reservation(
        status="active", start_month="2026-11", end_month="2026-12", position=2
    )
    stopped = make_reservation(status="stopped", start_month="2026-11", position=3)
    listed = {row.reservation.id: row.delivery for row in list_reservations(now=NOW)}
    assert listed == {scheduled.id: "scheduled", running.id: "running", stopped.id: "stopped"}
    report = admin_report(date(2026, 11, 1), date(2026, 12, 31), now=NOW)
    assert {row.reservation.id: row.delivery for row in report.rows} == listed


def test_a_scheduled_ad_counts_the_days_to_its_start_not_days_left():
    owner = make_user()
    make_reservation(owner, status="active", start_month="2026-12", end_month="2026-12")
    (own,) = advertiser_reservations(owner.id, now=datetime(2026, 11, 28, tzinfo=UTC))
    assert own.days_to_start == 3
    (started,) = advertiser_reservations(owner.id, now=datetime(2026, 12, 2, tzinfo=UTC))
    assert started.days_to_start == 0
