"""Clicks without a valid view token (issue 42): each is logged with its reason and
still sends the visitor on, but is in no advertiser's clicks or CTR; the admin report
shows them apart, as invalid traffic, by reason (docs/ads.md, Clicks)."""

from __future__ import annotations

import uuid
from datetime import timedelta
from urllib.parse import parse_qs, urlsplit

import pytest

from models.ads import view_tokens
from models.ads.delivery import clear_process_cache
from models.clock import utcnow
from models.tables import AdClickLog, AdImpressionDaily
from tests.factories import make_admin, make_live_ad, make_user, sign_in
from tests.fixtures import drain_beacons

BROWSER = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/130 Safari/537.36"
SEEN = {"User-Agent": BROWSER, "Edge-IPCountry": "JP"}
LANDING = "https://advertiser.example/landing"


@pytest.fixture(autouse=True)
def fresh_cache():
    clear_process_cache()


@pytest.fixture
def owner():
    return make_user()


@pytest.fixture
def ad(owner):
    """A live ad of this month with 100 impressions today."""
    reservation = make_live_ad(user=owner, redirect_url=LANDING)
    AdImpressionDaily.create(
        id=str(uuid.uuid4()),
        ad_reservation=reservation,
        date=utcnow().date().isoformat(),
        country="JP",
        impressions=100,
    )
    return reservation


def served_token(client, reservation) -> str:
    """The view token of the reservation's ad in a fresh serve answer."""
    query = f"/api/ads/serve?slot={reservation.slot_id}&country=JP"
    ad = client.get(query).get_json()["positions"][reservation.position - 1]["ad"]
    return parse_qs(urlsplit(ad["clickUrl"]).query)["v"][0]


def bad_token(client, ad, kind: str) -> str | None:
    """A view token of each kind a hostile or stale click brings."""
    if kind == "missing":
        return None
    if kind == "empty":
        return ""
    genuine = served_token(client, ad)
    if kind == "forged":  # the MAC changed
        return genuine[:-2] + ("AA" if not genuine.endswith("AA") else "BB")
    if kind == "made_up":
        return "x" * 44
    if kind == "garbage":
        return "'\"<script>"
    if kind == "other_reservation":
        other = make_live_ad(position=4, redirect_url="https://other.example/")
        return served_token(client, other)
    assert kind == "expired"
    an_hour_ago = utcnow() - timedelta(hours=1)
    return view_tokens.make(ad.id, ad.position, view_tokens.new_render_id(), now=an_hour_ago)


def click(client, ad, token: str | None):
    query = "" if token is None else f"?v={token}"
    return client.get(f"/api/ad-click/{ad.id}{query}", headers=SEEN)


def advertiser_figures(app, owner, ad) -> tuple[int, float | None, int]:
    """(clicks, CTR) of the advertiser's list, and the clicks of its daily chart."""
    advertiser = app.test_client()
    sign_in(advertiser, owner)
    [listed] = advertiser.get("/api/ads/reservations").get_json()["reservations"]
    daily = advertiser.get(f"/api/ads/reservations/{ad.id}").get_json()["daily"]
    return listed["clicks"], listed["ctr"], sum(day["clicks"] for day in daily)


def admin_report(app) -> dict:
    admin = app.test_client()
    sign_in(admin, make_admin())
    return admin.get("/api/admin/ads/report").get_json()


@pytest.mark.parametrize(
    ("kind", "reason"),
    [
        ("missing", "missing_token"),
        ("empty", "missing_token"),
        ("forged", "bad_token"),
        ("made_up", "bad_token"),
        ("garbage", "bad_token"),
        ("other_reservation", "bad_token"),
        ("expired", "expired_token"),
    ],
)
def test_a_click_without_a_valid_token_is_logged_and_redirected_but_not_counted(
    app, client, owner, ad, kind, reason
):
    # Given an ad seen 100 times, and a click carrying a bad view token
    token = bad_token(client, ad, kind)
    # When it arrives and the counter reads the stream
    response = click(client, ad, token)
    assert drain_beacons() == 1
    # Then the visitor goes on, and the click is logged with why it is invalid
    assert (response.status_code, response.headers["Location"]) == (302, LANDING)
    [row] = AdClickLog.select().where(AdClickLog.ad_reservation == ad.id)
    assert (row.invalid_reason, row.is_bot, row.is_repeat) == (reason, False, False)
    # And the advertiser's clicks and CTR do not move
    assert advertiser_figures(app, owner, ad) == (0, 0.0, 0)
    # And the admin report shows it apart, by reason, and not in its clicks or CTR
    report = admin_report(app)
    [row_of_ad] = [r for r in report["reservations"] if r["id"] == ad.id]
    assert (row_of_ad["clicks"], row_of_ad["ctr"]) == (0, 0.0)
    assert (row_of_ad["invalidClicks"], row_of_ad["invalidClicksByReason"]) == (1, {reason: 1})
    totals = report["totals"]
    assert (totals["clicks"], totals["invalidClicks"]) == (0, 1)
    assert totals["invalidClicksByReason"] == {reason: 1}
    assert report["dailyTrend"][0]["clicks"] == 0


