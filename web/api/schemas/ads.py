"""Direct ads: slots, advertiser profiles, images, prices and inventory, reservations,
serving, and the administrators' review, timeline, report and revenue. Request models
give the domain its inputs (`order()`, `fields()`, `changes()`); response models are
built from the domain's objects (`of()`)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, ConfigDict, Field, field_validator

from models.ads import MAX_MONTHS, SLOT_IDS, admin, notices, reports
from models.ads.admin import STATUSES, status_problem
from models.ads.creative import advertiser_name_problem, redirect_url_problem
from models.ads.delivery import DirectAd
from models.ads.images import StoredImage
from models.ads.inventory import Availability, slot_problem
from models.ads.profiles import (
    BUSINESS_CATEGORIES,
    ProfileFields,
    is_regulated,
    profile_problems,
)
from models.ads.reservations import Order, Placed
from models.payments import Price as ProviderPrice
from models.settings import get_settings
from models.tables import AdReservation, AdvertiserProfile
from web.api.schemas.common import (
    CONTROL,
    SPACE,
    Body,
    CountryCode,
    Date,
    Month,
    PathParams,
    Query,
    Response,
    Timestamp,
    Uuid,
    checked,
    one_of,
    pattern,
    text,
)
from web.urls import public_url

Slot = checked(slot_problem, {"enum": list(SLOT_IDS)})
Status = checked(status_problem, {"enum": list(STATUSES)})
Category = one_of(BUSINESS_CATEGORIES, "one of the 15 business categories")
# "T" and 13 digits; empty or null for none.
InvoiceNumber = pattern(r"^(T[0-9]{13})?$", max_length=14)
# The domain's rules for an e-mail address and a redirect URL, checked again by the
# domain; as patterns, so that the document states them (spaces around are stripped).
_NOT = f"{CONTROL}{SPACE}"
EMAIL_PATTERN = f"^[{SPACE}]*[^@{_NOT}]+@[^@{_NOT}]+\\.[^@.{_NOT}]+[{SPACE}]*$"
REDIRECT_URL_PATTERN = (
    f"^[{SPACE}]*[Hh][Tt][Tt][Pp][Ss]?://"
    f"[^:@/?#\\[\\]\\\\{_NOT}][^@/?#\\[\\]\\\\{_NOT}]*"
    f"([/?#][^\\\\{_NOT}]*)?[{SPACE}]*$"
)


def _email_problem(value: str) -> str | None:
    if not re.search(EMAIL_PATTERN, value):
        return "not an e-mail address"
    return profile_problems({"contact_email": value}).get("contact_email")


def _redirect_url_problem(value: str) -> str | None:
    if not re.search(REDIRECT_URL_PATTERN, value):
        return redirect_url_problem(value) or (
            "an http:// or https:// address with a host, without a user name, password or backslash"
        )
    return redirect_url_problem(value)


def _stated(problem, pattern: str, description: str, max_length: int) -> Any:
    """Text (no control characters, at most `max_length` as sent, stripped) held to a
    rule of the domain that the document states as `pattern`."""
    return Annotated[
        text(max_length, min_length=1),
        AfterValidator(lambda value: _refuse(problem(value), value)),
        Field(json_schema_extra={"minLength": 1, "pattern": pattern, "description": description}),
    ]


def _refuse(problem: str | None, value: str) -> str:
    if problem:
        raise ValueError(problem)
    return value


Email = _stated(_email_problem, EMAIL_PATTERN, "An e-mail address (name@domain.tld)", 254)
RedirectUrl = _stated(
    _redirect_url_problem,
    REDIRECT_URL_PATTERN,
    "Where a click goes: http:// or https://, a host, no user name, password, backslash or spaces",
    2048,
)
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
    business_legal_name: text(200, min_length=1)
    business_address: text(300, min_length=1)
    contact_name: text(100, min_length=1)
    contact_email: Email
    business_category: Category
    invoice_registration_number: InvoiceNumber | None = None

    def fields(self) -> ProfileFields:
        return ProfileFields(**self.model_dump())


class ProfilePatch(Body):
    business_legal_name: text(200, min_length=1) | None = None
    business_address: text(300, min_length=1) | None = None
    contact_name: text(100, min_length=1) | None = None
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
    advertiser_name: text(100, min_length=1)
    image_url: text(2048, min_length=1)
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


def _placement(r: AdReservation) -> dict[str, Any]:
    return {
        "id": r.id,
        "slot": r.slot_id,
        "position": r.position,
        "country": r.country,
        "start_month": r.start_month,
        "end_month": r.end_month,
        "status": r.status,
    }


def _measured(figures: admin.Figures) -> dict[str, Any]:
    return {"impressions": figures.impressions, "clicks": figures.clicks, "ctr": figures.ctr}


def _reservation(r: AdReservation) -> dict[str, Any]:
    return {
        **_placement(r),
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
        return cls(**_reservation(reservation))


class ReservationCreated(Response):
    reservation: Reservation
    checkout_url: str

    @classmethod
    def of(cls, placed: Placed) -> ReservationCreated:
        return cls(reservation=Reservation.of(placed.reservation), checkout_url=placed.checkout_url)


def _own(own: reports.OwnReservation) -> dict[str, Any]:
    return {
        **_placement(own.reservation),
        **_measured(own.figures),
        "advertiser_name": own.reservation.advertiser_name,
        "image_url": own.reservation.image_url,
        "days_left": own.days_left,
        "ended": own.ended,
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
            ),
        )


# Serving.


class ServeParams(Query):
    slot: Slot
    month: Month | None = None
    country: text(64, min_length=1) | None = Field(
        default=None,
        description="ISO 3166-1 alpha-2; the visitor's own when absent; any other text "
        "(XX, T1) gives four empty positions",
    )


class ServedAd(Response):
    reservation_id: str
    advertiser_name: str
    image_url: str
    click_url: str
    impression_url: str

    @classmethod
    def of(cls, ad: DirectAd, render_id: bytes) -> ServedAd:
        """The ad as served in one render: its click and impression addresses carry the
        render's view token for this ad."""
        token = ad.view_token(render_id)
        return cls(
            reservation_id=ad.reservation_id,
            advertiser_name=ad.advertiser_name,
            image_url=ad.image_url,
            click_url=public_url("api.ad_click", reservation_id=ad.reservation_id, v=token),
            impression_url=public_url(
                "api.ad_impression", reservation_id=ad.reservation_id, v=token
            ),
        )


