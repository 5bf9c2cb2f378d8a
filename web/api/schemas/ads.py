"""Direct ads: slots, advertiser profiles, images, prices and inventory, reservations,
serving, and the administrators' review, timeline, report and revenue."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field, field_validator

from models.ads import MAX_MONTHS, SLOT_IDS
from models.ads.admin import STATUSES
from models.ads.creative import advertiser_name_problem, redirect_url_problem
from models.ads.profiles import BUSINESS_CATEGORIES
from models.settings import get_settings
from web.api.schemas.common import (
    Body,
    CountryCode,
    Date,
    Month,
    PathParams,
    Query,
    Response,
    Timestamp,
    Uuid,
    one_of,
    pattern,
    text,
)

Slot = Literal[SLOT_IDS]  # type: ignore[valid-type]
Status = Literal[STATUSES]  # type: ignore[valid-type]
Category = one_of(BUSINESS_CATEGORIES, "one of the 15 business categories")
# "T" and 13 digits; empty or null for none.
InvoiceNumber = pattern(r"^(T[0-9]{13})?$", max_length=14)


class SlotInfo(Response):
    id: Slot
    page: str
    display_name: str
    positions: int


class Slots(Response):
    slots: list[SlotInfo]


# Advertiser profiles.


class ProfileBody(Body):
    business_legal_name: text(200, min_length=1)
    business_address: text(300, min_length=1)
    contact_name: text(100, min_length=1)
    contact_email: text(254, min_length=1)
    business_category: Category
    invoice_registration_number: InvoiceNumber | None = None


class ProfilePatch(Body):
    business_legal_name: text(200, min_length=1) | None = None
    business_address: text(300, min_length=1) | None = None
    contact_name: text(100, min_length=1) | None = None
    contact_email: text(254, min_length=1) | None = None
    business_category: Category | None = None
    invoice_registration_number: InvoiceNumber | None = None


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


# Prices and inventory.


class PricingParams(Query):
    country: CountryCode


class Price(Response):
    currency: str
    unit_amount: int = Field(description="In the currency's smallest unit")
    price_id: str


class Pricing(Price):
    country: str


class InventoryParams(Query):
    slot: Slot
    country: CountryCode
    month: Month
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


# Reservations.


class ReservationBody(Body):
    slot: Slot
    country: CountryCode
    start_month: Month
    months: int = Field(ge=1, le=MAX_MONTHS)
    advertiser_name: text(100, min_length=1)
    image_url: text(2048, min_length=1)
    redirect_url: text(2048, min_length=1)
    consent: Literal[True] = Field(description="The advertiser confirms the ad follows the terms")
    profile_id: Uuid | None = None
    profile: ProfileBody | None = None

    @field_validator("advertiser_name")
    @classmethod
    def _name(cls, value):
        problem = advertiser_name_problem(value, (get_settings().service_name,))
        if problem:
            raise ValueError(problem)
        return value

    @field_validator("redirect_url")
    @classmethod
    def _url(cls, value):
        problem = redirect_url_problem(value)
        if problem:
            raise ValueError(problem)
        return value


class ReservationPath(PathParams):
    reservation_id: Uuid


class Placement(Response):
    """Which unit a reservation holds, and its status: common to every view of it."""

    id: str
    slot: Slot
    position: int
    country: str
    start_month: str
    end_month: str
    status: Status


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


class ReservationCreated(Response):
    reservation: Reservation
    checkout_url: str


class OwnReservation(Placement, Measured):
    days_left: int
    ended: bool
    payment_state: Literal["paid", "awaiting_payment", "processing", "unpaid"]
    checkout_expires_at: Timestamp | None


class OwnReservations(Response):
    reservations: list[OwnReservation]


class DailyFigures(Response):
    date: str
    impressions: int
    clicks: int


class Preview(Response):
    image_url: str
    advertiser_name: str
    redirect_url: str


class OwnReservationDetail(OwnReservation):
    daily: list[DailyFigures]
    preview: Preview


# Serving.


class ServeParams(Query):
    slot: Slot
    month: Month | None = None
    country: text(64) | None = Field(
        default=None, description="ISO 3166-1 alpha-2; the visitor's own when absent"
    )


class ServedAd(Response):
    reservation_id: str
    advertiser_name: str
    image_url: str
    click_url: str
    impression_url: str


class ServedPosition(Response):
    position: int
    ad: ServedAd | None


class Served(Response):
    slot: Slot
    country: str | None
    month: str
    ads_enabled: bool
    positions: list[ServedPosition]


class BeaconParams(Query):
    """Only the view token is read; anything else a page adds is ignored, so a beacon
    never fails the visitor."""

    model_config = ConfigDict(extra="ignore")

    v: str | None = Field(default=None, description="The view token of the render")


# Administration.


class AdminListParams(Query):
    status: Status | None = None
    slot: Slot | None = None
    country: CountryCode | None = None


class AdminReservation(Reservation, Measured):
    business_legal_name: str | None
    business_category: str | None
    contact_name: str | None
    contact_email: str | None
    payment_intent_id: str | None
    position_released: bool
    paid_after_stop_at: Timestamp | None
    has_stop_notice: bool


class AdminReservations(Response):
    reservations: list[AdminReservation]


class StopBody(Body):
    reason: text(500, min_length=1)


class StopNotice(Response):
    to: str
    subject: str
    body: str
    mailto: str
    created_at: Timestamp | None = None


class Stopped(Response):
    reservation: Reservation
    notice: StopNotice | None


class Approved(Response):
    reservation: Reservation


class StopNoticeAnswer(Response):
    notice: StopNotice


class TimelineCell(Response):
    reservation_id: str
    advertiser_name: str
    status: Status


class TimelineRow(Response):
    slot: Slot
    position: int
    country: str
    cells: list[TimelineCell | None]


class Timeline(Response):
    months: list[str]
    rows: list[TimelineRow]


class ReportParams(Query):
    start_date: Date | None = None
    end_date: Date | None = None


class ReportRow(Placement, Measured):
    advertiser_name: str
    unverified_clicks: int
    bot_clicks: int


class ReportTotals(Measured):
    unverified_clicks: int
    bot_clicks: int


class Report(Response):
    start_date: str
    end_date: str
    reservations: list[ReportRow]
    totals: ReportTotals
    daily_trend: list[DailyFigures]


class RevenueRow(Response):
    month: str
    country: str
    currency: str
    amount_received: int
    payments: int


class RevenueTotal(Response):
    currency: str
    amount_received: int


class PaidAfterStop(Response):
    reservation_id: str
    advertiser_name: str
    payment_intent_id: str
    currency: str
    amount_received: int
    stopped_at: Timestamp | None
    paid_at: Timestamp | None


class Revenue(Response):
    ad_revenue: list[RevenueRow]
    totals: list[RevenueTotal]
    paid_after_stop: list[PaidAfterStop]
