"""Calendar months as `YYYY-MM` text, in UTC."""

from __future__ import annotations

import calendar
import re
from datetime import UTC, date, datetime

# ASCII digits only (Python's \d would take any script's), month 01-12. The API's
# document shows the same pattern.
MONTH_PATTERN = r"^[0-9]{4}-(0[1-9]|1[0-2])$"
MONTH_LENGTH = 7


def month_problem(text: str) -> str | None:
    """Why `text` is not a month, or None: the one check behind every month a request
    names (the API's schemas and the domain alike)."""
    return None if re.fullmatch(MONTH_PATTERN, text) else "a month as YYYY-MM"


def month_of(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m")


def month_of_day(day: date) -> str:
    return f"{day.year:04d}-{day.month:02d}"


def add_months(month: str, count: int) -> str:
    year, mon = int(month[:4]), int(month[5:7])
    index = year * 12 + (mon - 1) + count
    return f"{index // 12:04d}-{index % 12 + 1:02d}"


def first_day(month: str) -> date:
    return date(int(month[:4]), int(month[5:7]), 1)


def last_day(month: str) -> date:
    year, mon = int(month[:4]), int(month[5:7])
    return date(year, mon, calendar.monthrange(year, mon)[1])
