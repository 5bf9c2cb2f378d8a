"""What the video page says about a member's unlock of a video: what the last one cost
and until when it reads, told right after it (the page reloads into it)."""

from __future__ import annotations

from datetime import datetime, timedelta

from models.clock import iso, parse_iso, utcnow
from models.tables import UserVideoAccess

# An unlock is "just made" for this long: a kept or shared address saying `unlocked`
# shows nothing later.
JUST_UNLOCKED = timedelta(minutes=10)


def just_unlocked(
    user_id: str, video_id: str, now: datetime | None = None
) -> UserVideoAccess | None:
    """The member's access row to the video when its last unlock (a first one or a
    repeat, which charges again) was made within JUST_UNLOCKED and has not expired."""
    now = now or utcnow()
    row = UserVideoAccess.get_or_none(
        (UserVideoAccess.user == user_id)
        & (UserVideoAccess.video == video_id)
        & (UserVideoAccess.expires_at > iso(now))
    )
    if row is None or now - parse_iso(row.updated_at) > JUST_UNLOCKED:
        return None
    return row
