"""The stop notice names the ad as the advertiser knows it: the slot by its display
name, never its id, and the service's configured contact address."""

from __future__ import annotations

from dataclasses import replace

import pytest

from models.ads import SLOT_IDS, slot_names
from models.ads.notices import build_stop_notification_email
from models.settings import get_settings, use_settings
from tests.factories import make_reservation


@pytest.fixture
def configured_contact():
    previous = get_settings()
    use_settings(replace(previous, support_email="help@subsearch.example"))
    yield "help@subsearch.example"
    use_settings(previous)


@pytest.mark.parametrize("slot", SLOT_IDS)
def test_the_notice_names_the_slot_and_the_configured_contact(slot, configured_contact):
    reservation = make_reservation(slot=slot, position=3, contact_email="shop@example.jp")
    notice = build_stop_notification_email(reservation, "誤解を招く表現", "https://x.example/ads/1")
    assert f"広告枠: {slot_names()[slot]}\n" in notice.body
    for raw in SLOT_IDS:
        assert raw not in notice.body and raw not in notice.subject
    assert f"お問い合わせ: {configured_contact}" in notice.body
    assert "ミッドロール" not in notice.body
    assert notice.to == "shop@example.jp"
