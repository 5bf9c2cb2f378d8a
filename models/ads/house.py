"""House cards: what an unsold position says to invite advertisers. Each card of a slot
says something else (the places, the price, how to apply, the audience), so a row of
them never shows one card twice side by side, and neighbouring slots start apart."""

from __future__ import annotations

from models.ads import POSITIONS, SLOT_IDS

# In the order a slot shows them from its first position; each slot starts one further.
HOUSE_CARDS = ("places", "price", "apply", "audience")


def house_card(slot_id: str, position: int) -> str:
    """The card shown at `position` (1-4) of `slot_id` when it is unsold. Four positions
    and four cards: a slot shows each once, and the slots that follow each other on a
    page (midroll then bottom, below the player then below the subtitles) do not end
    and begin with the same card."""
    offset = SLOT_IDS.index(slot_id) if slot_id in SLOT_IDS else 0
    return HOUSE_CARDS[(position - 1 + offset) % len(HOUSE_CARDS)]


def house_cards(slot_id: str) -> list[str]:
    """The cards of every position of a slot, first position first."""
    return [house_card(slot_id, position) for position in POSITIONS]
