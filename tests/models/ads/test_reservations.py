"""Reservations: every rejection, position assignment, review, hold release, expiry."""

from __future__ import annotations

import urllib.parse
from datetime import UTC, datetime, timedelta

import pytest

from models.ads import admin
from models.ads.checkout import record_payment
from models.ads.months import add_months, month_of
from models.ads.profiles import update_profile
from models.ads.reservations import (
    InvalidStatus,
    NotPaid,
    SlotFull,
    approve,
    expire_ended,
    release_unpaid_holds,
    reserve,
    stop,
)
from models.clock import utcnow
from models.errors import NotFound, ValidationError
from models.payments import get_provider
from models.payments.local_engine import LocalCheckoutSession
from models.tables import AdCheckout, AdReservation, AdvertiserProfile
from tests.concurrency import at_once
from tests.factories import make_profile, make_upload, make_user

NEXT = add_months(month_of(utcnow()), 1)


@pytest.fixture
def buyer():
    user = make_user()
    return user, make_profile(user), make_upload(user)


def order(buyer, **overrides):
    _user, profile, image = buyer
    body = {
        "profileId": profile.id,
        "slot": "search-result-bottom",
        "country": "JP",
        "startMonth": NEXT,
        "months": 1,
        "advertiserName": "山田商店",
        "imageUrl": image,
        "redirectUrl": "https://example.jp/shop",
        "consent": True,
    }
    body.update(overrides)
    return {k: v for k, v in body.items() if v is not ...}


def rejected(buyer, **overrides):
    with pytest.raises(ValidationError) as error:
        reserve(buyer[0].id, order(buyer, **overrides))
    assert AdReservation.select().count() == 0
    return error.value.fields


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"slot": "sidebar"}, "slot"),
        ({"country": "XX"}, "country"),
        ({"country": "T1"}, "country"),
        ({"country": "US"}, "country"),  # a real country without a price
        ({"startMonth": month_of(utcnow())}, "startMonth"),
        ({"startMonth": "2027-13"}, "startMonth"),
        ({"startMonth": ...}, "startMonth"),
        ({"months": 0}, "months"),
        ({"months": 13}, "months"),
        ({"months": "3"}, "months"),
        ({"months": True}, "months"),
        ({"advertiserName": "あ" * 31}, "advertiserName"),
        ({"advertiserName": "山田\n商店"}, "advertiserName"),
        ({"advertiserName": "山田商店の広告"}, "advertiserName"),
        ({"advertiserName": "ＡＤ山田"}, "advertiserName"),
        ({"advertiserName": "公式ストア"}, "advertiserName"),
        ({"advertiserName": "subsearch 特集"}, "advertiserName"),
        ({"redirectUrl": "javascript:alert(1)"}, "redirectUrl"),
        ({"redirectUrl": "ftp://example.jp"}, "redirectUrl"),
        ({"redirectUrl": "https://"}, "redirectUrl"),
        ({"consent": False}, "consent"),
        ({"consent": "yes"}, "consent"),
        ({"consent": ...}, "consent"),
        ({"imageUrl": "https://elsewhere.example/a.png"}, "imageUrl"),
        ({"imageUrl": "/uploads/not-a-real-upload.png"}, "imageUrl"),
        ({"profileId": "someone-elses"}, "profileId"),
        ({"profileId": ...}, "profileId"),
    ],
)
def test_each_rejection_names_its_field(buyer, change, field):
    assert field in rejected(buyer, **change)


def test_thirty_characters_and_advance_pass(buyer):
    reservation, _ = reserve(buyer[0].id, order(buyer, advertiserName="ADVANCE" + "あ" * 23))
    assert reservation.advertiser_name == "ADVANCE" + "あ" * 23


def test_another_users_upload_is_not_ours(buyer):
    other = make_user()
    assert "imageUrl" in rejected(buyer, imageUrl=make_upload(other))


def test_a_new_profile_in_the_body_is_validated_and_created(buyer):
    fields = rejected(buyer, profileId=..., profile={"businessLegalName": "株式会社新"})
    assert "profile.contactEmail" in fields
    new = {
        "businessLegalName": "株式会社新",
        "businessAddress": "大阪府大阪市1-1",
        "contactName": "佐藤",
        "contactEmail": "sato@example.jp",
        "businessCategory": "food_beverage",
    }
    reservation, _ = reserve(buyer[0].id, order(buyer, profileId=..., profile=new))
    created = AdvertiserProfile.get_by_id(reservation.advertiser_profile_id)
    assert created.user_id == buyer[0].id
    assert reservation.contact_email == "sato@example.jp"


