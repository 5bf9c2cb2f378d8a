"""Rows for tests, with sensible defaults; pass keywords to override."""

from __future__ import annotations

import io
import itertools
import re
import uuid

from PIL import Image

from models.ads.images import store_ad_image
from models.ads.months import add_months, month_of
from models.ads.reservations import Order, approve
from models.clock import utcnow
from models.settings import load_settings
from models.tables import (
    AdReservation,
    AdvertiserProfile,
    Channel,
    Session,
    Subscription,
    User,
    Video,
)
from models.users import create_user
from web.app import create_app

_seq = itertools.count(1)


def make_user(**overrides) -> User:
    n = next(_seq)
    user = create_user(
        email=overrides.pop("email", f"user{n}@example.com"),
        name=overrides.pop("name", f"ユーザー{n}"),
        verified=True,
    )
    if overrides:
        User.update(**overrides).where(User.id == user.id).execute()
        user = User.get_by_id(user.id)
    return user


def make_admin(**overrides) -> User:
    return make_user(role="admin", **overrides)


def make_channel(**overrides) -> Channel:
    n = next(_seq)
    values = {"id": f"UC{n:022d}", "title": f"チャンネル{n}"}
    values.update(overrides)
    return Channel.create(**values)


def make_video(channel=None, **overrides) -> Video:
    n = next(_seq)
    values = {
        "id": f"v{n:010d}",
        "channel": channel or make_channel(),
        "title": f"動画{n}",
        "duration_seconds": 600,
        "published_at": "2026-01-01T00:00:00.000Z",
        "subtitle_status": "completed",  # fetched: what can be read and unlocked
    }
    values.update(overrides)
    return Video.create(**values)


def make_subscription(user, plan="plus", status="active", **overrides) -> Subscription:
    values = {
        "id": str(uuid.uuid4()),
        "plan": plan,
        "reference_id": user.id,
        "status": status,
        "payment_subscription_id": f"sub_{uuid.uuid4().hex[:14]}",
    }
    values.update(overrides)
    return Subscription.create(**values)


def sign_in(client, user_or_email, name="テスト") -> dict:
    """Sign the test client in through the dev login; returns the /api/me body."""
    email = user_or_email if isinstance(user_or_email, str) else user_or_email.email
    response = client.post("/auth/dev-login", json={"email": email, "name": name})
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_json()


def csrf_token(client, site: str = "") -> str:
    """The CSRF token a page gives the signed-in client (its <meta name="csrf-token">),
    for the API calls that are not JSON (the image upload); "" when signed out. `client`
    is a Flask test client, or a requests.Session with the `site` it talks to."""
    answer = client.get(f"{site}/", **({"timeout": 5} if site else {}))
    page = answer.text if site else answer.get_data(as_text=True)
    found = re.search(r'<meta name="csrf-token" content="([^"]+)">', page)
    return found.group(1) if found else ""


def session_count(user) -> int:
    return Session.select().where(Session.user == user.id).count()


def make_profile(user=None, **overrides) -> AdvertiserProfile:
    values = {
        "id": str(uuid.uuid4()),
        "user": user or make_user(),
        "business_legal_name": "株式会社テスト",
        "business_address": "東京都千代田区1-1",
        "contact_name": "山田太郎",
        "contact_email": "ads@example.jp",
        "business_category": "it_saas",
    }
    values.update(overrides)
    return AdvertiserProfile.create(**values)


def make_reservation(user=None, profile=None, **overrides) -> AdReservation:
    user = user or make_user()
    profile = profile or make_profile(user)
    values = {
        "id": str(uuid.uuid4()),
        "user": user,
        "slot": "search-result-bottom",
        "position": 1,
        "country": "JP",
        "start_month": "2027-01",
        "end_month": "2027-01",
        "advertiser_name": "テスト広告主",
        "image_url": "/uploads/test.png",
        "redirect_url": "https://example.jp/",
        "advertiser_profile": profile,
        "business_legal_name": profile.business_legal_name,
        "business_address": profile.business_address,
        "contact_name": profile.contact_name,
        "contact_email": profile.contact_email,
        "business_category": profile.business_category,
    }
    values.update(overrides)
    return AdReservation.create(**values)


def make_live_ad(**overrides) -> AdReservation:
    """A reservation paid for and approved, live this month below the player (each
    field overridable), as the front serves it."""
    month = month_of(utcnow())
    values = {
        "slot": "video-detail-below-player",
        "start_month": month,
        "end_month": month,
        "payment_intent_id": "pi",
    }
    reservation = make_reservation(**{**values, **overrides})
    approve(reservation.id)
    return reservation


def image_bytes(width=1280, height=720, fmt="PNG") -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (30, 120, 200)).save(out, fmt)
    return out.getvalue()


def make_upload(user, width=1280, height=720) -> str:
    """The URL of an ad image the user uploaded."""
    return store_ad_image(user.id, image_bytes(width, height)).url


def make_order(user, profile=None, **overrides) -> Order:
    """A purchase form as a buyer sends it (models.ads.reservations.Order): one month
    from next month below the search results in Japan, with an upload of the buyer's
    (each field overridable)."""
    values = {
        "slot": "search-result-bottom",
        "country": "JP",
        "start_month": add_months(month_of(utcnow()), 1),
        "months": 1,
        "advertiser_name": "山田商店",
        "redirect_url": "https://example.jp/shop",
        "consent": True,
    }
    values.update(overrides)
    if "image_url" not in values:
        values["image_url"] = make_upload(user)
    if "profile_id" not in values:
        values["profile_id"] = (profile or make_profile(user)).id
    return Order(**values)


def production_app():
    """The app as production builds it (secure cookies, no dev login, HSTS), on the
    test database."""
    settings = load_settings(
        {
            "APP_ENV": "production",
            "SECRET_KEY": "prod-secret",
            "PAYMENT_BACKEND": "stripe",
            "DATABASE_URL": load_settings(read_dotenv=False).database_url,
            "QUEUE_BROKER": "redis",
            "PUBLIC_BASE_URL": "https://subsearch.example",
            "SUPPORT_EMAIL": "support@subsearch.example",
            "INVOICE_ISSUER_NAME": "subsearch 株式会社",
            "INVOICE_ISSUER_ADDRESS": "東京都千代田区千代田1-1",
            "INVOICE_REGISTRATION_NUMBER": "T1234567890123",
        },
        read_dotenv=False,
    )
    return create_app(settings)


def make_alert(user=None, **overrides):
    """An alert row as models.alerts would make it (instant, a keyword query)."""
    from models.tables import Alert  # noqa: PLC0415  # kept beside the factory added late

    values = {
        "id": str(uuid.uuid4()),
        "user": user or make_user(),
        "query": "たこ焼き",
        "sr": 0.5,
        "frequency": "instant",
        "feed_token": uuid.uuid4().hex,
        "unsubscribe_token": uuid.uuid4().hex,
    }
    values.update(overrides)
    return Alert.create(**values)


def make_alert_match(alert, video=None, **overrides):
    """A video the alert heard of, unmailed."""
    from models.tables import AlertMatch  # noqa: PLC0415  # kept beside the factory added late

    video = video or make_video()
    values = {
        "alert": alert,
        "video_id": video.id,
        "start_seconds": 83.5,
        "end_seconds": 90.0,
        "highlight": "大阪の<mark>たこ焼き</mark>は&lt;熱い&gt;",
    }
    values.update(overrides)
    return AlertMatch.create(**values)
