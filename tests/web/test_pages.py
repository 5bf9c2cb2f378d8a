"""The pages people read: search results, a video with its subtitles, the account."""

from __future__ import annotations

import pytest

from models import ingest
from models.credits import unlock_video
from tests.factories import make_admin, make_reservation, make_user, sign_in
from tests.fakes.platform_files import manual

CH = "UCpagetestpagetestpage01"


@pytest.fixture
def indexed(platform_files):
    platform_files.channel(CH, ["pageVideo01"], title="ページのチャンネル")
    platform_files.video(
        "pageVideo01", CH, manual("大阪の<b>夜景</b>です。", "きれいですね。"), title="大阪の夜"
    )
    ingest.import_channel(CH)
    ingest.fetch_subtitles("pageVideo01")


def test_search_page_shows_highlighted_escaped_results(client, indexed):
    page = client.get("/search?q=大阪").get_data(as_text=True)
    assert 'data-video-id="pageVideo01"' in page
    assert "<mark>大阪</mark>の&lt;b&gt;夜景&lt;/b&gt;" in page
    assert 'data-total-hits="2"' in page


def test_search_page_without_hits_and_without_a_query(client, indexed):
    assert "見つかりませんでした" in client.get("/search?q=存在しない言葉").get_data(as_text=True)
    assert client.get("/search").status_code == 302
    assert client.get("/search?q=a&sort=best").status_code == 400


def test_video_page_locks_then_shows_subtitles_after_unlock(client, indexed):
    user = make_user()
    assert "ログイン" in client.get("/videos/pageVideo01").get_data(as_text=True)
    sign_in(client, user)
    locked = client.get("/videos/pageVideo01").get_data(as_text=True)
    assert "1 クレジットで解除" in locked
    assert "きれいですね" not in locked
    unlock_video(user.id, "pageVideo01")
    opened = client.get("/videos/pageVideo01").get_data(as_text=True)
    assert "きれいですね" in opened
    assert "&lt;b&gt;夜景&lt;/b&gt;" in opened
    assert client.get("/videos/unknown0000").status_code == 404


def test_account_page_lists_history_and_favorites(client, indexed):
    sign_in(client, make_user())
    client.get("/search?q=大阪")
    client.put(f"/api/favorites/{CH}", content_type="application/json")
    page = client.get("/account").get_data(as_text=True)
    assert "大阪</a>" in page
    assert f'data-channel-id="{CH}"' in page


def test_purchase_form_and_admin_pages_render(client, app):
    assert client.get("/ads/new").status_code == 302  # sign in first
    sign_in(client, make_user())
    form = client.get("/ads/new").get_data(as_text=True)
    assert 'name="consent"' in form and "disabled" in form
    assert "最大 2 回" in form
    assert client.get("/admin/ads").status_code == 403
    admin = app.test_client()
    sign_in(admin, make_admin())
    assert "タイムライン" in admin.get("/admin/ads").get_data(as_text=True)
    assert "広告の売上" in admin.get("/admin/revenue").get_data(as_text=True)


def test_advertiser_and_report_pages(client, app):
    owner = make_user()
    reservation = make_reservation(owner, status="active")
    sign_in(client, owner)
    listing = client.get("/ads").get_data(as_text=True)
    assert f'data-reservation-id="{reservation.id}"' in listing
    detail = client.get(f"/ads/{reservation.id}").get_data(as_text=True)
    assert "<svg" in detail and "プレビュー" in detail
    other = app.test_client()
    sign_in(other, make_user())
    assert other.get(f"/ads/{reservation.id}").status_code == 404
    admin = app.test_client()
    sign_in(admin, make_admin())
    report = admin.get("/admin/ads/report?startDate=2027-01-01&endDate=2027-01-31")
    assert report.status_code == 200
    assert reservation.advertiser_name in report.get_data(as_text=True)
    assert admin.get("/admin/ads/report?startDate=2027-02-01&endDate=2027-01-01").status_code == 400
