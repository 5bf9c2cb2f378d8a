"""Demo data for a first run (`subsearch sample load`, outside production): an
advertiser with an approved, paid ad on two slots this month, an admin account, and a
little click and impression history, so direct ads, reports and charts show at once.

Everything goes through the domain functions (reserve, the local provider's checkout,
mark_paid, approve, record_impression, record_click) and is safe to run again: the
accounts are found by e-mail, a slot the demo advertiser already holds this month is
left alone, a day that has impressions is not counted again, and every event has an id
derived from its reservation, day and number, so a second run adds nothing. With a
real payment provider no demo ad is bought (never a real charge).
"""

from __future__ import annotations

import io
import uuid
from dataclasses import dataclass
from datetime import datetime, time, timedelta

from PIL import Image, ImageDraw, ImageFont

from models.ads import view_tokens
from models.ads.checkout import mark_paid
from models.ads.images import store_ad_image
from models.ads.measurement import Click, record_click, record_impression
from models.ads.months import add_months, first_day, month_of
from models.ads.profiles import ProfileFields
from models.ads.reservations import AdPages, Order, SlotFull, approve, reserve
from models.clock import iso, utcnow
from models.payments import get_provider
from models.tables import AdCheckout, AdImpressionDaily, AdReservation, User
from models.users import dev_sign_in, promote
from web.devtools.local_payments.engine import LocalProvider

ADVERTISER_EMAIL = "demo-advertiser@example.jp"
ADMIN_EMAIL = "demo-admin@example.jp"
ADVERTISER_NAME = "ラーメン探訪"
SLOTS = ("search-result-bottom", "video-detail-below-player")
COUNTRY = "JP"
HISTORY_DAYS = 14
DEMO_NAMESPACE = uuid.UUID("0b6f3c1e-5d2a-4c53-9a53-2f0c1d7e9a10")
BROWSER = "Mozilla/5.0 (X11; Linux x86_64) demo"
PROFILE = ProfileFields(
    business_legal_name="株式会社ラーメン探訪",
    business_address="東京都千代田区丸の内1-1-1",
    contact_name="山田太郎",
    contact_email=ADVERTISER_EMAIL,
    business_category="food_beverage",
)


@dataclass(frozen=True)
class DemoData:
    advertiser: User
    admin: User
    reservations: list[AdReservation]
    created: list[str]  # slots given a new reservation by this run


