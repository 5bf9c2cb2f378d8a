"""Direct ads as advertisers meet them: slots, advertiser profiles, images, prices and
inventory, reservations and their own reports (serving is in ad_delivery.py, the
administrators' review in ad_admin.py). Request models give the domain its inputs
(`order()`, `fields()`, `changes()`); response models are built from the domain's objects
(`of()`)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, field_validator

from models.ads import (
    MAX_MONTHS,
    MAX_YEARS_AHEAD,
    MONTHS_OF_HISTORY,
    SLOT_IDS,
    admin,
    reports,
)
from models.ads.admin import STATUSES, status_problem
from models.ads.creative import advertiser_name_problem, landing_host, redirect_url_problem
from models.ads.delivery_state import DeliveryState
from models.ads.images import StoredImage
from models.ads.inventory import Availability, slot_problem
from models.ads.months import MONTH_LENGTH, MONTH_PATTERN, window_problem
from models.ads.profiles import (
    BUSINESS_CATEGORIES,
    ProfileFields,
    is_regulated,
    profile_problems,
)
from models.ads.reservations import Order, Placed
from models.payments import Price as ProviderPrice
from models.problems import Problem
from models.settings import get_settings
from models.tables import AdReservation, AdvertiserProfile
from web.api.schemas.common import (
    CONTROL,
    SPACE,
    TEXT_SPACE,
    Body,
    CountryCode,
    Month,
    PathParams,
    Query,
    Response,
    Rules,
    Timestamp,
    Uuid,
    checked,
    one_of,
    pattern,
    text,
)

Slot = Annotated[str, checked(slot_problem, {"enum": list(SLOT_IDS)})]
# A month the service answers for: two years back to the last first month of a purchase
# (five years after next month); the document cannot state a window that moves.
WindowMonth = Annotated[
    str,
    checked(
        window_problem,
        {
            "pattern": MONTH_PATTERN,
            "description": f"YYYY-MM, from {MONTHS_OF_HISTORY} months before this month to"
            f" {1 + MAX_YEARS_AHEAD * 12} months after it",
        },
        max_length=MONTH_LENGTH,
    ),
]
Status = Annotated[str, checked(status_problem, {"enum": list(STATUSES)})]
Category = Annotated[str, one_of(BUSINESS_CATEGORIES, Problem("not_a_category"))]
# "T" and 13 digits; empty or null for none.
InvoiceNumber = Annotated[str, pattern(r"^(T[0-9]{13})?$", max_length=14)]
# The domain's rules for an e-mail address and a redirect URL, checked again by the
# domain; as patterns, so that the document states them (spaces around are stripped).
_NOT = f"{CONTROL}{SPACE}"
EMAIL_PATTERN = f"^[{TEXT_SPACE}]*[^@{_NOT}]+@[^@{_NOT}]+\\.[^@.{_NOT}]+[{TEXT_SPACE}]*$"
REDIRECT_URL_PATTERN = (
    f"^[{TEXT_SPACE}]*[Hh][Tt][Tt][Pp][Ss]?://"
    f"[^:@/?#\\[\\]\\\\{_NOT}][^@/?#\\[\\]\\\\{_NOT}]*"
    f"([/?#][^\\\\{_NOT}]*)?[{TEXT_SPACE}]*$"
)


def _email_problem(value: str) -> Problem | None:
    if not re.search(EMAIL_PATTERN, value):
        return Problem("not_an_email")
    return profile_problems({"contact_email": value}).get("contact_email")


def _redirect_url_problem(value: str) -> Problem | None:
    if not re.search(REDIRECT_URL_PATTERN, value):
        return redirect_url_problem(value) or Problem("not_a_web_address")
    return redirect_url_problem(value)


def _stated(
    problem: Callable[[str], Problem | None], pattern: str, description: str, max_length: int
) -> Rules:
    """Text (no control characters, at most `max_length` as sent, stripped) held to a
    rule of the domain that the document states as `pattern`."""
    return Rules(
        *text(max_length, min_length=1),
        AfterValidator(lambda value: _refuse(problem(value), value)),
        Field(json_schema_extra={"minLength": 1, "pattern": pattern, "description": description}),
    )


def _refuse(problem: Problem | None, value: str) -> str:
    if problem:
        raise ValueError(problem)
    return value


Email = Annotated[
    str, _stated(_email_problem, EMAIL_PATTERN, "An e-mail address (name@domain.tld)", 254)
]
RedirectUrl = Annotated[
    str,
    _stated(
        _redirect_url_problem,
        REDIRECT_URL_PATTERN,
        "Where a click goes: http:// or https://, a public host (no loopback, private,"
        " link-local or metadata address, no name without a dot, no .localhost, .local or"
        " .internal name), no user name, password, backslash or spaces",
        2048,
    ),
]
# The page each slot is shown on.
SLOT_PAGES = {"search": "/search", "video": "/videos/[videoId]"}


class SlotInfo(Response):
    id: Slot
    page: str
    display_name: str
    positions: int


class Slots(Response):
    slots: list[SlotInfo]

    @classmethod
    def of(cls, names: Mapping[str, str]) -> Slots:
        """Every slot, with its admin-facing name where the database has one."""
        return cls(
            slots=[
                SlotInfo(
                    id=slot,
                    page=SLOT_PAGES["search" if slot.startswith("search") else "video"],
                    display_name=names.get(slot, slot),
                    positions=4,
                )
                for slot in SLOT_IDS
            ]
        )


# Advertiser profiles.


class ProfileBody(Body):
    business_legal_name: Annotated[str, text(200, min_length=1)]
    business_address: Annotated[str, text(300, min_length=1)]
    contact_name: Annotated[str, text(100, min_length=1)]
    contact_email: Email
    business_category: Category
    invoice_registration_number: InvoiceNumber | None = None

    def fields(self) -> ProfileFields:
        return ProfileFields(**self.model_dump())


class ProfilePatch(Body):
    business_legal_name: Annotated[str, text(200, min_length=1)] | None = None
    business_address: Annotated[str, text(300, min_length=1)] | None = None
    contact_name: Annotated[str, text(100, min_length=1)] | None = None
    contact_email: Email | None = None
    business_category: Category | None = None
    invoice_registration_number: InvoiceNumber | None = None

    def changes(self) -> dict[str, str | None]:
        """The fields sent, null ones included, by their domain names."""
        return self.model_dump(exclude_unset=True)


class ProfilePath(PathParams):
    profile_id: Uuid


class Profile(Response):
    id: str
    business_legal_name: str
    business_address: str
    contact_name: str
    contact_email: str
    business_category: str
    invoice_registration_number: str | None
    regulated: bool = Field(description="Its category may be asked for permits")
    created_at: Timestamp
    updated_at: Timestamp

    @classmethod
    def of(cls, profile: AdvertiserProfile) -> Profile:
        return cls(
            id=profile.id,
            business_legal_name=profile.business_legal_name,
            business_address=profile.business_address,
            contact_name=profile.contact_name,
            contact_email=profile.contact_email,
            business_category=profile.business_category,
            invoice_registration_number=profile.invoice_registration_number,
            regulated=is_regulated(profile.business_category),
            created_at=profile.created_at,
            updated_at=profile.updated_at,
        )


class Profiles(Response):
    profiles: list[Profile]


class ImageRecommendation(Response):
    code: str
    message: str


class UploadedImage(Response):
    url: str
    width: int
    height: int
    format: str
    bytes: int
    recommendations: list[ImageRecommendation]

    @classmethod
    def of(cls, stored: StoredImage) -> UploadedImage:
        return cls(
            url=stored.url,
            width=stored.width,
            height=stored.height,
            format=stored.format,
            bytes=stored.bytes,
            recommendations=[ImageRecommendation(**r) for r in stored.recommendations],
        )


# Prices and inventory.


class PricingParams(Query):
    country: CountryCode


class Price(Response):
    currency: str
    unit_amount: int = Field(description="In the currency's smallest unit")
    price_id: str

    @classmethod
    def of(cls, price: ProviderPrice) -> Price:
        return cls(currency=price.currency, unit_amount=price.unit_amount, price_id=price.id)


class Pricing(Price):
    country: str

    @classmethod
    def of(cls, country: str, price: ProviderPrice) -> Pricing:  # type: ignore[override]
        return cls(country=country, **Price.of(price).model_dump())


class InventoryParams(Query):
    slot: Slot
    country: CountryCode
    month: WindowMonth
    months: int = Field(default=1, ge=1, le=MAX_MONTHS)


class Inventory(Response):
    slot: Slot
    country: str
    month: str
    months: int
    occupied_positions: list[int]
    next_position: int | None
    full: bool
    price: Price | None

    @classmethod
    def of(cls, asked: InventoryParams, found: Availability) -> Inventory:
        return cls(
            slot=asked.slot,
            country=asked.country,
            month=asked.month,
            months=asked.months,
            occupied_positions=found.occupied,
            next_position=found.next_position,
            full=found.next_position is None,
            price=Price.of(found.price) if found.price else None,
        )


# Reservations.


class ReservationBody(Body):
    slot: Slot
    country: CountryCode
    start_month: Month
    months: int = Field(ge=1, le=MAX_MONTHS)
    advertiser_name: Annotated[str, text(100, min_length=1)]
    image_url: Annotated[str, text(2048, min_length=1)]
    redirect_url: RedirectUrl
    consent: Literal[True] = Field(description="The advertiser confirms the ad follows the terms")
    profile_id: Uuid | None = None
    profile: ProfileBody | None = None

    @field_validator("advertiser_name")
    @classmethod
    def _name(cls, value: str) -> str:
        problem = advertiser_name_problem(value, (get_settings().service_name,))
        if problem:
            raise ValueError(problem)
        return value

    def order(self) -> Order:
        return Order(
            slot=self.slot,
            country=self.country,
            start_month=self.start_month,
            months=self.months,
            advertiser_name=self.advertiser_name,
            image_url=self.image_url,
            redirect_url=self.redirect_url,
            consent=self.consent,
            profile_id=self.profile_id,
            profile=self.profile.fields() if self.profile else None,
        )


class ReservationPath(PathParams):
    reservation_id: Uuid


def placement_fields(r: AdReservation) -> dict[str, Any]:
    return {
        "id": r.id,
        "slot": r.slot_id,
        "position": r.position,
        "country": r.country,
        "start_month": r.start_month,
        "end_month": r.end_month,
        "status": r.status,
    }


def measured_fields(figures: admin.Figures) -> dict[str, Any]:
    return {"impressions": figures.impressions, "clicks": figures.clicks, "ctr": figures.ctr}


def reservation_fields(r: AdReservation) -> dict[str, Any]:
    return {
        **placement_fields(r),
        "advertiser_name": r.advertiser_name,
        "image_url": r.image_url,
        "redirect_url": r.redirect_url,
        "profile_id": r.advertiser_profile_id,
        "paid": r.payment_intent_id is not None,
        "stopped_at": r.stopped_at,
        "stopped_reason": r.stopped_reason,
        "created_at": r.created_at,
    }


class Placement(Response):
    """Which unit a reservation holds, and its status: common to every view of it."""

    id: str
    slot: Slot
    position: int
    country: str
    start_month: str
    end_month: str
    status: Status


# Where delivery stands today (UTC) beside the review status (models/ads/delivery_state).
Delivery = Annotated[
    DeliveryState,
    Field(
        description="scheduled: approved or in review, not shown yet; running: active and"
        " today (UTC) within startMonth..endMonth; ended: the period is over; stopped"
    ),
]
RedirectHost = Annotated[
    str,
    Field(description="The host of redirectUrl, lower case, a non-ASCII name in its xn-- form"),
]


class Measured(Response):
    impressions: int
    clicks: int
    ctr: float | None = Field(description="clicks / impressions; null without impressions")


class Reservation(Placement):
    advertiser_name: str
    image_url: str
    redirect_url: str
    profile_id: str | None
    paid: bool
    stopped_at: Timestamp | None
    stopped_reason: str | None
    created_at: Timestamp

    @classmethod
    def of(cls, reservation: AdReservation) -> Reservation:
        return cls(**reservation_fields(reservation))


class ReservationCreated(Response):
    reservation: Reservation
    checkout_url: str

    @classmethod
    def of(cls, placed: Placed) -> ReservationCreated:
        return cls(reservation=Reservation.of(placed.reservation), checkout_url=placed.checkout_url)


def _own(own: reports.OwnReservation) -> dict[str, Any]:
    return {
        **placement_fields(own.reservation),
        **measured_fields(own.figures),
        "advertiser_name": own.reservation.advertiser_name,
        "image_url": own.reservation.image_url,
        "days_left": own.days_left,
        "ended": own.ended,
        "delivery": own.delivery,
        "days_to_start": own.days_to_start,
        "payment_state": own.payment.state,
        "checkout_expires_at": own.payment.checkout_expires_at,
        "payment_due_at": own.payment.payment_due_at,
        "stopped_at": own.reservation.stopped_at,
        "stopped_reason": own.reservation.stopped_reason,
    }


class OwnReservation(Placement, Measured):
    advertiser_name: str
    image_url: str
    days_left: int
    ended: bool
    delivery: Delivery
    days_to_start: int = Field(
        description="Days from today (UTC) to the first day of startMonth; 0 once begun"
    )
    payment_state: Literal["paid", "awaiting_payment", "payment_pending", "processing", "unpaid"]
    checkout_expires_at: Timestamp | None
    payment_due_at: Timestamp | None = Field(
        default=None,
        description="payment_pending (konbini): the last moment the voucher can be paid",
    )
    stopped_at: Timestamp | None = None
    stopped_reason: str | None = None

    @classmethod
    def of(cls, own: reports.OwnReservation) -> OwnReservation:
        return cls(**_own(own))


class OwnReservations(Response):
    reservations: list[OwnReservation]


class DailyFigures(Response):
    date: str
    impressions: int
    clicks: int

    @classmethod
    def of(cls, day: reports.DailyFigures) -> DailyFigures:
        return cls(date=day.date, impressions=day.impressions, clicks=day.clicks)


class Preview(Response):
    image_url: str
    advertiser_name: str
    redirect_url: str
    redirect_host: RedirectHost


class OwnReservationDetail(OwnReservation):
    daily: list[DailyFigures]
    preview: Preview

    @classmethod
    def of(cls, own: reports.OwnReservationDetail) -> OwnReservationDetail:  # type: ignore[override]
        r = own.reservation
        return cls(
            **_own(own),
            daily=[DailyFigures.of(day) for day in own.daily],
            preview=Preview(
                image_url=r.image_url,
                advertiser_name=r.advertiser_name,
                redirect_url=r.redirect_url,
                redirect_host=landing_host(r.redirect_url),
            ),
        )
