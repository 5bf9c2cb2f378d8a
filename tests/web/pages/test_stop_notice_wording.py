"""The advertiser's stopped ad shows the stop notice as one an administrator sends by
hand: the service sends no mail, so the page must not say it sent one (issue 48)."""

from __future__ import annotations

import pytest

from models.ads.reservations import stop
from tests.factories import make_reservation, make_user, sign_in
from tests.fakes.ad_pages import PAGES


@pytest.mark.parametrize(
    ("language", "said", "not_said"),
    [
        (
            "ja",
            "宛ての停止のお知らせ（管理者からメールでお送りします）",
            ("送った", "送りました", "送信しました"),
        ),
        (
            "en",
            "The stop notice to stopped48@example.jp (an administrator sends it by e-mail)",
            ("sent to", "was sent"),
        ),
    ],
)
def test_the_stop_notice_is_one_an_administrator_sends(client, language, said, not_said):
    owner = make_user(email="stopped48@example.jp")
    reservation = make_reservation(owner, status="active", contact_email="stopped48@example.jp")
    stop(reservation.id, "理由", PAGES)
    sign_in(client, owner)
    page = client.get(f"/ads/{reservation.id}", headers={"Accept-Language": language}).text
    summary = page.split("data-stop-notice", 1)[1].split("</summary>", 1)[0]
    assert said in summary
    assert [words for words in not_said if words in summary] == []
