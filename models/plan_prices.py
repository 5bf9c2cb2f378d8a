"""The plans as the account page offers them: what each gives (PLAN_LIMITS, ads or none)
and, for a paid plan, its price as the payment provider states it, read the way checkout
reads it (the plan's price id, then the provider's price). Prices are tax-inclusive
(税込; docs/accounts.md, Plans and prices).

A process asks the provider at most once per CACHE_SECONDS; one that cannot be reached
is asked again after RETRY_SECONDS, meanwhile a plan keeps the price last read or goes
without one, so the provider never fails the page and slows it at most once a minute."""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass

from models.payments import (
    PaymentError,
    PaymentNotFound,
    Price,
    get_provider,
    plan_price_id,
)
from models.plans import PLAN_LIMITS, PLANS
from models.settings import Settings, get_settings

log = logging.getLogger(__name__)

# A plan's price id changes with a restart, and a provider's price never changes its
# amount (a new amount is a new price): ten minutes of delay are harmless.
CACHE_SECONDS = 600.0
# A provider that did not answer is asked again after this long, not by every page.
RETRY_SECONDS = 60.0
# How long a page waits while another request of the process reads the prices.
WAIT_SECONDS = 2.0


@dataclass(frozen=True)
class PlanOffer:
    plan: str
    monthly_credits: int
    # A paid plan's current price; None for free, for a plan without a price configured
    # or active, and for one whose price could not be read and was never read before.
    price: Price | None

    @property
    def paid(self) -> bool:
        return self.plan != "free"

    @property
    def ads_shown(self) -> bool:
        """The spec's audience: ads for free members, none for plus and pro."""
        return not self.paid


@dataclass(frozen=True)
class PlanOffers:
    plans: tuple[PlanOffer, ...]
    # False when the provider could not be asked for some paid plan's price just now.
    complete: bool = True

    @property
    def prices_unreadable(self) -> bool:
        """Some paid plan goes without its price because the provider did not answer."""
        return not self.complete and any(o.paid and o.price is None for o in self.plans)

    @property
    def currency(self) -> str:
        """The currency the paid plans are sold in (for the free plan's zero)."""
        return next((offer.price.currency for offer in self.plans if offer.price), "jpy")


@dataclass(frozen=True)
class _Kept:
    settings: Settings  # the object, not its id(), which a new object may reuse
    offers: PlanOffers
    ask_again_at: float  # monotonic time


_lock = threading.Lock()  # guards _kept
_reading = threading.Lock()  # one request of the process asks the provider at a time
_kept: _Kept | None = None


def plan_offers(now: float | None = None) -> PlanOffers:
    """Every plan, smallest first, each paid one with its price (see the module's
    docstring for when the provider is asked). `now`: time.monotonic() unless given."""
    settings = get_settings()
    kept = _kept_for(settings)
    if kept is not None and _now(now) < kept.ask_again_at:
        return kept.offers
    if not _reading.acquire(timeout=WAIT_SECONDS):
        # Another request is asking a slow provider: answer with what is known.
        return kept.offers if kept is not None else _read_nothing()
    try:
        kept = _kept_for(settings)  # read by the request this one waited for?
        if kept is not None and _now(now) < kept.ask_again_at:
            return kept.offers
        offers = _read(kept.offers if kept is not None else None)
        wait = CACHE_SECONDS if offers.complete else RETRY_SECONDS
        _keep(_Kept(settings, offers, _now(now) + wait))
        return offers
    finally:
        _reading.release()


def _now(given: float | None) -> float:
    return time.monotonic() if given is None else given


def forget() -> None:
    """Ask the provider next time (tests; a price switched in the same process)."""
    _keep(None)


def _kept_for(settings: Settings) -> _Kept | None:
    with _lock:
        kept = _kept
    return kept if kept is not None and kept.settings is settings else None


def _keep(kept: _Kept | None) -> None:
    global _kept
    with _lock:
        _kept = kept


def _read(before: PlanOffers | None) -> PlanOffers:
    """Each paid plan's price from the provider; a price that cannot be read now is the
    one read `before`, if any."""
    earlier = {offer.plan: offer.price for offer in before.plans} if before else {}
    complete = True
    offers = []
    for plan in PLANS:
        price: Price | None = None
        if plan != "free":
            try:
                price = _current_price(plan)
            except PaymentError:
                log.warning("the price of the %s plan could not be read", plan, exc_info=True)
                complete = False
                price = earlier.get(plan)
        offers.append(PlanOffer(plan, PLAN_LIMITS[plan], price))
    return PlanOffers(tuple(offers), complete)


def _current_price(plan: str) -> Price | None:
    """The price a checkout for `plan` would charge now; None when the plan has no price
    id, or the provider knows it as unknown or archived (checkout would fail too)."""
    price_id = plan_price_id(plan)
    if not price_id:
        return None
    try:
        price = get_provider().get_price(price_id)
    except PaymentNotFound:
        log.error("the %s plan's price %s does not exist at the provider", plan, price_id)
        return None
    return price if price.active else None


def _read_nothing() -> PlanOffers:
    return PlanOffers(
        tuple(PlanOffer(plan, PLAN_LIMITS[plan], None) for plan in PLANS), complete=False
    )
