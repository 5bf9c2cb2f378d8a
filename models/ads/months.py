"""Calendar months as `YYYY-MM` text, in UTC."""

from __future__ import annotations

import calendar
import re
from datetime import UTC, date, datetime

MONTH = re.compile(r"^(\d{4})-(0[1-9]|1[0-2])$")


def is_month(text) -> bool:
    return isinstance(text, str) and bool(MONTH.match(text))


def month_of(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m")


def add_months(month: str, count: int) -> str:
    year, mon = int(month[:4]), int(month[5:7])
    index = year * 12 + (mon - 1) + count
    return f"{index // 12:04d}-{index % 12 + 1:02d}"


def months_between(start: str, end: str) -> list[str]:
    """Every month from start to end, both included."""
    out, current = [], start
    while current <= end:
        out.append(current)
        current = add_months(current, 1)
    return out


def first_day(month: str) -> date:
    return date(int(month[:4]), int(month[5:7]), 1)


def last_day(month: str) -> date:
    year, mon = int(month[:4]), int(month[5:7])
    return date(year, mon, calendar.monthrange(year, mon)[1])
