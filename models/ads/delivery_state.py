"""Where a reservation's delivery stands on a UTC day, beside its review status: an
approved ad for next month is scheduled, not running (docs/ads.md, Delivery state)."""

from __future__ import annotations

from datetime import date
from typing import Literal

from models.ads.months import first_day, last_day
from models.clock import utcnow

DeliveryState = Literal["scheduled", "running", "ended", "stopped"]


def delivery_state(
    status: str, start_month: str, end_month: str, today: date | None = None
) -> DeliveryState:
    """`stopped` once stopped; `ended` once expired or past the last day of end_month;
    `running` when active and today is within the period; else `scheduled`: the period
    has not started, or the ad waits for its review (it is not shown before approval)."""
    today = today or utcnow().date()
    if status == "stopped":
        return "stopped"
    if status == "expired" or today > last_day(end_month):
        return "ended"
    if status == "active" and today >= first_day(start_month):
        return "running"
    return "scheduled"


def days_to_start(start_month: str, today: date | None = None) -> int:
    """Days from today (UTC) to the first day of start_month; 0 once it has begun. Shown
    for a scheduled ad in place of days left, which would read as running already."""
    return max(0, (first_day(start_month) - (today or utcnow().date())).days)