def test_the_profile_is_a_snapshot(buyer):
    reservation, _ = reserve(buyer[0].id, order(buyer))
    update_profile(
        buyer[0].id, buyer[1].id, {"contactEmail": "new@example.jp", "businessLegalName": "新社名"}
    )
    kept = AdReservation.get_by_id(reservation.id)
    assert (kept.contact_email, kept.business_legal_name) == ("ads@example.jp", "株式会社テスト")


def test_a_reservation_is_pending_unpaid_with_a_checkout_of_one_line(buyer):
    reservation, url = reserve(buyer[0].id, order(buyer, months=3))
    assert (reservation.status, reservation.payment_intent_id) == ("pending_review", None)
    assert (reservation.start_month, reservation.end_month) == (NEXT, add_months(NEXT, 2))
    session_id = url.rsplit("/", 1)[1]
    session = LocalCheckoutSession.get_by_id(session_id)
    assert session.line_items == [{"price": "price_local_ad_jp", "quantity": 3}]
    assert session.metadata["ad_reservation_id"] == reservation.id
    assert session.amount_total == 150_000
    expected = utcnow() + timedelta(minutes=60)
    assert abs(session.expires_at - expected.timestamp()) < 60
    assert AdCheckout.get_by_id(reservation.id).checkout_session_id == session_id


def buy(start=NEXT, months=1, slot="search-result-bottom"):
    user = make_user()
    return reserve(
        user.id,
        order(
            (user, make_profile(user), make_upload(user)),
            startMonth=start,
            months=months,
            slot=slot,
        ),
    )[0]


def test_positions_one_to_four_in_order_and_the_fifth_is_refused():
    assert [buy().position for _ in range(4)] == [1, 2, 3, 4]
    with pytest.raises(SlotFull):
        buy()
    assert AdReservation.select().count() == 4
    assert buy(slot="search-result-midroll").position == 1  # other slots are separate


def test_a_stopped_position_stays_taken_and_nothing_moves_up():
    first, second, third = buy(), buy(), buy()
    record_payment(second.id, "pi_second")
    stop(second.id, "規約違反")
    assert buy().position == 4
    assert [r.position for r in AdReservation.select().order_by(AdReservation.created_at)] == [
        1,
        2,
        3,
        4,
    ]
    assert (first.position, third.position) == (1, 3)
    with pytest.raises(SlotFull):
        buy()


def test_overlapping_periods_get_distinct_positions():
    later = add_months(NEXT, 2)
    a = buy(start=NEXT, months=3)  # NEXT .. NEXT+2
    b = buy(start=later, months=2)  # NEXT+2 .. NEXT+3: overlaps a in NEXT+2
    c = buy(start=add_months(NEXT, 3), months=1)  # NEXT+3: a has ended, b holds 2
    assert (a.position, b.position, c.position) == (1, 2, 1)


def test_twenty_concurrent_buyers_for_the_last_position_get_one_reservation():
    for _ in range(3):
        buy()
    buyers = []
    for _ in range(20):
        user = make_user()
        buyers.append((user, make_profile(user), make_upload(user)))
    outcomes = at_once(lambda b: reserve(b[0].id, order(b))[0], buyers)
    won = [o for o in outcomes if isinstance(o, AdReservation)]
    full = [o for o in outcomes if isinstance(o, SlotFull)]
    assert len(won) == 1 and len(full) == 19
    assert won[0].position == 4
    assert AdReservation.select().count() == 4


def pay(reservation, intent="pi_test"):
    AdReservation.update(payment_intent_id=intent).where(
        AdReservation.id == reservation.id
    ).execute()


def test_approval_needs_payment():
    reservation = buy()
    with pytest.raises(NotPaid):
        approve(reservation.id)
    pay(reservation)
    assert approve(reservation.id).status == "active"
    with pytest.raises(InvalidStatus):
        approve(reservation.id)
    with pytest.raises(NotFound):
        approve("nope")


def test_stop_needs_a_reason_and_builds_the_notice():
    reservation = buy(months=2)
    pay(reservation)
    approve(reservation.id)
    with pytest.raises(ValidationError) as error:
        stop(reservation.id, "  ")
    assert "reason" in error.value.fields
    stopped, notice = stop(reservation.id, "誤解を招く表現")
    assert (stopped.status, stopped.stopped_reason) == ("stopped", "誤解を招く表現")
    assert stopped.stopped_at is not None
    assert notice["to"] == "ads@example.jp"
    body = notice["body"]
    for fact in [
        reservation.id,
        "search-result-bottom",
        "掲載位置: 1",
        "配信国: JP",
        f"{NEXT} 〜 {add_months(NEXT, 1)}",
        "誤解を招く表現",
        "返金はいたしません",
        "お問い合わせ: ads@",
    ]:
        assert fact in body
    assert reservation.id in notice["subject"]
    link = urllib.parse.urlsplit(notice["mailto"])
    assert (link.scheme, link.path) == ("mailto", "ads@example.jp")
    query = urllib.parse.parse_qs(link.query)
    assert query["subject"] == [notice["subject"]] and query["body"] == [body]
    with pytest.raises(InvalidStatus):
        stop(reservation.id, "again")


