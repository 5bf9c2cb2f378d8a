"""The pages under their Content-Security-Policy in a real browser: nothing they need is
refused, the moved scripts still work, and sign-in never leaves the site."""

from __future__ import annotations

import pytest

from models import ingest
from models.ads.delivery import clear_process_cache
from models.ads.months import month_of
from models.ads.reservations import approve
from models.clock import utcnow
from models.tables import User, UserVideoAccess
from tests.factories import make_admin, make_reservation, make_user
from tests.fakes.platform_files import manual

CH = "UCcspcspcspcspcspcspcsp1"
VIDEO = "cspVideo001"


@pytest.fixture
def video(platform_files):
    platform_files.channel(CH, [VIDEO])
    platform_files.video(VIDEO, CH, manual("字幕の一行目です。", "二行目です。"))
    ingest.import_channel(CH)
    ingest.fetch_subtitles(VIDEO)
    month = month_of(utcnow())
    for slot in ("video-detail-below-player", "search-result-bottom"):
        reservation = make_reservation(
            slot=slot, position=1, start_month=month, end_month=month, payment_intent_id="pi"
        )
        approve(reservation.id)
    clear_process_cache()
    return VIDEO


def sign_in_via_form(page, site, email, next_path=None):
    page.goto(f"{site}/login" + (f"?next={next_path}" if next_path else ""))
    page.fill("input[name=email]", email)
    page.click("#dev-login button[type=submit]")


def test_no_page_has_anything_refused(page, site, video, violations):
    make_admin(email="csp-admin@example.jp")
    pages = ["/", "/search?q=字幕", f"/videos/{video}", "/login", "/api/docs"]
    for path in pages:
        page.goto(f"{site}{path}")
        page.wait_for_load_state("load")
    sign_in_via_form(page, site, "csp-admin@example.jp")
    page.wait_for_url(f"{site}/")
    for path in [
        "/account",
        "/ads",
        "/ads/new",
        f"/videos/{video}",
        "/admin/",
        "/admin/ads",
        "/admin/ads/report",
        "/admin/revenue",
        "/api/docs",
    ]:
        page.goto(f"{site}{path}")
        page.wait_for_load_state("load")
    assert violations == []


def test_the_unlock_button_still_spends_and_shows_the_subtitles(page, site, video, violations):
    user = make_user(email="reader@example.jp", credit_balance=5, bonus_credit=0)
    sign_in_via_form(page, site, "reader@example.jp", next_path=f"/videos/{video}")
    page.wait_for_url(f"{site}/videos/{video}")
    # Pressed from the keyboard: a mouse click after scrolling can land in the player's
    # (refused, out-of-process) iframe in headless Chromium.
    page.locator("[data-unlock]").press("Enter")
    page.locator("ol.segments").filter(has_text="二行目です。").wait_for()
    assert User.get_by_id(user.id).credit_balance == 4
    assert UserVideoAccess.select().where(UserVideoAccess.user == user.id).count() == 1
    assert violations == []


@pytest.mark.parametrize("target", ["/%5Cevil.example/", "//evil.example", "/%09/evil.example"])
def test_signing_in_with_an_off_site_next_lands_on_the_home_page(page, site, target):
    make_user(email="next@example.jp")
    sign_in_via_form(page, site, "next@example.jp", next_path=target)
    page.wait_for_url(f"{site}/")
