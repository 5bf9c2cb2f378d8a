"""What the page charts draw: plain series handed to web/static/charts.js (uPlot) through
a JSON block, and shown again as a table for those who cannot see the chart."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any, TypedDict


class DailyLines(TypedDict):
    kind: str
    empty: bool
    days: list[str]
    impressions: list[int]
    clicks: list[int]


class CurrencySeries(TypedDict):
    currency: str
    amounts: list[int]


class MonthlyRevenue(TypedDict):
    kind: str
    empty: bool
    months: list[str]
    series: list[CurrencySeries]


def _every_day(daily: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The days from the first to the last, a day missing from the series counted as zero
    (the admin trend lists only days with figures; a line must not bridge a quiet day)."""
    known = {day["date"]: day for day in daily}
    first, last = date.fromisoformat(daily[0]["date"]), date.fromisoformat(daily[-1]["date"])
    days = (first + timedelta(days=n) for n in range((last - first).days + 1))
    return [
        known.get(day.isoformat(), {"date": day.isoformat(), "impressions": 0, "clicks": 0})
        for day in days
    ]


def daily_lines(daily: list[dict[str, Any]], until: date | None = None) -> DailyLines:
    """Impressions and clicks per day (dates ascending, YYYY-MM-DD), each on its own axis;
    days after `until` (today: a month still running) are left out rather than drawn as
    zeros; empty when no day has an impression or a click."""
    if until is not None:
        daily = [day for day in daily if day["date"] <= until.isoformat()]
    days = _every_day(daily) if daily else []
    empty = not any(int(day["impressions"]) or int(day["clicks"]) for day in days)
    return {
        "kind": "daily",
        "empty": empty,
        "days": [day["date"] for day in days],
        "impressions": [int(day["impressions"]) for day in days],
        "clicks": [int(day["clicks"]) for day in days],
    }


def monthly_revenue(rows: list[dict[str, Any]]) -> MonthlyRevenue:
    """Amount received per month (YYYY-MM, ascending), one series per currency (amounts in
    different currencies are never added together), countries summed."""
    months = sorted({row["month"] for row in rows})
    currencies = sorted({row["currency"] for row in rows})
    amounts = {(currency, month): 0 for currency in currencies for month in months}
    for row in rows:
        amounts[(row["currency"], row["month"])] += int(row["amountReceived"])
    return {
        "kind": "monthly",
        "empty": not rows,
        "months": months,
        "series": [
            {"currency": currency, "amounts": [amounts[(currency, m)] for m in months]}
            for currency in currencies
        ],
    }