def test_a_pending_reservation_can_be_stopped_as_a_rejection():
    assert stop(buy().id, "画像が不適切")[0].status == "stopped"


def test_unpaid_holds_are_released_after_the_ttl_but_never_paid_ones():
    unpaid, paid = buy(), buy()
    pay(paid)
    assert release_unpaid_holds() == []  # within the TTL
    later = utcnow() + timedelta(minutes=61)
    get_provider().expire_due(int(later.timestamp()))
    assert release_unpaid_holds(later) == [unpaid.id]
    assert not AdReservation.select().where(AdReservation.id == unpaid.id).exists()
    assert AdReservation.get_by_id(paid.id).status == "pending_review"
    assert buy().position == 1  # the released position is free again


def test_a_checkout_paid_whose_event_is_late_is_recorded_not_released():
    reservation = buy()
    session_id = AdCheckout.get_by_id(reservation.id).checkout_session_id
    get_provider().complete(session_id)  # paid; the webhook has not arrived
    assert release_unpaid_holds(utcnow() + timedelta(minutes=61)) == []
    assert AdReservation.get_by_id(reservation.id).payment_intent_id.startswith("pi_local_")


def test_expiry_at_the_month_boundary():
    reservation = buy(months=1)
    pay(reservation)
    approve(reservation.id)
    end = datetime.strptime(reservation.end_month, "%Y-%m").replace(tzinfo=UTC)
    last_moment = add_months(reservation.end_month, 1)
    still = datetime.strptime(last_moment, "%Y-%m").replace(tzinfo=UTC) - timedelta(seconds=1)
    assert expire_ended(end) == 0
    assert expire_ended(still) == 0
    assert expire_ended(still + timedelta(seconds=1)) == 1
    assert AdReservation.get_by_id(reservation.id).status == "expired"
    assert expire_ended(still + timedelta(days=40)) == 0


def test_the_timeline_shows_active_names_month_by_month():
    active = buy(months=2)
    pay(active)
    approve(active.id)
    buy(slot="search-result-midroll")  # pending: not on the timeline
    data = admin.timeline()
    assert len(data["months"]) == 13 and data["months"][0] == month_of(utcnow())
    row = next(
        r
        for r in data["rows"]
        if (r["slot"], r["position"], r["country"]) == ("search-result-bottom", 1, "JP")
    )
    assert [c and c["advertiserName"] for c in row["cells"][:4]] == [
        None,
        "山田商店",
        "山田商店",
        None,
    ]
    midroll = next(r for r in data["rows"] if r["slot"] == "search-result-midroll")
    assert all(c is None for c in midroll["cells"])


def test_the_admin_list_filters_and_carries_measurements():
    from models.tables import AdClickLog, AdImpressionDaily

    a, b = buy(), buy(slot="video-detail-below-player")
    AdImpressionDaily.create(
        id="i1", ad_reservation=a, date=f"{NEXT}-01", country="JP", impressions=40
    )
    AdImpressionDaily.create(
        id="i2", ad_reservation=a, date=f"{NEXT}-02", country="JP", impressions=10
    )
    AdClickLog.create(
        id="c1", ad_reservation=a, country="JP", created_at=f"{NEXT}-03T10:00:00.000Z"
    )
    rows = {r["id"]: r for r in admin.list_reservations()}
    assert (rows[a.id]["impressions"], rows[a.id]["clicks"], rows[a.id]["ctr"]) == (50, 1, 0.02)
    assert (rows[b.id]["impressions"], rows[b.id]["ctr"]) == (0, None)
    assert [r["id"] for r in admin.list_reservations(slot="video-detail-below-player")] == [b.id]
    assert admin.list_reservations(status="active") == []
    with pytest.raises(ValidationError):
        admin.list_reservations(status="paid")


def test_revenue_sums_ad_payments_by_month_and_country():
    for months in (1, 3):
        reservation = buy(months=months)
        get_provider().complete(AdCheckout.get_by_id(reservation.id).checkout_session_id)
    result = admin.revenue()
    month = month_of(utcnow())
    assert result["adRevenue"] == [
        {
            "month": month,
            "country": "JP",
            "currency": "jpy",
            "amountReceived": 200_000,
            "payments": 2,
        }
    ]
    assert result["totals"] == [{"currency": "jpy", "amountReceived": 200_000}]