class ServedPosition(Response):
    position: int
    ad: ServedAd | None


class Served(Response):
    slot: Slot
    country: str | None
    month: str
    ads_enabled: bool
    positions: list[ServedPosition]

    @classmethod
    def of(
        cls,
        slot: str,
        country: str | None,
        month: str,
        ads: list[DirectAd | None] | None,
        render_id: bytes,
    ) -> Served:
        """The positions in order, each with its direct ad or none (network fallback);
        `ads` None when this viewer gets no ads at all."""
        return cls(
            slot=slot,
            country=country,
            month=month,
            ads_enabled=ads is not None,
            positions=[
                ServedPosition(position=n, ad=ServedAd.of(ad, render_id) if ad else None)
                for n, ad in enumerate(ads or [], start=1)
            ],
        )


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

    @classmethod
    def of(cls, listed: admin.ListedReservation) -> AdminReservation:  # type: ignore[override]
        r = listed.reservation
        return cls(
            **_reservation(r),
            **_measured(listed.figures),
            business_legal_name=r.business_legal_name,
            business_category=r.business_category,
            contact_name=r.contact_name,
            contact_email=r.contact_email,
            payment_intent_id=r.payment_intent_id,
            # A rejected unpaid reservation gave its position back.
            position_released=r.position_released_at is not None,
            # Money that arrived after the reservation was stopped: refund it.
            paid_after_stop_at=r.paid_after_stop_at,
            has_stop_notice=listed.has_stop_notice,
        )


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

    @classmethod
    def of(cls, notice: notices.StopNotice) -> StopNotice:
        kept = {} if notice.created_at is None else {"created_at": notice.created_at}
        return cls(
            to=notice.to, subject=notice.subject, body=notice.body, mailto=notice.mailto, **kept
        )


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

    @classmethod
    def of(cls, unit: admin.TimelineRow) -> TimelineRow:
        return cls(
            slot=unit.slot,
            position=unit.position,
            country=unit.country,
            cells=[
                None
                if held is None
                else TimelineCell(
                    reservation_id=held.id,
                    advertiser_name=held.advertiser_name,
                    status=held.status,
                )
                for held in unit.cells
            ],
        )


