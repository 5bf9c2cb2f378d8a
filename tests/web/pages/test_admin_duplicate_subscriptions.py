"""Second subscriptions the payment provider refused to cancel and refund, as admins read
them on the admin page: the member, both subscriptions, the plan, when it was found and
the provider's answer, in the reader's language and time zone; "none" when none wait."""

from __future__ import annotations

import re
from html import unescape

from models.tables import DuplicateSubscription
from tests.factories import make_admin, make_user, sign_in
from tests.web.api.test_index_check_admin import admin_page
from tests.web.test_i18n import english_on, japanese_on

REFUSED = "The provider refused: Charge ch_1 has been charged back; cannot issue a refund."


def make_duplicate(member, **overrides) -> DuplicateSubscription:
    values = {
        "payment_subscription_id": "sub_second0001",
        "reference_id": member.id,
        "kept_subscription_id": "sub_kept00001",
        "plan": "pro",
        "status": "needs_operator",
        "detail": REFUSED,
        "created_at": "2026-11-24T09:16:00.000Z",
    }
    values.update(overrides)
    return DuplicateSubscription.create(**values)


def listed(html: str) -> list[str]:
    return re.findall(r'<table class="grid" data-duplicate="([^"]+)">', html)


def duplicate_table(html: str, subscription_id: str) -> dict[str, str]:
    """The table of one duplicate as {label: value}, tags stripped."""
    table = re.search(rf'data-duplicate="{subscription_id}">(.*?)</table>', html, re.S)
    assert table, subscription_id
    rows = re.findall(r'<th scope="row">(.*?)</th><td[^>]*>(.*?)</td>', table.group(1), re.S)
    return {unescape(k): unescape(re.sub(r"<[^>]+>", "", v)).strip() for k, v in rows}


def test_with_none_to_settle_the_section_says_none(client):
    # given a duplicate the provider refunded, and one still being cancelled
    member = make_user()
    make_duplicate(member, payment_subscription_id="sub_done", status="refunded")
    make_duplicate(member, payment_subscription_id="sub_busy", status="cancelling")
    sign_in(client, make_admin())
    html = admin_page(client)
    assert ">要対応の二重契約</h2>" in html
    assert "<p data-no-duplicates>なし</p>" in html
    assert listed(html) == []


def test_a_refused_duplicate_is_listed_in_japanese_and_tokyo_time(client):
    member = make_user(email="second-payer@example.jp")
    make_duplicate(member)
    sign_in(client, make_admin())
    html = admin_page(client)
    assert english_on(html) == []
    assert "data-no-duplicates" not in html
    assert duplicate_table(html, "sub_second0001") == {
        "会員": "second-payer@example.jp",
        "二重契約": "sub_second0001",
        "プラン": "プロ",
        "残す契約": "sub_kept00001",
        "検出日時": "2026/11/24 18:16 JST",
        "拒否理由": REFUSED,
    }
    assert "決済サービスで1件ずつ確認し、手作業で解約・返金してください。" in html


def test_only_those_left_for_the_operator_are_listed_oldest_first(client):
    member = make_user()
    make_duplicate(
        member, payment_subscription_id="sub_later", created_at="2026-11-25T00:00:00.000Z"
    )
    make_duplicate(member, payment_subscription_id="sub_done", status="refunded")
    make_duplicate(
        member, payment_subscription_id="sub_first", created_at="2026-11-20T00:00:00.000Z"
    )
    sign_in(client, make_admin())
    assert listed(admin_page(client)) == ["sub_first", "sub_later"]


def test_without_a_stored_answer_there_is_no_answer_row(client):
    make_duplicate(make_user(), detail=None)
    sign_in(client, make_admin())
    assert "拒否理由" not in duplicate_table(admin_page(client), "sub_second0001")


def test_a_member_no_longer_known_is_shown_by_id(client):
    make_duplicate(make_user(), reference_id="user-gone-1")
    sign_in(client, make_admin())
    assert duplicate_table(admin_page(client), "sub_second0001")["会員"] == "user-gone-1"


def test_in_english_it_shows_utc_and_no_japanese(client):
    make_duplicate(make_user(email="second-payer@example.jp"), plan="plus")
    sign_in(client, make_admin(locale="en"))
    html = admin_page(client, "en")
    assert japanese_on(html) == []
    assert ">Second subscriptions to settle</h2>" in html
    assert duplicate_table(html, "sub_second0001") == {
        "Member": "second-payer@example.jp",
        "Duplicate": "sub_second0001",
        "Plan": "Plus",
        "Kept": "sub_kept00001",
        "Found at": "Nov 24, 2026 09:16 UTC",
        "Refusal": REFUSED,
    }


def test_in_english_none_reads_none(client):
    sign_in(client, make_admin(locale="en"))
    assert "<p data-no-duplicates>None</p>" in admin_page(client, "en")
