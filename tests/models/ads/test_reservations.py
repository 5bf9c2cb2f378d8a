"""Reservations: every rejection, position assignment, review, hold release, expiry."""

from __future__ import annotations

import urllib.parse
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from models.ads import admin
from models.ads.checkout import mark_paid
from models.ads.months import add_months, month_of
from models.ads.profiles import ProfileFields, update_profile
from models.ads.reservations import (
    InvalidStatus,
    NotPaid,
    Order,
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
from models.tables import (
    AdCheckout,
    AdClickLog,
    AdImpressionDaily,
    AdReservation,
    AdvertiserProfile,
)
from tests.concurrency import at_once
from tests.factories import make_profile, make_upload, make_user
from tests.fakes.ad_pages import PAGES
from web.devtools.local_payments.engine import LocalCheckoutSession

NEXT = add_months(month_of(utcnow()), 1)


@pytest.fixture
def buyer():
    user = make_user()
    return user, make_profile(user), make_upload(user)


def order(buyer, **changes) -> Order:
    _user, profile, image = buyer
    usual = Order(
        slot="search-result-bottom",
        country="JP",
        start_month=NEXT,
        months=1,
        advertiser_name="山田商店",
        image_url=image,
        redirect_url="https://example.jp/shop",
        consent=True,
        profile_id=profile.id,
    )
    return replace(usual, **changes)


def rejected(buyer, **changes):
    with pytest.raises(ValidationError) as error:
        reserve(buyer[0].id, order(buyer, **changes), PAGES)
    assert AdReservation.select().count() == 0
    return error.value.fields


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"slot": "sidebar"}, "slot"),
        ({"country": "XX"}, "country"),
        ({"country": "T1"}, "country"),
        ({"country": "US"}, "country"),  # a real country without a price
        ({"start_month": month_of(utcnow())}, "start_month"),
        ({"start_month": "2027-13"}, "start_month"),
        ({"start_month": "\u0662\u0660\u0662\u0667-01"}, "start_month"),  # Arabic-Indic digits
        ({"start_month": add_months(NEXT, 5 * 12 + 1)}, "start_month"),
        ({"months": 0}, "months"),
        ({"months": 13}, "months"),
        ({"advertiser_name": "あ" * 31}, "advertiser_name"),
        ({"advertiser_name": "山田\n商店"}, "advertiser_name"),
        ({"advertiser_name": "山田商店の広告"}, "advertiser_name"),
        ({"advertiser_name": "ＡＤ山田"}, "advertiser_name"),
        ({"advertiser_name": "公式ストア"}, "advertiser_name"),
        ({"advertiser_name": "subsearch 特集"}, "advertiser_name"),
        ({"redirect_url": "javascript:alert(1)"}, "redirect_url"),
        ({"redirect_url": "ftp://example.jp"}, "redirect_url"),
        ({"redirect_url": "https://"}, "redirect_url"),
        ({"consent": False}, "consent"),
        ({"image_url": "https://elsewhere.example/a.png"}, "image_url"),
        ({"image_url": "/uploads/not-a-real-upload.png"}, "image_url"),
        ({"profile_id": "someone-elses"}, "profile_id"),
        ({"profile_id": None}, "profile_id"),
    ],
)
def test_each_rejection_names_its_field(buyer, change, field):
    assert field in rejected(buyer, **change)


def test_every_rule_broken_is_named_at_once(buyer):
    fields = rejected(buyer, slot="sidebar", months=0, consent=False, image_url="/nope.png")
    assert set(fields) == {"slot", "months", "consent", "image_url"}


def test_reserve_takes_an_order_not_a_request_body(buyer):
    # Given the body a client sends, camelCase keys and all
    user, profile, image = buyer
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
    # When it is handed to the domain as it is, then the domain does not read it
    with pytest.raises(AttributeError):
        reserve(user.id, body, PAGES)
    assert AdReservation.select().count() == 0
    # And the order made from it (as the API's view makes it) is placed
    placed = reserve(user.id, order(buyer), PAGES)
    assert placed.reservation.status == "pending_review"


def test_thirty_characters_and_advance_pass(buyer):
    reservation, _ = reserve(
        buyer[0].id, order(buyer, advertiser_name="ADVANCE" + "あ" * 23), PAGES
    )
    assert reservation.advertiser_name == "ADVANCE" + "あ" * 23


def test_another_users_upload_is_not_ours(buyer):
    other = make_user()
    assert "image_url" in rejected(buyer, image_url=make_upload(other))


