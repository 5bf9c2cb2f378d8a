"""Direct ads: profiles, creatives, inventory, reservations, review, delivery, reports."""

from __future__ import annotations

from models.tables import AdSlot

SLOT_IDS = (
    "search-result-midroll",
    "search-result-bottom",
    "video-detail-below-player",
    "video-detail-below-subtitle",
)
POSITIONS = (1, 2, 3, 4)
MAX_MONTHS = 12
# The latest first month of a purchase: this many years after next month.
MAX_YEARS_AHEAD = 5
# How far back a request may name a month (inventory, serving): two years, the longest
# reservation and the year before it (docs/ads.md, Months).
MONTHS_OF_HISTORY = 24


def slot_names() -> dict[str, str]:
    """Slot id -> admin-facing name, from the seeded ad_slots rows."""
    return {slot.id: slot.display_name for slot in AdSlot.select()}