class Timeline(Response):
    months: list[str]
    rows: list[TimelineRow]

    @classmethod
    def of(cls, timeline: admin.Timeline) -> Timeline:
        return cls(months=timeline.months, rows=[TimelineRow.of(row) for row in timeline.rows])


class ReportParams(Query):
    start_date: Date | None = None
    end_date: Date | None = None


class ReportRow(Placement, Measured):
    advertiser_name: str
    unverified_clicks: int
    bot_clicks: int

    @classmethod
    def of(cls, row: reports.ReportRow) -> ReportRow:
        return cls(
            **_placement(row.reservation),
            **_measured(row.figures),
            advertiser_name=row.reservation.advertiser_name,
            unverified_clicks=row.unverified_clicks,
            bot_clicks=row.bot_clicks,
        )


class ReportTotals(Measured):
    unverified_clicks: int
    bot_clicks: int

    @classmethod
    def of(cls, totals: reports.ReportTotals) -> ReportTotals:
        return cls(
            **_measured(totals.figures),
            unverified_clicks=totals.unverified_clicks,
            bot_clicks=totals.bot_clicks,
        )


class Report(Response):
    start_date: str
    end_date: str
    reservations: list[ReportRow]
    totals: ReportTotals
    daily_trend: list[DailyFigures]

    @classmethod
    def of(cls, report: reports.Report) -> Report:
        return cls(
            start_date=report.start.isoformat(),
            end_date=report.end.isoformat(),
            reservations=[ReportRow.of(row) for row in report.rows],
            totals=ReportTotals.of(report.totals),
            daily_trend=[DailyFigures.of(day) for day in report.daily_trend],
        )


class RevenueRow(Response):
    month: str
    country: str
    currency: str
    amount_received: int
    payments: int

    @classmethod
    def of(cls, row: admin.RevenueRow) -> RevenueRow:
        return cls(
            month=row.month,
            country=row.country,
            currency=row.currency,
            amount_received=row.amount_received,
            payments=row.payments,
        )


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

    @classmethod
    def of(cls, paid: admin.PaidAfterStop) -> PaidAfterStop:
        return cls(
            reservation_id=paid.reservation.id,
            advertiser_name=paid.reservation.advertiser_name,
            payment_intent_id=paid.payment_intent_id,
            currency=paid.currency,
            amount_received=paid.amount_received,
            stopped_at=paid.reservation.stopped_at,
            paid_at=paid.reservation.paid_after_stop_at,
        )


class Revenue(Response):
    ad_revenue: list[RevenueRow]
    totals: list[RevenueTotal]
    paid_after_stop: list[PaidAfterStop]

    @classmethod
    def of(cls, revenue: admin.Revenue) -> Revenue:
        return cls(
            ad_revenue=[RevenueRow.of(row) for row in revenue.by_month],
            totals=[
                RevenueTotal(currency=t.currency, amount_received=t.amount_received)
                for t in revenue.totals
            ],
            paid_after_stop=[PaidAfterStop.of(paid) for paid in revenue.paid_after_stop],
        )