def demo_image() -> bytes:
    """A 1280x720 banner drawn with Pillow: a warm gradient, a bowl, a caption."""
    width, height = 1280, 720
    image = Image.linear_gradient("L").resize((width, height)).convert("RGB")
    image = Image.merge(
        "RGB",
        (
            image.getchannel(0).point(lambda v: 200 + v // 5),
            image.getchannel(0).point(lambda v: 90 + v // 3),
            image.getchannel(0).point(lambda v: 40 + v // 6),
        ),
    )
    draw = ImageDraw.Draw(image)
    draw.ellipse((440, 300, 840, 620), fill=(250, 245, 235), outline=(120, 60, 20), width=12)
    draw.rectangle((440, 300, 840, 460), fill=image.getpixel((10, 10)))
    draw.line((560, 140, 700, 420), fill=(90, 50, 20), width=14)
    draw.line((620, 130, 730, 420), fill=(90, 50, 20), width=14)
    font = ImageFont.load_default(size=72)
    draw.text((640, 80), "RAMEN TANBO", fill=(255, 255, 255), font=font, anchor="mm")
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def _event_id(*parts: object) -> str:
    return str(uuid.uuid5(DEMO_NAMESPACE, "/".join(str(part) for part in parts)))


def _held_this_month(user_id: str, slot: str, month: str) -> AdReservation | None:
    found: AdReservation | None = (
        AdReservation.select()
        .where(
            (AdReservation.user == user_id)
            & (AdReservation.slot == slot)
            & (AdReservation.country == COUNTRY)
            & (AdReservation.start_month <= month)
            & (AdReservation.end_month >= month)
        )
        .order_by(AdReservation.created_at)
        .first()
    )
    return found


def _buy(
    user_id: str, slot: str, image_url: str, month: str, pages: AdPages, provider: LocalProvider
) -> AdReservation:
    """Reserve the slot for this month as a purchase placed last month would have (a
    purchase starts next month at the earliest), pay it and approve it."""
    placed_at = datetime.combine(first_day(add_months(month, -1)), time(12), tzinfo=utcnow().tzinfo)
    profile_id = (
        AdReservation.select(AdReservation.advertiser_profile)
        .where(AdReservation.user == user_id)
        .scalar()
    )
    order = Order(
        slot=slot,
        country=COUNTRY,
        start_month=month,
        months=1,
        advertiser_name=ADVERTISER_NAME,
        image_url=image_url,
        redirect_url="https://example.jp/ramen",
        consent=True,
        profile_id=profile_id,
        profile=None if profile_id else PROFILE,
    )
    reservation = reserve(user_id, order, pages, now=placed_at).reservation
    # The buyer pays at the local provider's checkout, as they would have then; the
    # payment is recorded as the provider's webhook records it.
    session_id = AdCheckout.get(AdCheckout.ad_reservation == reservation.id).checkout_session_id
    provider.complete(session_id, now=int(placed_at.timestamp()))
    intent_id = provider.checkout(session_id).payment_intent_id
    if intent_id is None:
        raise RuntimeError(f"the local checkout {session_id} left no payment intent")
    mark_paid(reservation.id, intent_id)
    return approve(reservation.id)


def _counted(reservation_id: str, day: str) -> bool:
    return bool(
        AdImpressionDaily.select()
        .where(
            (AdImpressionDaily.ad_reservation == reservation_id) & (AdImpressionDaily.date == day)
        )
        .exists()
    )


def _history(reservation: AdReservation, now: datetime) -> None:
    """A few impressions and clicks a day from the start of the month (at most the last
    HISTORY_DAYS days) to today, the same every run."""
    start = max(first_day(month_of(now)), now.date() - timedelta(days=HISTORY_DAYS - 1))
    day = start
    while day <= now.date():
        seed = day.toordinal() + reservation.position
        impressions = 12 + seed * 7 % 17
        clicks = seed % 4
        moment = datetime.combine(day, time(9), tzinfo=now.tzinfo)
        moment = min(moment, now)
        at = iso(moment)
        if _counted(reservation.id, day.isoformat()):
            day += timedelta(days=1)
            continue  # impression events are pruned after a while: a day is done once
        for number in range(impressions):
            event = _event_id("impression", reservation.id, day.isoformat(), number)
            record_impression(event, reservation.id, day.isoformat(), COUNTRY, at)
        for number in range(clicks):
            # One render per click: a view token's later clicks are repeats, not counted.
            rendered = _event_id("render", reservation.id, day.isoformat(), number)
            render = uuid.UUID(rendered).bytes[:12]
            token = view_tokens.make(reservation.id, reservation.position, render, moment)
            click = _event_id("click", reservation.id, day.isoformat(), number)
            record_click(Click(click, reservation.id, COUNTRY, BROWSER, at, view_token=token))
        day += timedelta(days=1)


def load_demo(pages: AdPages, now: datetime | None = None) -> DemoData:
    """Create (or find) the demo accounts, the demo ad on each of SLOTS this month and
    its history. A slot whose four positions are all sold this month is skipped."""
    now = now or utcnow()
    month = month_of(now)
    advertiser = dev_sign_in(ADVERTISER_EMAIL, "デモ広告主")
    dev_sign_in(ADMIN_EMAIL, "デモ管理者")
    admin = promote(ADMIN_EMAIL)
    reservations: list[AdReservation] = []
    created: list[str] = []
    image_url: str | None = None
    # Paying is shown with the local provider only: never a real charge.
    provider = get_provider()
    for slot in SLOTS:
        held = _held_this_month(advertiser.id, slot, month)
        if held is None and isinstance(provider, LocalProvider):
            image_url = image_url or store_ad_image(advertiser.id, demo_image()).url
            try:
                held = _buy(advertiser.id, slot, image_url, month, pages, provider)
            except SlotFull:
                continue
            created.append(slot)
        if held is None:
            continue
        reservations.append(held)
        if held.status == "active":
            _history(held, now)
    return DemoData(advertiser, admin, reservations, created)
