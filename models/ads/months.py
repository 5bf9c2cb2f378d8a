"""Calendar months as `YYYY-MM` text, in UTC."""

from __future__ import annotations

import calendar
import re
from datetime import UTC, date, datetime

from models.ads import MAX_YEARS_AHEAD, MONTHS_OF_HISTORY
from models.clock import utcnow
from models.problems import Problem

# ASCII digits only (Python's \d would take any script's), month 01-12. The API's
# document shows the same pattern.
MONTH_PATTERN = r"^[0-9]{4}-(0[1-9]|1[0-2])$"
MONTH_LENGTH = 7


def month_problem(text: str) -> Problem | None:
    """Why `text` is not a month, or None: the one check behind every month a request
    names (the API's schemas and the domain alike)."""
    return None if re.fullmatch(MONTH_PATTERN, text) else Problem("not_a_month")


def month_window(now: datetime) -> tuple[str, str]:
    """The first and last month a request may name (docs/ads.md, Months): from
    MONTHS_OF_HISTORY before this month to the last first month a purchase may take."""
    this = month_of(now)
    return add_months(this, -MONTHS_OF_HISTORY), add_months(this, 1 + MAX_YEARS_AHEAD * 12)


def window_problem(text: str, now: datetime | None = None) -> Problem | None:
    """Why `text` is not a month inside the window, or None: the check behind every
    month a request names for inventory or serving (year 0 or 9999 is never in it)."""
    problem = month_problem(text)
    if problem:
        return problem
    earliest, latest = month_window(now or utcnow())
    if text < earliest:
        return Problem("too_early", n=earliest)
    if text > latest:
        return Problem("too_late", n=latest)
    return None


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
