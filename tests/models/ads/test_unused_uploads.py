"""Uploads a member never puts in a reservation are not kept for ever: past KEEP_UNUSED,
each new upload removes the oldest unused one, row and file (issue 26, finding 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from models.ads.images import KEEP_UNUSED, store_ad_image
from models.ads.months import add_months, month_of
from models.ads.reservations import Order, reserve
from models.clock import utcnow
from models.errors import ValidationError
from models.tables import AdImage
from tests.concurrency import at_once
from tests.factories import image_bytes, make_profile, make_upload, make_user
from tests.fakes.ad_pages import PAGES


def files(settings) -> set[str]:
    folder = Path(settings.upload_dir)
    if not folder.exists():
        return set()
    return {p.name for p in folder.iterdir() if not p.name.startswith(".")}


def order(user, image_url: str) -> Order:
    return Order(
        slot="video-detail-below-player",
        country="JP",
        start_month=add_months(month_of(utcnow()), 1),
        months=1,
        advertiser_name="Kitchen & Code",
        image_url=image_url,
        redirect_url="https://example.com/",
        consent=True,
        profile_id=make_profile(user).id,
    )


def test_a_member_keeps_only_the_newest_unused_uploads(settings):
    # Given a member who uploads many more images than they ever use
    user = make_user()
    before = files(settings)
    urls = [make_upload(user) for _ in range(KEEP_UNUSED + 5)]
    # Then only the newest KEEP_UNUSED are kept, in the table and on disk
    kept = {row.name for row in AdImage.select()}
    newest = {url.rsplit("/", 1)[1] for url in urls[-KEEP_UNUSED:]}
    assert kept == newest
    assert files(settings) - before == newest


def test_an_upload_used_in_a_reservation_is_never_removed(settings):
    # Given a member whose first upload is in a reservation
    user = make_user()
    used = make_upload(user)
    reserve(user.id, order(user, used), PAGES)
    # When they upload many more
    for _ in range(KEEP_UNUSED + 3):
        make_upload(user)
    # Then the used one stays, beside the newest unused ones
    names = {row.name for row in AdImage.select()}
    assert used.rsplit("/", 1)[1] in names
    assert len(names) == KEEP_UNUSED + 1


def test_another_members_uploads_are_not_touched():
    first, second = make_user(), make_user()
    theirs = [make_upload(first) for _ in range(3)]
    for _ in range(KEEP_UNUSED + 2):
        make_upload(second)
    kept = {row.name for row in AdImage.select().where(AdImage.user == first.id)}
    assert kept == {url.rsplit("/", 1)[1] for url in theirs}


def test_uploads_at_once_still_leave_at_most_the_newest_unused():
    user = make_user()
    data = image_bytes()
    outcomes = at_once(lambda _: store_ad_image(user.id, data), list(range(KEEP_UNUSED + 10)))
    assert [o for o in outcomes if isinstance(o, Exception)] == []
    assert AdImage.select().where(AdImage.user == user.id).count() == KEEP_UNUSED


def test_a_reservation_whose_upload_was_removed_in_the_meantime_is_refused(monkeypatch):
    # Given an order whose image passed the first check, then was removed
    user = make_user()
    url = make_upload(user)
    AdImage.delete().execute()
    monkeypatch.setattr("models.ads.reservations._image_problem", lambda *_: None)
    # When it is placed
    with pytest.raises(ValidationError) as refused:
        reserve(user.id, order(user, url), PAGES)
    # Then it is refused on the image, and no position is held
    assert refused.value.fields == {"image_url": "must be an image you uploaded to this service"}
