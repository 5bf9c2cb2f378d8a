"""The Data API's quota, counted by this service: `VIDEO_API_DAILY_UNITS` units a day
(10,000 by default), the day being Pacific time's as the platform's is. Every call is
counted in Redis, for every process at once, before it is made: one that would pass the
day's units is not made (QuotaExceeded, as the API itself would answer), so imports and
refreshes stop before the limit and go on after midnight Pacific time. An answer of
`quotaExceeded` closes the day at once, whatever was counted."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from models.clock import utcnow
from models.platform.base import QuotaExceeded
from models.redis_client import get_redis

PACIFIC = ZoneInfo("America/Los_Angeles")
KEY = "subsearch:video-api-units:{day}"
KEPT_SECONDS = 2 * 24 * 3600  # a day's count outlives its day, for the status to read

# KEYS: the day's count. ARGV: units, the day's units, seconds kept. 1 if spent, else 0.
_SPEND = """
local spent = tonumber(redis.call('GET', KEYS[1]) or '0')
if spent + tonumber(ARGV[1]) > tonumber(ARGV[2]) then
  return 0
end
redis.call('INCRBY', KEYS[1], ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[3])
return 1
"""


def day_of(moment: datetime) -> str:
    """The platform's day of a moment: its date in Pacific time."""
    return moment.astimezone(PACIFIC).date().isoformat()


@dataclass(frozen=True)
class QuotaLedger:
    daily_units: int

    def spend(self, units: int = 1, now: datetime | None = None) -> None:
        """Count `units` against today's, or raise QuotaExceeded when they would pass it."""
        key = KEY.format(day=day_of(now or utcnow()))
        if not get_redis().eval(_SPEND, 1, key, units, self.daily_units, KEPT_SECONDS):
            raise QuotaExceeded(
                f"the Data API's {self.daily_units} units of today (Pacific time) are spent; "
                "calls go on after midnight Pacific time"
            )

    def close_day(self, now: datetime | None = None) -> None:
        """The API said the quota is used up: no more calls today."""
        key = KEY.format(day=day_of(now or utcnow()))
        get_redis().set(key, self.daily_units, ex=KEPT_SECONDS)

    def spent_today(self, now: datetime | None = None) -> int:
        value = get_redis().get(KEY.format(day=day_of(now or utcnow())))
        return min(int(value or 0), self.daily_units)


def next_reset(now: datetime | None = None) -> datetime:
    """The next midnight Pacific time, in UTC."""
    here = (now or utcnow()).astimezone(PACIFIC)
    midnight = datetime.combine(here.date() + timedelta(days=1), datetime.min.time(), PACIFIC)
    return midnight.astimezone(UTC)