def test_a_click_through_the_served_url_counts_as_before(app, client, owner, ad):
    # Given a click through the URL of a fresh render
    token = served_token(client, ad)
    # When it arrives and is counted
    assert click(client, ad, token).status_code == 302
    assert drain_beacons() == 1
    # Then it counts for the advertiser and in the report, and nothing is invalid
    [row] = AdClickLog.select()
    assert (row.view_token, row.invalid_reason) == (token, None)
    assert advertiser_figures(app, owner, ad) == (1, 0.01, 1)
    totals = admin_report(app)["totals"]
    assert (totals["clicks"], totals["ctr"]) == (1, 0.01)
    assert (totals["invalidClicks"], totals["invalidClicksByReason"]) == (0, {})


def test_four_hundred_tokenless_clicks_leave_the_ctr_where_it_was(app, client, owner, ad):
    # Given four real clicks on 100 impressions (CTR 0.04)
    for _ in range(4):
        assert click(client, ad, served_token(client, ad)).status_code == 302
    # When 400 clicks come without a token and 10 with forged ones (the measured attack)
    for _ in range(400):
        assert click(client, ad, None).status_code == 302
    for n in range(10):
        assert click(client, ad, f"{n:044d}").status_code == 302
    drain_beacons()
    # Then every click is logged, the CTR stays 0.04, and the report names the rest
    assert AdClickLog.select().count() == 414
    assert advertiser_figures(app, owner, ad) == (4, 0.04, 4)
    totals = admin_report(app)["totals"]
    assert (totals["clicks"], totals["ctr"]) == (4, 0.04)
    assert totals["invalidClicks"] == 410
    assert totals["invalidClicksByReason"] == {"missing_token": 400, "bad_token": 10}


def test_the_same_valid_token_replayed_counts_one_click(app, client, owner, ad):
    # Given one render's click URL requested 50 times
    token = served_token(client, ad)
    for _ in range(50):
        assert click(client, ad, token).status_code == 302
    drain_beacons()
    # Then each is logged, one counts, and the rest are repeats (not invalid traffic)
    assert AdClickLog.select().count() == 50
    assert advertiser_figures(app, owner, ad) == (1, 0.01, 1)
    totals = admin_report(app)["totals"]
    assert (totals["clicks"], totals["invalidClicks"]) == (1, 0)


def test_the_admin_report_page_lists_invalid_clicks_by_reason_in_japanese(app, client, ad):
    # Given a valid click, two without a token and one expired
    click(client, ad, served_token(client, ad))
    click(client, ad, None)
    click(client, ad, None)
    click(client, ad, bad_token(client, ad, "expired"))
    drain_beacons()
    admin = app.test_client()
    sign_in(admin, make_admin())
    # When the administrator opens the report page
    html = admin.get("/admin/ads/report", headers={"Accept-Language": "ja"}).get_data(as_text=True)
    # Then the clicks count one, and the invalid ones are apart, by reason
    assert "<strong data-total-clicks>1</strong>" in html
    assert "<strong data-total-invalid-clicks>3</strong>" in html
    assert "無効なトラフィック" in html
    assert '<tr data-reason="missing_token"><td>表示証明なし</td><td>2</td></tr>' in html
    expired = "<td>表示から時間が経ちすぎたクリック</td><td>1</td>"
    assert f'<tr data-reason="expired_token">{expired}</tr>' in html
