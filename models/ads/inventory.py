"""Inventory: the slots, which positions a slot has taken in a country over a period,
the next one free, and the current price of a country."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from models.ads import POSITIONS, SLOT_IDS
from models.ads.months import add_months
from models.payments import PaymentNotFound, Price, ad_price_id, get_provider
from models.problems import Problem
from models.tables import AdReservation

log = logging.getLogger(__name__)

# A stopped reservation keeps its position (nothing moves up) unless it was rejected
# unpaid (position_released_at); an expired one lies in the past; a released hold is
# deleted.
OCCUPYING = ("pending_review", "active", "stopped")


@dataclass(frozen=True)
class Availability:
    """A slot in a country over some months: the positions taken in any of them, the
    one a purchase would get (None when full), and the country's price (None: not sold)."""

    occupied: list[int]
    next_position: int | None
    price: Price | None


def slot_problem(slot: str) -> Problem | None:
    """Why `slot` is not a slot id, or None: the one check behind every slot a request
    names (the API's schemas and the domain alike)."""
    return None if slot in SLOT_IDS else Problem("not_a_choice", choices=", ".join(SLOT_IDS))


def get_occupied_positions(
    slot_id: str, country: str, start_month: str, end_month: str
) -> list[int]:
    """getOccupiedPositions: positions held in any month of start..end (inclusive),
    found by overlap, since a reservation's unique key knows only its start month."""
    rows = (
        AdReservation.select(AdReservation.position)
        .where(
            (AdReservation.slot == slot_id)
            & (AdReservation.country == country)
            & AdReservation.status.in_(OCCUPYING)
            & AdReservation.position_released_at.is_null()
            & (AdReservation.start_month <= end_month)
            & (AdReservation.end_month >= start_month)
        )
        .distinct()
    )
    return sorted(row.position for row in rows)


def next_position(occupied: list[int]) -> int | None:
    """The lowest position free in every month of the period; None when the slot is full."""
    return next((p for p in POSITIONS if p not in occupied), None)


def availability(slot: str, country: str, start_month: str, months: int) -> Availability:
    occupied = get_occupied_positions(
        slot, country, start_month, add_months(start_month, months - 1)
    )
    return Availability(occupied, next_position(occupied), fetch_ad_price(country))


def fetch_ad_price(country: str) -> Price | None:
    """fetchAdPrice: the country's current price (PAYMENT_AD_PRICE_<COUNTRY>_ID) read from
    the provider; None when the country has none, or its price is unknown or archived."""
    price_id = ad_price_id(country)
    if not price_id:
        return None
    try:
        price = get_provider().get_price(price_id)
    except PaymentNotFound:
        log.error("the ad price %s of %s does not exist at the provider", price_id, country)
        return None
    return price if price.active else None