def test_a_new_profile_in_the_order_is_validated_and_created(buyer):
    bad = ProfileFields("株式会社新", "大阪府大阪市1-1", "佐藤", "sato", "food_beverage")
    fields = rejected(buyer, profile_id=None, profile=bad)
    assert fields == {"profile.contact_email": "not an e-mail address"}
    new = replace(bad, contact_email="sato@example.jp")
    reservation, _ = reserve(buyer[0].id, order(buyer, profile_id=None, profile=new), PAGES)
    created = AdvertiserProfile.get_by_id(reservation.advertiser_profile_id)
    assert created.user_id == buyer[0].id
    assert reservation.contact_email == "sato@example.jp"


def test_the_profile_is_a_snapshot(buyer):
    reservation, _ = reserve(buyer[0].id, order(buyer), PAGES)
    update_profile(
        buyer[0].id,
        buyer[1].id,
        {"contact_email": "new@example.jp", "business_legal_name": "新社名"},
    )
    kept = AdReservation.get_by_id(reservation.id)
    assert (kept.contact_email, kept.business_legal_name) == ("ads@example.jp", "株式会社テスト")


def test_a_reservation_is_pending_unpaid_with_a_checkout_of_one_line(buyer):
    reservation, url = reserve(buyer[0].id, order(buyer, months=3), PAGES)
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
            start_month=start,
            months=months,
            slot=slot,
        ),
        PAGES,
    )[0]


def test_positions_one_to_four_in_order_and_the_fifth_is_refused():
    assert [buy().position for _ in range(4)] == [1, 2, 3, 4]
    with pytest.raises(SlotFull):
        buy()
    assert AdReservation.select().count() == 4
    assert buy(slot="search-result-midroll").position == 1  # other slots are separate


def test_a_stopped_position_stays_taken_and_nothing_moves_up():
    first, second, third = buy(), buy(), buy()
    mark_paid(second.id, "pi_second")
    stop(second.id, "規約違反", PAGES)
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
    outcomes = at_once(lambda b: reserve(b[0].id, order(b), PAGES)[0], buyers)
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
        stop(reservation.id, "  ", PAGES)
    assert "reason" in error.value.fields
    stopped, notice = stop(reservation.id, "誤解を招く表現", PAGES)
    assert (stopped.status, stopped.stopped_reason) == ("stopped", "誤解を招く表現")
    assert stopped.stopped_at is not None
    assert notice.to == "ads@example.jp"
    assert notice.created_at == stopped.stopped_at
    body = notice.body
    for fact in [
        reservation.id,
        "広告枠: 検索結果下部\n",
        "掲載位置: 1",
        "配信国: 日本",
        f"{NEXT} 〜 {add_months(NEXT, 1)}",
        "誤解を招く表現",
        "返金はいたしません",
        "お問い合わせ: ads@",
        PAGES.reservation(reservation.id),
    ]:
        assert fact in body
    assert reservation.id in notice.subject
    link = urllib.parse.urlsplit(notice.mailto)
    assert (link.scheme, link.path) == ("mailto", "ads@example.jp")
    query = urllib.parse.parse_qs(link.query)
    assert query["subject"] == [notice.subject] and query["body"] == [body]
    with pytest.raises(InvalidStatus):
        stop(reservation.id, "again", PAGES)


def test_a_pending_reservation_can_be_stopped_as_a_rejection():
    assert stop(buy().id, "画像が不適切", PAGES)[0].status == "stopped"


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
    assert len(data.months) == 13 and data.months[0] == month_of(utcnow())
    row = next(
        r for r in data.rows if (r.slot, r.position, r.country) == ("search-result-bottom", 1, "JP")
    )
    assert [c and c.advertiser_name for c in row.cells[:4]] == [
        None,
        "山田商店",
        "山田商店",
        None,
    ]
    midroll = next(r for r in data.rows if r.slot == "search-result-midroll")
    assert all(c is None for c in midroll.cells)


def test_the_admin_list_filters_and_carries_measurements():
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
    rows = {r.reservation.id: r.figures for r in admin.list_reservations()}
    assert (rows[a.id].impressions, rows[a.id].clicks, rows[a.id].ctr) == (50, 1, 0.02)
    assert (rows[b.id].impressions, rows[b.id].ctr) == (0, None)
    narrowed = admin.list_reservations(slot="video-detail-below-player")
    assert [r.reservation.id for r in narrowed] == [b.id]
    assert admin.list_reservations(status="active") == []
    with pytest.raises(ValidationError) as error:
        admin.list_reservations(status="paid", slot="sidebar", country="XX")
    assert set(error.value.fields) == {"status", "slot", "country"}


def test_revenue_sums_ad_payments_by_month_and_country():
    for months in (1, 3):
        reservation = buy(months=months)
        get_provider().complete(AdCheckout.get_by_id(reservation.id).checkout_session_id)
    result = admin.revenue()
    month = month_of(utcnow())
    assert result.by_month == [admin.RevenueRow(month, "JP", "jpy", 200_000, 2)]
    assert result.totals == [admin.RevenueTotal("jpy", 200_000)]
