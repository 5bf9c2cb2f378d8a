"""Direct ads as administrators review them: the list, approval and stop (with its notice),
the timeline, the report and the revenue."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from models.ads import admin, notices, reports
from models.ads.creative import landing_host
from web.api.schemas.ads import (
    DailyFigures,
    Delivery,
    Measured,
    Placement,
    RedirectHost,
    Reservation,
    Slot,
    Status,
    measured_fields,
    placement_fields,
    reservation_fields,
)
from web.api.schemas.common import (
    Body,
    CountryCode,
    Date,
    Query,
    Response,
    Timestamp,
    text,
)


class AdminListParams(Query):
    status: Status | None = None
    slot: Slot | None = None
    country: CountryCode | None = None


class AdminReservation(Reservation, Measured):
    delivery: Delivery
    redirect_host: RedirectHost
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
            **reservation_fields(r),
            **measured_fields(listed.figures),
            delivery=listed.delivery,
            redirect_host=landing_host(r.redirect_url),
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
    reason: Annotated[str, text(500, min_length=1)]


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


InvalidClicks = Annotated[
    int,
    Field(
        description="Human clicks whose view token was missing, bad (forged, malformed or "
        "another reservation's) or expired: logged, but not in clicks or CTR"
    ),
]
InvalidByReason = Annotated[
    dict[str, int],
    Field(
        description="The invalid clicks by reason: missing_token, bad_token, expired_token, "
        "unverified (logged before reasons were kept, without a genuine token); only "
        "reasons that occurred"
    ),
]
UnverifiedClicks = Annotated[
    int,
    Field(
        description="Of the invalid clicks, those without a genuine view token (missing or "
        "forged); not in clicks"
    ),
]


class ReportRow(Placement, Measured):
    advertiser_name: str
    delivery: Delivery
    unverified_clicks: UnverifiedClicks
    bot_clicks: int
    invalid_clicks: InvalidClicks
    invalid_clicks_by_reason: InvalidByReason

    @classmethod
    def of(cls, row: reports.ReportRow) -> ReportRow:
        return cls(
            **placement_fields(row.reservation),
            **measured_fields(row.figures),
            advertiser_name=row.reservation.advertiser_name,
            delivery=row.delivery,
            unverified_clicks=row.unverified_clicks,
            bot_clicks=row.bot_clicks,
            invalid_clicks=row.invalid_clicks,
            invalid_clicks_by_reason=row.invalid_by_reason,
        )


class ReportTotals(Measured):
    unverified_clicks: UnverifiedClicks
    bot_clicks: int
    invalid_clicks: InvalidClicks
    invalid_clicks_by_reason: InvalidByReason

    @classmethod
    def of(cls, totals: reports.ReportTotals) -> ReportTotals:
        return cls(
            **measured_fields(totals.figures),
            unverified_clicks=totals.unverified_clicks,
            bot_clicks=totals.bot_clicks,
            invalid_clicks=totals.invalid_clicks,
            invalid_clicks_by_reason=totals.invalid_by_reason,
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
