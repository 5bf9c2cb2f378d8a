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


def slot_names() -> dict[str, str]:
    """Slot id -> admin-facing name, from the seeded ad_slots rows."""
    return {slot.id: slot.display_name for slot in AdSlot.select()}
